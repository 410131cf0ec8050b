/*
 * state.h - the profiler context: the one place that holds what a run shares (its
 * options, its counters, whether it is sampling, its signals, why the library refused the
 * JVM). It is one global, `prof`, not an argument: a signal handler has no argument to
 * carry it, and reading a field of a global costs the handler no more than reading a
 * global of its own.
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_STATE_H
#define ASGSTPROF_CORE_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/options.h"
#include "core/time_hist.h"

#define PROF_WALK_CODES 64 /* results -31..31 are counted by value */

typedef struct {
  _Atomic uint64_t signals[PROF_MAX_EVENTS];   /* signals received per event */
  _Atomic uint64_t stored[PROF_MAX_EVENTS];    /* samples kept: records written or counted
                                                  in the call-trace store */
  _Atomic uint64_t lost_buffer[PROF_MAX_EVENTS]; /* buffer full */
  _Atomic uint64_t lost_store[PROF_MAX_EVENTS];  /* call-trace store full, the key new */
  _Atomic uint64_t no_java[PROF_MAX_EVENTS];   /* a Java thread walked, but no Java frame */
  _Atomic uint64_t other[PROF_MAX_EVENTS];     /* samples of threads that are not Java
                                                  threads (JIT, GC, VM, native: cputhreads) */
  _Atomic uint64_t with_kernel[PROF_MAX_EVENTS]; /* samples with kernel frames */
  _Atomic uint64_t no_ring;                    /* perf fds whose callchain ring could not
                                                  be mapped (their samples lack kernel
                                                  frames) */
  _Atomic uint64_t kernel_count[PROF_MAX_EVENTS]; /* events counted by the kernel (wall:
                                                     signals the timer thread sent), of
                                                     threads whose events are closed */
  _Atomic uint64_t kernel_live[PROF_MAX_EVENTS]; /* the same of threads whose events are
                                                    open, as read before the last output */
  _Atomic uint64_t walk_results[PROF_WALK_CODES];
  _Atomic uint64_t throttled[PROF_MAX_EVENTS]; /* samples left out by the overload throttle */
  _Atomic uint64_t throttle_steps[PROF_MAX_EVENTS]; /* times a period was raised */
  _Atomic uint64_t max_period[PROF_MAX_EVENTS]; /* the longest period the throttle used, ns */
  _Atomic uint64_t unknown_signal;             /* si_fd not ours (closed fd...) */
  _Atomic uint64_t lost_signals;               /* SIGIO: real-time signal queue full */
  _Atomic uint64_t via_sigio;                  /* of those, sampled anyway (on_sigio) */
  _Atomic uint64_t seq;
  /* Walk modes (walk/sample_store.c, walk/walk_thread.c, walk/walk_queue.c). */
  _Atomic uint64_t handler_ns, handler_calls; /* our signal handler, on the sampled thread */
  prof_hist handler_hist;             /* the same, each call's time (owner's cost, p99) */
  _Atomic uint64_t sampler_ns, sampler_walks; /* walks on a sampler thread / queue handler */
  _Atomic uint64_t held_ns;           /* thread: RunWithIteratorOnThread calls (target held) */
  _Atomic uint64_t requests;          /* thread: handler requests to the walker thread */
  _Atomic uint64_t request_full;      /* thread: dropped, the request ring was full */
  _Atomic uint64_t request_late;      /* thread: dropped, older than REQUEST_MAX_AGE_NS */
  _Atomic uint64_t not_answering;     /* thread: the target did not answer in time */
  _Atomic uint64_t enqueued;          /* queue: elements ASGST_Enqueue accepted */
  _Atomic uint64_t enqueue_full;      /* queue: ASGST_ENQUEUE_FULL_QUEUE */
  _Atomic uint64_t enqueue_no_queue;  /* queue: the thread has no (live) queue */
  _Atomic uint64_t queue_walked_here; /* queue: no queue, walked in the handler instead */
  _Atomic uint64_t enqueue_no_java;   /* queue: nothing to enqueue (no Java frame, exiting) */
  _Atomic uint64_t enqueue_failed;    /* queue: other errors (unsafe state...) */
  _Atomic uint64_t handled;           /* queue: elements the queue handler got */
  _Atomic uint64_t stale;             /* queue: of those, reported ASGST_STALE_FRAME */
  _Atomic uint64_t folded;            /* queue: samples folded into the youngest queued
                                         element (same frame and event) instead of enqueued */
  _Atomic uint64_t folded_handled;    /* queue: of those, in elements the handler got */
  _Atomic uint64_t dropped;           /* queue: elements dropped unhandled at deregistration */
  _Atomic uint64_t dropped_folds;     /* queue: samples folded into the dropped elements */
  _Atomic uint64_t compared;          /* compare: samples walked both ways */
  _Atomic uint64_t compare_same;      /* identical method+bci frame by frame */
  _Atomic uint64_t compare_top_same;  /* same top frame (method+bci) */
  _Atomic uint64_t compare_frames, compare_frames_same; /* frames compared / equal */
} prof_counters;

typedef struct {
  prof_options opts;     /* options of the current run (control/ writes them, at start) */
  prof_counters stats;   /* zeroed at start, counted by handlers and walkers */
  _Atomic int running;   /* 1 while sampling */
  /* A file whose writer reads every sample's own record is asked (control/ sets it with
   * the files: prof_note_files): the handlers then keep one per sample. */
  _Atomic int keep_each_sample;
  int signal;            /* the real-time signal of tracepoint events (0: not taken yet) */
  int signal_cpu;        /* cpu and cputimer events (SIGSTKFLT; signal_handler.c) */
  int signal_wall;       /* the wall clock's ticks (SIGVTALRM; signal_handler.c) */
  char init_error[256];  /* why ASGST_Initialize failed, "" if it did not */
  /* cpu and named perf event samples carry kernel frames (sampling/kernel_chain.c); if
   * not, why ("" when no event could have them). */
  bool kernel_frames;
  char kernel_frames_off[256];
  char vm_name[128], vm_version[128]; /* java.vm.name and java.vm.version (the .jfr's) */
  char tmpdir[128];      /* java.io.tmpdir: where an output that cannot be written goes */
} prof_state;

/* The profiler context (state.c). */
extern prof_state prof;

#endif /* ASGSTPROF_CORE_STATE_H */
