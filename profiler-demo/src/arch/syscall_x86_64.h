/*
 * syscall_x86_64.h - x86_64: `syscall` (0f 05) before the pc; the arguments in rdi, rsi,
 * rdx, r10, r8, r9 (the kernel preserves them), the result in rax. Included through
 * arch/syscall_regs.h only.
 */
#ifndef ASGSTPROF_ARCH_SYSCALL_X86_64_H
#define ASGSTPROF_ARCH_SYSCALL_X86_64_H

#define PROF_SYSCALL_INSN_LEN 2
static const uint8_t prof_syscall_insn[PROF_SYSCALL_INSN_LEN] = {0x0f, 0x05};

/* SS. */
static inline uintptr_t prof_syscall_pc(const ucontext_t *uc) {
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* SS. */
static inline void prof_syscall_args(const ucontext_t *uc, prof_syscall_regs *s) {
  const greg_t *g = uc->uc_mcontext.gregs;
  static const int args[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
  for (int i = 0; i < 6; i++) s->arg[i] = (uintptr_t)g[args[i]];
  s->ret = (long)g[REG_RAX];
  s->arg0_kept = true;
}

#endif
