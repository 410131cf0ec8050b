/*
 * aarch64.h - arm64 Linux: registers of a signal context, the user address limit, the
 * spin-wait hint, return addresses signed by pointer authentication. Included through
 * arch.h only.
 */
#ifndef ASGST_IMPL_ARCH_AARCH64_H
#define ASGST_IMPL_ARCH_AARCH64_H

#include <stdint.h>
#include <ucontext.h>

/* User space is below 2^48 with Linux's default 48-bit virtual addresses (the 52-bit
 * space is only handed out to a process that asks for addresses above 2^48). */
#define ASGST__MAX_ADDR ((uintptr_t)1 << 48)
/* A call (bl) puts the return address in x30: a callee that has saved nothing yet still
 * holds it there. */
#define ASGST__RET_AT_SP 0

/* SS. */
static inline void asgst__cpu_relax(void) { __asm__ __volatile__("yield" ::: "memory"); }

/* SS. Code built with -mbranch-protection (Debian's libjvm and libc on trixie and later)
 * signs the return address it saves with paciasp when the CPU has pointer
 * authentication: the signature sits in the bits above the 48-bit address. Clearing
 * them is what xpaclri does for user addresses, without needing the instruction. */
static inline uintptr_t asgst__strip_pc(uintptr_t pc) {
  return pc & (((uintptr_t)1 << 48) - 1);
}

/* SS. The pc of a signal context (the faulting instruction of a fault). */
#define asgst__uc_pc(uc) ((uintptr_t)(uc)->uc_mcontext.pc)

/* SS. pc, sp, x29 (frame pointer) and x30 (link register). */
#define asgst__uc_regs(uc, r)                                  \
  do {                                                         \
    (r)->pc = (uintptr_t)(uc)->uc_mcontext.pc;                 \
    (r)->sp = (uintptr_t)(uc)->uc_mcontext.sp;                 \
    (r)->fp = (uintptr_t)(uc)->uc_mcontext.regs[29];           \
    (r)->lr = asgst__strip_pc((uintptr_t)(uc)->uc_mcontext.regs[30]); \
  } while (0)

/* SS. */
#define asgst__uc_set_regs(uc, r)                              \
  do {                                                         \
    (uc)->uc_mcontext.pc = (r)->pc;                            \
    (uc)->uc_mcontext.sp = (r)->sp;                            \
    (uc)->uc_mcontext.regs[29] = (r)->fp;                      \
    (uc)->uc_mcontext.regs[30] = (r)->lr;                      \
  } while (0)

#endif
