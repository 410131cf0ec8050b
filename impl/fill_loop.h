/*
 * fill_loop.h - the loop that decodes a batch of physical frames for the iterator, as an
 * inline template each backend instantiates with its own decode and step.
 *
 * Why a template: the loop runs once per physical frame, and calling a backend's decode
 * and step through function pointers from api/iterator.c cost two indirect calls, their
 * prologues and a reload of the walk state per frame. Instantiated next to the backend's
 * code (backend.h fill()), the compiler inlines both, and the checks the API owns (the
 * stack grows toward its base, a bounded depth, C frames only with the option) are still
 * written once, here.
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
    ASGST_Iterator *it, int (*step)(ASGST_Iterator *)) {
  uintptr_t old_sp = it->cur.sp;
  /* Interrupted: the first frame, or one behind a signal frame, which alone keeps its link
   * register (backend.h). */
  bool interrupted = it->depth == 0 || it->cur.lr != 0;
  int r = step(it);
  if (r <= 0) return r;
  if (++it->depth > ASGST__MAX_DEPTH) return ASGST_STACK_LOOP;
  if (!asgst__sp_grew(old_sp, it->cur.sp, interrupted)) return ASGST_STACK_LOOP;
  if (it->thread.stack_base && it->cur.sp >= it->thread.stack_base) return ASGST_BAD_FRAME;
  return 1;
}

/* SS. Unguarded: steps and decodes physical frames, appending their reported frames to
 * it->pending, until `limit` frames are there, a frame is in under
 * ASGST_END_ON_FIRST_JAVA_FRAME, or the walk ends. Returns 1 if frames may follow, else
 * the end (0) or an error. A decode appends a C frame only with
 * ASGST_INCLUDE_NON_JAVA_FRAMES: it knows when it makes one, where a test here would
 * reload the buffer's newest frame on every physical frame. */
static inline __attribute__((always_inline)) int asgst__fill_loop(
    ASGST_Iterator *it, int limit, int (*decode)(ASGST_Iterator *), int (*step)(ASGST_Iterator *)) {
  if (it->options & ASGST_END_ON_FIRST_JAVA_FRAME) limit = 1;
  it->batch_limit = limit;
  for (;;) {
    if (it->cur_decoded) {
      int r = asgst__step_checked(it, step);
      if (r <= 0) return r;
      it->cur_decoded = 0;
    }
    int r = decode(it);
    if (r == ASGST__NO_ROOM) return it->npending > 0 ? 1 : ASGST_BAD_FRAME;
    if (r < 0) return r;
    it->cur_decoded = 1;
    /* A volatile store: if a later read faults, the frames counted here are complete. */
    *(volatile int32_t *)&it->committed = it->npending;
    /* After a run of frames (backend.h): the end, or it->cur a sender not decoded yet. One
     * test on the common path. */
    if (__builtin_expect(r != 0, 0)) {
      if (r == ASGST__DECODE_END) return 0;
      it->cur_decoded = 0;
    }
    if (it->npending >= limit) return 1;
  }
}

#endif
