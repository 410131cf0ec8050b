/*
 * wall_clock.c - wall-clock sampling: a timer thread sends the profiler's signal to every
 * registered Java thread each interval, running, sleeping or blocked alike.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "prof.h"

static pthread_t thread;
static _Atomic int active;
static uint64_t interval;

/* N. The timer thread: absolute-time sleeps so the period does not drift. */
static void *tick(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  while (atomic_load(&active)) {
    uint64_t ns = (uint64_t)next.tv_nsec + interval;
    next.tv_sec += (time_t)(ns / 1000000000);
    next.tv_nsec = (long)(ns % 1000000000);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    if (atomic_load(&active)) prof_threads_signal_all(prof_signal);
  }
  return NULL;
}

/* N. */
int prof_wall_start(uint64_t interval_ns, int event_index) {
  if (atomic_load(&active)) return 0;
  interval = interval_ns;
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
