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
 * Threads that existed before an attach (or before a restart) have no queue: a queue can
 * only be registered with the thread's own JNIEnv, which JVMTI gives us at ThreadStart.
 * Their samples are counted as "no queue".
 */
#include <pthread.h>
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

typedef struct {
  int ev;
  uint64_t t_event;
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

/* SP. The queue handler: the sample's walk, at the thread's safe point. */
static void on_element(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  qthread *qt = queue_arg;
  slot *s = element_arg;
  uint64_t t0 = prof_now_ns();
  prof_walk w;
  w.n = 0;
  w.error = 0;
  int state = ASGST_State(it);
  if (state == ASGST_STALE_FRAME)
    atomic_fetch_add_explicit(&prof.stats.stale, 1, memory_order_relaxed);
  /* The kind of the walk: the iterator's state says whether it can start at all. */
  int r = state < 0 ? state : ASGST_JAVA_TRACE;
  if (state >= 0) prof_walk_collect(it, &w);
  uint64_t t1 = prof_now_ns();
  atomic_fetch_add_explicit(&prof.stats.handled, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_ns, t1 - t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_walks, 1, memory_order_relaxed);
  prof_store_walk(s->ev, qt->tid, r, &w, t1 - t0, t0 > s->t_event ? t0 - s->t_event : 0,
                  s->has_fdi ? &s->fdi : NULL, s->ref.n >= 0 ? &s->ref : NULL);
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

/* SS. */
void prof_queue_sample(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi) {
  qthread *qt = self_q;
  if (!qt) {
    atomic_fetch_add_explicit(&prof.stats.enqueue_no_queue, 1, memory_order_relaxed);
    return;
  }
  slot *s = &qt->slots[qt->next % SLOTS];
  s->ev = ev;
  s->t_event = t_event;
  s->has_fdi = fdi != NULL;
  if (fdi) s->fdi = *fdi;
  s->ref.n = -1;
  if (prof.opts.compare) prof_ref_take(ucontext, &s->ref);
  int r = ASGST_Enqueue(qt->q, ucontext, s);
  if (r > 0) {
    qt->next++;
    atomic_fetch_add_explicit(&prof.stats.enqueued, 1, memory_order_relaxed);
  } else if (r == ASGST_ENQUEUE_FULL_QUEUE) {
    atomic_fetch_add_explicit(&prof.stats.enqueue_full, 1, memory_order_relaxed);
  } else if (r == ASGST_ENQUEUE_NO_QUEUE) {
    atomic_fetch_add_explicit(&prof.stats.enqueue_no_queue, 1, memory_order_relaxed);
  } else {
    atomic_fetch_add_explicit(&prof.stats.enqueue_failed, 1, memory_order_relaxed);
  }
}
