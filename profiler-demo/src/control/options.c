/*
 * options.c - parsing the agent's comma-separated options.
 *
 *   event=cpu|wall|cputimer|<category>:<tracepoint>|<perf event>   (repeatable)
 *            a perf event by perf's name: page-faults (faults), minor-faults, major-faults,
 *            context-switches (cs), cpu-migrations (migrations), alignment-faults,
 *            emulation-faults, cycles, instructions, cache-references, cache-misses,
 *            branches, branch-misses, bus-cycles, ref-cycles, L1-dcache-load-misses,
 *            LLC-load-misses, dTLB-load-misses... (sampling/perf_names.c: default periods);
 *            one the kernel does not offer is left out with one line (an error if no
 *            event is left)
 *   filter=<kernel filter expression>  for the tracepoint right before it
 *   interval=<n>[ns|us|ms|s]  for cpu/wall; for a tracepoint or perf event: every Nth event
 *   file=<path>.html|.collapsed|.txt|.jfr   (repeatable)   fds=<path>
 *   overhead=<percent>  the most of a sampled thread's time samples may take (1-50, 10)
 *   record=<path>  record_n=<n>  record_walks=errors|all   walks recorded for a replay
 *   walk=signal|thread|queue  where stacks are walked (profiler-demo/README.md, "Walk modes")
 *   compare  with walk=thread|queue, also walk each sample in the handler and count how
 *            often both walks agree (method+bci frame by frame)
 *   cstack  threads  start  stop  dump  reply=<path> (used by asgst-attach)
 *   kernel=on|off  kernel frames (from the perf event's callchain, named from
 *            /proc/kallsyms, marked _[k]) on top of cpu and perf event samples (on: where
 *            perf allows; walk=signal only)
 *   verbose  the end-of-run summary on stderr also gives the detailed figures (walk
 *            results by code, walk times, the walk mode's counters, a "stats:" line for
 *            tools), as a .txt output does; without it: samples, hottest methods, counts
 *   cputhreads=all|java  which threads cpu and cputimer sample: every thread of the process
 *            (all, the default: JIT compiler, GC, VM and native threads too, with their C
 *            frames, each under a root frame naming its kind) or Java threads only (java)
 *   states  a frame "[state=running|native|blocked|waiting|waiting_timed|sleeping|parked|
 *            parked_timed]" on top of every sample (the thread's state at the sample) in
 *            the .collapsed, .html, .txt and pprof outputs; .jfr always has the state
 *   cpusignal=<n|name>  wallsignal=<n|name>  the signal of cpu/cputimer samples (default:
 *            the first free of SIGSTKFLT, SIGPROF, SIGPWR) or of wall ticks (SIGVTALRM,
 *            SIGPWR, SIGSTKFLT); a number (1-64) or a name (PROF or SIGPROF...)
 *   untested_jdk  accept a JDK newer than the newest the library was tested on
 *            (ASGST_INIT_UNTESTED_JDK; the summary then says "untested JDK N")
 *   realtime_queues  with walk=queue: the library's opt-in real-time scheduling for queue
 *            owners and its processing thread (ASGST_INIT_REALTIME_QUEUES; off by default)
 *   event=fds (every fd tracepoint)  fds_interval=<duration>  fds [fds_match=<fd|port|text>]
 *   file=<path>.pb.gz  a pprof profile
 *   loop=<duration>  every period (at least 1s: 10s, 5m) the files are written and a new
 *            profile starts; file names take %t (the period's start, UTC
 *            yyyymmddThhmmssZ), %n (its number from 0) and %p (the pid); a name without %
 *            gets "-%t" before its ending (control/period_names.c)
 *
 * A filter's value may contain commas that are not followed by a known option name.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "control/control.h"
#include "core/say.h"
#include "output/writer.h"
#include "sampling/sampling.h"

#define DEFAULT_CPU_NS 10000000ull  /* 10 ms */
#define DEFAULT_WALL_NS 20000000ull /* 20 ms */
#define MIN_INTERVAL_NS 10000ull     /* the kernel runs cpu-clock no faster than every 10 us */
#define DEFAULT_OVERHEAD 10          /* percent, see overload.c */
#define MIN_LOOP_NS 1000000000ull    /* loop=: a period is written in well under a second */

/* N. */
int64_t prof_parse_duration(const char *s) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno || *s == '-') return -1;
  uint64_t mul = 1;
  if (*end == 0 || strcmp(end, "ns") == 0) mul = 1;
  else if (strcmp(end, "us") == 0) mul = 1000;
  else if (strcmp(end, "ms") == 0) mul = 1000000;
  else if (strcmp(end, "s") == 0) mul = 1000000000;
  else if (strcmp(end, "m") == 0) mul = 60000000000ull;
  else if (strcmp(end, "h") == 0) mul = 3600000000000ull;
  else return -1;
  if (v == 0 || v > INT64_MAX / mul) return -1;
  return (int64_t)(v * mul);
}

/* N. True if the text at p starts a known option ("event=", "cstack", ...). */
static bool starts_option(const char *p) {
  static const char *const keyed[] = {"event=", "filter=", "interval=", "file=", "fds=",
                                      "reply=", "overhead=", "record=", "record_n=",
                                      "record_walks=", "walk=", "fds_match=", "fds_interval=",
                                      "loop=", "cpusignal=", "wallsignal=", "kernel=",
                                      "cputhreads=", NULL};
  static const char *const flags[] = {"cstack", "threads", "states", "start", "stop", "dump",
                                      "compare", "untested_jdk", "realtime_queues",
                                      "fds", "verbose", NULL};
  for (int i = 0; keyed[i]; i++)
    if (strncmp(p, keyed[i], strlen(keyed[i])) == 0) return true;
  for (int i = 0; flags[i]; i++) {
    size_t n = strlen(flags[i]);
    if (strncmp(p, flags[i], n) == 0 && (p[n] == ',' || p[n] == 0)) return true;
  }
  return false;
}

/* N. The name of a kernel file system (proc, sysfs...) whose files are not for data, or
 * NULL for any other. */
static const char *kernel_fs(const char *dir) {
  static const struct { long magic; const char *name; } fs[] = {
      {PROC_SUPER_MAGIC, "/proc"}, {SYSFS_MAGIC, "/sys"}, {DEBUGFS_MAGIC, "debugfs"},
      {TRACEFS_MAGIC, "tracefs"}, {CGROUP_SUPER_MAGIC, "cgroup"},
      {CGROUP2_SUPER_MAGIC, "cgroup2"}};
  struct statfs sf;
  if (statfs(dir, &sf) != 0) return NULL;
  for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
    if ((long)sf.f_type == fs[i].magic) return fs[i].name;
  return NULL;
}

/* N. What kind of file st is, for a message ("a directory"). */
static const char *file_kind(const struct stat *st) {
  if (S_ISDIR(st->st_mode)) return "a directory";
  if (S_ISFIFO(st->st_mode)) return "a FIFO";
  if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) return "a device";
  if (S_ISSOCK(st->st_mode)) return "a socket";
  return "a special file";
}

/* N. Checks that path can be written: its directory exists and is writable, and path is
 * a regular file or none yet, outside /proc and the like (an output is written to a
 * temporary name and renamed over path, which would replace a FIFO or a device node). */
static int check_writable(const char *what, const char *path, char *err, size_t len) {
  if (path[0] == 0) return prof_fail(err, len, "%s: empty file name", what);
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) dir[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  const char *fs = kernel_fs(dir);
  if (fs)
    return prof_fail(err, len, "%s=%s: in %s, whose files are the kernel's, not a regular "
                     "file's place; name a file elsewhere", what, path, fs);
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return prof_fail(err, len, "%s=%s: %s, not a regular file; name a file to write", what,
                     path, file_kind(&st));
  if (access(dir, W_OK) != 0)
    return prof_fail(err, len, "%s=%s: cannot write there (%s: %s)", what, path, dir,
                strerror(errno));
  if (access(path, F_OK) == 0 && access(path, W_OK) != 0)
    return prof_fail(err, len, "%s=%s: not writable (%s)", what, path, strerror(errno));
  return 0;
}

/* N. Adds an event=VALUE. */
static int add_event(prof_options *o, const char *v, char *err, size_t len) {
  if (o->nevents == PROF_MAX_EVENTS) return prof_fail(err, len, "event=%s: too many events", v);
  prof_event *ev = &o->events[o->nevents];
  memset(ev, 0, sizeof *ev);
  snprintf(ev->name, sizeof ev->name, "%s", v);
  if (strcmp(v, "cpu") == 0) ev->kind = EV_CPU, ev->interval = DEFAULT_CPU_NS;
  else if (strcmp(v, "cputimer") == 0) ev->kind = EV_CPU_TIMER, ev->interval = DEFAULT_CPU_NS;
  else if (strcmp(v, "wall") == 0) ev->kind = EV_WALL, ev->interval = DEFAULT_WALL_NS;
  else if (prof_perf_event_resolve(ev)) {
    /* kind, type, config and default period set; availability checked after parsing */
  } else if (strchr(v, ':')) {
    ev->kind = EV_TRACEPOINT;
    ev->interval = 1;
    char note[256] = "";
    if (prof_tracepoint_resolve(ev, note, sizeof note, err, len) != 0) return -1;
    if (note[0]) prof_say("asgst-prof: %s\n", note);
  } else {
    char known[1024];
    prof_perf_event_list(known, sizeof known);
    return prof_fail(err, len, "event=%s: unknown event (cpu, wall, cputimer, category:name "
                     "for a tracepoint, or a perf event: %s)", v, known);
  }
  for (int i = 0; i < o->nevents; i++)
    if (strcmp(o->events[i].name, ev->name) == 0)
      return prof_fail(err, len, "event=%s: given twice", v);
  o->nevents++;
  return 0;
}

/* N. Applies interval=VALUE to the last event (or remembers it for the events to come). */
static int set_interval(prof_options *o, const char *v, uint64_t *pending, char *err,
                        size_t len) {
  prof_event *ev = o->nevents ? &o->events[o->nevents - 1] : NULL;
  int64_t ns;
  if (ev && (ev->kind == EV_TRACEPOINT || ev->kind == EV_PERF)) {
    char *end;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end || n <= 0) return prof_fail(err, len, "interval=%s: not a positive count", v);
    if (ev->kind == EV_PERF) return prof_perf_event_interval(ev, (uint64_t)n, err, len);
    ev->interval = (uint64_t)n;
    return 0;
  }
  if ((ns = prof_parse_duration(v)) < 0)
    return prof_fail(err, len, "interval=%s: bad interval (a positive number with ns, us, ms or s)",
                v);
  if ((uint64_t)ns < MIN_INTERVAL_NS)
    return prof_fail(err, len, "interval=%s: below 10us, which no sampler here can serve (the "
                     "kernel's cpu-clock fires at most every 10 us)", v);
  if (ev) ev->interval = (uint64_t)ns;
  else *pending = (uint64_t)ns;
  return 0;
}

/* N. event=fds: every tracepoint of a call that makes, binds, connects or closes fds. */
static int add_fd_events(prof_options *o, char *err, size_t len) {
  for (int i = 0; prof_fd_tracepoints[i]; i++)
    if (add_event(o, prof_fd_tracepoints[i], err, len) != 0) {
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      return prof_fail(err, len, "event=fds: %s", why);
    }
  return 0;
}

/* N. The options of the fd report's live forms (fd_live.c); 1 if k is none of them. */
static int parse_fd_option(prof_options *o, const char *k, const char *v, bool eq, char *err,
                           size_t len) {
  if (eq && strcmp(k, "event") == 0 && strcmp(v, "fds") == 0) return add_fd_events(o, err, len);
  if (!eq && strcmp(k, "fds") == 0) return o->action = ACT_FDS, 0;
  if (eq && strcmp(k, "fds_match") == 0) {
    if (strlen(v) >= sizeof o->fds_match) return prof_fail(err, len, "fds_match=%s: too long", v);
    snprintf(o->fds_match, sizeof o->fds_match, "%s", v);
    return 0;
  }
  if (eq && strcmp(k, "fds_interval") == 0) {
    int64_t ns = prof_parse_duration(v);
    if (ns < 100000000)
      return prof_fail(err, len, "fds_interval=%s: a duration of at least 100ms (e.g. 5s)", v);
    o->fds_interval = (uint64_t)ns;
    return 0;
  }
  return 1;
}

/* N. Handles one "key=value" or flag. */
/* N. A signal number from "27", "PROF" or "SIGPROF"; -1 if not one a profiler may take. */
static int parse_signal(const char *v) {
  static const struct { const char *name; int sig; } names[] = {
      {"PROF", SIGPROF}, {"VTALRM", SIGVTALRM}, {"ALRM", SIGALRM}, {"STKFLT", SIGSTKFLT},
      {"PWR", SIGPWR},   {"URG", SIGURG},       {"USR1", SIGUSR1}, {"WINCH", SIGWINCH}};
  if (strncmp(v, "SIG", 3) == 0) v += 3;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(v, names[i].name) == 0) return names[i].sig;
  char *end;
  long n = strtol(v, &end, 10);
  if (end == v || *end || n < 1 || n > SIGRTMAX || n == SIGKILL || n == SIGSTOP) return -1;
  return (int)n;
}

static int parse_one(prof_options *o, char *item, uint64_t *pending, char *err, size_t len) {
  char *eq = strchr(item, '=');
  const char *v = eq ? eq + 1 : "";
  if (eq) *eq = 0;
  const char *k = item;
  int fdo = parse_fd_option(o, k, v, eq != NULL, err, len);
  if (fdo <= 0) return fdo;
  if (strcmp(k, "event") == 0 && eq) return add_event(o, v, err, len);
  if (strcmp(k, "interval") == 0 && eq) return set_interval(o, v, pending, err, len);
  if (strcmp(k, "filter") == 0 && eq) {
    prof_event *ev = o->nevents ? &o->events[o->nevents - 1] : NULL;
    if (!ev || ev->kind != EV_TRACEPOINT)
      return prof_fail(err, len, "filter=%s: must follow a tracepoint event", v);
    if (strlen(v) >= sizeof ev->filter) return prof_fail(err, len, "filter=%s: too long", v);
    snprintf(ev->filter, sizeof ev->filter, "%s", v);
    return 0;
  }
  if (strcmp(k, "file") == 0 && eq) {
    /* The place first: file=/proc/self/status is refused for where it is, not its name. */
    if (check_writable("file", v, err, len)) return -1;
    if (!prof_writer_for(v)) {
      char endings[128];
      prof_writer_endings(endings, sizeof endings);
      return prof_fail(err, len, "file=%s: unknown format (use %s)", v, endings);
    }
    if (o->nfiles == PROF_MAX_FILES) return prof_fail(err, len, "file=%s: too many files", v);
    snprintf(o->files[o->nfiles++], sizeof o->files[0], "%s", v);
    return 0;
  }
  if (strcmp(k, "fds") == 0 && eq) {
    if (check_writable("fds", v, err, len)) return -1;
    snprintf(o->fds_file, sizeof o->fds_file, "%s", v);
    return 0;
  }
  if (strcmp(k, "reply") == 0 && eq) return 0; /* taken before parsing, see below */
  if (strcmp(k, "loop") == 0 && eq) {
    int64_t ns = prof_parse_duration(v);
    if (ns < (int64_t)MIN_LOOP_NS)
      return prof_fail(err, len, "loop=%s: a duration of at least 1s (e.g. 10s, 5m, 1h)", v);
    o->loop_ns = (uint64_t)ns;
    return 0;
  }
  if (strcmp(k, "overhead") == 0 && eq) {
    char *end;
    long pct = strtol(v, &end, 10);
    if (end == v || (*end && strcmp(end, "%")) || pct < 1 || pct > 50)
      return prof_fail(err, len, "overhead=%s: a percentage from 1 to 50", v);
    o->max_overhead = (int)pct;
    return 0;
  }
  if (strcmp(k, "record") == 0 && eq) {
    if (check_writable("record", v, err, len)) return -1;
    snprintf(o->record, sizeof o->record, "%s", v);
    return 0;
  }
  if (strcmp(k, "record_n") == 0 && eq) {
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > 10000)
      return prof_fail(err, len, "record_n=%s: a number of walks from 1 to 10000", v);
    o->record_n = (int)n;
    return 0;
  }
  if (strcmp(k, "record_walks") == 0 && eq) {
    if (strcmp(v, "all") && strcmp(v, "errors"))
      return prof_fail(err, len, "record_walks=%s: all or errors", v);
    o->record_all = strcmp(v, "all") == 0;
    return 0;
  }
  if ((strcmp(k, "cpusignal") == 0 || strcmp(k, "wallsignal") == 0) && eq) {
    int sig = parse_signal(v);
    if (sig < 0)
      return prof_fail(err, len, "%s=%s: a signal number (1-%d) or name (PROF, STKFLT, PWR...)",
                       k, v, SIGRTMAX);
    *(k[0] == 'c' ? &o->cpu_signal : &o->wall_signal) = sig;
    return 0;
  }
  if (strcmp(k, "cputhreads") == 0 && eq) {
    if (strcmp(v, "all") && strcmp(v, "java"))
      return prof_fail(err, len, "cputhreads=%s: all (every thread of the process) or java "
                       "(Java threads only)", v);
    o->java_threads_only = strcmp(v, "java") == 0;
    return 0;
  }
  if (strcmp(k, "walk") == 0 && eq) {
    if (strcmp(v, "signal") == 0) o->walk = WALK_SIGNAL;
    else if (strcmp(v, "thread") == 0) o->walk = WALK_THREAD;
    else if (strcmp(v, "queue") == 0) o->walk = WALK_QUEUE;
    else return prof_fail(err, len, "walk=%s: signal, thread or queue", v);
    return 0;
  }
  if (strcmp(k, "kernel") == 0 && eq) {
    if (strcmp(v, "on") && strcmp(v, "off"))
      return prof_fail(err, len, "kernel=%s: on or off (kernel frames on cpu and perf event "
                       "samples)", v);
    o->no_kernel = strcmp(v, "off") == 0;
    return 0;
  }
  if (!eq && strcmp(k, "compare") == 0) return o->compare = true, 0;
  if (!eq && strcmp(k, "verbose") == 0) return o->verbose = true, 0;
  if (!eq && strcmp(k, "cstack") == 0) return o->cstack = true, 0;
  if (!eq && strcmp(k, "untested_jdk") == 0) return o->untested_jdk = true, 0;
  if (!eq && strcmp(k, "realtime_queues") == 0) return o->realtime_queues = true, 0;
  if (!eq && strcmp(k, "threads") == 0) return o->threads = true, 0;
  if (!eq && strcmp(k, "states") == 0) return o->states = true, 0;
  if (eq && strcmp(k, "states") == 0)
    return prof_fail(err, len, "states=%s: states is a flag, it takes no value", v);
  if (!eq && strcmp(k, "start") == 0) return o->action = ACT_START, 0;
  if (!eq && strcmp(k, "stop") == 0) return o->action = ACT_STOP, 0;
  if (!eq && strcmp(k, "dump") == 0) return o->action = ACT_DUMP, 0;
  if (eq) *eq = '=';
  return prof_fail(err, len, "unknown option '%s'", item);
}

/* N. Leaves out the perf events this kernel does not offer (no hardware counters in most
 * VMs), one line each, so the run goes on with the others; an error if none is left. */
static int drop_unavailable(prof_options *o, char *err, size_t errlen) {
  int kept = 0, dropped = 0;
  char why[512] = "";
  for (int i = 0; i < o->nevents; i++) {
    if (o->events[i].kind == EV_PERF && prof_perf_event_check(&o->events[i], why, sizeof why)) {
      dropped++;
      if (o->nevents > 1) prof_say("asgst-prof: %s; profiling without it\n", why);
      continue;
    }
    o->events[kept++] = o->events[i];
  }
  o->nevents = kept;
  if (dropped && kept == 0)
    return prof_fail(err, errlen, "%s",
                     dropped == 1 ? why : "no event asked for is available here");
  return 0;
}

/* N. Finds reply=PATH first so that every later message reaches asgst-attach. */
static void take_reply(const char *text, prof_options *o) {
  const char *p = strstr(text, "reply=");
  if (!p || (p != text && p[-1] != ',')) return;
  p += 6;
  size_t n = strcspn(p, ",");
  if (n >= sizeof o->reply) n = sizeof o->reply - 1;
  memcpy(o->reply, p, n);
  o->reply[n] = 0;
}

/* N. */
int prof_parse_options(const char *text, prof_options *o, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  o->max_overhead = DEFAULT_OVERHEAD;
  o->record_n = 20;
  err[0] = 0;
  if (!text) text = "";
  take_reply(text, o);
  prof_set_reply(o->reply);
  char *copy = strdup(text);
  if (!copy) return prof_fail(err, errlen, "out of memory");
  uint64_t pending = 0;
  int rc = 0;
  char *p = copy;
  while (rc == 0 && *p) {
    /* An item ends at a comma; a filter's value only at one that starts a known option. */
    bool is_filter = strncmp(p, "filter=", 7) == 0;
    char *end = p;
    while (*end && !(*end == ',' && (!is_filter || starts_option(end + 1)))) end++;
    bool last = *end == 0;
    *end = 0;
    if (*p) rc = parse_one(o, p, &pending, err, errlen);
    p = last ? end : end + 1;
  }
  free(copy);
  if (rc) return rc;
  /* Starting without an event profiles CPU. */
  if (o->fds_interval && !o->fds_file[0])
    return prof_fail(err, errlen, "fds_interval: needs fds=<file> to rewrite");
  if (o->loop_ns && !o->nfiles)
    return prof_fail(err, errlen, "loop: needs file=<name> to write each period to");
  if (o->nevents == 0 && o->action != ACT_STOP && o->action != ACT_DUMP && o->action != ACT_FDS)
    add_event(o, "cpu", err, errlen);
  if (o->realtime_queues && o->walk != WALK_QUEUE)
    return prof_fail(err, errlen, "realtime_queues: needs walk=queue (it schedules queue owners)");
  if (o->cpu_signal && o->cpu_signal == o->wall_signal)
    return prof_fail(err, errlen, "cpusignal=%d and wallsignal=%d: one signal each", o->cpu_signal,
                     o->wall_signal);
  if (o->compare && o->walk == WALK_SIGNAL)
    return prof_fail(err, errlen, "compare: needs walk=thread or walk=queue (with walk=signal "
                     "the walk is the in-handler walk)");
  for (int i = 0; pending && i < o->nevents; i++)
    if (o->events[i].kind != EV_TRACEPOINT && o->events[i].kind != EV_PERF)
      o->events[i].interval = pending;
  for (int i = 0; i < o->nevents; i++)
    if (o->events[i].kind == EV_TRACEPOINT && prof_tracepoint_check(&o->events[i], err, errlen))
      return -1;
  return drop_unavailable(o, err, errlen);
}
