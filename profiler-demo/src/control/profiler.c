/*
 * profiler.c - starting, stopping and dumping a profiling run, and writing its outputs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control/control.h"
#include "core/blob_names.h"
#include "core/records.h"
#include "core/say.h"
#include "core/state.h"
#include "fd/fd.h"
#include "output/output.h"
#include "output/writer.h"
#include "sampling/sampling.h"
#include "symbols/symbols.h"
#include "walk/walk.h"

#define BUFFER_BYTES ((size_t)1 << 30) /* address space only; pages are touched on use */

/* The profile being taken: since the start, or with loop= since the period's start.
 * output_lock keeps a period's end, a dump and the stop from writing at the same time. */
static prof_period period;
static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;

/* Streamed files (output/writer.h: streams) of a run without loop=, by their path: their
 * temporary file, opened at the start and held open to the end, takes a chunk every few
 * seconds (stream.c), the stop's chunk last, and is then renamed into place. Held open,
 * it keeps every chunk even if its directory is removed meanwhile: the stop then copies
 * it to the fallback place. begun: it has chunks. done: the stop's chunk is in it too
 * (it stays open while the run's profile is kept, for a later stop to copy). */
static struct {
  char path[600];
  FILE *f;
  bool begun, done;
} streams[PROF_MAX_FILES];
static int nstreams;

/* N. The stream of path, -1 if it is not streamed. */
static int stream_of(const char *path) {
  for (int i = 0; i < nstreams; i++)
    if (strcmp(streams[i].path, path) == 0) return i;
  return -1;
}

/* N. Stream s's temporary file, opened now if it is not yet, positioned at its end; NULL
 * with err if it cannot be created. */
static FILE *stream_file(int s, char *err, size_t errlen) {
  if (!streams[s].f) {
    char tmp[640];
    prof_temp_name(streams[s].path, tmp, sizeof tmp);
    streams[s].f = fopen(tmp, "w+e");
    if (!streams[s].f) {
      snprintf(err, errlen, "file=%s: %s", streams[s].path, strerror(errno));
      return NULL;
    }
  }
  fseek(streams[s].f, 0, SEEK_END);
  return streams[s].f;
}

/* N. Closes stream s's temporary file, removing it if it was not renamed into place. */
static void stream_drop(int s) {
  if (streams[s].f) {
    char tmp[640];
    prof_temp_name(streams[s].path, tmp, sizeof tmp);
    fclose(streams[s].f);
    unlink(tmp);
  }
  streams[s].f = NULL;
  streams[s].begun = streams[s].done = false;
}

/* N. A stream with the stop's chunk written (done) in path's format, -1 if none: a copy
 * of its file is the whole profile in that format. */
static int done_stream_like(const char *path) {
  for (int i = 0; i < nstreams; i++)
    if (streams[i].done && streams[i].f &&
        prof_writer_for(streams[i].path) == prof_writer_for(path))
      return i;
  return -1;
}

/* N. Appends all of the open file in to out (in's position unchanged); 0 or -1. */
static int copy_into(FILE *out, FILE *in) {
  if (fflush(in) != 0) return -1;
  char buf[65536];
  off_t off = 0;
  ssize_t n;
  while ((n = pread(fileno(in), buf, sizeof buf, off)) > 0) {
    if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) return -1;
    off += n;
  }
  return n < 0 ? -1 : 0;
}

/* N. CLOCK_REALTIME in ns. */
static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A stopped run some of whose outputs could not be written where asked: its samples stay
 * in the buffer (only the next start clears it), so that a stop naming other files
 * (asgst-attach <pid> stop,file=NEW) can still write them. */
static bool kept;

/* N. Writes one output file chosen by its extension: to a temporary name, renamed into
 * place when complete. A streamed file's temporary file holds its chunks so far: the
 * stop (final) appends the last one; a dump before it writes a copy of them with a chunk
 * of the samples not yet streamed, and the stream goes on. At a stop, a file in the
 * format of a stream whose stop chunk is written (a fallback, or a stop,file=NEW after
 * the profile was kept) is a copy of that stream's file. */
static int write_file(const char *path, const prof_tree *t, const prof_period *p, bool final,
                      char *err, size_t errlen) {
  char tmp[640], copy[660];
  prof_temp_name(path, tmp, sizeof tmp);
  const prof_writer *w = prof_writer_for(path); /* the option parser took only these */
  if (!w) return prof_fail(err, errlen, "file=%s: no writer", path);
  int s = stream_of(path), d = final ? done_stream_like(path) : -1, rc = 0;
  const char *target = tmp;
  bool own = true; /* f is ours to close, not the stream's file */
  FILE *f;
  if (d >= 0) {
    /* A name of its own: tmp may be d's own file, which must not be truncated. */
    snprintf(copy, sizeof copy, "%s.copy", tmp);
    target = copy;
    f = fopen(copy, "we");
    if (f) rc = copy_into(f, streams[d].f);
  } else if (s >= 0 && final) {
    f = stream_file(s, err, errlen);
    own = false;
  } else if (s >= 0) {
    snprintf(copy, sizeof copy, "%s.dump", tmp);
    target = copy;
    f = fopen(copy, "we");
    FILE *in = f && streams[s].begun ? stream_file(s, err, errlen) : NULL;
    if (in) rc = copy_into(f, in);
  } else {
    f = fopen(tmp, "we");
  }
  if (!f) return prof_fail(err, errlen, "file=%s: %s", path, strerror(errno));
  char title[256];
  snprintf(title, sizeof title, "asgst-prof: %s%s", prof.opts.events[0].name,
           prof.opts.nevents > 1 ? " and more" : "");
  prof_dump_view dump = {.tree = t, .title = title, .start_ns = p->start_ns, .end_ns = p->end_ns,
                         .event_roots = prof.opts.nevents > 1, .streamed = s >= 0,
                         .final_chunk = true};
  if (rc == 0 && d < 0) rc = w->write(&dump, f);
  if (own && fclose(f) != 0) rc = -1;
  if (!own && fflush(f) != 0) rc = -1;
  if (!own && rc == 0) streams[s].done = true;
  if (rc == 0 && rename(target, path) != 0) rc = -1;
  if (rc) {
    snprintf(err, errlen, "file=%s: %s", path, strerror(errno));
    if (own) unlink(target);
  } else {
    prof_say("asgst-prof: wrote %s\n", path);
  }
  return rc;
}

/* N. Appends one chunk of the ended period's records to stream s's temporary file. */
static int write_chunk(int s, char *err, size_t errlen) {
  FILE *f = stream_file(s, err, errlen);
  if (!f) return -1;
  streams[s].begun = true;
  prof_dump_view dump = {.title = "", .start_ns = period.start_ns, .end_ns = realtime_ns(),
                         .streamed = true, .final_chunk = false};
  int wrc = prof_writer_for(streams[s].path)->write(&dump, f);
  if (fflush(f) != 0 || wrc != 0) {
    snprintf(err, errlen, "file=%s: a chunk: %s", streams[s].path, strerror(errno));
    return -1;
  }
  return 0;
}

/* N. */
int prof_stream_chunk(char *err, size_t errlen) {
  pthread_mutex_lock(&output_lock);
  int rc = 0;
  if (atomic_load(&prof.running) && nstreams) {
    rc = prof_buffer_rotate();
    if (rc != 0) {
      snprintf(err, errlen, "cannot map the second sample buffer (%s); no chunk written",
               strerror(errno));
    } else {
      for (int i = 0; i < nstreams; i++)
        if (write_chunk(i, err, errlen) != 0) rc = -1;
      prof_buffer_fold(prof.opts.threads);
      prof_buffer_rotated();
    }
  }
  pthread_mutex_unlock(&output_lock);
  return rc;
}

/* N. The streams of the run about to start: its streaming files, unless loop= (whose
 * periods bound memory already) names a file per period. */
static void note_streams(void) {
  for (int i = 0; i < nstreams; i++) stream_drop(i); /* a kept profile's */
  nstreams = 0;
  if (prof.opts.loop_ns) return;
  char err[700];
  for (int i = 0; i < prof.opts.nfiles; i++)
    if (prof_writer_streams(prof.opts.files[i])) {
      prof_period_name(prof.opts.files[i], false, &period, streams[nstreams].path,
                       sizeof streams[nstreams].path);
      /* Created now, while its directory is there (if not, the first chunk tries again). */
      stream_file(nstreams++, err, sizeof err);
    }
}

/* N. Where an output that cannot be written at path goes instead: the JVM's temporary
 * directory (java.io.tmpdir, else /tmp), under a name that says whose it is. */
static void fallback_name(const char *path, char *buf, size_t len) {
  const char *slash = strrchr(path, '/');
  snprintf(buf, len, "%s/asgst-prof-%d-%s", prof.tmpdir[0] ? prof.tmpdir : "/tmp",
           (int)getpid(), slash ? slash + 1 : path);
}

/* N. Says that an output of option opt (file, fds) failed (why) and where it was written
 * instead (other), or why that failed too (rc != 0: why_other); the run's profile is kept
 * either way. */
static void say_fallback(const char *opt, const char *why, int rc, const char *other,
                         const char *why_other) {
  if (rc == 0)
    prof_say("asgst-prof: %s: the profile is kept and written to %s instead (asgst-attach %d "
             "stop,%s=<path> writes it elsewhere)\n", why, other, (int)getpid(), opt);
  else
    prof_say("asgst-prof: %s, nor at %s (%s): the profile is kept (asgst-attach %d "
             "stop,%s=<path> writes it)\n", why, other, why_other, (int)getpid(), opt);
}

/* N. The summary, to stderr and to asgst-attach's reply (prof_say): the terminal that
 * stopped the run shows it. */
static void say_summary(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    prof_write_short_summary(stderr);
    return;
  }
  prof_write_short_summary(f);
  fclose(f);
  prof_say("%s", text);
  free(text);
}

/* N. Writes every requested output of period p; the fd report and the summary only at
 * the end of the run (with_report). At the stop (final) an output that cannot be written
 * where asked is written to the fallback place and the profile kept (kept). */
static int write_outputs(const prof_period *p, bool with_report, bool final, char *err,
                         size_t errlen) {
  int rc = 0;
  char path[600], other[700], why[512];
  prof_tree t;
  prof_tree_init(&t);
  prof_threads_count_events(); /* a dump's summary counts the running threads' events */
  prof_tree_build(&t, ~0u, prof.opts.threads, prof.opts.nevents > 1);
  for (int i = 0; i < prof.opts.nfiles; i++) {
    prof_period_name(prof.opts.files[i], prof.opts.loop_ns != 0, p, path, sizeof path);
    if (write_file(path, &t, p, final, err, errlen) == 0) continue;
    rc = -1;
    if (!final) continue;
    fallback_name(path, other, sizeof other);
    int frc = write_file(other, &t, p, true, why, sizeof why);
    say_fallback("file", err, frc, other, why);
  }
  prof_tree_free(&t);
  if (!with_report) return rc;
  if (prof.opts.fds_file[0]) {
    if (prof_fd_write_file(prof.opts.fds_file, err, errlen) == 0) {
      prof_say("asgst-prof: wrote %s\n", prof.opts.fds_file);
    } else {
      rc = -1;
      if (final) {
        fallback_name(prof.opts.fds_file, other, sizeof other);
        int frc = prof_fd_write_file(other, why, sizeof why);
        if (frc == 0) prof_say("asgst-prof: wrote %s\n", other);
        say_fallback("fds", err, frc, other, why);
      }
    }
  }
  say_summary();
  if (rc && final)
    snprintf(err, errlen, "not every output could be written where asked; the profile is kept "
             "until a stop writes it (asgst-attach %d stop,file=<path> or fds=<path>)",
             (int)getpid());
  return rc;
}

/* N. The outputs of the profile so far (a dump, or the stop's: final). */
static int write_current(bool with_report, bool final, char *err, size_t errlen) {
  pthread_mutex_lock(&output_lock);
  period.end_ns = realtime_ns();
  int rc = write_outputs(&period, with_report, final, err, errlen);
  if (final) kept = rc != 0;
  /* Streams are closed at the stop but while the profile is kept. A stop that named other
   * files (asgst-attach stop,file=...) leaves streams unwritten: their chunks go. */
  for (int i = 0; final && i < nstreams; i++)
    if (!(kept && streams[i].done)) stream_drop(i);
  pthread_mutex_unlock(&output_lock);
  return rc;
}

/* N. */
void prof_note_files(void) {
  atomic_store(&prof.keep_each_sample, prof_writers_need_each_sample(&prof.opts));
}

/* N. */
void prof_replace_files(const prof_options *o) {
  pthread_mutex_lock(&output_lock);
  if (o->nfiles) memcpy(prof.opts.files, o->files, sizeof o->files), prof.opts.nfiles = o->nfiles;
  if (o->fds_file[0]) memcpy(prof.opts.fds_file, o->fds_file, sizeof o->fds_file);
  prof_note_files();
  pthread_mutex_unlock(&output_lock);
}

/* N. */
int prof_period_end(char *err, size_t errlen) {
  pthread_mutex_lock(&output_lock);
  prof_period ended = period;
  ended.end_ns = realtime_ns();
  int rc = prof_buffer_rotate();
  if (rc != 0) {
    snprintf(err, errlen, "cannot map the second sample buffer (%s); the period goes on",
             strerror(errno));
  } else {
    /* Samples taken from the rotation on are the new period's. */
    period = (prof_period){.start_ns = ended.end_ns, .n = ended.n + 1};
    rc = write_outputs(&ended, false, false, err, errlen);
    prof_buffer_rotated();
  }
  pthread_mutex_unlock(&output_lock);
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

/* N. Whether cpu and perf event samples get kernel frames; /proc/kallsyms is read (once
 * per process) only when they may. */
static void check_kernel_frames(void) {
  bool may = false;
  for (int i = 0; i < prof.opts.nevents; i++) may |= prof_kchain_wanted(&prof.opts.events[i]);
  prof_kchain_check(may && !prof.opts.no_kernel ? prof_kallsyms_load() : NULL);
}

/* N. */
int prof_start(bool on_attach, char *err, size_t errlen) {
  if (atomic_load(&prof.running)) {
    snprintf(err, errlen, "already profiling; stop first");
    return -1;
  }
  if (kept)
    prof_say("asgst-prof: the last run's profile, kept since its outputs failed, is dropped "
             "(its fallback copy stays)\n");
  kept = false;
  if (prof_buffer_init(BUFFER_BYTES) != 0) {
    snprintf(err, errlen, "cannot map the sample buffer: %s", strerror(errno));
    return -1;
  }
  if (prof_signal_install(err, errlen) != 0) return -1;
  prof_buffer_reset();
  if (prof_fd_start() != 0) {
    snprintf(err, errlen, "event=fds: cannot map the fd table's ring: %s", strerror(errno));
    return -1;
  }
  prof_sym_reset();
  prof_blob_names_reset();
  memset(&prof.stats, 0, sizeof prof.stats);
  check_cpu_periods();
  check_kernel_frames();
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
  period = (prof_period){.start_ns = realtime_ns()};
  atomic_store(&prof.running, 1);
  prof_threads_add_existing(on_attach);
  if (prof_scan_start() != 0) {
    snprintf(err, errlen, "cannot start the thread scan (asgst-threads)");
    return -1;
  }
  prof_output_set_cpu_figures(prof_scan_figures); /* the summary's CPU account */
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.opts.events[i].kind == EV_WALL && prof_wall_start(prof.opts.events[i].interval, i)) {
      snprintf(err, errlen, "cannot start the wall-clock thread");
      return -1;
    }
  if (prof_loop_start(prof_period_end) != 0) {
    snprintf(err, errlen, "loop=: cannot start the period thread");
    return -1;
  }
  note_streams();
  if (nstreams && prof_stream_start(prof_stream_chunk) != 0) {
    snprintf(err, errlen, "cannot start the chunk thread of the streamed files");
    return -1;
  }
  static const char *const modes[] = {"signal", "thread", "queue"};
  prof_say("asgst-prof: profiling started (%d event%s; walk=%s%s; signals: cpu %d, wall %d, "
           "tracepoints %d; samples held under %d%% of a thread's time)\n", prof.opts.nevents,
           prof.opts.nevents == 1 ? "" : "s", modes[prof.opts.walk],
           prof.opts.compare ? ",compare" : "", prof.signal_cpu, prof.signal_wall, prof.signal,
           prof.opts.max_overhead);
  /* Queue results depend on what this JVM allows (JDK 8 and 11: whole-VM suspensions). */
  if (prof.opts.walk == WALK_QUEUE && ASGST_DisabledFeatures()[0])
    prof_say("asgst-prof: walk=queue: ASGST features off on this JVM: %s\n", ASGST_DisabledFeatures());
  return 0;
}

/* N. */
int prof_stop(char *err, size_t errlen) {
  if (!atomic_exchange(&prof.running, 0)) {
    if (kept) {
      prof_say("asgst-prof: writing the stopped run's kept profile\n");
      return write_current(true, true, err, errlen);
    }
    snprintf(err, errlen, "not profiling");
    return -1;
  }
  /* First: its last look reads the own threads' CPU before they end. */
  prof_scan_stop();
  prof_wall_stop();
  prof_load_stop();
  prof_threads_remove_all();
  /* Let handlers that are already running finish their records. */
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  prof_kchain_reap();
  prof_walker_stop();
  prof_queue_stop_all();
  prof_recorder_stop();
  prof_loop_stop();
  prof_stream_stop();
  prof_say("asgst-prof: profiling stopped\n");
  return write_current(true, true, err, errlen);
}

/* N. */
int prof_dump(char *err, size_t errlen) {
  if (!atomic_load(&prof.running)) {
    snprintf(err, errlen, "not profiling");
    return -1;
  }
  /* With loop=, a dump ends the period early: a file per period, each sample in one. */
  if (prof.opts.loop_ns) return prof_period_end(err, errlen);
  return write_current(true, false, err, errlen);
}
