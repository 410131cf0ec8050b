/*
 * line_table.c - decodes a method's compressed line number table (SS, under the caller's
 * guard).
 *
 * HotSpot stores the LineNumberTable attribute right after the bytecodes, at
 * ConstMethod + sizeof(ConstMethod) + code_size, when the ConstMethod flags have the
 * has-linenumber-table bit. The stream is a sequence of (bci, line) deltas from (0, 0):
 *   0x00               end of table
 *   0xFF, int, int     escape: signed deltas of bci and line, each a variable-length
 *                      integer (zigzag sign coding)
 *   any other byte b   bci += b >> 3, line += b & 7
 * The variable-length integers are the VM's compressed stream integers
 * (asgst__vm_read_uint in vm_model.h). Entries come in class-file order, as JVMTI reports them.
 */
#include "metadata.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"

#include "../../safe_read.h"


typedef struct {
  uintptr_t pos;
  uintptr_t end; /* first address after the ConstMethod: the stream never crosses it */
  bool bad;
} stream;

/* SS. */
static uint32_t next_byte(stream *s) {
  uint8_t b = 0;
  if (s->pos >= s->end || !asgst__load_u8(s->pos, &b)) {
    s->bad = true;
    return 0;
  }
  s->pos++;
  return b;
}

/* SS. One unsigned variable-length integer (the model's stream coding). */
static uint32_t read_uint(stream *s) {
  uint32_t v = 0;
  if (s->bad || !asgst__vm_read_uint(&s->pos, s->end, &v)) s->bad = true;
  return v;
}

/* SS. */
static int32_t read_sint(stream *s) {
  uint32_t v = read_uint(s);
  return (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
}

/* SS. */
int asgst__hs_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e, int length) {
  uintptr_t cm = 0;
  if (((uintptr_t)m & 7) || !asgst__load_ptr((uintptr_t)m + (uintptr_t)asgst__vm.method_const, &cm) ||
      (cm & 7))
    return 0;
  uint32_t flags = (uint32_t)asgst__hs_field(cm, asgst__vm.cm_flags, asgst__vm.cm_flags_w);
  if ((flags & asgst__vm.cm_has_lines) == 0) return 0;
  uint32_t code = (uint32_t)asgst__hs_field(cm, asgst__vm.cm_code_size, 2);
  int32_t words = (int32_t)asgst__hs_field(cm, asgst__vm.cm_size, 4);
  if (words <= 0 || words > (1 << 20)) return 0;
  stream s = {cm + (uintptr_t)asgst__vm.cm_sizeof + code, cm + (uintptr_t)words * 8, false};
  int32_t bci = 0, line = 0;
  int n = 0;
  for (;;) {
    uint32_t b = next_byte(&s);
    if (s.bad) return 0;
    if (b == 0) break;
    if (b == 0xFF) {
      bci += read_sint(&s);
      line += read_sint(&s);
      if (s.bad) return 0;
    } else {
      bci += (int32_t)(b >> 3);
      line += (int32_t)(b & 7);
    }
    /* A class file's lines are u2 and its bcis start at 0: anything else is not a line
     * table (a stale or foreign Method*, read under the guard), and gives no table rather
     * than a line the API never answers (below -1). */
    if (bci < 0 || line < 0 || line > 0xFFFF) return 0;
    if (n >= offset && n - offset < length && e != NULL) {
      e[n - offset].start_bci = bci;
      e[n - offset].line_number = line;
    }
    n++;
  }
  return n;
}
