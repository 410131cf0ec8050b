/*
 * test_arch.h - what the unit tests and the JVM test agents need to know of the processor
 * they run on: the pc, sp and frame pointer of a ucontext_t (x86_64: rip, rsp, rbp; arm64:
 * pc, sp, x29), to read a signal's context or to build one by hand, and the spin-wait hint.
 * The library's own view of a context (with arm64's link register) is
 * asgst__regs_from_ucontext (api/internal.h); this is the tests' side of it.
 */
#ifndef ASGST_TESTS_UNIT_TEST_ARCH_H
#define ASGST_TESTS_UNIT_TEST_ARCH_H

#include <stdint.h>
#include <ucontext.h>

#if defined(__x86_64__)

/* SS. */
static inline uintptr_t uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]; }
/* SS. */
static inline uintptr_t uc_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP]; }
/* SS. */
static inline uintptr_t uc_fp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RBP]; }
/* SS. */
static inline void uc_set_pc(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.gregs[REG_RIP] = (greg_t)v; }
/* SS. */
static inline void uc_set_sp(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.gregs[REG_RSP] = (greg_t)v; }
/* SS. */
static inline void uc_set_fp(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.gregs[REG_RBP] = (greg_t)v; }
/* SS. */
static inline void cpu_pause(void) { __asm__ volatile("pause"); }

#elif defined(__aarch64__)

/* SS. */
static inline uintptr_t uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.pc; }
/* SS. */
static inline uintptr_t uc_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.sp; }
/* SS. x29 is the frame pointer of the AAPCS64 frame records. */
static inline uintptr_t uc_fp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.regs[29]; }
/* SS. */
static inline void uc_set_pc(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.pc = v; }
/* SS. */
static inline void uc_set_sp(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.sp = v; }
/* SS. */
static inline void uc_set_fp(ucontext_t *uc, uintptr_t v) { uc->uc_mcontext.regs[29] = v; }
/* SS. */
static inline void cpu_pause(void) { __asm__ volatile("yield"); }

#else
#error "tests/unit/test_arch.h: x86_64 and aarch64 only"
#endif

/* SS. pc, sp and fp at once, for a context built by hand. */
static inline void uc_set_regs(ucontext_t *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp) {
  uc_set_pc(uc, pc);
  uc_set_sp(uc, sp);
  uc_set_fp(uc, fp);
}

#endif
