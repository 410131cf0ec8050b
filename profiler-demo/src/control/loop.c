/*
 * loop.c - loop=<duration>: a thread that ends a period every duration (the outputs are
 * written and a new profile starts: the function prof_loop_start was given, which is
 * control/profiler.c's prof_period_end; passed in, so that the loop calls nothing of the
 * file that starts it) while sampling goes on. Periods keep a fixed cadence from the start: a slow write shortens the next
 * wait, it does not shift every later period.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "control/control.h"
#include "core/say.h"
#include "core/state.h"

static pthread_t thread;
static bool started;
static bool stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static int (*end_period)(char *err, size_t errlen);

/* N. t += ns. */
static void advance(struct timespec *t, uint64_t ns) {
  uint64_t n = (uint64_t)t->tv_nsec + ns % 1000000000u;
  t->tv_sec += (time_t)(ns / 1000000000u + n / 1000000000u);
  t->tv_nsec = (long)(n % 1000000000u);
}

/* N. Waits for each period's end (or the stop) and ends the period. */
static void *looper(void *arg) {
  (void)arg;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  pthread_mutex_lock(&lock);
  while (!stopping) {
    advance(&next, prof.opts.loop_ns);
    while (!stopping && pthread_cond_timedwait(&wake, &lock, &next) != ETIMEDOUT) {
    }
    if (stopping) break;
    pthread_mutex_unlock(&lock);
    char err[600];
    if (end_period(err, sizeof err) != 0) prof_say("asgst-prof: loop: %s\n", err);
    pthread_mutex_lock(&lock);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* N. */
void prof_cond_init_monotonic(pthread_cond_t *c) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(c, &a);
  pthread_condattr_destroy(&a);
}

/* N. */
int prof_loop_start(int (*end)(char *err, size_t errlen)) {
  if (!prof.opts.loop_ns || started) return 0;
  end_period = end;
  /* The waits are on the monotonic clock: a wall-clock step does not bunch periods. */
  static bool cond_made;
  if (!cond_made) prof_cond_init_monotonic(&wake), cond_made = true;
  stopping = false;
  if (pthread_create(&thread, NULL, looper, NULL) != 0) return -1;
  pthread_setname_np(thread, "asgst-loop"); /* ours: not profiled (threads.c) */
  started = true;
  return 0;
}

/* N. Returns once the thread has ended: a period being written is finished first. */
void prof_loop_stop(void) {
  if (!started) return;
  pthread_mutex_lock(&lock);
  stopping = true;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  started = false;
}
