/*
 * scopes.c - the debug information of a compiled method: which Java methods (inlined
 * into each other) and bcis a pc of an nmethod stands for.
 *
 * An nmethod keeps a sorted array of PcDescs {pc_offset (from code begin),
 * scope_decode_offset, obj_decode_offset, flags}, starting and ending with sentinels. A
 * scope is a record in the scopes data stream: sender scope offset (0 = outermost),
 * method (1-based index into the nmethod's metadata array), bci + 1, then offsets of
 * locals/expressions/monitors we do not need. Integers are in the VM's compressed form
 * (asgst__vm_read_uint: the coding depends on the JDK).
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "../../safe_read.h"
#include "scopes.h"
#include "../model/vm_model.h"

/* SS. Index of the first PcDesc in [lo, hi) whose pc_offset is >= target (hi if none).
 * The array is cold on a first walk through a new nmethod, so each probe is a miss that
 * the next depends on; prefetching both possible next probes while this one loads halves
 * the serial misses of the search (a prefetch never faults, whatever the address). */
ASGST__HOT static long lower_bound(uintptr_t base, long lo, long hi, int32_t target) {
  const long sz = asgst__vm.pcdesc_size, po = asgst__vm.pcdesc_pc_offset;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    __builtin_prefetch((const void *)(base + (lo + (mid - lo) / 2) * sz + po));
    __builtin_prefetch((const void *)(base + (mid + 1 + (hi - mid - 1) / 2) * sz + po));
    uint32_t v;
    if (!asgst__load_u32(base + mid * sz + po, &v)) return -1;
    if ((int32_t)v < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* SS. The scope decode offset of the PcDesc chosen for pc under `mode`; 0 if there is no
 * debug information there, -1 on a bad read. *at_pc: whether a PcDesc lies at exactly pc
 * (left alone on a bad read before that is known). */
ASGST__HOT static long find_scope(uintptr_t nm, uintptr_t pc, int mode, bool *at_pc) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t code, base, end;
  if (!asgst__vm_code_begin(nm, &code) || !asgst__vm_nm_pcs(nm, &base, &end)) return -1;
  if (pc < code) return -1;
  long n = (long)(end - base) / model->pcdesc_size;
  if (n < 2 || pc - code > 0x7fffffff) return -1;
  int32_t off = (int32_t)(pc - code);
  /* Entry 0 is the lower sentinel (offset -1); the upper sentinel stays in the range: a
   * pc beyond the last real PcDesc finds it, and it carries no scope. */
  long i = lower_bound(base, 1, n, off);
  if (i < 0) return -1;
  uint32_t v = 0;
  if (i < n && !asgst__load_u32(base + i * model->pcdesc_size + model->pcdesc_pc_offset, &v)) return -1;
  bool exact = i < n && (int32_t)v == off;
  *at_pc = exact;
  if (mode == ASGST__PC_NEAR || (mode == ASGST__PC_ANCHOR && !exact)) {
    /* The first PcDesc strictly after pc; if that carries no scope (pc is past the last
     * one, e.g. just back from the method's last call), the one at exactly pc, which
     * describes the state after the instruction ending there (AsyncGetCallTrace ends up
     * with the same one through its exact lookup). */
    if (exact) {
      uint32_t after = 0, here;
      if (i + 1 < n && !asgst__load_u32(base + (i + 1) * model->pcdesc_size + model->pcdesc_scope_offset, &after))
        return -1;
      if (!asgst__load_u32(base + i * model->pcdesc_size + model->pcdesc_scope_offset, &here)) return -1;
      if (after != 0 || here == 0) i++;
    }
  } else if (!exact) {
    return 0;
  } else if (mode == ASGST__PC_ANCHOR) {
    uint32_t s;
    if (!asgst__load_u32(base + i * model->pcdesc_size + model->pcdesc_scope_offset, &s)) return -1;
    if (s == 0) i++; /* no scope at exactly pc: AsyncGetCallTrace looks after it */
  }
  if (i >= n) return 0;
  uint32_t scope;
  if (!asgst__load_u32(base + i * model->pcdesc_size + model->pcdesc_scope_offset, &scope)) return -1;
  return (long)scope;
}

/* SS. asgst__hs_scopes_at, inlined into both entry points: the walk's ordinary lookup
 * keeps its single call. */
static inline __attribute__((always_inline)) int scopes(uintptr_t nm, uintptr_t pc, int mode,
                                                        ASGST_Frame *out, int max, bool *at_pc) {
  *at_pc = true;
  long scope = find_scope(nm, pc, mode, at_pc);
  if (scope < 0) return ASGST_BAD_FRAME;
  if (scope == 0) return 0;
  uintptr_t data, meta;
  uint32_t nmeta;
  if (!asgst__vm_nm_scopes(nm, &data, &meta, &nmeta)) return ASGST_BAD_FRAME;
  int count = 0;
  while (scope != 0) {
    if (count >= max) return max < ASGST__MAX_FRAMES_PER_PHYS ? ASGST__NO_ROOM : ASGST_BAD_FRAME;
    uintptr_t p = data + (uintptr_t)scope;
    uint32_t sender, midx, bci1;
    /* A record is a few bytes; the bound only keeps a torn stream from running on. */
    uintptr_t end = p + 16;
    if (!asgst__vm_read_uint(&p, end, &sender) || !asgst__vm_read_uint(&p, end, &midx) ||
        !asgst__vm_read_uint(&p, end, &bci1))
      return ASGST_BAD_FRAME;
    if (midx == 0 || midx > nmeta) return ASGST_BAD_FRAME;
    uintptr_t method;
    if (!asgst__load_ptr(meta + 8 * (uintptr_t)(midx - 1), &method) || method == 0)
      return ASGST_BAD_FRAME;
    ASGST_Frame *f = &out[count++];
    f->type = ASGST_FRAME_JAVA_INLINED;
    f->bci = (int)bci1 - 1;
    f->method = (ASGST_Method)method;
    /* The chain points outward; a sender at or after this record would loop. */
    if (sender != 0 && (long)sender >= scope) return ASGST_BAD_FRAME;
    scope = (long)sender;
  }
  if (count > 0) out[count - 1].type = ASGST_FRAME_JAVA;
  return count;
}

/* SS. */
ASGST__HOT int asgst__hs_scopes(uintptr_t nm, uintptr_t pc, int mode, ASGST_Frame *out, int max) {
  bool at_pc;
  return scopes(nm, pc, mode, out, max, &at_pc);
}

/* SS. */
ASGST__HOT int asgst__hs_scopes_at(uintptr_t nm, uintptr_t pc, int mode, ASGST_Frame *out, int max, bool *at_pc) {
  return scopes(nm, pc, mode, out, max, at_pc);
}
