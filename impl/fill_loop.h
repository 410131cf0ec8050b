/*
 * fill_loop.h - the loop that decodes a batch of physical frames into a cursor, as an
 * inline template each backend instantiates with its own decode and step.
 *
 * Why a template: the loop runs once per physical frame, and calling a backend's decode
 * and step through function pointers from api/iterator.c cost two indirect calls, their
 * prologues and a reload of the walk state per frame. Instantiated next to the backend's
 * code (backend.h fill()), the compiler inlines both, and the checks every walk makes
 * whatever its backend (the stack grows toward its base, a bounded depth) are still
 * written once, here. What the options mean to the caller is api/'s (api/iterator.h).
 */
#ifndef ASGST_IMPL_FILL_LOOP_H
#define ASGST_IMPL_FILL_LOOP_H

#include "arch/arch.h"
#include "backend.h"

/* Physical frames one walk may step over before it is declared a loop. */
#define ASGST__MAX_DEPTH 8192

/* SS. True if a step from a frame at old_sp to one at new_sp went toward the stack's base.
 * Strictly, except for a step from an interrupted frame on arm64 (the first, or one a
 * signal frame saved): a frame interrupted before it allocated anything (its return
 * address still in the link register) shares its sender's sp. */
static inline bool asgst__sp_grew(uintptr_t old_sp, uintptr_t new_sp, bool first_step) {
  return new_sp > old_sp || (new_sp == old_sp && first_step && !ASGST__RET_AT_SP);
}

/* SS. Steps to the sender physical frame with the API's loop checks: the stack must grow
 * toward its base (increasing sp, asgst__sp_grew) and stay within a bounded depth. */
static inline __attribute__((always_inline)) int asgst__step_checked(
    asgst__cursor *wc, int (*step)(asgst__cursor *)) {
  uintptr_t old_sp = wc->cur.sp;
  /* Interrupted: the first frame, or one behind a signal frame, which alone keeps its link
   * register (backend.h). */
  bool interrupted = wc->depth == 0 || wc->cur.lr != 0;
  int r = step(wc);
  if (r <= 0) return r;
  if (++wc->depth > ASGST__MAX_DEPTH) return ASGST_STACK_LOOP;
  if (!asgst__sp_grew(old_sp, wc->cur.sp, interrupted)) return ASGST_STACK_LOOP;
  if (wc->thread.stack_base && wc->cur.sp >= wc->thread.stack_base) return ASGST_BAD_FRAME;
  return 1;
}

/* SS. Unguarded: steps and decodes physical frames, appending their reported frames to
 * wc->pending, until `limit` frames are there (the API asks for 1 when only the first Java
 * frame is wanted) or the walk ends. Returns 1 if frames may follow, else
 * the end (0) or an error. A decode appends a C frame only with
 * ASGST_INCLUDE_NON_JAVA_FRAMES: it knows when it makes one, where a test here would
 * reload the buffer's newest frame on every physical frame. */
static inline __attribute__((always_inline)) int asgst__fill_loop(
    asgst__cursor *wc, int limit, int (*decode)(asgst__cursor *), int (*step)(asgst__cursor *)) {
  wc->batch_limit = limit;
  for (;;) {
    if (wc->cur_decoded) {
      int r = asgst__step_checked(wc, step);
      if (r <= 0) return r;
      wc->cur_decoded = 0;
    }
    int r = decode(wc);
    if (r == ASGST__NO_ROOM) return wc->npending > 0 ? 1 : ASGST_BAD_FRAME;
    if (r < 0) return r;
    wc->cur_decoded = 1;
    /* A volatile store: if a later read faults, the frames counted here are complete. */
    *(volatile int32_t *)&wc->committed = wc->npending;
    /* After a run of frames (backend.h): the end, or wc->cur a sender not decoded yet. One
     * test on the common path. */
    if (__builtin_expect(r != 0, 0)) {
      if (r == ASGST__DECODE_END) return 0;
      wc->cur_decoded = 0;
    }
    if (wc->npending >= limit) return 1;
  }
}

#endif
