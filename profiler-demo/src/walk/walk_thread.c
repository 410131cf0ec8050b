/*
 * walk_thread.c - walk=thread: stacks are walked out of thread, by a sampler thread, with
 * ASGST_RunWithIteratorOnThread (the library signals the target, holds it in its own
 * handler and walks it from the caller's thread under its crash guard).
 *
 * Who is the sampler:
 *   - wall: the timer thread itself. Instead of signalling every thread it walks each one
 *     in turn (wall_clock.c, prof_thread_walk): no handler of ours runs on the target at all.
 *   - cpu, cputimer, tracepoints: the event is a signal to the thread that spent the CPU
 *     or made the syscall, and only that thread knows when it happened. Our handler notes
 *     (tid, event, time, the syscall's fds, with `compare` an in-handler reference walk)
 *     in a lock-free request ring and wakes the walker thread through an eventfd; the
 *     walker then walks the thread where it is by then. The time between the two is the
 *     "event to walk" figure in the summary, and what the thread did meanwhile is what
 *     `compare` measures: an out-of-thread walk of a CPU or syscall event sees a later
 *     stack than the event's.
 * The library runs one out-of-thread walk at a time, so the walker and a wall timer thread
 * take turns. A walker that falls behind (each walk waits for its target to be scheduled)
 * drops requests older than REQUEST_MAX_AGE_NS instead of walking them: the stack it would
 * find then has nothing to do with the event (on a busy machine at short intervals the
 * backlog grows to seconds).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/say.h"
#include "core/state.h"
#include "core/thread_state.h"
#include "walk/walk.h"

#define RING 1024            /* requests in flight; power of two */
#define TARGET_TIMEOUT_US 10000 /* a thread that has not answered in 10 ms is left out */
#define REQUEST_MAX_AGE_NS 50000000ull /* summary_walk_mode.c says 50 ms too */

typedef struct {
  _Atomic uint64_t seq; /* cell sequence of the bounded ring (see push / pop) */
  int ev;
  pid_t tid;
  uint64_t t_event;
  uint8_t state;
  bool has_fdi;
  prof_fdinfo fdi;
  prof_ref_walk ref;
} request;

static request ring[RING];
static _Atomic uint64_t ring_tail; /* next cell producers claim */
static uint64_t ring_head;         /* next cell the walker reads (walker only) */
static int wake_fd = -1;
static pthread_t walker;
static _Atomic int walker_on;

/* One out-of-thread walk, with the time its iterator handler started and ended. */
typedef struct {
  prof_walk w;
  uint64_t t_start, t_end;
} timed_walk;

/* SS (called by the library on the walker thread). */
static void collect_timed(ASGST_Iterator *it, void *arg) {
  timed_walk *t = arg;
  t->t_start = prof_now_ns();
  /* A wall tick walked from the timer thread: the target's state as it read it. */
  if (t->w.state == TS_UNKNOWN) t->w.state = prof_tstate_of(ASGST_IteratorThreadState(it));
  prof_walk_collect(it, &t->w);
  t->t_end = prof_now_ns();
}

/* N. Walks tid out of thread and stores the sample. */
static void walk_target(int ev, pid_t tid, uint64_t t_event, const prof_fdinfo *fdi,
                        uint8_t state, const prof_ref_walk *ref) {
  timed_walk t;
  t.w.n = 0;
  t.w.error = 0;
  t.w.other = false;
  t.w.state = state;
  t.t_start = t.t_end = 0;
  uint64_t t0 = prof_now_ns();
  int r = ASGST_RunWithIteratorOnThread(tid, prof_walk_options(), TARGET_TIMEOUT_US,
                                        collect_timed, &t);
  uint64_t t1 = prof_now_ns();
  if (r == ASGST_THREAD_NOT_ANSWERING)
    atomic_fetch_add_explicit(&prof.stats.not_answering, 1, memory_order_relaxed);
  /* The handler is not called when the target cannot be reached at all. */
  if (t.t_start == 0) t.t_start = t.t_end = t1;
  atomic_fetch_add_explicit(&prof.stats.held_ns, t1 - t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_ns, t1 - t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.sampler_walks, 1, memory_order_relaxed);
  uint64_t lag = t.t_start > t_event ? t.t_start - t_event : 0;
  prof_store_walk(ev, tid, r, &t.w, t.t_end - t.t_start, lag, fdi, ref, 1);
}

/* SS. Claims a ring cell (a bounded multi-producer ring with one sequence number per
 * cell: a cell is free for the producer whose position equals its sequence, and ready
 * for the walker when the sequence is position + 1). NULL if the ring is full. */
static request *claim(uint64_t *pos) {
  uint64_t p = atomic_load_explicit(&ring_tail, memory_order_relaxed);
  for (;;) {
    request *c = &ring[p & (RING - 1)];
    uint64_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
    int64_t diff = (int64_t)(s - p);
    if (diff == 0) {
      if (atomic_compare_exchange_weak(&ring_tail, &p, p + 1)) {
        *pos = p;
        return c;
      }
    } else if (diff < 0) {
      return NULL;
    } else {
      p = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    }
  }
}

/* SS. */
void prof_thread_request(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi,
                         uint8_t state) {
  uint64_t pos;
  request *c = claim(&pos);
  if (!c) {
    atomic_fetch_add_explicit(&prof.stats.request_full, 1, memory_order_relaxed);
    return;
  }
  c->ev = ev;
  c->tid = gettid();
  c->t_event = t_event;
  c->state = state;
  c->has_fdi = fdi != NULL;
  if (fdi) c->fdi = *fdi;
  c->ref.n = -1;
  if (prof.opts.compare) prof_ref_take(ucontext, &c->ref);
  atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
  atomic_fetch_add_explicit(&prof.stats.requests, 1, memory_order_relaxed);
  uint64_t one = 1;
  if (write(wake_fd, &one, sizeof one) < 0) {
    /* EAGAIN: the counter is saturated, so the walker is awake anyway. */
  }
}

/* N. Walks every ready request, oldest first. */
static void drain(void) {
  for (;;) {
    request *c = &ring[ring_head & (RING - 1)];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != ring_head + 1) return;
    if (prof_now_ns() - c->t_event > REQUEST_MAX_AGE_NS)
      atomic_fetch_add_explicit(&prof.stats.request_late, 1, memory_order_relaxed);
    else
      walk_target(c->ev, c->tid, c->t_event, c->has_fdi ? &c->fdi : NULL, c->state,
                  c->ref.n >= 0 ? &c->ref : NULL);
    /* Free the cell for the producer that comes round the ring to it. */
    atomic_store_explicit(&c->seq, ring_head + RING, memory_order_release);
    ring_head++;
  }
}

/* N. The walker thread: sleeps on the eventfd, wakes to drain the ring. */
static void *walker_main(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  struct pollfd p = {.fd = wake_fd, .events = POLLIN};
  while (atomic_load(&walker_on)) {
    if (poll(&p, 1, 100) > 0) {
      uint64_t n;
      if (read(wake_fd, &n, sizeof n) < 0 && errno != EAGAIN) break;
    }
    drain();
  }
  drain();
  return NULL;
}

/* N. */
int prof_walker_start(void) {
  if (atomic_load(&walker_on)) return 0;
  for (int i = 0; i < RING; i++) atomic_store(&ring[i].seq, (uint64_t)i);
  atomic_store(&ring_tail, 0);
  ring_head = 0;
  if (wake_fd < 0) wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd < 0) return -1;
  atomic_store(&walker_on, 1);
  if (pthread_create(&walker, NULL, walker_main, NULL) != 0) {
    atomic_store(&walker_on, 0);
    return -1;
  }
  pthread_setname_np(walker, "asgst-walker");
  return 0;
}

/* N. Called after sampling stopped: the walker drains what is left and ends. */
void prof_walker_stop(void) {
  if (!atomic_exchange(&walker_on, 0)) return;
  pthread_join(walker, NULL);
}

/* N. */
void prof_thread_walk(int ev, pid_t tid) {
  atomic_fetch_add_explicit(&prof.stats.signals[ev], 1, memory_order_relaxed);
  /* Walked from the timer thread: the target's state is not known here. */
  walk_target(ev, tid, prof_now_ns(), NULL, TS_UNKNOWN, NULL);
}
