/*
 * regs.h - arm64 Linux: registers of a signal context, the user address limit, the
 * spin-wait hint, return addresses signed by pointer authentication. Included through
 * arch.h only.
 */
#ifndef ASGST_IMPL_ARCH_AARCH64_H
#define ASGST_IMPL_ARCH_AARCH64_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* User space is below 2^48 with Linux's default 48-bit virtual addresses (the 52-bit
 * space is only handed out to a process that asks for addresses above 2^48). */
#define ASGST__MAX_ADDR ((uintptr_t)1 << 48)
/* A call (bl) puts the return address in x30: a callee that has saved nothing yet still
 * holds it there. */
#define ASGST__RET_AT_SP 0

/* 0: a sequentially consistent atomic read-modify-write is not taken as a full fence for
 * the loads after it (arm64's store-release half may complete after them); a fence follows. */
#define ASGST__RMW_IS_FENCE 0

/* SS. */
static inline void asgst__cpu_relax(void) { __asm__ __volatile__("yield" ::: "memory"); }

/* SS. Code built with -mbranch-protection (Debian's libjvm and libc on trixie and later)
 * signs the return address it saves with paciasp when the CPU has pointer
 * authentication: the signature sits in the bits above the 48-bit address. Clearing
 * them is what xpaclri does for user addresses, without needing the instruction. */
static inline uintptr_t asgst__strip_pc(uintptr_t pc) {
  return pc & (((uintptr_t)1 << 48) - 1);
}

/* Signal frames (impl/native/sigframe.h). A handler returns (x30) into a trampoline that
 * calls rt_sigreturn: mov x8, #139; svc #0, the code of the vDSO's __kernel_rt_sigreturn
 * and of the page qemu-user maps for the same purpose. sp there is where the kernel put
 * the rt_sigframe: the siginfo (128 bytes), then the ucontext, laid out as glibc's
 * ucontext_t (its 128-byte sigset_t is the kernel's mask and padding). The first record
 * of uc_mcontext.__reserved is always the FP/SIMD context, whose magic number tells a
 * kernel's frame from stack words that merely follow a trampoline's address; the kernel
 * stores uc_link as 0. */
#define ASGST__SIGRETURN_LEN 8
static const uint8_t asgst__sigreturn_code[ASGST__SIGRETURN_LEN] = {0x68, 0x11, 0x80, 0xd2,
                                                                    0x01, 0x00, 0x00, 0xd4};
#define ASGST__SIGRETURN_LAST 4 /* the svc instruction's offset */
#define ASGST__SIGFRAME_UC 128  /* the ucontext's offset from sp at the trampoline */
#define ASGST__UC_PC offsetof(ucontext_t, uc_mcontext.pc)
#define ASGST__UC_SP offsetof(ucontext_t, uc_mcontext.sp)
#define ASGST__UC_FP offsetof(ucontext_t, uc_mcontext.regs[29])
#define ASGST__UC_LR offsetof(ucontext_t, uc_mcontext.regs[30])
#define ASGST__UC_MAGIC offsetof(ucontext_t, uc_mcontext.__reserved) /* a u32 there */
#define ASGST__UC_MAGIC_VALUE 0x46508001u /* FPSIMD_MAGIC */

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
