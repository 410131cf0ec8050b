/*
 * syscall_aarch64.h - arm64: `svc #0` (d4000001) before the pc; the arguments in x0..x5,
 * the result in x0 (the first argument is gone; x1..x5 are preserved). Included through
 * arch/syscall_regs.h only.
 */
#ifndef ASGSTPROF_ARCH_SYSCALL_AARCH64_H
#define ASGSTPROF_ARCH_SYSCALL_AARCH64_H

#define PROF_SYSCALL_INSN_LEN 4
/* The instruction word in memory order (little-endian). */
static const uint8_t prof_syscall_insn[PROF_SYSCALL_INSN_LEN] = {0x01, 0x00, 0x00, 0xd4};

/* SS. */
static inline uintptr_t prof_syscall_pc(const ucontext_t *uc) {
  return (uintptr_t)uc->uc_mcontext.pc;
}

/* SS. */
static inline void prof_syscall_args(const ucontext_t *uc, prof_syscall_regs *s) {
  s->arg[0] = 0;
  for (int i = 1; i < 6; i++) s->arg[i] = (uintptr_t)uc->uc_mcontext.regs[i];
  s->ret = (long)uc->uc_mcontext.regs[0];
  s->arg0_kept = false;
}

#endif
