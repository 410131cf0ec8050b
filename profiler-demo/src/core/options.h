/*
 * options.h - what a profiling run was asked for: its events and options, as parsed by
 * control/options.c and read everywhere else through the profiler context (state.h).
 * Types only; every room may include it.
 */
#ifndef ASGSTPROF_CORE_OPTIONS_H
#define ASGSTPROF_CORE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PROF_MAX_EVENTS 24 /* event=fds alone adds 17 tracepoints */
#define PROF_MAX_FILES 8
#define PROF_MAX_FRAMES 256
#define PROF_KERNEL_FRAMES 48 /* kernel frames kept on top of a sample's stack */
#define PROF_MAX_THREADS 4096
#define PROF_MAX_FD 65536
#define PROF_ADDR_MAX 256 /* bytes of a sockaddr (sockaddr_un is 110) or a path kept */

/* EV_PERF: a hardware or software perf event by name (sampling/perf_names.c). */
enum prof_event_kind { EV_CPU = 1, EV_CPU_TIMER, EV_WALL, EV_TRACEPOINT, EV_PERF };

/* What a traced syscall tells about file descriptors (sampling/tracepoints.c). */
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
  char name[128];       /* "cpu", "wall", "page-faults", "syscalls:sys_enter_socket" */
  char filter[256];     /* kernel filter expression, "" if none */
  uint64_t interval;    /* ns for cpu/wall, every Nth event for tracepoints and perf events */
  uint64_t period;      /* cpu: the period events start with, >= interval (clock_cost.c) */
  int tp_id;            /* tracepoint id */
  uint32_t perf_type;   /* EV_PERF: perf_event_attr's type and config */
  uint64_t perf_config;
  enum prof_fd_call fd_call;
  char syscall[96];     /* "socket" for syscalls:sys_*_socket, "" otherwise */
} prof_event;

/* SS. Whether event ev's samples carry kernel frames where perf allows
 * (sampling/kernel_chain.c): cpu, perf events by name, and tracepoints but those of the
 * syscalls category: the kernel takes a syscall tracepoint's sample with the user
 * registers of the call, so it records no kernel callchain for it (docs/budgets.md), and
 * event=fds would map 17 rings per thread for
 * nothing. */
static inline bool prof_kchain_wanted(const prof_event *ev) {
  return ev->kind == EV_CPU || ev->kind == EV_PERF ||
         (ev->kind == EV_TRACEPOINT && strncmp(ev->name, "syscalls:", 9) != 0);
}

enum prof_action { ACT_NONE = 0, ACT_START, ACT_STOP, ACT_DUMP, ACT_FDS };

/* walk=: where a sample's stack is walked (profiler-demo/README.md, "Walk modes"). */
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
  bool no_kernel;       /* kernel=off: no kernel frames on cpu and perf event samples */
  bool untested_jdk;    /* untested_jdk: ASGST_Initialize with ASGST_INIT_UNTESTED_JDK */
  bool realtime_queues; /* realtime_queues: ... with ASGST_INIT_REALTIME_QUEUES */
  bool threads;
  bool java_threads_only; /* cputhreads=java: cpu events sample Java threads only (else every
                             thread of the process: sampling/thread_scan.c) */
  bool states; /* a "[state=...]" frame on top of every sample's stack (outputs but JFR) */
  int max_overhead;     /* percent of a sampled thread's time samples may take (overload.c) */
  char record[512];     /* record=: where recorded walks go ("" = none; walk_recorder.c) */
  int record_n;         /* record_n=: how many walks to record (20) */
  bool record_all;      /* record_walks=all: any walk, not only those that end in an error */
  enum prof_walk_mode walk; /* walk=signal|thread|queue */
  bool compare;         /* compare: thread/queue samples are also walked in the handler */
  bool verbose;         /* verbose: the detailed summary on stderr too (output/summary_short.c) */
  char fds_match[256];  /* fds_match=: the live fd query's filter (fd, port or path part) */
  uint64_t fds_interval; /* fds_interval=: rewrite fds= every this many ns (0: at the end) */
  uint64_t loop_ns;     /* loop=: write the outputs and start a new profile this often, ns
                           (0: once, at the end; control/loop.c) */
  int cpu_signal;        /* cpusignal=: the signal of cpu/cputimer samples (0: choose) */
  int wall_signal;       /* wallsignal=: the signal of the wall clock's ticks (0: choose) */
  enum prof_action action;
} prof_options;

#endif /* ASGSTPROF_CORE_OPTIONS_H */
