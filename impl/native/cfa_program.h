/*
 * cfa_program.h - CIE and FDE records of .eh_frame and the interpreter of their call
 * frame instructions (DW_CFA_*), which turns one FDE into table rows. Only the registers
 * a stepper needs are tracked: the CFA, the frame pointer and the return address.
 * All N (table building only).
 */
#ifndef ASGST_NATIVE_CFA_PROGRAM_H
#define ASGST_NATIVE_CFA_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "impl/native/cfi_rows.h"
#include "impl/native/dwarf_cursor.h"

/* Where an entry's bytes may lie (the section, or the loaded segment holding it), and the
 * load base the rows' pcs are relative to. */
struct asgst_cfi_source {
  const uint8_t *lo, *hi;
  uintptr_t base;
};

/* N. Turns the FDE at `fde` into rows appended to rv; an entry that is a CIE adds
 * nothing. *next is set to the following entry (NULL after a zero terminator).
 * 0, or -1 if the entry (or its CIE) is malformed or truncated. */
int asgst__cfi_fde_rows(const struct asgst_cfi_source *src, const uint8_t *fde,
                        const uint8_t **next, struct asgst_cfi_rowvec *rv);

#endif
