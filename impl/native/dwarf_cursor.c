/*
 * dwarf_cursor.c - bounded reads of DWARF data (see dwarf_cursor.h).
 */
#include "impl/native/dwarf_cursor.h"

#include <string.h>

/* N. */
struct asgst_dw_cursor asgst__dw_cursor(const void *p, const void *end, const void *lo,
                                        const void *hi) {
  struct asgst_dw_cursor c = {.p = p, .end = end, .region_lo = lo, .region_hi = hi};
  if (c.p > c.end) c.bad = true;
  return c;
}

/* N. Copies n bytes out, or marks the cursor bad if fewer remain. */
static bool take(struct asgst_dw_cursor *c, void *out, size_t n) {
  if (c->bad || (size_t)(c->end - c->p) < n) {
    c->bad = true;
    memset(out, 0, n);
    return false;
  }
  memcpy(out, c->p, n); /* memcpy: DWARF fields are not aligned */
  c->p += n;
  return true;
}

/* N. */
uint8_t asgst__dw_u8(struct asgst_dw_cursor *c) {
  uint8_t v;
  take(c, &v, sizeof v);
  return v;
}

/* N. */
uint16_t asgst__dw_u16(struct asgst_dw_cursor *c) {
  uint16_t v;
  take(c, &v, sizeof v);
  return v;
}

/* N. */
uint32_t asgst__dw_u32(struct asgst_dw_cursor *c) {
  uint32_t v;
  take(c, &v, sizeof v);
  return v;
}

/* N. */
uint64_t asgst__dw_u64(struct asgst_dw_cursor *c) {
  uint64_t v;
  take(c, &v, sizeof v);
  return v;
}

/* N. Reads the 7-bit groups of a LEB128; *shift_out is the number of value bits read and
 * *last the final byte (its bit 6 is the sign of an SLEB128). */
static uint64_t leb(struct asgst_dw_cursor *c, unsigned *shift_out, uint8_t *last) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b;
  do {
    b = asgst__dw_u8(c);
    if (c->bad || shift >= 64) {
      c->bad = true;
      return 0;
    }
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  *shift_out = shift;
  *last = b;
  return v;
}

/* N. */
uint64_t asgst__dw_uleb(struct asgst_dw_cursor *c) {
  unsigned shift;
  uint8_t last;
  return leb(c, &shift, &last);
}

/* N. */
int64_t asgst__dw_sleb(struct asgst_dw_cursor *c) {
  unsigned shift = 0;
  uint8_t last = 0;
  uint64_t v = leb(c, &shift, &last);
  if (shift < 64 && (last & 0x40)) v |= ~(uint64_t)0 << shift; /* sign-extend */
  return (int64_t)v;
}

/* N. */
void asgst__dw_skip(struct asgst_dw_cursor *c, uint64_t n) {
  if (c->bad || (uint64_t)(c->end - c->p) < n) {
    c->bad = true;
    return;
  }
  c->p += n;
}

/* N. The value of the low four bits of `enc` (the data format), before any base. */
static uintptr_t pointer_value(struct asgst_dw_cursor *c, uint8_t format) {
  switch (format) {
  case ASGST_PE_ABSPTR: return (uintptr_t)asgst__dw_u64(c);
  case ASGST_PE_ULEB128: return (uintptr_t)asgst__dw_uleb(c);
  case ASGST_PE_UDATA2: return asgst__dw_u16(c);
  case ASGST_PE_UDATA4: return asgst__dw_u32(c);
  case ASGST_PE_UDATA8: return (uintptr_t)asgst__dw_u64(c);
  case ASGST_PE_SLEB128: return (uintptr_t)asgst__dw_sleb(c);
  case ASGST_PE_SDATA2: return (uintptr_t)(intptr_t)(int16_t)asgst__dw_u16(c);
  case ASGST_PE_SDATA4: return (uintptr_t)(intptr_t)(int32_t)asgst__dw_u32(c);
  case ASGST_PE_SDATA8: return (uintptr_t)asgst__dw_u64(c);
  default: c->bad = true; return 0;
  }
}

/* N. */
uintptr_t asgst__dw_pointer(struct asgst_dw_cursor *c, uint8_t enc) {
  uintptr_t field = (uintptr_t)c->p;
  uintptr_t v = pointer_value(c, enc & 0x0f);
  switch (enc & 0x70) {
  case 0: break;
  case ASGST_PE_PCREL: v += field; break;
  case ASGST_PE_DATAREL: v += c->datarel_base; break;
  default: c->bad = true; return 0; /* textrel, funcrel, aligned: not in x86_64 output */
  }
  if (!(enc & ASGST_PE_INDIRECT) || c->bad) return v;
  if (v < (uintptr_t)c->region_lo || v > (uintptr_t)c->region_hi - sizeof(uintptr_t)) {
    c->bad = true;
    return 0;
  }
  uintptr_t target;
  memcpy(&target, (const void *)v, sizeof target);
  return target;
}
