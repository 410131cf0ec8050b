/*
 * walk.h - the walk modes (profiler-demo/README.md, "Walk modes"): where a sample's stack is walked and
 * how its record reaches the sample buffer. sample_store.c holds what every mode shares;
 * walk_thread.c walks out of thread, walk_queue.c at the thread's next safe point,
 * walk_recorder.c records walks for a replay (record=). The signal handler
 * (sampling/signal_handler.c) walks in place or hands the sample to a mode here.
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, SP at a safe point,
 * N ordinary code.
 */
#ifndef ASGSTPROF_WALK_WALK_H
#define ASGSTPROF_WALK_WALK_H

#include <stdbool.h>
#include <sys/types.h>

#include "asgst.h"
#include "core/records.h"

#define PROF_COMPARE_FRAMES 64 /* compare: how many top frames the reference walk keeps */

/* One walk's output. */
typedef struct {
  prof_frame frames[PROF_MAX_FRAMES];
  int n;
  int error; /* the NextFrame error that ended the walk, 0 if it ended normally */
  bool other; /* a walk of a thread that is not a Java thread (sampling/threads.c) */
  uint8_t state; /* enum prof_tstate: the thread's at the event, read in the handler */
} prof_walk;

/* The in-handler reference walk of a sample (compare). n < 0: none taken. */
typedef struct {
  int n;
  int result;
  prof_frame frames[PROF_COMPARE_FRAMES];
} prof_ref_walk;

/* ---- Every mode (sample_store.c) ---- */
/* SS. An ASGST_IteratorHandler: copies the frames into the prof_walk arg. */
void prof_walk_collect(ASGST_Iterator *it, void *arg);
/* SS. Walks ucontext in the handler into ref (compare). */
void prof_ref_take(void *ucontext, prof_ref_walk *ref);
/* SS/SP. Counts walk result r, stores the record of event ev on tid, and compares it with
 * ref (if any). walk_ns: the walk's time; lag_ns: event to walk start; weight: how many
 * samples the walk stands for (walk=queue folds repeated samples into one walk; 1 else). */
void prof_store_walk(int ev, pid_t tid, int r, const prof_walk *w, uint64_t walk_ns,
                     uint64_t lag_ns, const prof_fdinfo *fdi, const prof_ref_walk *ref,
                     uint32_t weight);
/* SS. The iterator options of every walk of this run. */
int prof_walk_options(void);
/* SS. Takes a traced fd call's record, frames and fd info; false if it cannot (the call
 * then counts as lost to a full buffer). The fd room's prof_fd_note: */
typedef bool (*prof_fd_taker)(const prof_record *h, const prof_frame *frames, const prof_fdinfo *fi);
/* N. Sets the taker of traced fd calls (fd/fd_table.c, at profiling start), so that this
 * room needs nothing of the fd room above it. NULL: fd calls are only stored as samples. */
void prof_walk_set_fd_taker(prof_fd_taker taker);

/* ---- Out of thread (walk_thread.c) ---- */
/* SS. walk=thread: queues a walk of the calling thread for event ev noticed at t_event. */
void prof_thread_request(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi,
                         uint8_t state);
/* N. walk=thread, wall clock: walks tid from the calling (timer) thread as a sample of
 * event ev. */
void prof_thread_walk(int ev, pid_t tid);
/* N. Start / stop the walker thread (walk=thread only). */
int prof_walker_start(void);
void prof_walker_stop(void);

/* ---- Safepoint queues (walk_queue.c) ---- */
/* N. walk=queue: registers a queue for the calling thread (JVMTI ThreadStart). */
void prof_queue_thread_start(void *jni_env);
/* N. Deregisters the calling thread's queue (JVMTI ThreadEnd). */
void prof_queue_thread_end(void *jni_env);
/* SS. Enqueues a sample of the calling thread. False if the thread has no queue (it was
 * running before the attach, or before VMInit): the caller walks it in the handler. */
bool prof_queue_sample(int ev, void *ucontext, uint64_t t_event, const prof_fdinfo *fdi,
                       uint8_t state);
/* N. Deregisters every queue (stop). */
void prof_queue_stop_all(void);

/* ---- Recorded walks (walk_recorder.c) ---- */
/* SS. Records this walk if record= asks for it (walk_result: what the walk returned). */
void prof_recorder_walk(void *ucontext, int options, int walk_result);
/* N. Starts the writer of record= (nothing without the option). 0 or -1 with a message. */
int prof_recorder_start(char *err, size_t errlen);
/* N. Writes what is left and says how many walks were recorded. */
void prof_recorder_stop(void);

#endif /* ASGSTPROF_WALK_WALK_H */
