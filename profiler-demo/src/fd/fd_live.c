/*
 * fd_live.c - the fd report while the JVM runs: rewritten every fds_interval, and on
 * request from asgst-attach ("fds [match]").
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/say.h"
#include "core/state.h"
#include "fd/fd.h"

static _Atomic bool rewriter_alive;

/* N. Sleeps ns in steps of at most 100 ms; false as soon as profiling has stopped. */
static bool nap_while_running(uint64_t ns) {
  while (ns > 0 && atomic_load(&prof.running)) {
    uint64_t step = ns < 100000000u ? ns : 100000000u;
    struct timespec ts = {(time_t)(step / 1000000000u), (long)(step % 1000000000u)};
    nanosleep(&ts, NULL);
    ns -= step;
  }
  return atomic_load(&prof.running);
}

/* N. The rewriter: one per process; it ends when profiling stops (the stop writes the
 * final report itself). */
static void *rewriter(void *arg) {
  (void)arg;
  char err[600];
  while (prof.opts.fds_interval && nap_while_running(prof.opts.fds_interval))
    if (prof_fd_write_file(prof.opts.fds_file, err, sizeof err) != 0) prof_say("asgst-prof: %s\n", err);
  atomic_store(&rewriter_alive, false);
  return NULL;
}

/* N. */
void prof_fd_interval_start(void) {
  if (!prof.opts.fds_interval || !prof.opts.fds_file[0] || atomic_exchange(&rewriter_alive, true))
    return;
  pthread_t th;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&th, &a, rewriter, NULL) != 0) {
    atomic_store(&rewriter_alive, false);
    prof_say("asgst-prof: fds_interval: cannot start the rewriting thread\n");
  } else {
    pthread_setname_np(th, "asgst-fds"); /* ours: not profiled (threads.c) */
  }
  pthread_attr_destroy(&a);
}

/* N. */
int prof_fd_query(const char *match, const char *reply, char *err, size_t errlen) {
  bool traced = false;
  for (int i = 0; i < prof.opts.nevents; i++) traced |= prof.opts.events[i].fd_call != FDC_NONE;
  if (!traced)
    return prof_fail(err, errlen, "no fd calls are traced in this run (%s); start one with "
                     "event=fds", atomic_load(&prof.running) ? "profiling" : "not profiling");
  FILE *f = reply && reply[0] ? fopen(reply, "a") : stderr;
  if (!f) return prof_fail(err, errlen, "reply=%s: %s", reply, strerror(errno));
  prof_write_fd_report(f, match);
  if (f != stderr) fclose(f);
  return 0;
}
