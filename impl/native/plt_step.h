/*
 * plt_step.h - stepping an interrupted frame in a PLT entry that the call frame tables
 * have no row for (arm64's linkers give .plt none; impl/arch/plt_entry.h recognizes an
 * entry by its code). The entry writes only scratch registers: its caller is at the link
 * register, with the same sp and fp.
 *
 * Inline, for the HotSpot walker's C step and cfi_step.c. SS; the code is read through the
 * caller's callback; asgst__cfi_inside_code needs the caller's reader section.
 */
#ifndef ASGST_NATIVE_PLT_STEP_H
#define ASGST_NATIVE_PLT_STEP_H

#include "impl/arch/arch.h"
#include "impl/arch/plt_entry.h"
#include "impl/native/cfi.h"

/* SS. If frame was interrupted (top) in a PLT entry of a loaded object and its link
 * register points into a loaded object's code too (a PLT is called from its own object),
 * steps *frame to the caller: ASGST_CFI_STEPPED, with the same sp (a caller of a frame
 * that saved nothing). ASGST_CFI_NO_RULE otherwise. Only the interrupted frame: an entry
 * calls nothing, so it is never a caller, and only it has a known link register. */
static inline int asgst__plt_step(struct asgst_cfi_frame *frame, bool top, asgst_cfi_read_fn read,
                                  void *ctx) {
  uintptr_t lr = asgst__strip_pc(frame->lr);
  if (!top || lr == 0 || !asgst__cfi_inside_code(frame->pc) || !asgst__cfi_inside_code(lr) ||
      !asgst__plt_entry_at(frame->pc, read, ctx))
    return ASGST_CFI_NO_RULE;
  frame->pc = lr;
  frame->lr = 0;
  return ASGST_CFI_STEPPED;
}

#endif
