/*
 * wall_clock.c - wall-clock sampling: a timer thread sends SIGVTALRM to every registered
 * Java thread each interval, running, sleeping or blocked alike (with walk=thread it walks
 * each of them out of thread instead, walk_thread.c). The tick stretches when
 * the samples or the round of signals would cost more than the overload budget
 * (overload.c).
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "core/say.h"
#include "core/state.h"
#include "sampling/sampling.h"
#include "walk/walk.h"

static pthread_t thread;
static _Atomic int active;
static uint64_t interval;
static int event;

/* N. walk=thread: walks every registered thread from this (timer) thread; returns how
 * many walks were attempted. */
static int walk_all(void) {
  static pid_t tids[PROF_MAX_THREADS];
  int n = prof_threads_tids(tids, PROF_MAX_THREADS);
  for (int i = 0; i < n && atomic_load(&prof.running); i++) prof_thread_walk(event, tids[i]);
  return n;
}

/* N. The timer thread: absolute-time sleeps so the period does not drift. */
static void *tick(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  uint64_t next = prof_now_ns(), tick_ns = interval;
  while (atomic_load(&active)) {
    next += tick_ns;
    struct timespec ts = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (!atomic_load(&active)) break;
    uint64_t t0 = prof_now_ns();
    /* walk=thread: this thread is the sampler and walks each thread itself. */
    int n = prof.opts.walk == WALK_THREAD ? walk_all()
                                          : prof_threads_signal_all(prof.signal_wall);
    uint64_t t1 = prof_now_ns();
    atomic_fetch_add(&prof.stats.kernel_count[event], (uint64_t)n); /* signals sent */
    tick_ns = prof_load_wall_interval(event, interval, t1 - t0, n);
    /* More than a tick behind (a busy machine): go on from now instead of a burst. */
    if (t1 > next + tick_ns) next = t1;
  }
  return NULL;
}

/* N. */
int prof_wall_start(uint64_t interval_ns, int event_index) {
  if (atomic_load(&active)) return 0;
  interval = interval_ns;
  event = event_index;
  prof_signal_set_wall_event(event_index);
  atomic_store(&active, 1);
  if (pthread_create(&thread, NULL, tick, NULL) != 0) {
    atomic_store(&active, 0);
    return -1;
  }
  pthread_setname_np(thread, "asgst-wall");
  return 0;
}

/* N. */
void prof_wall_stop(void) {
  if (!atomic_exchange(&active, 0)) return;
  pthread_join(thread, NULL);
}
