/*
 * sigframe.h - stepping from a signal return trampoline into the code the signal
 * interrupted.
 *
 * A signal handler returns into a trampoline that calls rt_sigreturn, and until then the
 * stack holds the kernel's signal frame with every register of the interrupted code. A
 * walk that starts inside a signal handler (another agent's, whose handler our signal
 * interrupted just as it began) reaches the trampoline as the handler's return address
 * and goes on from the saved registers: the interrupted frame, interrupted anywhere, as a
 * walk's first frame is. The trampoline is recognized by its code (impl/arch/), not by a
 * symbol, so that glibc's and musl's __restore_rt, the arm64 vDSO's
 * __kernel_rt_sigreturn, the page qemu-user maps in its place and a trampoline installed
 * with SA_RESTORER are all one case. An alternate signal stack is not followed: the
 * interrupted frame must lie above the signal frame, as on one stack.
 *
 * Inline, for the HotSpot walker's C step and cfi_step.c. All SS; every read goes through
 * the caller's callback (aligned words).
 */
#ifndef ASGST_NATIVE_SIGFRAME_H
#define ASGST_NATIVE_SIGFRAME_H

#include <stddef.h>

#include "impl/arch/arch.h"
#include "impl/native/cfi.h"

/* SS. True if the code at pc is a signal return trampoline's: reads the aligned words that
 * hold its ASGST__SIGRETURN_LEN bytes (each lies on a page with some of them). */
static inline bool asgst__is_sigreturn(uintptr_t pc, asgst_cfi_read_fn read, void *ctx) {
  uintptr_t first = pc & ~(uintptr_t)7, words[2];
  size_t n = (pc - first + ASGST__SIGRETURN_LEN + 7) / 8;
  _Static_assert(ASGST__SIGRETURN_LEN <= 9, "two words hold the trampoline");
  for (size_t i = 0; i < n; i++)
    if (!read(ctx, first + 8 * i, &words[i])) return false;
  const uint8_t *code = (const uint8_t *)words + (pc - first);
  for (size_t i = 0; i < ASGST__SIGRETURN_LEN; i++)
    if (code[i] != asgst__sigreturn_code[i]) return false;
  return true;
}

/* SS. The trampoline's pc is where frame->pc is, or (`top`: interrupted anywhere, not
 * returned to) at its last instruction. */
static inline bool asgst__at_sigreturn(uintptr_t pc, bool top, asgst_cfi_read_fn read, void *ctx) {
  return asgst__is_sigreturn(pc, read, ctx) ||
         (top && pc > ASGST__SIGRETURN_LAST &&
          asgst__is_sigreturn(pc - ASGST__SIGRETURN_LAST, read, ctx));
}

/* SS. If frame->pc is a signal return trampoline, steps *frame to the registers its
 * signal frame at frame->sp saved: ASGST_CFI_SIGNAL. ASGST_CFI_NO_RULE if pc is no
 * trampoline; ASGST_CFI_BAD_READ if the words at sp are no kernel's signal frame (uc_link
 * not 0, arm64's FP/SIMD record missing: the sp came from a wrong step) or the saved sp
 * is not above it. */
static inline int asgst__sigframe_step(struct asgst_cfi_frame *frame, bool top,
                                       asgst_cfi_read_fn read, void *ctx) {
  if (!asgst__at_sigreturn(frame->pc, top, read, ctx)) return ASGST_CFI_NO_RULE;
  uintptr_t uc = frame->sp + ASGST__SIGFRAME_UC, link, magic, pc, sp, fp, lr = 0;
  if (!read(ctx, uc + offsetof(ucontext_t, uc_link), &link) || link != 0)
    return ASGST_CFI_BAD_READ;
  if (ASGST__UC_MAGIC &&
      (!read(ctx, uc + ASGST__UC_MAGIC, &magic) || (uint32_t)magic != ASGST__UC_MAGIC_VALUE))
    return ASGST_CFI_BAD_READ;
  if (!read(ctx, uc + ASGST__UC_PC, &pc) || !read(ctx, uc + ASGST__UC_SP, &sp) ||
      !read(ctx, uc + ASGST__UC_FP, &fp) || (ASGST__UC_LR && !read(ctx, uc + ASGST__UC_LR, &lr)))
    return ASGST_CFI_BAD_READ;
  if (sp <= frame->sp || (sp & 7)) return ASGST_CFI_BAD_READ;
  frame->pc = pc;
  frame->sp = sp;
  frame->fp = fp;
  /* A live x30 may still hold a signed return address (after paciasp, before it was
   * saved). */
  frame->lr = asgst__strip_pc(lr);
  return ASGST_CFI_SIGNAL;
}

#endif
