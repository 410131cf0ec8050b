/*
 * fd_live.c - the fd table and report while the JVM runs: one thread reads the calls the
 * handlers leave in the ring into the table every DRAIN_NS (so the ring never fills at any
 * rate a JVM reaches) and rewrites fds= every fds_interval; asgst-attach's "fds [match]"
 * gets the report at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/say.h"
#include "core/state.h"
#include "fd/fd.h"

#define DRAIN_NS 5000000u /* 5 ms: at 60,000 calls a second, 300 of the ring's cells */

static _Atomic bool drainer_alive;

/* N. True if this run traces fd calls. */
static bool fd_traced(void) {
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.opts.events[i].fd_call != FDC_NONE) return true;
  return false;
}

/* N. The drainer: one per process, for its life (a restart finds it running). Reads the
 * ring every DRAIN_NS, and while profiling rewrites fds= every fds_interval (the stop
 * writes the final report itself). */
static void *drainer(void *arg) {
  (void)arg;
  char err[600];
  uint64_t since = 0;
  struct timespec ts = {0, DRAIN_NS};
  for (;;) {
    nanosleep(&ts, NULL);
    prof_fd_drain();
    since += DRAIN_NS;
    if (!atomic_load(&prof.running) || !prof.opts.fds_interval || !prof.opts.fds_file[0] ||
        since < prof.opts.fds_interval)
      continue;
    since = 0;
    if (prof_fd_write_file(prof.opts.fds_file, err, sizeof err) != 0) prof_say("asgst-prof: %s\n", err);
  }
  return NULL;
}

/* N. */
void prof_fd_interval_start(void) {
  if (!fd_traced() || atomic_exchange(&drainer_alive, true)) return;
  pthread_t th;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&th, &a, drainer, NULL) != 0) {
    atomic_store(&drainer_alive, false);
    prof_say("asgst-prof: event=fds: cannot start the fd table's thread\n");
  } else {
    pthread_setname_np(th, "asgst-fds"); /* ours: not profiled (threads.c) */
  }
  pthread_attr_destroy(&a);
}

/* N. */
int prof_fd_query(const char *match, const char *reply, char *err, size_t errlen) {
  if (!fd_traced())
    return prof_fail(err, errlen, "no fd calls are traced in this run (%s); start one with "
                     "event=fds", atomic_load(&prof.running) ? "profiling" : "not profiling");
  FILE *f = reply && reply[0] ? fopen(reply, "a") : stderr;
  if (!f) return prof_fail(err, errlen, "reply=%s: %s", reply, strerror(errno));
  prof_write_fd_report(f, match);
  if (f != stderr) fclose(f);
  return 0;
}
