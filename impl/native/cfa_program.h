/*
 * cfa_program.h - the interpreter of call frame instructions (DW_CFA_*): runs a CIE's
 * initial instructions and an FDE's instructions and appends one row per location at
 * which the rule changes. Only the registers a stepper needs are tracked: the CFA, the
 * frame pointer and the return address. All N (table building only).
 */
#ifndef ASGST_NATIVE_CFA_PROGRAM_H
#define ASGST_NATIVE_CFA_PROGRAM_H

#include <stdint.h>

#include "impl/native/cfi_rows.h"

/* What the FDEs of one CIE share. */
struct asgst_cie {
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_reg;
  uint8_t fde_enc;   /* DW_EH_PE_* of the FDEs' pc fields */
  bool has_aug_data; /* 'z': FDEs carry an augmentation data length */
  bool signal_frame; /* 'S': its FDEs describe signal return trampolines */
  const uint8_t *insns, *insns_end;
};

/* One FDE's function [begin, begin + range) (run-time or link-time addresses, as `base`
 * is) and its instructions [insns, end), which may only lie inside [lo, hi). */
struct asgst_fde {
  uintptr_t begin, range, base;
  const uint8_t *insns, *end, *lo, *hi;
};

/* N. Appends the FDE's rows (pcs relative to fde->base) and the gap marker at its end.
 * 0, or -1 on a malformed program (rows already appended stay). */
int asgst__cfa_fde_rows(const struct asgst_cie *cie, const struct asgst_fde *fde,
                        struct asgst_cfi_rowvec *rv);

#endif
