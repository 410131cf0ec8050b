/*
 * profiler.c - starting, stopping and dumping a profiling run, and writing its outputs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof.h"

#define BUFFER_BYTES ((size_t)1 << 30) /* address space only; pages are touched on use */

prof_options prof_opts;
_Atomic int prof_running;
char prof_init_error[256];
static char reply_path[512];

/* N. */
void prof_set_reply(const char *path) {
  snprintf(reply_path, sizeof reply_path, "%s", path ? path : "");
}

/* N. */
void prof_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (!reply_path[0]) return;
  FILE *f = fopen(reply_path, "a");
  if (!f) return;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fclose(f);
}

/* N. Writes one output file chosen by its extension. */
static int write_file(const char *path, const prof_tree *t, char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "file=%s: %s", path, strerror(errno));
    return -1;
  }
  const char *ext = strrchr(path, '.');
  char title[256];
  snprintf(title, sizeof title, "asgst-prof: %s%s", prof_opts.events[0].name,
           prof_opts.nevents > 1 ? " and more" : "");
  if (strcmp(ext, ".html") == 0) prof_write_flamegraph(t, title, f);
  else if (strcmp(ext, ".collapsed") == 0) prof_write_collapsed(t, f);
  else {
    prof_write_summary(f);
    prof_write_hot_frames(f, t);
  }
  int rc = fclose(f) == 0 ? 0 : -1;
  if (rc) snprintf(err, errlen, "file=%s: %s", path, strerror(errno));
  else prof_say("asgst-prof: wrote %s\n", path);
  return rc;
}

/* N. Writes every requested output; the summary always goes to stderr. */
static int write_outputs(char *err, size_t errlen) {
  int rc = 0;
  prof_tree t;
  prof_tree_init(&t);
  prof_tree_build(&t, ~0u, prof_opts.threads, prof_opts.nevents > 1);
  for (int i = 0; i < prof_opts.nfiles; i++)
    if (write_file(prof_opts.files[i], &t, err, errlen)) rc = -1;
  prof_tree_free(&t);
  if (prof_opts.fds_file[0]) {
    if (prof_fd_write_file(prof_opts.fds_file, err, errlen) == 0)
      prof_say("asgst-prof: wrote %s\n", prof_opts.fds_file);
    else
      rc = -1;
  }
  prof_write_summary(stderr);
  return rc;
}

/* N. Raises each cpu event's starting period to what this machine's timer interrupts
 * allow, leaving half of the overhead budget to the samples themselves. */
static void check_cpu_periods(void) {
  int budget = prof_opts.max_overhead / 2 ? prof_opts.max_overhead / 2 : 1;
  for (int i = 0; i < prof_opts.nevents; i++) {
    prof_event *ev = &prof_opts.events[i];
    if (ev->kind != EV_CPU) continue;
    char note[400];
    ev->period = prof_cpu_clock_floor(ev, ev->interval, budget, note, sizeof note);
    if (note[0]) prof_say("asgst-prof: %s\n", note);
  }
}

/* N. */
int prof_start(bool on_attach, char *err, size_t errlen) {
  if (atomic_load(&prof_running)) {
    snprintf(err, errlen, "already profiling; stop first");
    return -1;
  }
  if (prof_buffer_init(BUFFER_BYTES) != 0) {
    snprintf(err, errlen, "cannot map the sample buffer: %s", strerror(errno));
    return -1;
  }
  if (prof_signal_install(err, errlen) != 0) return -1;
  prof_buffer_reset();
  prof_sym_reset();
  memset(&prof_stats, 0, sizeof prof_stats);
  check_cpu_periods();
  if (prof_recorder_start(err, errlen) != 0) return -1;
  if (prof_opts.walk == WALK_QUEUE && !(ASGST_Capabilities() & ASGST_REGISTER_QUEUE)) {
    snprintf(err, errlen, "walk=queue: this ASGST library offers no safepoint queues "
             "(capability ASGST_REGISTER_QUEUE absent)");
    return -1;
  }
  if (prof_opts.walk == WALK_THREAD && prof_walker_start() != 0) {
    snprintf(err, errlen, "walk=thread: cannot start the walker thread");
    return -1;
  }
  prof_load_start();
  atomic_store(&prof_running, 1);
  prof_threads_add_existing(on_attach);
  for (int i = 0; i < prof_opts.nevents; i++)
    if (prof_opts.events[i].kind == EV_WALL && prof_wall_start(prof_opts.events[i].interval, i)) {
      snprintf(err, errlen, "cannot start the wall-clock thread");
      return -1;
    }
  static const char *const modes[] = {"signal", "thread", "queue"};
  prof_say("asgst-prof: profiling started (%d event%s; walk=%s%s; signals: cpu %d, wall %d, "
           "tracepoints %d; samples held under %d%% of a thread's time)\n", prof_opts.nevents,
           prof_opts.nevents == 1 ? "" : "s", modes[prof_opts.walk],
           prof_opts.compare ? ",compare" : "", prof_signal_cpu, prof_signal_wall, prof_signal,
           prof_opts.max_overhead);
  return 0;
}

/* N. */
int prof_stop(char *err, size_t errlen) {
  if (!atomic_exchange(&prof_running, 0)) {
    snprintf(err, errlen, "not profiling");
    return -1;
  }
  prof_wall_stop();
  prof_load_stop();
  prof_threads_remove_all();
  /* Let handlers that are already running finish their records. */
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  prof_walker_stop();
  prof_queue_stop_all();
  prof_recorder_stop();
  prof_say("asgst-prof: profiling stopped\n");
  return write_outputs(err, errlen);
}

/* N. */
int prof_dump(char *err, size_t errlen) {
  if (!atomic_load(&prof_running)) {
    snprintf(err, errlen, "not profiling");
    return -1;
  }
  return write_outputs(err, errlen);
}
