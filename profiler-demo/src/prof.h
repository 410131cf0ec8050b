/*
 * prof.h - shared declarations of the demo profiler (libasgstprof.so, a JVMTI agent).
 *
 * Data flow: event sources (perf_events.c, wall_clock.c) signal the Java thread an event
 * belongs to (which signal, and why, in signal_handler.c), held under an overhead budget
 * by overload.c and clock_cost.c; signal_handler.c walks that thread's stack with
 * ASGST_RunWithIterator and appends a record to the lock-free sample buffer
 * (sample_buffer.c). At dump time (profiler.c) the records are resolved to names
 * (symbols.c), aggregated (profile_tree.c) and written (flamegraph.c, collapsed.c,
 * summary.c, fd_report.c).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_PROF_H
#define ASGSTPROF_PROF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "asgst.h"

#define PROF_MAX_EVENTS 24 /* event=fds alone adds 17 tracepoints */
#define PROF_MAX_FILES 8
#define PROF_MAX_FRAMES 256
#define PROF_MAX_THREADS 4096
#define PROF_MAX_FD 65536
#define PROF_ADDR_MAX 256 /* bytes of a sockaddr (sockaddr_un is 110) or a path kept */

/* ---- Options (options.c) ------------------------------------------------------------- */
enum prof_event_kind { EV_CPU = 1, EV_CPU_TIMER, EV_WALL, EV_TRACEPOINT };

/* What a traced syscall tells about file descriptors (tracepoints.c). */
enum prof_fd_call {
  FDC_NONE = 0, FDC_RESULT_FD, /* the return value is a new fd: eventfd, epoll_create... */
  FDC_SOCKET,                  /* socket: result fd, args 0/1 domain and type kept */
  FDC_PATH_ARG0,               /* open, creat: result fd, path in arg 0 */
  FDC_PATH_ARG1,               /* openat, openat2: result fd, path in arg 1 */
  FDC_ACCEPT,                  /* accept, accept4: result fd, listener arg 0, peer arg 1/2 */
  FDC_PAIR_ARG0,               /* two fds written to the int[2] in arg 0: pipe, pipe2 */
  FDC_PAIR_ARG3,               /* two fds written to the int[2] in arg 3: socketpair */
  FDC_BIND,                    /* arg 0 is the fd, arg 1/2 the sockaddr and its length */
  FDC_CONNECT,                 /* as bind; EINPROGRESS counts as success */
  FDC_LISTEN,                  /* arg 0 is the fd */
  FDC_CLOSE                    /* arg 0 is the fd that was closed */
};

typedef struct {
  enum prof_event_kind kind;
  char name[128];       /* "cpu", "wall", "syscalls:sys_enter_socket" */
  char filter[256];     /* kernel filter expression, "" if none */
  uint64_t interval;    /* ns for cpu/wall, every Nth event for tracepoints */
  uint64_t period;      /* cpu: the period events start with, >= interval (clock_cost.c) */
  int tp_id;            /* tracepoint id */
  enum prof_fd_call fd_call;
  char syscall[96];     /* "socket" for syscalls:sys_*_socket, "" otherwise */
} prof_event;

enum prof_action { ACT_NONE = 0, ACT_START, ACT_STOP, ACT_DUMP, ACT_FDS };

/* walk=: where a sample's stack is walked (README, "Walk modes"). */
enum prof_walk_mode {
  WALK_SIGNAL = 0, /* in the signal handler (ASGST_RunWithIterator) */
  WALK_THREAD,     /* by a sampler thread, out of thread (ASGST_RunWithIteratorOnThread) */
  WALK_QUEUE       /* at the thread's next safe point (ASGST_Enqueue + a queue handler) */
};

typedef struct {
  prof_event events[PROF_MAX_EVENTS];
  int nevents;
  char files[PROF_MAX_FILES][512];
  int nfiles;
  char fds_file[512];
  char reply[512];      /* where to write messages for asgst-attach ("" = stderr) */
  bool cstack;
  bool untested_jdk;    /* untested_jdk: ASGST_Initialize with ASGST_INIT_UNTESTED_JDK */
  bool threads;
  int max_overhead;     /* percent of a sampled thread's time samples may take (overload.c) */
  char record[512];     /* record=: where recorded walks go ("" = none; walk_recorder.c) */
  int record_n;         /* record_n=: how many walks to record (20) */
  bool record_all;      /* record_walks=all: any walk, not only those that end in an error */
  enum prof_walk_mode walk; /* walk=signal|thread|queue */
  bool compare;         /* compare: thread/queue samples are also walked in the handler */
  char fds_match[256];  /* fds_match=: the live fd query's filter (fd, port or path part) */
  uint64_t fds_interval; /* fds_interval=: rewrite fds= every this many ns (0: at the end) */
  enum prof_action action;
} prof_options;

/* N. Parses "a,b=c,..." into *o. Returns 0, or -1 with a message naming the bad part in
 * err. Checks tracepoints (and their filters) against the kernel and output files for
 * writability, so a bad option fails here. */
/* N. Formats an error message into err; always returns -1. */
int prof_fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int prof_parse_options(const char *text, prof_options *o, char *err, size_t errlen);
/* N. Parses "10ms" and friends into nanoseconds; -1 if malformed or zero. */
int64_t prof_parse_duration(const char *s);

/* ---- Tracepoints (tracepoints.c) ----------------------------------------------------- */
/* N. Tracefs directory (mounted on demand), NULL with a reason in err if unusable. */
const char *prof_tracefs(char *err, size_t errlen);
/* N. Fills ev->tp_id, fd_call and syscall for "cat:name"; may rename a blocking
 * sys_enter_X to sys_exit_X (note written to note). 0 or -1 with err. */
int prof_tracepoint_resolve(prof_event *ev, char *note, size_t notelen, char *err,
                            size_t errlen);
/* N. Opens the tracepoint once on this thread with its filter to prove both are accepted. */
int prof_tracepoint_check(const prof_event *ev, char *err, size_t errlen);
/* N. The tracepoints event=fds stands for, NULL-terminated ("syscalls:sys_enter_socket"...). */
extern const char *const prof_fd_tracepoints[];

/* ---- Per-thread event sources (perf_events.c, wall_clock.c, threads.c) --------------- */
typedef struct {
  pid_t tid;
  bool used;
  char name[64];
  int fds[PROF_MAX_EVENTS];   /* perf fds, -1 if none */
  void *timers[PROF_MAX_EVENTS]; /* POSIX timers (timer_t) for EV_CPU_TIMER, else NULL */
} prof_thread;

/* N. Opens a perf event for ev on tid, disabled, with period (cpu: the kernel-sampling
 * fallback applied); -1 with errno. */
int prof_perf_open(const prof_event *ev, pid_t tid, uint64_t period);
/* N. The smallest cpu-clock period from `requested` up whose timer interrupts alone cost
 * this machine at most budget_pct percent of a thread's time; note says what was measured
 * when it is not `requested` (clock_cost.c). */
uint64_t prof_cpu_clock_floor(const prof_event *ev, uint64_t requested, int budget_pct,
                              char *note, size_t notelen);
/* N. Opens every configured per-thread event for tid (events are live immediately). */
void prof_events_open_thread(prof_thread *t);
/* N. Closes them, adding their kernel event counts to the totals. */
void prof_events_close_thread(prof_thread *t);
/* N. Picks the real-time signal and installs the handler; 0 or -1. */
int prof_signal_install(char *err, size_t errlen);
/* N. Which event index the wall clock's tgkill signals stand for. */
void prof_signal_set_wall_event(int index);
/* SS. Which event a perf fd belongs to, -1 if none. */
int prof_event_of_fd(int fd);

/* N. Registers the calling thread (JVMTI ThreadStart) or any tid (attach enumeration). */
void prof_threads_add(pid_t tid, const char *name);
/* N. Unregisters tid (JVMTI ThreadEnd). */
void prof_threads_remove(pid_t tid);
/* N. Registers every existing thread of the process that is not a JVM-internal thread
 * (the calling thread too unless skip_self). */
void prof_threads_add_existing(bool skip_self);
/* N. Closes every thread's events (stop). */
void prof_threads_remove_all(void);
/* N. Copies the name of tid into buf ("tid N" if unknown). */
void prof_threads_name(pid_t tid, char *buf, size_t len);
/* N. Sends sig to every registered thread (the wall clock's tick); returns how many. */
int prof_threads_signal_all(int sig);
/* N. Copies up to max registered tids into out; returns how many. */
int prof_threads_tids(pid_t *out, int max);

/* N. Starts/stops the wall-clock timer thread. */
int prof_wall_start(uint64_t interval_ns, int event_index);
void prof_wall_stop(void);

/* ---- Overload (overload.c) ---------------------------------------------------------- */
/* SS. Monotonic time in ns. */
uint64_t prof_now_ns(void);
/* N. A perf cpu fd was opened with period, for an event asked at requested (before it is
 * enabled). */
void prof_load_open(int fd, int event, uint64_t requested, uint64_t period);
/* SS. After a perf cpu event's handler: counts throttled samples, steers the period. */
void prof_load_perf_sample(int fd, uint64_t t_in, uint64_t t_out);
/* SS. After a wall-clock handler that took ns. */
void prof_load_wall_sample(uint64_t ns);
/* N. The wall timer's next tick (see overload.c). */
uint64_t prof_load_wall_interval(int event, uint64_t requested, uint64_t round_ns,
                                 int nthreads);
/* N. Starts / stops the thread that reports throttling as it happens. */
void prof_load_start(void);
void prof_load_stop(void);

/* ---- Samples (sample_buffer.c) ------------------------------------------------------- */
typedef struct {
  void *method; /* ASGST_Method, or the pc for a C frame */
  int32_t bci;
  uint8_t type; /* enum ASGST_FrameTypeId */
  int8_t comp_level;
  uint16_t pad;
} prof_frame;

/* File descriptors a traced syscall produced or used, filled in the handler
 * (fd_capture.c). */
typedef struct {
  int32_t fd[2];     /* -1 if absent */
  uint64_t ino[2];   /* inode at creation time, to recognise the same open file later */
  uint64_t time_ns;  /* CLOCK_REALTIME when the call returned */
  int64_t ret;       /* the syscall's result */
  int64_t args[2];   /* socket: domain, type; accept: the listening fd */
  uint16_t addrlen;  /* bytes of addr: a sockaddr (bind, connect, accept's peer) or a path */
  uint16_t locallen; /* bytes of local: the socket's own address after bind, connect, accept */
  uint8_t addr[PROF_ADDR_MAX];
  uint8_t local[112]; /* the port the kernel picked for port 0 or an outgoing connection */
} prof_fdinfo;

/* SS. Fills fi from the registers of a traced fd syscall that just returned (ucontext of
 * the signal); false if nothing can be claimed (fd_capture.c). */
bool prof_fd_capture(const prof_event *ev, const void *ucontext, prof_fdinfo *fi);

typedef struct {
  _Atomic uint32_t size; /* total record size; written last (0: not committed) */
  uint16_t event;
  uint16_t nframes;
  int32_t tid;
  int32_t walk_result;   /* ASGST_RunWithIterator's result */
  uint32_t walk_ns;     /* the walk's own time, wherever it ran */
  uint8_t has_fdinfo;
  uint8_t pad[3];
  uint64_t seq;
  uint32_t lag_ns;      /* from the handler's entry (the event) to the walk's start */
  uint32_t pad2;
  /* prof_frame frames[nframes]; then prof_fdinfo if has_fdinfo */
} prof_record;

/* N. Maps the buffer (bytes of address space, touched lazily). 0 or -1. */
int prof_buffer_init(size_t bytes);
/* N. Forgets every record (profiling restart). */
void prof_buffer_reset(void);
/* SS. Appends a record; false if the buffer is full (counted as lost by the caller). */
bool prof_buffer_append(const prof_record *hdr, const prof_frame *frames,
                        const prof_fdinfo *fdi);
/* N. Calls fn for every committed record, oldest first. */
void prof_buffer_each(void (*fn)(const prof_record *r, const prof_frame *frames,
                                 const prof_fdinfo *fdi, void *arg),
                      void *arg);

/* ---- Counters (signal_handler.c) ----------------------------------------------------- */
#define PROF_WALK_CODES 64 /* results -31..31 are counted by value */
typedef struct {
  _Atomic uint64_t signals[PROF_MAX_EVENTS];   /* signals received per event */
  _Atomic uint64_t stored[PROF_MAX_EVENTS];    /* records written */
  _Atomic uint64_t lost_buffer[PROF_MAX_EVENTS]; /* buffer full */
  _Atomic uint64_t no_java[PROF_MAX_EVENTS];   /* walked, but no Java frame */
  _Atomic uint64_t kernel_count[PROF_MAX_EVENTS]; /* events counted by the kernel (wall:
                                                     signals the timer thread sent) */
  _Atomic uint64_t walk_results[PROF_WALK_CODES];
  _Atomic uint64_t throttled[PROF_MAX_EVENTS]; /* samples left out by the overload throttle */
  _Atomic uint64_t throttle_steps[PROF_MAX_EVENTS]; /* times a period was raised */
  _Atomic uint64_t max_period[PROF_MAX_EVENTS]; /* the longest period the throttle used, ns */
  _Atomic uint64_t unknown_signal;             /* si_fd not ours (closed fd...) */
  _Atomic uint64_t lost_signals;               /* SIGIO: real-time signal queue full */
  _Atomic uint64_t via_sigio;                  /* of those, sampled anyway (on_sigio) */
  _Atomic uint64_t seq;
  /* Walk modes (sample_store.c, walk_thread.c, walk_queue.c). */
  _Atomic uint64_t handler_ns, handler_calls; /* our signal handler, on the sampled thread */
  _Atomic uint64_t sampler_ns, sampler_walks; /* walks on a sampler thread / queue handler */
  _Atomic uint64_t held_ns;           /* thread: RunWithIteratorOnThread calls (target held) */
  _Atomic uint64_t requests;          /* thread: handler requests to the walker thread */
  _Atomic uint64_t request_full;      /* thread: dropped, the request ring was full */
  _Atomic uint64_t request_late;      /* thread: dropped, older than REQUEST_MAX_AGE_NS */
  _Atomic uint64_t not_answering;     /* thread: the target did not answer in time */
  _Atomic uint64_t enqueued;          /* queue: elements ASGST_Enqueue accepted */
  _Atomic uint64_t enqueue_full;      /* queue: ASGST_ENQUEUE_FULL_QUEUE */
  _Atomic uint64_t enqueue_no_queue;  /* queue: the thread has no (live) queue */
  _Atomic uint64_t enqueue_failed;    /* queue: other errors (no top Java frame...) */
  _Atomic uint64_t handled;           /* queue: elements the queue handler got */
  _Atomic uint64_t stale;             /* queue: of those, reported ASGST_STALE_FRAME */
  _Atomic uint64_t compared;          /* compare: samples walked both ways */
  _Atomic uint64_t compare_same;      /* identical method+bci frame by frame */
  _Atomic uint64_t compare_top_same;  /* same top frame (method+bci) */
  _Atomic uint64_t compare_frames, compare_frames_same; /* frames compared / equal */
} prof_counters;

extern prof_counters prof_stats;
extern prof_options prof_opts;       /* options of the current run */
extern _Atomic int prof_running;     /* 1 while sampling */
extern int prof_signal;              /* the real-time signal of tracepoint events */
extern int prof_signal_cpu;          /* SIGPROF: cpu and cputimer events */
extern int prof_signal_wall;         /* SIGVTALRM: the wall clock's ticks */
extern char prof_init_error[256];    /* why ASGST_Initialize failed, "" if it did not */

/* ---- Names and aggregation (symbols.c, profile_tree.c) ------------------------------- */
/* Colour classes of frames in the outputs. */
enum prof_ftype { FT_INTERP, FT_C1, FT_C2, FT_INLINED, FT_NATIVE, FT_C, FT_THREAD, FT_NTYPES };

/* N. Interned frame id for a recorded frame (name resolved once per method). */
int prof_sym_frame(const prof_frame *f);
/* N. Interned frame id for a synthetic frame ("[thread]", "[error]"). */
int prof_sym_named(const char *name, enum prof_ftype type);
const char *prof_sym_name(int id);        /* N */
enum prof_ftype prof_sym_type(int id);    /* N */
int prof_sym_count(void);                 /* N */
/* N. The (demangled) function containing pc from its library's ELF symbol table;
 * false if none (elf_symbols.c). */
bool prof_elf_name(void *pc, char *buf, size_t len);
void prof_sym_reset(void);                /* N */

typedef struct prof_node {
  int frame;      /* symbol id, -1 for the root */
  uint64_t total; /* samples at or below */
  uint64_t self;  /* samples ending here */
  int first_child, next_sibling; /* indices into the node array, -1 if none */
} prof_node;

typedef struct {
  prof_node *nodes;
  int n, cap;
  int *hash; int hcap; /* (parent, frame) -> node index */
} prof_tree;

void prof_tree_init(prof_tree *t);                               /* N */
void prof_tree_free(prof_tree *t);                               /* N */
/* N. Adds one sample; ids[] root first. */
void prof_tree_add(prof_tree *t, const int *ids, int n, uint64_t count);
/* N. Builds the tree of every record of the given events (mask) from the buffer; with
 * event_roots each event is a root frame "[name]", with threads each thread below it. */
void prof_tree_build(prof_tree *t, uint32_t event_mask, bool threads, bool event_roots);

/* ---- Outputs ------------------------------------------------------------------------- */
int prof_write_flamegraph(const prof_tree *t, const char *title, FILE *out); /* N */
int prof_write_collapsed(const prof_tree *t, FILE *out);                       /* N */
/* N. The hottest methods by self samples, one line each, frame types merged with a
 * breakdown (hot_frames.c). */
void prof_write_hot_frames(FILE *out, const prof_tree *t);
void prof_write_summary(FILE *out);                                            /* N */
void prof_write_walk_mode(FILE *out); /* N: the walk-mode part (summary_walk_mode.c) */
/* N. The fd report; match ("" = all) keeps the entries whose fd number, port, address or
 * path it names (fd_report.c). */
void prof_write_fd_report(FILE *out, const char *match);
/* N. Writes the fd report to path (whole file replaced at once); 0 or -1 with err. */
int prof_fd_write_file(const char *path, char *err, size_t errlen);
/* N. Starts the thread that rewrites fds= every fds_interval while profiling (fd_live.c). */
void prof_fd_interval_start(void);
/* N. Answers asgst-attach's "fds [match]": the report goes to the reply file (stderr if
 * none). 0 or -1 with err. */
int prof_fd_query(const char *match, const char *reply, char *err, size_t errlen);
/* N. The Java frames of a record as "a.B.m <- c.D.n <- ..." (newest first). */
void prof_format_stack(const prof_record *r, const prof_frame *frames, char *buf, size_t len,
                       int max);

/* ---- Control (profiler.c) ------------------------------------------------------------ */
/* N. on_attach: the caller is the attach listener thread, which is not profiled. */
int prof_start(bool on_attach, char *err, size_t errlen);
int prof_stop(char *err, size_t errlen);  /* N: stop and write the outputs */
int prof_dump(char *err, size_t errlen);  /* N: write the outputs, keep sampling */
/* N. Where prof_say also writes (the reply file of the current asgst-attach request). */
void prof_set_reply(const char *path);
/* N. Binds the ASGST library to the JVM; the reason goes to prof_init_error on failure. */
int prof_bind_asgst(JavaVM *vm);
/* N. Messages for the user: stderr, and the reply file for asgst-attach when set. */
void prof_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- Walks and their records (sample_store.c) --------------------------------------- */
#define PROF_COMPARE_FRAMES 64 /* compare: how many top frames the reference walk keeps */

/* One walk's output. */
typedef struct {
  prof_frame frames[PROF_MAX_FRAMES];
  int n;
  int error; /* the NextFrame error that ended the walk, 0 if it ended normally */
} prof_walk;

/* The in-handler reference walk of a sample (compare). n < 0: none taken. */
typedef struct {
  int n;
  int result;
  prof_frame frames[PROF_COMPARE_FRAMES];
} prof_ref_walk;

/* SS. An ASGST_IteratorHandler: copies the frames into the prof_walk arg. */
void prof_walk_collect(ASGST_Iterator *it, void *arg);
/* SS. Walks ucontext in the handler into ref (compare). */
void prof_ref_take(void *ucontext, prof_ref_walk *ref);
/* SS/SP. Counts walk result r, stores the record of event ev on tid, and compares it with
 * ref (if any). walk_ns: the walk's time; lag_ns: event to walk start. */
void prof_store_walk(int ev, pid_t tid, int r, const prof_walk *w, uint64_t walk_ns,
                     uint64_t lag_ns, const prof_fdinfo *fdi, const prof_ref_walk *ref);
/* SS. The iterator options of every walk of this run. */
int prof_walk_options(void);

/* ---- Out-of-thread walking (walk_thread.c) ------------------------------------------ */
/* SS. walk=thread: queues a walk of the calling thread for event ev noticed at t_event. */
void prof_thread_request(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi);
/* N. walk=thread, wall clock: walks every registered thread from the calling (timer)
 * thread; returns how many walks were attempted. */
int prof_thread_walk_all(int ev);
/* N. Start / stop the walker thread (walk=thread only). */
int prof_walker_start(void);
void prof_walker_stop(void);

/* ---- Safepoint queues (walk_queue.c) -------------------------------------------------- */
/* N. walk=queue: registers a queue for the calling thread (JVMTI ThreadStart). */
void prof_queue_thread_start(void *jni_env);
/* N. Deregisters the calling thread's queue (JVMTI ThreadEnd). */
void prof_queue_thread_end(void *jni_env);
/* SS. Enqueues a sample of the calling thread. */
void prof_queue_sample(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi);
/* N. Deregisters every queue (stop). */
void prof_queue_stop_all(void);

/* ---- Recorded walks (walk_recorder.c) ---- */
/* SS. Records this walk if record= asks for it (walk_result: what the walk returned). */
void prof_recorder_walk(void *ucontext, int options, int walk_result);
/* N. Starts the writer of record= (nothing without the option). 0 or -1 with a message. */
int prof_recorder_start(char *err, size_t errlen);
/* N. Writes what is left and says how many walks were recorded. */
void prof_recorder_stop(void);

#endif /* ASGSTPROF_PROF_H */
