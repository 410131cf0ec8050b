/*
 * queues.h - the room of safepoint queues: the queue thread (queue_thread.c) and a
 * waiting queue owner's real-time priority on the opt-in (queue_boost.c).
 */
#ifndef ASGST_HOTSPOT_QUEUES_H
#define ASGST_HOTSPOT_QUEUES_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* N. backend.h queue_bind() and queue_unbind(). */
int asgst__hs_queue_bind(JNIEnv *env, void **owner);
void asgst__hs_queue_unbind(void *owner);
/* ---- A waiting queue owner's real-time priority, on the opt-in (queue_boost.c) ---- */
/* N. From a processing thread at its real-time priority: tries once whether raising is
 * permitted and starts the timer that bounds every raise; off if either fails. */
void asgst__hs_boost_setup(void);
/* SS. Raises the caller (kernel id tid) to SCHED_FIFO 1; returns what asgst__hs_boost_end
 * takes, 0: not raised. */
int asgst__hs_boost_self(pid_t tid);
/* SS. Releases a raise: the thread back to its policy (unless the timer did it already, or
 * undo is false: the thread has ended). */
void asgst__hs_boost_end(int raise, bool undo);
/* SS. Owners raised right now. */
int asgst__hs_boost_count(void);
/* ---- Test build only: the machine's share of a round (queue_machine.c) ---- */
/* N. From the processing thread as round seq (> 0) for the owner with kernel id owner_tid
 * begins, and as it ends. */
void asgst__hs_round_machine_start(uint64_t seq, pid_t owner_tid);
void asgst__hs_round_machine_end(uint64_t seq, pid_t owner_tid);

#endif
