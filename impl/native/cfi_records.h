/*
 * cfi_records.h - the CIE and FDE records of .eh_frame (and of .debug_frame, whose
 * records differ in their CIE ids and CIE pointers): bounds-checked parsing of one entry
 * into the interpreter's input. All N (table building only).
 */
#ifndef ASGST_NATIVE_CFI_RECORDS_H
#define ASGST_NATIVE_CFI_RECORDS_H

#include <stdint.h>

#include "impl/native/cfi_rows.h"

/* Where entries' bytes may lie (the section, or the loaded segment holding it), and
 * the base the rows' pcs are made relative to. debug_frame: the .debug_frame section's
 * start for its records (CIE pointers are offsets from it), NULL for .eh_frame. */
struct asgst_cfi_source {
  const uint8_t *lo, *hi;
  uintptr_t base;
  const uint8_t *debug_frame;
};

/* N. Turns the FDE at `fde` into rows appended to rv; an entry that is a CIE adds
 * nothing. *next is set to the following entry (NULL after a zero terminator).
 * 0, or -1 if the entry (or its CIE) is malformed or truncated. */
int asgst__cfi_fde_rows(const struct asgst_cfi_source *src, const uint8_t *fde,
                        const uint8_t **next, struct asgst_cfi_rowvec *rv);

/* N. Rows of every FDE of the section [src->lo, src->hi), entry after entry up to the
 * end or a zero terminator. 0, or -1 at the first malformed or truncated entry (the
 * rows before it stay in rv). */
int asgst__cfi_section_rows(const struct asgst_cfi_source *src, struct asgst_cfi_rowvec *rv);

#endif
