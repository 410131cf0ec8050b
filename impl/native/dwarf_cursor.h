/*
 * dwarf_cursor.h - bounded reads of DWARF data: fixed-size integers, LEB128 and the
 * DW_EH_PE_* pointer encodings of .eh_frame. A read past the cursor's end, or of a
 * malformed value, sets `bad` and yields 0, so parsers check once per record instead of
 * after every field. All N (table building only), though nothing here allocates.
 */
#ifndef ASGST_NATIVE_DWARF_CURSOR_H
#define ASGST_NATIVE_DWARF_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

struct asgst_dw_cursor {
  const uint8_t *p, *end;
  /* Where DW_EH_PE_indirect may read a pointer, and the base of DW_EH_PE_datarel. */
  const uint8_t *region_lo, *region_hi;
  uintptr_t datarel_base;
  bool bad;
};

/* DW_EH_PE_* values the decoder knows. */
enum {
  ASGST_PE_OMIT = 0xff,
  ASGST_PE_ABSPTR = 0x00,
  ASGST_PE_ULEB128 = 0x01,
  ASGST_PE_UDATA2 = 0x02,
  ASGST_PE_UDATA4 = 0x03,
  ASGST_PE_UDATA8 = 0x04,
  ASGST_PE_SLEB128 = 0x09,
  ASGST_PE_SDATA2 = 0x0a,
  ASGST_PE_SDATA4 = 0x0b,
  ASGST_PE_SDATA8 = 0x0c,
  ASGST_PE_PCREL = 0x10,
  ASGST_PE_DATAREL = 0x30,
  ASGST_PE_INDIRECT = 0x80,
};

/* N. A cursor over [p, end) that may dereference pointers inside [lo, hi). */
struct asgst_dw_cursor asgst__dw_cursor(const void *p, const void *end, const void *lo,
                                        const void *hi);

/* N. Fixed-size little-endian (host order) reads. */
uint8_t asgst__dw_u8(struct asgst_dw_cursor *c);
uint16_t asgst__dw_u16(struct asgst_dw_cursor *c);
uint32_t asgst__dw_u32(struct asgst_dw_cursor *c);
uint64_t asgst__dw_u64(struct asgst_dw_cursor *c);

/* N. LEB128 (at most 10 bytes; longer is malformed). */
uint64_t asgst__dw_uleb(struct asgst_dw_cursor *c);
int64_t asgst__dw_sleb(struct asgst_dw_cursor *c);

/* N. Advances n bytes. */
void asgst__dw_skip(struct asgst_dw_cursor *c, uint64_t n);

/* N. A pointer in encoding `enc` (DW_EH_PE_*), with pcrel/datarel applied and, with
 * DW_EH_PE_indirect, the pointer it names read (only inside the cursor's region). */
uintptr_t asgst__dw_pointer(struct asgst_dw_cursor *c, uint8_t enc);

#endif
