/*
 * iterator.c - ASGST_RunWithIterator*, NextFrame, Rewind and State over a backend.
 *
 * The iterator always looks ahead: begin() and every NextFrame that empties the buffer
 * decode a batch of physical frames (stepping and applying the options) into it->wc.pending
 * under one crash guard, and note what follows the batch (more frames, the end, an error)
 * in it->end. So ASGST_State is exact, and an error is reported by the NextFrame call that
 * would have returned the missing frame. Batches are why a frame costs little more than
 * its decoding: one guard setup and one trip through this layer serve many frames; the
 * batch loop itself (impl/fill_loop.h) runs inside the backend, without indirect calls.
 */
#include <string.h>

#include "internal.h"
#include "../impl/guard.h"

/* Frames a batch stops at: when a physical frame of inlined methods might no longer fit
 * (it would be decoded twice). The first batch is as long as the others. Profilers walk
 * whole stacks, and a batch boundary costs more than it looks (a second batch re-enters the
 * backend with cold caches; it was measurably slower than one long batch, warm and
 * more so as the first walk of a handler, paired in one JVM with ./build.sh bench), while
 * decoding cached frames a caller does not want is cheap. A caller that wants only the
 * top frame says so with ASGST_END_ON_FIRST_JAVA_FRAME. */
#define FULL_BATCH (ASGST__PENDING_CAP - 8)

/* SS. The frames a batch asks the backend for: one when only the first Java frame is
 * wanted (ASGST_END_ON_FIRST_JAVA_FRAME, iterator.h), else FULL_BATCH. */
static inline int batch_size(const ASGST_Iterator *it) {
  return it->wc.options & ASGST_END_ON_FIRST_JAVA_FRAME ? 1 : FULL_BATCH;
}

/* SS. What batch() and batch_here() do after their guard: sets it->state (1 while
 * buffered frames remain) and it->end (what comes after them) from the trace kind and
 * fill()'s result r. */
static inline int batch_done(ASGST_Iterator *it, int kind, int r) {
  /* After the guard, so that a fault, which comes back to the guard, closes it too. */
  asgst__cursor_batch_end(&it->wc);
  if (kind <= 0) {
    it->fast_end_off = 0;
    return it->state = kind;
  }
  it->end = r;
  it->state = it->wc.npending > 0 ? 1 : r;
  /* All but the batch's last frame go out by NextFrame's fast path, unless only the first
   * Java frame is wanted (then each frame's type matters). */
  it->fast_end_off = it->state > 0 && !(it->wc.options & ASGST_END_ON_FIRST_JAVA_FRAME)
                         ? (uint32_t)(it->wc.npending - 1) * sizeof(ASGST_Frame)
                         : 0;
  return kind;
}

/* SS. Empties the buffer and decodes the next batch under the crash guard, after the
 * backend's begin() when from_top (one guard for both: sigsetjmp is a good part of a short
 * walk). Sets it->state and it->end (batch_done). Returns the trace kind from begin() (1
 * when not from_top) or begin()'s error. */
ASGST__HOT static int batch(ASGST_Iterator *it, int limit, bool from_top) {
  /* The batch is a reader section of the C frame tables, which the backend opens at its
   * first use of them (a Java-only walk never does) and batch_done() closes after the
   * guard (asgst__cursor_batch_end). */
  asgst__cursor_batch_start(&it->wc);
  it->next_off = 0;
  volatile int kind = from_top ? ASGST_WALK_FAULTED : 1;
  volatile int r = ASGST_WALK_FAULTED;
  ASGST__GUARDED({
    if (from_top) kind = it->be->begin(&it->wc, &it->top);
    r = kind > 0 ? it->be->fill(&it->wc, limit) : kind;
  }, {
    r = ASGST_WALK_FAULTED;
    it->wc.npending = it->wc.committed; /* a partly decoded frame is not handed out */
  });
  return batch_done(it, kind, r);
}

/* batch_here()'s kind while the thread lookup has not returned: a fault there. */
#define LOOKUP_FAULTED (-1000)

/* SS. batch(it, limit, true) after the backend's lookup of the calling thread into
 * it->wc.thread, all under one guard (a guard setup, sigsetjmp and its TLS stores, is about
 * 46 instructions). A function of its own, not a flag of batch(): batch() cannot be
 * inlined (sigsetjmp), and the flag's tests would be paid at every later batch. Returns
 * as batch() does, the lookup's error, or LOOKUP_FAULTED. */
ASGST__HOT static int batch_here(ASGST_Iterator *it, int limit) {
  asgst__cursor_batch_start(&it->wc); /* as in batch() */
  it->next_off = 0;
  volatile int kind = LOOKUP_FAULTED;
  volatile int r = ASGST_WALK_FAULTED;
  ASGST__GUARDED({
    int k = it->be->current_thread_unguarded(&it->wc.thread);
    /* A fault in begin() is then reported as begin()'s own would be. */
    kind = k > 0 ? ASGST_WALK_FAULTED : k;
    if (k > 0) kind = it->be->begin(&it->wc, &it->top);
    r = kind > 0 ? it->be->fill(&it->wc, limit) : kind;
  }, {
    r = ASGST_WALK_FAULTED;
    it->wc.npending = it->wc.committed; /* a partly decoded frame is not handed out */
  });
  if (kind == LOOKUP_FAULTED) {
    asgst__cursor_batch_end(&it->wc);
    return kind;
  }
  return batch_done(it, kind, r);
}

/* SS. Copies registers field by field (see copy_frame for why not a struct copy). */
static inline void copy_regs(asgst__regs *d, const asgst__regs *s) {
  d->pc = __atomic_load_n(&s->pc, __ATOMIC_RELAXED);
  d->sp = __atomic_load_n(&s->sp, __ATOMIC_RELAXED);
  d->fp = __atomic_load_n(&s->fp, __ATOMIC_RELAXED);
  d->lr = __atomic_load_n(&s->lr, __ATOMIC_RELAXED);
}

/* SS. Starts (or restarts) the walk at it->top: the backend's begin(), then the first batch.
 * Rewinding runs begin() again rather than saving what it produced: the walked thread is
 * stopped (in its own signal handler, or ours) for the iterator's whole life, so begin()
 * gives the same result, and not copying the backend's freshly written scratch avoids a
 * store-forwarding stall that cost more than begin() itself. */
ASGST__HOT static int start(ASGST_Iterator *it) {
  it->wc.npending = 0;
  it->next_off = 0;
  it->wc.depth = 0;
  it->wc.cur_decoded = 0;
  it->end = 1;
  return batch(it, batch_size(it), true);
}

/* SS. */
ASGST__HOT int asgst__iterator_begin(ASGST_Iterator *it, const asgst__backend *be, const asgst__thread *t,
                          const asgst__regs *top, int32_t options) {
  it->wc.has_top_position = 0;
  it->wc.thread_checked = 0;
  return asgst__iterator_begin_at(it, be, t, top, options);
}

/* SS. */
ASGST__HOT int asgst__iterator_begin_at(ASGST_Iterator *it, const asgst__backend *be,
                                        const asgst__thread *t, const asgst__regs *top,
                                        int32_t options) {
  it->be = be;
  it->wc.options = options;
  it->kind = 0;
  it->walked_state = 0;
  it->wc.npending = 0;
  it->next_off = 0;
  /* Field by field: *t was just written by current_thread() (see copy_frame). */
  it->wc.thread.vm_thread = __atomic_load_n(&t->vm_thread, __ATOMIC_RELAXED);
  it->wc.thread.stack_base = __atomic_load_n(&t->stack_base, __ATOMIC_RELAXED);
  it->wc.thread.stack_limit = __atomic_load_n(&t->stack_limit, __ATOMIC_RELAXED);
  copy_regs(&it->top, top);
  if (be == NULL) {
    int why = asgst__unbound_error();
    asgst__iterator_fail(it, why);
    return why;
  }
  int kind = start(it);
  if (kind > 0) it->kind = kind;
  return kind;
}

/* SS. A plain copy (16-byte moves). Frames are read well after the batch wrote them, so
 * the narrower stores that wrote them have left the store buffer (a frame read right after
 * its stores would stall on failed store forwarding). */
static inline void copy_frame(ASGST_Frame *d, const ASGST_Frame *s) {
  __builtin_memcpy(d, s, sizeof *d);
}

/* SS. The buffered frame `off` bytes into it->wc.pending. */
static inline const ASGST_Frame *frame_at(const ASGST_Iterator *it, uint32_t off) {
  return (const ASGST_Frame *)(const void *)((const char *)it->wc.pending + off);
}

/* SS. */
ASGST__HOT int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *frame) {
  /* Most calls hand out a buffered frame that is not the batch's last: state stays 1, and
   * only the offset moves (batch() set fast_end_off). A call per frame is a good part of a deep
   * walk's cost. */
  if (__builtin_expect(it != NULL && frame != NULL, 1)) {
    uint32_t off = it->next_off;
    /* Expected: the fast path falls through (no taken branch). */
    if (__builtin_expect(off < it->fast_end_off, 1)) {
      copy_frame(frame, frame_at(it, off));
      it->next_off = off + sizeof(ASGST_Frame);
      return 1;
    }
  }
  if (it == NULL || frame == NULL) {
    if (frame) memset(frame, 0, sizeof *frame);
    return ASGST_INVALID_ARGUMENT;
  }
  if (it->state <= 0) {
    memset(frame, 0, sizeof *frame);
    return it->state;
  }
  copy_frame(frame, frame_at(it, it->next_off));
  it->next_off += sizeof(ASGST_Frame);
  bool bytecode = frame->type == ASGST_FRAME_JAVA || frame->type == ASGST_FRAME_JAVA_INLINED;
  if (bytecode && (it->wc.options & ASGST_END_ON_FIRST_JAVA_FRAME))
    it->state = ASGST_NO_FRAME;
  else if (it->next_off < (uint32_t)it->wc.npending * sizeof(ASGST_Frame))
    it->state = 1;
  else if (it->end <= 0)
    it->state = it->end;
  else
    batch(it, batch_size(it), false);
  return 1;
}

/* SS. */
void asgst__iterator_fail(ASGST_Iterator *it, int error) {
  it->be = NULL;
  it->walked_state = 0;
  it->kind = error;
  it->state = error;
  it->wc.npending = 0;
  it->next_off = it->fast_end_off = 0;
}

/* SS. */
void ASGST_RewindIterator(ASGST_Iterator *it) {
  if (it == NULL || it->kind <= 0) return;
  start(it);
}

/* SS. */
int ASGST_State(ASGST_Iterator *it) {
  return it == NULL ? 0 : it->state;
}

/* SS. */
int ASGST_IteratorThreadState(ASGST_Iterator *it) {
  if (it == NULL || it->kind <= 0) return 0;
  return it->walked_state ? it->walked_state : ASGST_ThreadState();
}

/* SS. */
ASGST__HOT int asgst__run_with_iterator(const asgst__backend *be, const asgst__thread *t,
                             const asgst__regs *top, int32_t options,
                             ASGST_IteratorHandler fun, void *arg) {
  ASGST_Iterator it;
  int kind = asgst__iterator_begin(&it, be, t, top, options);
  if (fun) fun(&it, arg);
  return kind;
}

/* SS. Walk the current thread from registers; shared by the two public entry points.
 * The thread lookup runs under the first batch's crash guard when the backend offers
 * that (one guard setup per walk, not two); a fault in the lookup is taken as the guarded
 * lookup takes it: a thread the VM does not know, walked again from the top. */
ASGST__HOT static int run_here(const asgst__regs *top, int32_t options, ASGST_IteratorHandler fun,
                    void *arg) {
  const asgst__backend *be = asgst__active_backend();
  if (be && be->prefetch) be->prefetch(top);
  if (be && be->current_thread_unguarded) {
    ASGST_Iterator it;
    it.be = be;
    it.wc.options = options;
    it.kind = 0;
    it.walked_state = 0;
    it.wc.has_top_position = 0;
    it.wc.thread_checked = 1;
    it.wc.depth = 0;
    it.wc.cur_decoded = 0;
    it.end = 1;
    copy_regs(&it.top, top);
    int kind = batch_here(&it, batch_size(&it));
    if (kind == LOOKUP_FAULTED) {
      asgst__thread none = {0};
      kind = asgst__iterator_begin(&it, be, &none, top, options);
    } else if (kind > 0) {
      it.kind = kind;
    } /* else the lookup's or begin()'s error: batch() set it as the state */
    if (fun) fun(&it, arg);
    return kind;
  }
  asgst__thread t = {0};
  int kind = be ? be->current_thread(&t) : asgst__unbound_error();
  if (kind <= 0) {
    ASGST_Iterator it;
    asgst__iterator_fail(&it, kind);
    if (fun) fun(&it, arg);
    return kind;
  }
  return asgst__run_with_iterator(be, &t, top, options, fun, arg);
}

/* SS. noinline: "here" is this function's caller, found through our own frame. */
ASGST__HOT __attribute__((noinline)) int ASGST_RunWithIterator(void *ucontext, int32_t options,
                                                    ASGST_IteratorHandler fun, void *arg) {
  asgst__regs top;
  if (ucontext) {
    asgst__regs_from_ucontext(ucontext, &top);
  } else {
    ASGST__CALLER_REGS(top);
  }
  return run_here(&top, options, fun, arg);
}

/* SS. */
int ASGST_RunWithIteratorFromFrame(void *sp, void *fp, void *pc, int32_t options,
                                   ASGST_IteratorHandler fun, void *arg) {
  asgst__regs top = {(uintptr_t)pc, (uintptr_t)sp, (uintptr_t)fp, 0};
  return run_here(&top, options, fun, arg);
}
