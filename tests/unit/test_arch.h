/*
 * test_arch.h - the pc, sp and frame pointer of a ucontext_t for the unit tests and the JVM
 * test agents, to read a signal's context or to build one by hand, on any architecture:
 * short forms of the library's impl/arch/ (x86_64: rip, rsp, rbp; arm64: pc, sp, x29, and
 * the link register x30, kept as it was when a context is edited).
 */
#ifndef ASGST_TESTS_UNIT_TEST_ARCH_H
#define ASGST_TESTS_UNIT_TEST_ARCH_H

#include <stdint.h>
#include <ucontext.h>

#include "impl/arch/arch.h"
#include "impl/backend.h" /* asgst__regs */

/* SS. */
static inline asgst__regs uc_regs(const ucontext_t *uc) {
  asgst__regs r;
  asgst__uc_regs(uc, &r);
  return r;
}
/* SS. */
static inline uintptr_t uc_pc(const ucontext_t *uc) { return uc_regs(uc).pc; }
/* SS. */
static inline uintptr_t uc_sp(const ucontext_t *uc) { return uc_regs(uc).sp; }
/* SS. */
static inline uintptr_t uc_fp(const ucontext_t *uc) { return uc_regs(uc).fp; }

/* SS. pc, sp and fp at once, for a context built or edited by hand. */
static inline void uc_set_regs(ucontext_t *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp) {
  asgst__regs r = uc_regs(uc);
  r.pc = pc, r.sp = sp, r.fp = fp;
  asgst__uc_set_regs(uc, &r);
}
/* SS. */
static inline void uc_set_fp(ucontext_t *uc, uintptr_t fp) {
  asgst__regs r = uc_regs(uc);
  uc_set_regs(uc, r.pc, r.sp, fp);
}

#endif
