/*
 * profiler.c - starting, stopping and dumping a profiling run, and writing its outputs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control/control.h"
#include "core/blob_names.h"
#include "core/records.h"
#include "core/say.h"
#include "core/state.h"
#include "fd/fd.h"
#include "output/writer.h"
#include "sampling/sampling.h"
#include "symbols/symbols.h"
#include "walk/walk.h"

#define BUFFER_BYTES ((size_t)1 << 30) /* address space only; pages are touched on use */

/* N. Writes one output file chosen by its extension. */
static int write_file(const char *path, const prof_tree *t, char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "file=%s: %s", path, strerror(errno));
    return -1;
  }
  char title[256];
  snprintf(title, sizeof title, "asgst-prof: %s%s", prof.opts.events[0].name,
           prof.opts.nevents > 1 ? " and more" : "");
  prof_dump_view dump = {.tree = t, .title = title};
  /* The option parser took only names that a writer claims. */
  const prof_writer *w = prof_writer_for(path);
  int wrc = w ? w->write(&dump, f) : -1;
  int rc = fclose(f) == 0 && wrc == 0 ? 0 : -1;
  if (rc) snprintf(err, errlen, "file=%s: %s", path, w ? strerror(errno) : "no writer");
  else prof_say("asgst-prof: wrote %s\n", path);
  return rc;
}

/* N. Writes every requested output; the summary always goes to stderr. */
static int write_outputs(char *err, size_t errlen) {
  int rc = 0;
  prof_tree t;
  prof_tree_init(&t);
  prof_tree_build(&t, ~0u, prof.opts.threads, prof.opts.nevents > 1);
  for (int i = 0; i < prof.opts.nfiles; i++)
    if (write_file(prof.opts.files[i], &t, err, errlen)) rc = -1;
  prof_tree_free(&t);
  if (prof.opts.fds_file[0]) {
    if (prof_fd_write_file(prof.opts.fds_file, err, errlen) == 0)
      prof_say("asgst-prof: wrote %s\n", prof.opts.fds_file);
    else
      rc = -1;
  }
  prof_write_summary(stderr);
  return rc;
}

/* N. Raises each cpu event's starting period to what this machine's timer interrupts
 * allow, leaving half of the overhead budget to the samples themselves. */
static void check_cpu_periods(void) {
  int budget = prof.opts.max_overhead / 2 ? prof.opts.max_overhead / 2 : 1;
  for (int i = 0; i < prof.opts.nevents; i++) {
    prof_event *ev = &prof.opts.events[i];
    if (ev->kind != EV_CPU) continue;
    char note[400];
    ev->period = prof_cpu_clock_floor(ev, ev->interval, budget, note, sizeof note);
    if (note[0]) prof_say("asgst-prof: %s\n", note);
  }
}

/* N. */
int prof_start(bool on_attach, char *err, size_t errlen) {
  if (atomic_load(&prof.running)) {
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
  prof_blob_names_reset();
  memset(&prof.stats, 0, sizeof prof.stats);
  check_cpu_periods();
  if (prof_recorder_start(err, errlen) != 0) return -1;
  if (prof.opts.walk == WALK_QUEUE && !(ASGST_Capabilities() & ASGST_REGISTER_QUEUE)) {
    snprintf(err, errlen, "walk=queue: this ASGST library offers no safepoint queues "
             "(capability ASGST_REGISTER_QUEUE absent)");
    return -1;
  }
  if (prof.opts.walk == WALK_THREAD && prof_walker_start() != 0) {
    snprintf(err, errlen, "walk=thread: cannot start the walker thread");
    return -1;
  }
  prof_load_start();
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  prof.period_start_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
  atomic_store(&prof.running, 1);
  prof_threads_add_existing(on_attach);
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.opts.events[i].kind == EV_WALL && prof_wall_start(prof.opts.events[i].interval, i)) {
      snprintf(err, errlen, "cannot start the wall-clock thread");
      return -1;
    }
  static const char *const modes[] = {"signal", "thread", "queue"};
  prof_say("asgst-prof: profiling started (%d event%s; walk=%s%s; signals: cpu %d, wall %d, "
           "tracepoints %d; samples held under %d%% of a thread's time)\n", prof.opts.nevents,
           prof.opts.nevents == 1 ? "" : "s", modes[prof.opts.walk],
           prof.opts.compare ? ",compare" : "", prof.signal_cpu, prof.signal_wall, prof.signal,
           prof.opts.max_overhead);
  return 0;
}

/* N. */
int prof_stop(char *err, size_t errlen) {
  if (!atomic_exchange(&prof.running, 0)) {
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
  if (!atomic_load(&prof.running)) {
    snprintf(err, errlen, "not profiling");
    return -1;
  }
  return write_outputs(err, errlen);
}
