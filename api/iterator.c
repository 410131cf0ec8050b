/*
 * iterator.c - ASGST_RunWithIterator*, NextFrame, Rewind and State over a backend.
 *
 * The iterator always looks one frame ahead: after begin() and after every frame it hands
 * out, advance() moves to the next reportable frame (stepping physical frames and applying
 * the options) or records the end/error in it->state. So ASGST_State is exact, and an
 * error is reported by the NextFrame call that would have returned the missing frame.
 */
#include <string.h>

#include "internal.h"
#include "../impl/guard.h"

/* SS. True if f is to be reported under the iterator's options. */
static bool reportable(const ASGST_Iterator *it, const ASGST_Frame *f) {
  return f->type != ASGST_FRAME_NON_JAVA || (it->options & ASGST_INCLUDE_NON_JAVA_FRAMES);
}

/* SS. Steps to the sender physical frame with the loop checks the API owns: the stack must
 * grow toward its base (strictly increasing sp) and stay within a bounded depth. */
static int step_physical(ASGST_Iterator *it) {
  uintptr_t old_sp = it->cur.sp;
  int r = it->be->step(it);
  if (r <= 0) return r;
  if (++it->depth > ASGST__MAX_DEPTH) return ASGST_STACK_LOOP;
  if (it->cur.sp <= old_sp) return ASGST_STACK_LOOP;
  if (it->thread.stack_base && it->cur.sp >= it->thread.stack_base) return ASGST_BAD_FRAME;
  return 1;
}

/* SS. Unguarded body of advance(). */
static int advance_unguarded(ASGST_Iterator *it) {
  for (;;) {
    while (it->ipending < it->npending) {
      if (reportable(it, &it->pending[it->ipending])) return 1;
      it->ipending++;
    }
    if (it->npending >= 0) {
      int r = step_physical(it);
      if (r <= 0) return r;
    }
    it->npending = 0;
    it->ipending = 0;
    int r = it->be->decode(it);
    if (r < 0) return r;
    if (it->npending > ASGST__MAX_FRAMES_PER_PHYS) return ASGST_BAD_FRAME;
  }
}

/* SS. Positions the iterator on its next reportable frame, or records why there is none. */
static void advance(ASGST_Iterator *it) {
  /* Fast path: another logical frame of the current physical frame (an inlined caller)
   * needs no VM memory, so no guard. */
  while (it->ipending < it->npending) {
    if (reportable(it, &it->pending[it->ipending])) {
      it->state = 1;
      return;
    }
    it->ipending++;
  }
  asgst__guard g;
  volatile int r = ASGST_WALK_FAULTED;
  ASGST__GUARD_BEGIN(g)
    r = advance_unguarded(it);
  ASGST__GUARD_FAULTED(g)
    r = ASGST_WALK_FAULTED;
  ASGST__GUARD_END(g);
  it->state = r;
}

/* SS. */
int asgst__iterator_begin(ASGST_Iterator *it, const asgst__backend *be, const asgst__thread *t,
                          const asgst__regs *top, int32_t options) {
  it->be = be;
  it->options = options;
  it->kind = 0;
  it->depth = 0;
  it->npending = -1;
  it->ipending = 0;
  it->seen_java = 0;
  it->thread = *t;
  if (be == NULL) return it->state = ASGST_NOT_INITIALIZED;
  asgst__guard g;
  volatile int kind = ASGST_WALK_FAULTED;
  ASGST__GUARD_BEGIN(g)
    kind = be->begin(it, top);
  ASGST__GUARD_FAULTED(g)
    kind = ASGST_WALK_FAULTED;
  ASGST__GUARD_END(g);
  if (kind <= 0) return it->state = kind;
  it->kind = kind;
  it->start = it->cur;
  memcpy(it->start_scratch, it->scratch, sizeof it->scratch);
  advance(it);
  return kind;
}

/* SS. Field by field: a struct copy compiles to 16-byte loads, which stall on frames the
 * backend has just written with narrower stores (failed store forwarding, measured as a
 * large part of a frame's cost in the walk bench). */
static inline void copy_frame(ASGST_Frame *d, const ASGST_Frame *s) {
  d->type = __atomic_load_n(&s->type, __ATOMIC_RELAXED);
  d->comp_level = __atomic_load_n(&s->comp_level, __ATOMIC_RELAXED);
  d->bci = __atomic_load_n(&s->bci, __ATOMIC_RELAXED);
  d->method = __atomic_load_n(&s->method, __ATOMIC_RELAXED);
  d->pc = __atomic_load_n(&s->pc, __ATOMIC_RELAXED);
  d->sp = __atomic_load_n(&s->sp, __ATOMIC_RELAXED);
  d->fp = __atomic_load_n(&s->fp, __ATOMIC_RELAXED);
}

/* SS. */
int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *frame) {
  if (it == NULL || frame == NULL) {
    if (frame) memset(frame, 0, sizeof *frame);
    return ASGST_INVALID_ARGUMENT;
  }
  if (it->state <= 0) {
    memset(frame, 0, sizeof *frame);
    return it->state;
  }
  copy_frame(frame, &it->pending[it->ipending++]);
  bool bytecode = frame->type == ASGST_FRAME_JAVA || frame->type == ASGST_FRAME_JAVA_INLINED;
  if (bytecode && (it->options & ASGST_END_ON_FIRST_JAVA_FRAME))
    it->state = ASGST_NO_FRAME;
  else
    advance(it);
  return 1;
}

/* SS. */
void ASGST_RewindIterator(ASGST_Iterator *it) {
  if (it == NULL || it->kind <= 0) return;
  it->cur = it->start;
  memcpy(it->scratch, it->start_scratch, sizeof it->scratch);
  it->depth = 0;
  it->npending = -1;
  it->ipending = 0;
  advance(it);
}

/* SS. */
int ASGST_State(ASGST_Iterator *it) {
  return it == NULL ? 0 : it->state;
}

/* SS. */
int asgst__run_with_iterator(const asgst__backend *be, const asgst__thread *t,
                             const asgst__regs *top, int32_t options,
                             ASGST_IteratorHandler fun, void *arg) {
  ASGST_Iterator it;
  int kind = asgst__iterator_begin(&it, be, t, top, options);
  if (fun) fun(&it, arg);
  return kind;
}

/* SS. Walk the current thread from registers; shared by the two public entry points. */
static int run_here(const asgst__regs *top, int32_t options, ASGST_IteratorHandler fun,
                    void *arg) {
  const asgst__backend *be = asgst__active_backend();
  asgst__thread t = {0};
  int kind = be ? be->current_thread(&t) : ASGST_NOT_INITIALIZED;
  if (kind <= 0) {
    ASGST_Iterator it;
    it.state = kind;
    it.kind = kind;
    if (fun) fun(&it, arg);
    return kind;
  }
  return asgst__run_with_iterator(be, &t, top, options, fun, arg);
}

/* SS. noinline: "here" is this function's caller, found through our own frame. */
__attribute__((noinline)) int ASGST_RunWithIterator(void *ucontext, int32_t options,
                                                    ASGST_IteratorHandler fun, void *arg) {
  asgst__regs top;
  if (ucontext) {
    asgst__regs_from_ucontext(ucontext, &top);
  } else {
    uintptr_t *frame = (uintptr_t *)__builtin_frame_address(0);
    top.pc = (uintptr_t)__builtin_return_address(0);
    top.fp = frame[0];
    top.sp = (uintptr_t)(frame + 2);
  }
  return run_here(&top, options, fun, arg);
}

/* SS. */
int ASGST_RunWithIteratorFromFrame(void *sp, void *fp, void *pc, int32_t options,
                                   ASGST_IteratorHandler fun, void *arg) {
  asgst__regs top = {(uintptr_t)pc, (uintptr_t)sp, (uintptr_t)fp};
  return run_here(&top, options, fun, arg);
}
