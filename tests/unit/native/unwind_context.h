/*
 * unwind_context.h - for the call frame table tests: unwinds a captured context
 * (getcontext, or a signal's ucontext) with asgst__cfi_step over this thread's live
 * stack. Static functions for the test programs that include it.
 */
#ifndef ASGST_TESTS_NATIVE_UNWIND_CONTEXT_H
#define ASGST_TESTS_NATIVE_UNWIND_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "impl/native/cfi.h"
#include "tests/unit/test_arch.h"

/* SS. Stack words are read directly: the tests walk their own live stack. */
__attribute__((no_sanitize("address"))) static bool read_live_word(void *ctx, uintptr_t addr,
                                                                   uintptr_t *value) {
  (void)ctx;
  if (addr == 0 || addr % sizeof(uintptr_t)) return false;
  *value = *(const uintptr_t *)addr;
  return true;
}

/* SS. Fills pcs[0..max) with the context's pc and the return addresses of its callers,
 * as far as the tables step, through signal frames (a frame a signal interrupted gives
 * its pc); their number. *stop: how the walk ended (ASGST_CFI_*). *signals (if not
 * NULL): the signal frames stepped through. */
static int unwind_context_counting(const ucontext_t *uc, uintptr_t *pcs, int max, int *stop,
                                   int *signals) {
  asgst__regs r = uc_regs(uc);
  struct asgst_cfi_frame f = {r.pc, r.sp, r.fp, r.lr};
  int n = 0, rc = ASGST_CFI_STEPPED, nsig = 0;
  bool exact = true; /* pcs[0], and a pc a signal frame saved, are no return addresses */
  pcs[n++] = f.pc;
  while (n < max && (rc == ASGST_CFI_STEPPED || rc == ASGST_CFI_SIGNAL)) {
    rc = asgst__cfi_step(&f, !exact, read_live_word, NULL);
    if (rc == ASGST_CFI_STEPPED || rc == ASGST_CFI_SIGNAL) pcs[n++] = f.pc;
    exact = rc == ASGST_CFI_SIGNAL;
    nsig += rc == ASGST_CFI_SIGNAL;
  }
  *stop = rc;
  if (signals) *signals = nsig;
  return n;
}

/* SS. unwind_context_counting without the count. */
__attribute__((unused)) static int unwind_context(const ucontext_t *uc, uintptr_t *pcs, int max, int *stop) {
  return unwind_context_counting(uc, pcs, max, stop, NULL);
}

#endif
