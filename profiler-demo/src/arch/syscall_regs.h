/*
 * syscall_regs.h - a finished system call's arguments and result, as the registers of the
 * signal context it left behind hold them (fd/fd_capture.c). One header per architecture
 * (syscall_x86_64.h, syscall_aarch64.h), chosen here; the rest of the demo names no
 * architecture. Each defines:
 *   PROF_SYSCALL_INSN_LEN, prof_syscall_insn  the bytes of the system call instruction,
 *                           which ends at the pc of a context interrupted on the way out
 *   prof_syscall_pc(uc)     SS. that pc
 *   prof_syscall_args(uc, s)  SS. the arguments and the result into *s
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_ARCH_SYSCALL_REGS_H
#define ASGSTPROF_ARCH_SYSCALL_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

/* A finished system call's arguments and result, as its registers hold them. */
typedef struct {
  uintptr_t arg[6];
  long ret;
  bool arg0_kept; /* false where the result took the first argument's register */
} prof_syscall_regs;

#if defined(__x86_64__)
#include "arch/syscall_x86_64.h"
#elif defined(__aarch64__)
#include "arch/syscall_aarch64.h"
#else
#error "profiler-demo: syscall registers for x86_64 and aarch64 only"
#endif

#endif
