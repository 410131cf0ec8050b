/*
 * cfi_records.c - parsing CIE and FDE records (see cfi_records.h). Facts from the DWARF 4
 * standard (section 6.4.1) and the LSB's description of .eh_frame.
 */
#include "impl/native/cfi_records.h"

#include <string.h>

#include "impl/native/cfa_program.h"
#include "impl/native/dwarf_cursor.h"

/* N. The id that marks a CIE: 0 in .eh_frame, all ones in (32-bit) .debug_frame. */
static uint32_t cie_id(const struct asgst_cfi_source *src) {
  return src->debug_frame ? 0xffffffffu : 0;
}

/* N. Reads an entry's length; *id_at is where the CIE id / CIE pointer field starts and
 * *entry_end the entry's end. false when truncated; a zero length (terminator) leaves
 * *entry_end NULL. */
static bool entry_bounds(const struct asgst_cfi_source *src, const uint8_t *at,
                         const uint8_t **id_at, const uint8_t **entry_end) {
  struct asgst_dw_cursor c = asgst__dw_cursor(at, src->hi, src->lo, src->hi);
  uint64_t len = asgst__dw_u32(&c);
  if (len == 0xffffffffu) len = asgst__dw_u64(&c); /* 64-bit DWARF */
  if (c.bad) return false;
  *id_at = c.p;
  if (len == 0) {
    *entry_end = NULL;
    return true;
  }
  if (len > (uint64_t)(src->hi - c.p)) return false;
  *entry_end = c.p + len;
  return true;
}

/* N. Reads the augmentation data the string `aug` announces. */
static bool cie_augmentation(struct asgst_dw_cursor *c, const char *aug,
                             struct asgst_cie *cie) {
  if (aug[0] != 'z') return aug[0] == 0; /* without 'z' nothing else can be skipped */
  cie->has_aug_data = true;
  uint64_t len = asgst__dw_uleb(c);
  if (c->bad || len > (uint64_t)(c->end - c->p)) return false;
  const uint8_t *data_end = c->p + len;
  for (const char *a = aug + 1; *a && !c->bad; a++) {
    if (*a == 'R') {
      cie->fde_enc = asgst__dw_u8(c);
    } else if (*a == 'P') {
      uint8_t enc = asgst__dw_u8(c);
      asgst__dw_pointer(c, enc & (uint8_t)~ASGST_PE_INDIRECT); /* skip the personality */
    } else if (*a == 'L') {
      asgst__dw_u8(c);
    } else if (*a == 'S') {
      cie->signal_frame = true;
    } else if (*a != 'B' && *a != 'G') {
      break; /* unknown letter: the length still lets us skip the rest */
    }
  }
  c->p = data_end;
  return !c->bad;
}

/* N. Parses the CIE at `at`. */
static bool parse_cie(const struct asgst_cfi_source *src, const uint8_t *at,
                      struct asgst_cie *cie) {
  const uint8_t *id_at, *end;
  if (!entry_bounds(src, at, &id_at, &end) || !end) return false;
  struct asgst_dw_cursor c = asgst__dw_cursor(id_at, end, src->lo, src->hi);
  memset(cie, 0, sizeof *cie);
  if (asgst__dw_u32(&c) != cie_id(src)) return false;
  uint8_t version = asgst__dw_u8(&c);
  const char *aug = (const char *)c.p;
  size_t aug_len = strnlen(aug, (size_t)(c.end - c.p));
  if (c.bad || aug_len == (size_t)(c.end - c.p) || version < 1 || version > 4) return false;
  asgst__dw_skip(&c, aug_len + 1);
  if (strstr(aug, "eh")) asgst__dw_skip(&c, sizeof(uintptr_t)); /* old GCC eh_ptr */
  if (version == 4 && (asgst__dw_u8(&c) != sizeof(uintptr_t) || asgst__dw_u8(&c) != 0))
    return false; /* DWARF 5 .debug_frame: address size, no segment selector */
  cie->code_align = asgst__dw_uleb(&c);
  cie->data_align = asgst__dw_sleb(&c);
  cie->ra_reg = version == 1 ? asgst__dw_u8(&c) : asgst__dw_uleb(&c);
  if (!cie_augmentation(&c, aug, cie)) return false;
  cie->insns = c.p;
  cie->insns_end = end;
  return !c.bad;
}

/* N. The CIE an FDE's pointer field (at id_at, holding ptr) names, NULL if outside. */
static const uint8_t *cie_of(const struct asgst_cfi_source *src, const uint8_t *id_at,
                             uint32_t ptr) {
  if (src->debug_frame) /* an offset from the section's start */
    return ptr < (uintptr_t)(src->hi - src->debug_frame) ? src->debug_frame + ptr : NULL;
  /* .eh_frame: counts back from the field itself */
  return ptr <= (uintptr_t)(id_at - src->lo) ? id_at - ptr : NULL;
}

/* N. */
int asgst__cfi_fde_rows(const struct asgst_cfi_source *src, const uint8_t *fde,
                        const uint8_t **next, struct asgst_cfi_rowvec *rv) {
  const uint8_t *id_at, *end;
  if (!entry_bounds(src, fde, &id_at, &end)) return -1;
  *next = end;
  if (!end) return 0;
  if (src->debug_frame && id_at - fde > 4) return -1; /* 64-bit .debug_frame: 8-byte ids */
  struct asgst_dw_cursor c = asgst__dw_cursor(id_at, end, src->lo, src->hi);
  uint32_t ptr = asgst__dw_u32(&c);
  if (c.bad) return -1;
  if (ptr == cie_id(src)) return 0; /* a CIE */
  const uint8_t *cie_at = cie_of(src, id_at, ptr);
  struct asgst_cie cie;
  if (!cie_at || !parse_cie(src, cie_at, &cie)) return -1;
  struct asgst_fde f = {.base = src->base, .lo = src->lo, .hi = src->hi};
  f.begin = asgst__dw_pointer(&c, cie.fde_enc);
  f.range = asgst__dw_pointer(&c, cie.fde_enc & 0x0f);
  if (cie.has_aug_data) asgst__dw_skip(&c, asgst__dw_uleb(&c));
  if (c.bad) return -1;
  if (f.range == 0) return 0;
  f.insns = c.p;
  f.end = c.end;
  return asgst__cfa_fde_rows(&cie, &f, rv);
}

/* N. */
int asgst__cfi_section_rows(const struct asgst_cfi_source *src, struct asgst_cfi_rowvec *rv) {
  const uint8_t *p = src->lo;
  while (p && p < src->hi) {
    const uint8_t *next;
    if (asgst__cfi_fde_rows(src, p, &next, rv) != 0) return -1;
    p = next;
  }
  return 0;
}
