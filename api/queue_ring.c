/*
 * queue_ring.c - the lock-free side of the safepoint queues: ASGST_Enqueue,
 * ASGST_GetEnqueuableElement, ASGST_GetQueueElement, ASGST_ResizeQueue,
 * ASGST_GetQueueSizeInfo, and the ring swap a resize needs. See queue.h for the protocol.
 */
#include <time.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "../impl/guard.h"

/* SS. The backend's own top-Java-frame finder, under the crash guard, with n callers. A
 * fault while the callers are sought keeps the top frame (the backend wrote it first) and
 * the callers found before it (the rest stay 0/0: the stale check compares those found). */
static int top_from_backend(const asgst__backend *be, const asgst__thread *t, const asgst__regs *top,
                            asgst__regs *out, asgst__regs *callers, int n, bool *direct) {
  volatile int r = ASGST_WALK_FAULTED;
  out->sp = 0;
  for (int k = 0; k < n; k++) callers[k].pc = callers[k].sp = 0;
  /* A walk of its own, outside a cursor's batch: a reader section of the C frame tables
   * around the guard (impl/walk_cursor.h; the backend's walk knows it is covered,
   * ASGST_CFI_COVERED), closed after the guard as a batch's is. */
  unsigned cfi = asgst__cfi_enter();
  ASGST__GUARDED(r = be->top_java_frame(t, top, out, callers, n, direct),
                 r = n > 0 && *(volatile uintptr_t *)&out->sp != 0 ? ASGST_JAVA_TRACE
                                                                   : ASGST_WALK_FAULTED);
  asgst__cfi_exit(cfi);
  return r;
}

/* SS. The first frame an iterator with options 0 reports is the top Java frame (non-Java
 * frames are skipped); its pc/sp/fp are its physical frame's even when it is inlined. */
static int top_from_walk(const asgst__backend *be, const asgst__thread *t,
                         const asgst__regs *top, asgst__regs *out) {
  ASGST_Iterator it;
  int kind = asgst__iterator_begin(&it, be, t, top, 0);
  if (kind <= 0) return kind;
  ASGST_Frame f;
  int r = ASGST_NextFrame(&it, &f);
  if (r < 0) return r;
  if (r == 0) return ASGST_NO_TOP_JAVA_FRAME;
  out->pc = (uintptr_t)f.pc;
  out->sp = (uintptr_t)f.sp;
  out->fp = (uintptr_t)f.fp;
  return kind;
}

/* SS (under the guard). note_frames() without its guard. */
static void note_frames_unguarded(const asgst__backend *be, const asgst__regs *r,
                                  const asgst__regs *callers, asgst__elem_ident *id) {
  if (be->frame_identity) id->ident = be->frame_identity(r);
  if (be->frame_position) {
    id->has_position = be->frame_position(r, &id->position);
    for (int k = 0; k < ASGST__CALLERS && callers[k].sp; k++)
      if (be->frame_identity && be->frame_position(&callers[k], &id->caller_position[k])) {
        id->caller_ident[k] = be->frame_identity(&callers[k]);
        id->caller_kept |= 1u << k;
      }
  }
}

/* SS. The backend's identity and position of the frame at r, and of each caller whose
 * position lies in its memory (callers[k].sp 0: none from k on), into *id, under one crash
 * guard (a signal handler pays for each guard it sets up); 0 and none if it faults. */
static void note_frames(const asgst__backend *be, const asgst__regs *r, const asgst__regs *callers,
                        asgst__elem_ident *id) {
  ASGST__GUARDED(note_frames_unguarded(be, r, callers, id),
                 { id->ident = 0; id->has_position = false; id->caller_kept = 0; });
}

/* SS (under the guard). callers_of() without its guard. */
static void callers_of_unguarded(const asgst__backend *be, const asgst__thread *t,
                                 const asgst__regs *f, bool at_call, asgst__elem_ident *id,
                                 asgst__regs *callers) {
  ASGST_Iterator it;
  int32_t how = ASGST__OPT_RECORDED_TOP | ASGST_INCLUDE_NON_JAVA_FRAMES |
                (at_call ? ASGST__OPT_RECORDED_AT_CALL : 0);
  ASGST_Frame fr;
  uintptr_t last = f->sp;
  int k = 0, physical = 0; /* physical frames below the element's */
  if (asgst__iterator_begin(&it, be, t, f, how) <= 0) return;
  while (k < ASGST__CALLERS && ASGST_NextFrame(&it, &fr) == 1) {
    if (fr.type == ASGST_FRAME_JAVA_INLINED || (uintptr_t)fr.sp == last) continue;
    physical++;
    if (fr.type == ASGST_FRAME_NON_JAVA) continue;
    if (k == 0) id->sender_direct = physical == 1;
    callers[k] = (asgst__regs){(uintptr_t)fr.pc, (uintptr_t)fr.sp, (uintptr_t)fr.fp, 0};
    last = id->caller_sp[k] = (uintptr_t)fr.sp;
    id->caller_pc[k++] = (uintptr_t)fr.pc;
  }
}

/* SS. No callers: what callers_of() leaves when its walk faults. */
static void forget_callers(asgst__elem_ident *id, asgst__regs *callers) {
  for (int k = 0; k < ASGST__CALLERS; k++) id->caller_sp[k] = id->caller_pc[k] = 0;
  id->sender_direct = false;
  for (int k = 0; k < ASGST__CALLERS; k++) callers[k].sp = 0;
}

/* SS. The callers of the frame at *f (sp and return pc of the next physical Java frames
 * below it, and whether the first is its own sender; their registers into callers[]),
 * under the crash guard; 0/0 past the end, or all if the walk faults. For a backend
 * without its own top-frame finder (which finds them on its way). */
static void callers_of(const asgst__backend *be, const asgst__thread *t, const asgst__regs *f,
                       bool at_call, asgst__elem_ident *id, asgst__regs *callers) {
  ASGST__GUARDED(callers_of_unguarded(be, t, f, at_call, id, callers),
                 forget_callers(id, callers));
}

/* N. */
asgst__ring *asgst__ring_new(int size) {
  size_t elems = sizeof(asgst__ring) + (size_t)size * sizeof(ASGST_QueueElement);
  asgst__ring *r = malloc(elems + (size_t)size * sizeof(asgst__elem_ident));
  if (r == NULL) return NULL;
  r->capacity = size;
  /* elements are 8-byte multiples */
  r->ident = (asgst__elem_ident *)(void *)((char *)r + elems);
  return r;
}

/* SS. */
int asgst__queue_capture(const asgst__regs *top, ASGST_QueueElement *e, asgst__elem_ident *ident) {
  memset(e, 0, sizeof *e);
  const asgst__backend *be = asgst__active_backend();
  if (be == NULL) return asgst__unbound_error();
  asgst__thread t = {0};
  int kind = be->current_thread(&t);
  if (kind <= 0) return kind;
  asgst__regs out = {0}, callers[ASGST__CALLERS] = {{0}};
  bool direct = false;
  int r = be->top_java_frame
              ? top_from_backend(be, &t, top, &out, callers, ident ? ASGST__CALLERS : 0, &direct)
              : top_from_walk(be, &t, top, &out);
  if (r <= 0) return r;
  e->pc = (void *)out.pc;
  e->sp = (void *)out.sp;
  e->fp = (void *)out.fp;
  /* Bit 0 (identities are aligned addresses): the frame was not the interrupted one but
   * stopped at a call (the anchor's), which its processing must know (queue_process.c). */
  if (ident == NULL) return r;
  bool at_call = out.pc != top->pc;
  memset(ident, 0, sizeof *ident);
  if (be->top_java_frame) {
    for (int k = 0; k < ASGST__CALLERS; k++) {
      ident->caller_sp[k] = callers[k].sp;
      ident->caller_pc[k] = callers[k].pc;
    }
    ident->sender_direct = direct;
  } else {
    callers_of(be, &t, &out, at_call, ident, callers);
  }
  note_frames(be, &out, callers, ident);
  ident->ident |= at_call;
  return r;
}

/* SS. Enters the ring as its producer. Refuses (false) when the consumer is swapping or
 * freeing the ring, or when another enqueue is already writing: a second signal handler
 * interrupting an enqueue on the same thread would otherwise write the same slot. */
static bool enter_producer(ASGST_Queue *q) {
  if (atomic_exchange(&q->producing, 1) != 0) return false;
  if (atomic_load(&q->resizing) || atomic_load(&q->dead)) {
    atomic_store(&q->producing, 0);
    return false;
  }
  return true;
}

/* SS. Enters the ring as a reader (several may nest). */
static bool enter_reader(ASGST_Queue *q) {
  atomic_fetch_add(&q->readers, 1);
  if (atomic_load(&q->resizing) || atomic_load(&q->dead)) {
    atomic_fetch_sub(&q->readers, 1);
    return false;
  }
  return true;
}

/* SS. Appends e; false if the ring is full. Called between enter/leave as the producer. */
static bool push(ASGST_Queue *q, const ASGST_QueueElement *e, const asgst__elem_ident *ident) {
  asgst__ring *r = atomic_load_explicit(&q->ring, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
  if (tail - head >= (uint64_t)r->capacity) return false;
  r->elems[tail % (uint64_t)r->capacity] = *e;
  r->ident[tail % (uint64_t)r->capacity] = *ident;
  /* Release: the consumer that sees the new tail sees the element's contents. */
  atomic_store_explicit(&q->tail, tail + 1, memory_order_release);
  return true;
}

/* SS. */
static bool is_full(ASGST_Queue *q) {
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
  return tail - head >= (uint64_t)atomic_load(&q->capacity);
}

/* SS. */
int asgst__queue_enqueue(ASGST_Queue *q, const asgst__regs *top, void *arg) {
  if (q == NULL || atomic_load(&q->dead)) return ASGST_ENQUEUE_NO_QUEUE;
  atomic_fetch_add_explicit(&q->attempts, 1, memory_order_relaxed);
  /* A cheap early answer: no walk for a queue that is full anyway. */
  if (is_full(q)) return ASGST_ENQUEUE_FULL_QUEUE;
  ASGST_QueueElement e;
  asgst__elem_ident ident;
  memset(&ident, 0, sizeof ident);
  int kind = asgst__queue_capture(top, &e, &ident);
  if (kind <= 0) return ASGST_ENQUEUE_OTHER_ERROR;
  e.arg = arg;
  if (!enter_producer(q))
    return atomic_load(&q->dead) ? ASGST_ENQUEUE_NO_QUEUE : ASGST_ENQUEUE_OTHER_ERROR;
  bool pushed = push(q, &e, &ident);
  atomic_store(&q->producing, 0);
  if (!pushed) return ASGST_ENQUEUE_FULL_QUEUE;
  atomic_store_explicit(&q->requested, 1, memory_order_release);
  asgst__queue_waker wake = asgst__queues_waker();
  if (wake && q->vm_owner) wake(q->vm_owner);
  return kind;
}

/* SS. noinline: with a NULL ucontext "here" is the caller's frame. */
__attribute__((noinline)) int ASGST_Enqueue(ASGST_Queue *q, void *ucontext, void *element_arg) {
  asgst__regs top;
  if (ucontext)
    asgst__regs_from_ucontext(ucontext, &top);
  else
    ASGST__CALLER_REGS(top);
  return asgst__queue_enqueue(q, &top, element_arg);
}

/* SS. noinline for the same reason as ASGST_Enqueue. */
__attribute__((noinline)) int ASGST_GetEnqueuableElement(void *ucontext, ASGST_QueueElement *e) {
  if (e == NULL) return ASGST_INVALID_ARGUMENT;
  asgst__regs top;
  if (ucontext)
    asgst__regs_from_ucontext(ucontext, &top);
  else
    ASGST__CALLER_REGS(top);
  return asgst__queue_capture(&top, e, NULL);
}

/* SS. The pointer stays valid until the processing that removes the element ends (or the
 * queue is deregistered); a resize only happens at the end of a processing. */
ASGST_QueueElement *ASGST_GetQueueElement(ASGST_Queue *q, int n) {
  if (q == NULL || !enter_reader(q)) return NULL;
  asgst__ring *r = atomic_load(&q->ring);
  uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
  int64_t size = (int64_t)(tail - head);
  int64_t k = n;
  ASGST_QueueElement *e = NULL;
  if (k >= 0 && k < size)
    e = &r->elems[(head + (uint64_t)k) % (uint64_t)r->capacity];
  else if (k < 0 && -k <= size)
    e = &r->elems[(tail - (uint64_t)(-k)) % (uint64_t)r->capacity];
  atomic_fetch_sub(&q->readers, 1);
  return e;
}

/* SS. Only records the wish: allocation happens at the end of the next processing. */
void ASGST_ResizeQueue(ASGST_Queue *q, int size) {
  if (q == NULL || size <= 0 || atomic_load(&q->dead)) return;
  atomic_store(&q->wanted, size);
}

/* SS. */
ASGST_QueueSizeInfo ASGST_GetQueueSizeInfo(ASGST_Queue *q) {
  ASGST_QueueSizeInfo info = {0, 0, 0};
  if (q == NULL || atomic_load(&q->dead)) return info;
  uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
  info.capacity = atomic_load(&q->capacity);
  /* head and tail are read separately; clamp so a racing update never shows nonsense. */
  int64_t size = (int64_t)(tail - head);
  info.size = (jint)(size < 0 ? 0 : size > info.capacity ? info.capacity : size);
  info.attempts = atomic_load_explicit(&q->attempts, memory_order_relaxed);
  return info;
}

/* SP. Waits until no producer or reader is inside. Naps rather than yields: the one it
 * waits for may be a thread of lower priority on this CPU (a queue owner in its handler,
 * while the caller runs at real-time priority under ASGST_INIT_REALTIME_QUEUES), which
 * sched_yield would never let run. */
void asgst__queue_exclude(ASGST_Queue *q) {
  struct timespec nap = {0, 20 * 1000};
  while (atomic_load(&q->producing) != 0 || atomic_load(&q->readers) != 0) nanosleep(&nap, NULL);
}

/* SP. Copies the elements into the new ring (the caller checked that they fit). */
static void move_elements(ASGST_Queue *q, asgst__ring *from, asgst__ring *to) {
  uint64_t head = atomic_load(&q->head);
  uint64_t n = atomic_load(&q->tail) - head;
  for (uint64_t i = 0; i < n; i++) {
    to->elems[i] = from->elems[(head + i) % (uint64_t)from->capacity];
    to->ident[i] = from->ident[(head + i) % (uint64_t)from->capacity];
  }
  atomic_store(&q->head, 0);
  atomic_store(&q->tail, n);
}

/* SP. Elements left after processing (enqueued by signal handlers while it ran) are never
 * dropped: if more of them are left than the new capacity holds, the resize waits for the
 * next processing, unless a newer wish replaced it meanwhile. */
void asgst__queue_apply_resize(ASGST_Queue *q) {
  int want = atomic_exchange(&q->wanted, 0);
  if (want <= 0 || want == atomic_load(&q->capacity)) return;
  asgst__ring *fresh = asgst__ring_new(want);
  if (fresh == NULL) return; /* keep the old ring; the wish is dropped */
  /* On the owner thread, signals wait until the swap is done (then enqueue into the new
   * ring) instead of being refused; another consumer relies on the resizing flag. */
  sigset_t all, saved;
  sigfillset(&all);
  bool own = pthread_equal(q->owner, pthread_self());
  if (own) pthread_sigmask(SIG_BLOCK, &all, &saved);
  atomic_store(&q->resizing, 1);
  asgst__queue_exclude(q);
  asgst__ring *old = atomic_load(&q->ring);
  bool fits = atomic_load(&q->tail) - atomic_load(&q->head) <= (uint64_t)want;
  if (fits) {
    move_elements(q, old, fresh);
    atomic_store(&q->ring, fresh);
    atomic_store(&q->capacity, want);
  }
  atomic_store(&q->resizing, 0);
  if (own) pthread_sigmask(SIG_SETMASK, &saved, NULL);
  if (fits) {
    free(old);
  } else {
    int none = 0;
    atomic_compare_exchange_strong(&q->wanted, &none, want);
    free(fresh);
  }
}
