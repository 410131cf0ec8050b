/*
 * queue_process.c - processing a thread's queues at a safe point: the hooks, one handler
 * call per element with an iterator starting at the element's frame, removal, the pending
 * resize. ASGST_ProcessQueues is the safe point a thread declares itself (no JVM needed);
 * a VM backend's processing thread calls asgst__queue_process for a stopped thread.
 *
 * Stale elements. An element records a frame that was on the stack when its signal came.
 * At processing time the frame can only still be there if it lies at or above the
 * position of the safe point: the stack grows down, so a frame below the current stack
 * pointer has been popped (its memory may hold newer frames by now). So: if the element's
 * sp lies inside the owner thread's OS stack and below the safe point's sp, the handler
 * gets an iterator whose state is ASGST_STALE_FRAME. An element whose sp is outside that
 * stack (a synthetic stack in another memory region) is the backend's to judge when the
 * iterator is built. A frame at or above the safe point may still have been replaced by
 * another one at the same place: where the backend can tell what a frame is
 * (frame_identity: the Method* of an interpreted frame, the code blob of a compiled one),
 * the element is current only if the stack from the safe point down has a frame at the
 * element's sp with the identity recorded at enqueue time (asgst__queue_scan).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "../impl/guard.h"

/* SP. An iterator that reports `error` on its first use. */
static void error_iterator(ASGST_Iterator *it, const asgst__queue_point *p, int32_t options,
                           int error) {
  memset(it, 0, offsetof(ASGST_Iterator, wc.pending));
  it->be = p->be;
  it->wc.options = options;
  it->kind = error;
  it->state = error;
  it->wc.npending = 0;
  it->next_off = it->fast_end_off = 0;
}

typedef struct {
  asgst__queue_point *p;
} scan_ctx;

/* SP. Iterator handler of the scan: each physical frame once (inlined frames share it). */
static void scan_frames(ASGST_Iterator *it, void *arg) {
  asgst__queue_point *p = ((scan_ctx *)arg)->p;
  ASGST_Frame f;
  p->nstable = 0;
  while (p->nstable < ASGST__STABLE_MAX && ASGST_NextFrame(it, &f) == 1) {
    if (f.type == ASGST_FRAME_JAVA_INLINED) continue;
    asgst__regs r = {(uintptr_t)f.pc, (uintptr_t)f.sp, (uintptr_t)f.fp, 0};
    asgst__stable_frame *s = &p->stable[p->nstable++];
    *s = (asgst__stable_frame){r.sp, r.pc, r.fp, p->be->frame_identity(&r), 0, false};
    if (p->be->frame_position) s->has_position = p->be->frame_position(&r, &s->position);
  }
}

/* SP. */
void asgst__queue_scan(asgst__queue_point *p) {
  p->nstable = -1;
  if (p->be == NULL || p->be->frame_identity == NULL || p->thread_kind <= 0) return;
  scan_ctx c = {p};
  /* A fault: no proof either way, fall back to the position check. */
  ASGST__GUARDED(asgst__run_with_iterator(p->be, &p->thread, &p->here, 0, scan_frames, &c),
                 p->nstable = -1);
}

/* SP. True if the stack scanned at the safe point has the frame with that sp and identity. */
static bool still_there(const asgst__queue_point *p, uintptr_t sp, uintptr_t ident) {
  for (int i = 0; i < p->nstable; i++)
    if (p->stable[i].sp == sp) return (ident & ~(uintptr_t)1) != 0 && p->stable[i].ident == (ident & ~(uintptr_t)1);
  return false;
}

/* SP. True if the scanned frame s is recorded caller k of the element: same place (sp and
 * return pc) and, for a caller whose position lies in its memory, same identity and
 * position. An interpreted caller's return pc is the interpreter's, shared by every call
 * site of every method: without those a new call under a sender of another method at the
 * same depth passed (seen under qemu, where owners run on for milliseconds; docs/queues.md,
 * "Why the defaults"). */
static bool caller_is(const asgst__stable_frame *s, const asgst__elem_ident *id, int k) {
  if (s->sp != id->caller_sp[k] || s->pc != id->caller_pc[k]) return false;
  if (!(id->caller_kept & (1u << k))) return true;
  return s->has_position && s->position == id->caller_position[k] && s->ident == id->caller_ident[k];
}

/* SP. True if the scanned stack from index `from` on holds the element's recorded callers,
 * its sender first, each at its recorded place; a caller not recorded (0) is not
 * compared. */
static bool callers_there(const asgst__queue_point *p, int from, const asgst__elem_ident *id) {
  for (int k = 0; k < ASGST__CALLERS && id->caller_sp[k] != 0; k++)
    if (from + k >= p->nstable || !caller_is(&p->stable[from + k], id, k)) return false;
  return true;
}

/* SP. True if the scanned stack has a frame with the element's identity under the
 * element's recorded callers. A frame's own sp is not compared: it moves within one
 * activation (an interpreted frame's expression stack, a compiled frame sampled in its
 * prologue), its callers' positions do not. A frame whose position lies in its own memory
 * (has_position: an interpreted frame, decoded from slots below its fp) must have kept
 * its fp, which does not move within an activation: the iterator reads those slots at the
 * recorded fp (under qemu, a new activation of the same method under the same sender, at
 * another fp, once had the element's iterator read a Method* from stale memory). */
static bool sender_still_there(const asgst__queue_point *p, const ASGST_QueueElement *e,
                               const asgst__elem_ident *id) {
  uintptr_t ident = id->ident & ~(uintptr_t)1;
  for (int i = 0; i + 1 < p->nstable; i++)
    if (p->stable[i + 1].sp == id->caller_sp[0])
      return ident != 0 && p->stable[i].ident == ident && callers_there(p, i + 1, id) &&
             (!id->has_position || p->stable[i].fp == (uintptr_t)e->fp);
  return false;
}

/* SP. True if the owner stopped while returning from the element's frame: that frame is
 * gone (a compiled method's return poll comes after its frame is popped) but the top frame
 * of the stopped stack is exactly its sender, at the return address into it. The element's
 * frame is then decoded from its recorded registers and its callers read live. Only
 * - a frame that returns straight into its sender: one the VM called from C code under
 *   that sender (a class initializer, a JavaCalls upcall) leaves the sender at the same
 *   place for as long as the VM's own call lasts, with the frame long gone;
 * - a frame that can be decoded from its registers alone: one whose position lies in its
 *   own memory (an interpreted frame: Method* and bcp in slots) has nothing left to decode
 *   once popped, and another callee returning to the same return address (an interpreted
 *   sender's is shared by its call sites) looks just the same.
 * Both were seen under qemu, each an interpreted frame taken for current after it had
 * returned, its iterator reading a Method* from the popped frame. (An interpreted sender
 * must also stand where it stood at the sample: callers_there.) */
static bool returning(const asgst__queue_point *p, const asgst__elem_ident *id) {
  return id->sender_direct && !id->has_position && p->nstable > 0 && callers_there(p, 0, id);
}

/* SP. See the file comment. With the sender known (it is unless the element's frame is the
 * thread's first), the element is current exactly when the owner stopped in its frame or
 * while returning from it; a frame popped and replaced by another at the same place is
 * thereby stale. Without it, by position and identity. */
static bool is_stale(const ASGST_Queue *q, const asgst__queue_point *p,
                     const ASGST_QueueElement *e, const asgst__elem_ident *id) {
  uintptr_t sp = (uintptr_t)e->sp;
  /* A stopped owner with no Java frame on its stack (its last Java frame has returned and
   * it is ending: other agents' ThreadEnd callbacks run in native code, where it can be
   * suspended) holds none of its elements' frames any more. */
  if (p->thread_kind == ASGST_NO_TOP_JAVA_FRAME) return true;
  if (p->nstable >= 0 && id->caller_sp[0] != 0)
    return !returning(p, id) && !sender_still_there(p, e, id);
  bool on_own_stack = sp >= q->stack_lo && sp < q->stack_hi;
  if (on_own_stack && sp < p->here.sp) return true;
  return p->nstable >= 0 && !still_there(p, sp, id->ident);
}

/* SP. Calls the queue's handler for one element. */
static void handle_element(ASGST_Queue *q, const asgst__queue_point *p,
                           const ASGST_QueueElement *e, const asgst__elem_ident *id) {
  uintptr_t ident = id->ident;
  ASGST_Iterator it;
  if (is_stale(q, p, e, id)) {
    error_iterator(&it, p, q->options, ASGST_STALE_FRAME);
  } else if (p->be == NULL || p->thread_kind <= 0) {
    error_iterator(&it, p, q->options, p->be ? p->thread_kind : asgst__unbound_error());
  } else {
    /* lr: a frame sampled before it saved its return address (arm64's link register)
     * returns to where its sender was called, which the element noted. */
    asgst__regs top = {(uintptr_t)e->pc, (uintptr_t)e->sp, (uintptr_t)e->fp, id->caller_pc[0]};
    /* The element's frame as it was at enqueue time: its pc then, its callers now. */
    int32_t how = ASGST__OPT_RECORDED_TOP | ((ident & 1) ? ASGST__OPT_RECORDED_AT_CALL : 0);
    it.wc.top_position = id->position;
    it.wc.has_top_position = id->has_position;
    asgst__iterator_begin_at(&it, p->be, &p->thread, &top, q->options | how);
  }
  q->fun(&it, q->arg, e->arg);
}

typedef struct {
  ASGST_Queue *q;
  asgst__queue_hook hook;
} hook_call;

/* SP. Adapts the hook's signature to ASGST_IteratorHandler. */
static void call_hook_with(ASGST_Iterator *it, void *arg) {
  hook_call *c = arg;
  c->hook.h(c->q, it, c->hook.arg);
}

/* SP. Runs the start (is_end false) or end hook, if set. */
static void run_hook(ASGST_Queue *q, const asgst__queue_point *p, bool is_end) {
  hook_call c = {q, asgst__queue_get_hook(q, is_end)};
  if (c.hook.h == NULL) return;
  if (!c.hook.offer_iterator) {
    c.hook.h(q, NULL, c.hook.arg);
  } else if (p->be == NULL || p->thread_kind <= 0) {
    ASGST_Iterator it;
    error_iterator(&it, p, c.hook.options, p->be ? p->thread_kind : asgst__unbound_error());
    call_hook_with(&it, &c);
  } else {
    asgst__run_with_iterator(p->be, &p->thread, &p->here, c.hook.options, call_hook_with, &c);
  }
}

/* SP. Elements enqueued while the handlers run (by signal handlers interrupting them) lie
 * beyond the tail read at the start and stay for the next processing. A handler may
 * deregister the queue: the remaining elements are then dropped, as deregistration says. */
int asgst__queue_process(ASGST_Queue *q, const asgst__queue_point *p) {
  atomic_store(&q->requested, 0);
  uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
  int handled = 0;
  if (tail != head && !atomic_load(&q->dead)) {
    /* Only this consumer swaps the ring, so it is stable until apply_resize below. */
    asgst__ring *r = atomic_load(&q->ring);
    run_hook(q, p, false);
    for (uint64_t i = head; i != tail && !atomic_load(&q->dead); i++) {
      ASGST_QueueElement e = r->elems[i % (uint64_t)r->capacity];
      asgst__elem_ident id = r->ident[i % (uint64_t)r->capacity];
      handle_element(q, p, &e, &id);
      handled++;
    }
    if (!atomic_load(&q->dead)) run_hook(q, p, true);
    /* Release: the producer that sees the new head may reuse the slots. */
    atomic_store_explicit(&q->head, tail, memory_order_release);
  }
  if (atomic_load(&q->dead)) return handled;
  asgst__queue_apply_resize(q);
  atomic_store(&q->attempts, 0);
  return handled;
}

/* SP. Processes every queue of one owner at point p (scanned first). */
static int process_owned(asgst__queue_point *p, void *owner) {
  unsigned round = asgst__queue_new_round();
  int total = 0;
  bool scanned = false;
  ASGST_Queue *q;
  while ((q = asgst__queue_take_next(round, owner)) != NULL) {
    if (!scanned) asgst__queue_scan(p), scanned = true;
    total += asgst__queue_process(q, p);
    asgst__queue_release(q);
  }
  return total;
}

/* SP. noinline: the safe point is the caller's frame. */
__attribute__((noinline)) int ASGST_ProcessQueues(void) {
  asgst__queue_point p;
  memset(&p, 0, sizeof p);
  ASGST__CALLER_REGS(p.here);
  p.be = asgst__active_backend();
  p.thread_kind = p.be ? p.be->current_thread(&p.thread) : asgst__unbound_error();
  return process_owned(&p, NULL);
}

/* SP (the owner is stopped). Several processing threads may call this at once. */
int asgst__api_queues_process_stopped(void *owner, const asgst__thread *t, int thread_kind,
                                      const asgst__regs *here) {
  asgst__queue_point *p = malloc(sizeof *p); /* 12 KB: off the stack */
  if (p == NULL) return 0;
  memset(p, 0, offsetof(asgst__queue_point, stable));
  p->be = asgst__active_backend();
  p->thread = *t;
  p->thread_kind = p->be ? thread_kind : asgst__unbound_error();
  p->here = *here;
  int n = process_owned(p, owner);
  free(p);
  return n;
}
