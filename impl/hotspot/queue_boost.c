/*
 * queue_boost.c - a queue owner's real-time priority from its wait to its suspension.
 *
 * An owner that waits in its signal handler for its poll to be armed (queue_thread.c) must
 * then reach that poll at once: its sampled frame is only certain to be on the stack until
 * its next poll. On a machine with more busy threads than CPUs the kernel may take the CPU
 * away from it in between, for a whole time slice (milliseconds): its frame is gone by the
 * time it stops, and on 21+, where one processing thread suspends every owner in turn, all
 * other owners wait behind that round and give up. So the owner raises itself to the
 * lowest real-time priority (SCHED_FIFO 1) when it starts to wait: no normal thread
 * preempts it then. The processing thread (FIFO 2, so a waiting owner never keeps it off a
 * CPU) puts the owner back to its own policy once SuspendThread has stopped it; an owner
 * that gives up puts itself back. Only owners under a normal policy (SCHED_OTHER or
 * SCHED_BATCH) are raised; their nice value is kept by the kernel across the change, and
 * SCHED_RESET_ON_FORK keeps a child from inheriting the priority.
 *
 * Where real-time priority is not permitted the feature is off (ASGST_DisabledFeatures);
 * ASGST_QUEUE_BOOST=0 switches it off for measurements.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hotspot.h"
#include "vm_model.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static atomic_int usable;

/* SS. sched_setscheduler on thread tid (0: the caller), by system call. */
static int set_policy(pid_t tid, int policy, int prio) {
  struct sched_param sp = {.sched_priority = prio};
  return (int)syscall(SYS_sched_setscheduler, tid, policy, &sp);
}

/* N. Whether the calling thread may raise itself (tried once, and undone). */
void asgst__hs_boost_setup(void) {
  const char *b = getenv("ASGST_QUEUE_BOOST");
  if (b && strcmp(b, "0") == 0) return;
  int policy = (int)syscall(SYS_sched_getscheduler, 0);
  if (policy != SCHED_OTHER && policy != SCHED_BATCH) return;
  if (set_policy(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 1) != 0) {
    asgst__vm_feature_off("queue owners at real-time priority until their suspension "
                          "(SCHED_FIFO not permitted)");
    return;
  }
  set_policy(0, policy, 0);
  atomic_store(&usable, 1);
}

/* SS. Raises the calling thread; returns what asgst__hs_boost_end needs to undo it (its
 * policy + 1), or 0 if it was not raised. */
int asgst__hs_boost_self(void) {
  if (!atomic_load_explicit(&usable, memory_order_relaxed)) return 0;
  int policy = (int)syscall(SYS_sched_getscheduler, 0);
  if (policy != SCHED_OTHER && policy != SCHED_BATCH) return 0;
  return set_policy(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 1) == 0 ? policy + 1 : 0;
}

/* SS. Puts thread tid (0: the caller) back to the policy saved by asgst__hs_boost_self. */
void asgst__hs_boost_end(pid_t tid, int saved) {
  if (saved > 0) set_policy(tid, saved - 1, 0);
}
