/*
 * walk_queue.c - walk=queue: every profiled Java thread owns an ASGST safepoint queue
 * (registered at JVMTI ThreadStart on the thread itself, deregistered at ThreadEnd). The
 * signal handler only calls ASGST_Enqueue, which records the interrupted top Java frame;
 * at the thread's next safe point the library calls on_element with an iterator that
 * starts at that frame, or reports ASGST_STALE_FRAME when the frame has gone meanwhile,
 * and on_element stores the sample as the in-handler path does.
 *
 * Element args: what the handler knows about a sample (event, time, the syscall's fds,
 * the reference walk of `compare`) goes into a slot of a per-thread array allocated at
 * ThreadStart, never in the handler. The array has twice the queue's capacity: a queue
 * holds at most `capacity` elements (including those being handled; the library frees them
 * only when processing ends), so the slot the handler fills next was used 2 * capacity
 * enqueues ago and its element is certainly gone, even while the handler writes it before
 * knowing whether the queue has room.
 *
 * A thread's slots outlive its queue: the library may still be running on_element for a
 * queue that is being deregistered (processing on its own thread). Ended threads' slot
 * arrays go to a pool and are reused only after POOL_GRACE_NS.
 *
 * Compression (the API's GetEnqueuableElement / GetQueueElement): a sample whose frame
 * (pc, sp, fp) and event equal those of the youngest element still queued is folded into
 * that element's slot (one more in its `folds`) instead of being enqueued; on_element then
 * stores the walk once with the weight 1 + folds. A slot's `folds` is claimed exactly once,
 * by on_element or, for elements ASGST_DeregisterQueue drops unhandled, by the drop count
 * at deregistration (count_dropped): both exchange it with SLOT_CLOSED, and the handler
 * folds only by a compare-and-swap from a value >= 0. So every sample is counted once:
 * handled (with its folds), dropped (with its folds), or not enqueued.
 *
 * Threads that existed before an attach (or before a restart) have no queue: a queue can
 * only be registered with the thread's own JNIEnv, which JVMTI gives us at ThreadStart.
 * Their samples are counted as "no queue".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jni.h>

#include "core/say.h"
#include "core/state.h"
#include "walk/walk.h"

#define QUEUE_SIZE 64
#define SLOTS (2 * QUEUE_SIZE)
#define POOL_GRACE_NS 1000000000ull

/* A slot's folds: >= 0 while its element waits (samples folded into it); else one of: */
#define SLOT_CLOSED (-1) /* claimed by on_element or by the drop count: no more folds */
#define SLOT_FREE (-2)   /* not in the queue (never enqueued, or the enqueue failed) */

typedef struct {
  _Atomic int32_t folds;
  int ev;
  uint64_t t_event;
  uint8_t state;
  bool has_fdi;
  prof_fdinfo fdi;
  prof_ref_walk ref;
} slot;

typedef struct qthread {
  ASGST_Queue *q;
  pid_t tid;
  uint32_t next;          /* the slot the handler fills next (the handler only) */
  uint64_t ended_ns;      /* when the thread ended (pool) */
  bool live;              /* q is registered */
  struct qthread *link;   /* pool or live list */
  slot slots[SLOTS];
} qthread;

/* The calling thread's queue, read in the signal handler: initial-exec TLS is a plain
 * load from the thread pointer, never a lazy allocation. */
static __thread qthread *self_q __attribute__((tls_model("initial-exec")));
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static qthread *live_list, *pool;

/* SP. The queue handler: the sample's walk, at the thread's safe point, stored with the
 * weight of the samples folded into its element. A slot the drop count claimed first
 * (the queue was deregistered while this processing ran) is counted as dropped there. */
static void on_element(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  qthread *qt = queue_arg;
  slot *s = element_arg;
  int32_t folds = atomic_exchange(&s->folds, SLOT_CLOSED);
  if (folds < 0) return;
  uint64_t t0 = prof_now_ns();
  prof_walk w;
  w.n = 0;
  w.error = 0;
  w.other = false;
  w.state = s->state;
  int state = ASGST_State(it);
  if (state == ASGST_STALE_FRAME)
    atomic_fetch_add_explicit(&prof.stats.stale, 1, memory_order_relaxed);
  /* The kind of the walk: the iterator's state says whether it can start at all. */
  int r = state < 0 ? state : ASGST_JAVA_TRACE;
  if (state >= 0) prof_walk_collect(it, &w);
  uint64_t t1 = prof_now_ns();
  atomic_fetch_add_explicit(&prof.stats.handled, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.folded_handled, (uint64_t)folds, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_ns, t1 - t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_walks, 1, memory_order_relaxed);
  prof_store_walk(s->ev, qt->tid, r, &w, t1 - t0, t0 > s->t_event ? t0 - s->t_event : 0,
                  s->has_fdi ? &s->fdi : NULL, s->ref.n >= 0 ? &s->ref : NULL,
                  1 + (uint32_t)folds);
}

/* N. A slot array from the pool (ended long enough ago) or a new one; lock held. */
static qthread *take_qthread(void) {
  uint64_t now = prof_now_ns();
  for (qthread **p = &pool; *p; p = &(*p)->link)
    if (now - (*p)->ended_ns > POOL_GRACE_NS) {
      qthread *qt = *p;
      *p = qt->link;
      return qt;
    }
  return malloc(sizeof(qthread));
}

/* N. */
void prof_queue_thread_start(void *jni_env) {
  if (prof.opts.walk != WALK_QUEUE || !atomic_load(&prof.running) || self_q) return;
  pthread_mutex_lock(&lock);
  qthread *qt = take_qthread();
  if (qt) {
    memset(qt, 0, offsetof(qthread, slots));
    for (int i = 0; i < SLOTS; i++) atomic_init(&qt->slots[i].folds, SLOT_FREE);
    qt->tid = gettid();
    qt->q = ASGST_RegisterQueue((JNIEnv *)jni_env, QUEUE_SIZE, prof_walk_options(),
                                on_element, qt);
    qt->live = qt->q != NULL;
    if (qt->live) {
      qt->link = live_list;
      live_list = qt;
    } else {
      qt->ended_ns = prof_now_ns();
      qt->link = pool;
      pool = qt;
      qt = NULL;
    }
  }
  pthread_mutex_unlock(&lock);
  if (!qt) prof_say("asgst-prof: walk=queue: no queue for thread %d\n", (int)gettid());
  /* Published last: the handler uses it from here on. */
  atomic_signal_fence(memory_order_seq_cst);
  self_q = qt;
}

/* N. After qt's queue is deregistered: ASGST_DeregisterQueue dropped the elements still
 * queued, unhandled. Their slots are still open (folds >= 0): claims them and counts them,
 * with the samples folded into them. A processing in progress may still run on_element
 * for one of them; whichever claims a slot first counts it. */
static void count_dropped(qthread *qt) {
  for (int i = 0; i < SLOTS; i++) {
    slot *s = &qt->slots[i];
    if (atomic_load(&s->folds) < 0) continue;
    int32_t folds = atomic_exchange(&s->folds, SLOT_CLOSED);
    if (folds < 0) continue;
    atomic_fetch_add_explicit(&prof.stats.dropped, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&prof.stats.dropped_folds, (uint64_t)folds, memory_order_relaxed);
  }
}

/* N. Unlinks qt from the live list and deregisters its queue; lock held. */
static void deregister(qthread *qt, void *jni_env) {
  if (!qt->live) return;
  for (qthread **p = &live_list; *p; p = &(*p)->link)
    if (*p == qt) {
      *p = qt->link;
      break;
    }
  qt->live = false;
  ASGST_DeregisterQueue((JNIEnv *)jni_env, qt->q);
  count_dropped(qt);
}

/* N. */
void prof_queue_thread_end(void *jni_env) {
  qthread *qt = self_q;
  if (!qt) return;
  self_q = NULL;
  atomic_signal_fence(memory_order_seq_cst);
  pthread_mutex_lock(&lock);
  deregister(qt, jni_env);
  qt->ended_ns = prof_now_ns();
  qt->link = pool;
  pool = qt;
  pthread_mutex_unlock(&lock);
}

/* N. Queues of threads that go on running stay allocated (their TLS still points at them;
 * ASGST_Enqueue answers ASGST_ENQUEUE_NO_QUEUE for a deregistered queue). */
void prof_queue_stop_all(void) {
  pthread_mutex_lock(&lock);
  while (live_list) deregister(live_list, NULL);
  pthread_mutex_unlock(&lock);
}

/* SS. Folds the sample into the youngest element still queued if it is the same sample
 * for the stores: same frame (pc, sp, fp) and event, and no fd info on either side (such
 * samples are kept whole). False: enqueue it. The element pointer stays valid while this
 * handler runs: the queue is deregistered on this thread (ThreadEnd, after self_q is
 * cleared) or once the signals have stopped (stop), and the library swaps rings only in
 * ResizeQueue, which we never call. If a processing handles the element meanwhile, it has
 * closed the slot and the compare-and-swap fails. */
static bool try_fold(qthread *qt, int ev, void *ucontext, uint8_t state) {
  ASGST_QueueElement *last = ASGST_GetQueueElement(qt->q, -1);
  if (!last) return false;
  slot *s = last->arg;
  if (!s || s->ev != ev || s->state != state || s->has_fdi || atomic_load(&s->folds) < 0)
    return false;
  ASGST_QueueElement e;
  if (ASGST_GetEnqueuableElement(ucontext, &e) <= 0) return false;
  if (e.pc != last->pc || e.sp != last->sp || e.fp != last->fp) return false;
  int32_t v = atomic_load(&s->folds);
  while (v >= 0)
    if (atomic_compare_exchange_weak(&s->folds, &v, v + 1)) return true;
  return false;
}

/* SS. Whether the interrupted thread has no Java frame to enqueue (none on its stack, or
 * it is exiting): such a sample is lost to every walk mode alike (the in-handler walk
 * finds no Java frame either), so it is counted apart from the queue's own losses. */
static bool nothing_to_enqueue(void *ucontext) {
  ASGST_QueueElement e;
  int r = ASGST_GetEnqueuableElement(ucontext, &e);
  return r == ASGST_NO_FRAME || r == ASGST_NO_THREAD || r == ASGST_THREAD_EXIT ||
         r == ASGST_NO_TOP_JAVA_FRAME;
}

/* SS. Counts a sample that was not enqueued: r is ASGST_Enqueue's answer. */
static void count_not_enqueued(int r, void *ucontext) {
  _Atomic uint64_t *n = &prof.stats.enqueue_failed;
  if (r == ASGST_ENQUEUE_FULL_QUEUE)
    n = &prof.stats.enqueue_full;
  else if (nothing_to_enqueue(ucontext))
    n = &prof.stats.enqueue_no_java;
  else if (r == ASGST_ENQUEUE_NO_QUEUE)
    n = &prof.stats.enqueue_no_queue;
  atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
}

/* SS. A thread without a queue (a queue is registered only on its own thread, with its
 * JNIEnv: threads already running at an attach, and the JDK's few started before VMInit,
 * have none) is not lost to the profile: the caller walks it in the handler, as walk=signal
 * would. */
bool prof_queue_sample(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi,
                       uint8_t state) {
  qthread *qt = self_q;
  if (!qt) {
    atomic_fetch_add_explicit(&prof.stats.queue_walked_here, 1, memory_order_relaxed);
    return false;
  }
  if (!fdi && try_fold(qt, ev, ucontext, state)) {
    atomic_fetch_add_explicit(&prof.stats.folded, 1, memory_order_relaxed);
    return true;
  }
  slot *s = &qt->slots[qt->next % SLOTS];
  s->ev = ev;
  s->t_event = t_event;
  s->state = state;
  s->has_fdi = fdi != NULL;
  if (fdi) s->fdi = *fdi;
  s->ref.n = -1;
  if (prof.opts.compare) prof_ref_take(ucontext, &s->ref);
  /* Open before the push: a processing or drop count that sees the element sees it open. */
  atomic_store(&s->folds, 0);
  int r = ASGST_Enqueue(qt->q, ucontext, s);
  if (r > 0) {
    qt->next++;
    atomic_fetch_add_explicit(&prof.stats.enqueued, 1, memory_order_relaxed);
    return true;
  }
  /* Closed meanwhile: a stop on another thread deregistered the queue and its drop count
   * claimed the open slot, counting this sample as dropped already. */
  if (atomic_exchange(&s->folds, SLOT_FREE) == SLOT_CLOSED) return true;
  count_not_enqueued(r, ucontext);
  return true;
}
