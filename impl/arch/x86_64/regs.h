/*
 * regs.h - x86_64 Linux: registers of a signal context, the user address limit, the
 * spin-wait hint. Included through arch.h only.
 */
#ifndef ASGST_IMPL_ARCH_X86_64_H
#define ASGST_IMPL_ARCH_X86_64_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* User space is [64 KiB, 2^47): higher addresses are kernel or non-canonical. */
#define ASGST__MAX_ADDR ((uintptr_t)1 << 47)
/* A call pushes the return address: it is at sp in a callee that has pushed nothing. */
#define ASGST__RET_AT_SP 1

/* 1: a sequentially consistent atomic read-modify-write is also a full fence for the
 * accesses after it (x86_64's locked instructions are). */
#define ASGST__RMW_IS_FENCE 1

/* SS. */
static inline void asgst__cpu_relax(void) { __builtin_ia32_pause(); }

/* SS. x86_64 return addresses carry no signature. */
static inline uintptr_t asgst__strip_pc(uintptr_t pc) { return pc; }

/* Signal frames (impl/native/sigframe.h). A handler returns into a trampoline that calls
 * rt_sigreturn: mov $15,%rax; syscall, the code of glibc's and musl's __restore_rt and of
 * Go's runtime. Its return popped the first word of the kernel's rt_sigframe (the
 * trampoline's address, SA_RESTORER's), so sp then points at the ucontext, laid out as
 * glibc's ucontext_t. The kernel stores uc_link as 0. */
#define ASGST__SIGRETURN_LEN 9
static const uint8_t asgst__sigreturn_code[ASGST__SIGRETURN_LEN] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                                                    0x00, 0x00, 0x0f, 0x05};
#define ASGST__SIGRETURN_LAST 7 /* the syscall instruction's offset */
#define ASGST__SIGFRAME_UC 0    /* the ucontext's offset from sp at the trampoline */
#define ASGST__UC_PC offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#define ASGST__UC_SP offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define ASGST__UC_FP offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])
#define ASGST__UC_LR 0 /* no link register */
#define ASGST__UC_MAGIC 0 /* no record of a known value to check */
#define ASGST__UC_MAGIC_VALUE 0

/* SS. The pc of a signal context (the faulting instruction of a fault). */
#define asgst__uc_pc(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])

/* SS. rip, rsp, rbp; x86_64 has no link register (lr 0). */
#define asgst__uc_regs(uc, r)                                  \
  do {                                                         \
    (r)->pc = (uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP];     \
    (r)->sp = (uintptr_t)(uc)->uc_mcontext.gregs[REG_RSP];     \
    (r)->fp = (uintptr_t)(uc)->uc_mcontext.gregs[REG_RBP];     \
    (r)->lr = 0;                                               \
  } while (0)

/* SS. */
#define asgst__uc_set_regs(uc, r)                              \
  do {                                                         \
    (uc)->uc_mcontext.gregs[REG_RIP] = (greg_t)(r)->pc;        \
    (uc)->uc_mcontext.gregs[REG_RSP] = (greg_t)(r)->sp;        \
    (uc)->uc_mcontext.gregs[REG_RBP] = (greg_t)(r)->fp;        \
  } while (0)

#endif
