/*
 * eh_frame.c - enumerating the FDEs of .eh_frame (see eh_frame.h).
 */
#include "impl/native/eh_frame.h"

#include "impl/native/dwarf_cursor.h"

/* N. */
int asgst__cfi_eh_frame_rows(const void *data, size_t size, uintptr_t base,
                             struct asgst_cfi_rowvec *rv) {
  struct asgst_cfi_source src = {.lo = data, .hi = (const uint8_t *)data + size, .base = base};
  return asgst__cfi_section_rows(&src, rv);
}

/* N. */
int asgst__cfi_eh_frame_hdr_rows(const struct asgst_cfi_source *src, const uint8_t *hdr,
                                 struct asgst_cfi_rowvec *rv) {
  struct asgst_dw_cursor c = asgst__dw_cursor(hdr, src->hi, src->lo, src->hi);
  c.datarel_base = (uintptr_t)hdr; /* the table's "datarel" is relative to the header */
  uint8_t version = asgst__dw_u8(&c);
  uint8_t frame_enc = asgst__dw_u8(&c), count_enc = asgst__dw_u8(&c);
  uint8_t table_enc = asgst__dw_u8(&c);
  if (c.bad || version != 1 || frame_enc == ASGST_PE_OMIT) return -1;
  asgst__dw_pointer(&c, frame_enc); /* .eh_frame's start: the table names each FDE */
  if (count_enc == ASGST_PE_OMIT || table_enc == ASGST_PE_OMIT) return -1;
  uintptr_t count = asgst__dw_pointer(&c, count_enc);
  if (c.bad) return -1;
  int skipped = 0;
  for (uintptr_t i = 0; i < count && !c.bad; i++) {
    asgst__dw_pointer(&c, table_enc); /* the function's start, repeated in the FDE */
    uintptr_t fde = asgst__dw_pointer(&c, table_enc);
    const uint8_t *next;
    if (c.bad) return -1;
    if (fde < (uintptr_t)src->lo || fde >= (uintptr_t)src->hi ||
        asgst__cfi_fde_rows(src, (const uint8_t *)fde, &next, rv) != 0)
      skipped++;
  }
  return skipped;
}
