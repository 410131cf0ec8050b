/*
 * queue_boost.c - a queue owner's real-time priority from its wait to its suspension, on
 * the opt-in ASGST_INIT_REALTIME_QUEUES only (by default no thread's scheduling changes).
 *
 * An owner that waits in its signal handler for its poll to be armed (queue_thread.c) must
 * then reach that poll at once: its sampled frame is only certain to be on the stack until
 * its next poll. On a machine with more busy threads than CPUs the kernel may take the CPU
 * away from it in between, for a whole time slice (milliseconds), and its frame is gone by
 * the time it stops. With the opt-in the owner raises itself to the lowest real-time
 * priority (SCHED_FIFO 1) when it starts to wait, so no normal thread preempts it then.
 *
 * What bounds it, in order: the processing thread puts the owner back to its own policy
 * once SuspendThread has stopped it; an owner that gives up its wait puts itself back; and
 * a timer thread of ours ("asgst-rt-timer", SCHED_FIFO 3: above every owner and processing
 * thread, so nothing of ours keeps it off a CPU) puts back any owner still raised 1 ms after
 * it was raised (a counted loop compiled without a poll, sampling stopped, a full queue).
 * The timer thread sleeps in read(2) while no owner is raised and never takes a lock.
 *
 * Only owners under a normal policy (SCHED_OTHER or SCHED_BATCH) are raised; the kernel
 * keeps their nice value across the change, and SCHED_RESET_ON_FORK keeps a child from
 * inheriting the priority. The records of raised owners are a fixed array of slots,
 * claimed and released with atomics, so the signal handler, the processing thread and the
 * timer each undo a raise at most once between them.
 *
 * Where real-time priority is not permitted the feature is off (ASGST_DisabledFeatures);
 * ASGST_QUEUE_BOOST=0 switches it off for measurements.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "queues.h"
#include "../model/vm_model.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* How long an owner may keep its real-time priority (ns), and the timer's tick meanwhile. */
#define BOOST_MAX_NS (1000 * 1000)
#define TICK_NS (250 * 1000)
#define SLOTS 256

typedef struct {
  atomic_int tid;              /* the raised thread, 0: free */
  atomic_int saved;            /* its policy + 1 while raised, 0 once put back */
  _Atomic uint64_t since;      /* when it was raised (ns) */
} slot;

static slot slots[SLOTS];
static atomic_int usable;
static atomic_int raised_now;  /* slots holding a raised thread */
static int timer_fd = -1;

/* SS. Monotonic nanoseconds (vDSO). */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. sched_setscheduler on thread tid (0: the caller), by system call. */
static int set_policy(pid_t tid, int policy, int prio) {
  struct sched_param sp = {.sched_priority = prio};
  return (int)syscall(SYS_sched_setscheduler, tid, policy, &sp);
}

/* SS. Puts the slot's thread back to its policy unless someone did already. */
static void put_back(slot *s, bool undo) {
  int saved = atomic_exchange(&s->saved, 0);
  if (saved == 0) return;
  if (undo) set_policy(atomic_load(&s->tid), saved - 1, 0);
  atomic_fetch_sub(&raised_now, 1);
}

/* N. The timer thread: puts back every owner raised for longer than BOOST_MAX_NS. */
static void *timer(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "asgst-rt-timer");
  for (;;) {
    uint64_t n;
    if (atomic_load(&raised_now) == 0 && read(timer_fd, &n, sizeof n) < 0) continue;
    struct timespec tick = {0, TICK_NS};
    nanosleep(&tick, NULL);
    uint64_t now = now_ns();
    for (int i = 0; i < SLOTS; i++)
      if (atomic_load(&slots[i].saved) && now - atomic_load(&slots[i].since) > BOOST_MAX_NS)
        put_back(&slots[i], true);
  }
  return NULL;
}

/* N. Starts the timer thread at SCHED_FIFO 3; false if that is not possible. */
static bool start_timer(void) {
  timer_fd = eventfd(0, EFD_CLOEXEC);
  if (timer_fd < 0) return false;
  pthread_attr_t attr;
  struct sched_param sp = {.sched_priority = 3};
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
  pthread_attr_setschedparam(&attr, &sp);
  pthread_t t;
  bool ok = pthread_create(&t, &attr, timer, NULL) == 0;
  pthread_attr_destroy(&attr);
  if (!ok) close(timer_fd), timer_fd = -1;
  return ok;
}

/* N. Whether the calling thread may raise itself (tried once, and undone), then the timer
 * thread; the raise is usable only when both are. Called by a processing thread once it
 * runs at its own real-time priority. */
void asgst__hs_boost_setup(void) {
  const char *b = getenv("ASGST_QUEUE_BOOST");
  if (b && strcmp(b, "0") == 0) return;
  int policy = (int)syscall(SYS_sched_getscheduler, 0);
  if (policy != SCHED_FIFO) return; /* the caller is not at its real-time priority */
  struct sched_param mine;
  sched_getparam(0, &mine);
  if (set_policy(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 1) != 0 || !start_timer()) {
    set_policy(0, SCHED_FIFO, mine.sched_priority);
    asgst__vm_feature_off("queue owners at real-time priority until their suspension "
                          "(SCHED_FIFO not permitted)");
    return;
  }
  set_policy(0, SCHED_FIFO, mine.sched_priority);
  atomic_store(&usable, 1);
}

/* SS. Raises the calling thread (kernel id tid); returns what asgst__hs_boost_end needs to
 * undo it (its slot + 1), or 0 if it was not raised. */
int asgst__hs_boost_self(pid_t tid) {
  if (!atomic_load_explicit(&usable, memory_order_relaxed)) return 0;
  int policy = (int)syscall(SYS_sched_getscheduler, 0);
  if (policy != SCHED_OTHER && policy != SCHED_BATCH) return 0;
  for (int i = 0; i < SLOTS; i++) {
    int free_ = 0;
    if (!atomic_compare_exchange_strong(&slots[i].tid, &free_, (int)tid)) continue;
    atomic_store(&slots[i].since, now_ns());
    atomic_fetch_add(&raised_now, 1);
    atomic_store(&slots[i].saved, policy + 1);
    if (set_policy(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 1) != 0) {
      put_back(&slots[i], false);
      atomic_store(&slots[i].tid, 0);
      return 0;
    }
    uint64_t one = 1;
    if (write(timer_fd, &one, sizeof one) < 0) {
      /* saturated: the timer is awake anyway */
    }
    return i + 1;
  }
  return 0;
}

/* SS. Releases a raise returned by asgst__hs_boost_self: puts the thread back to its
 * policy unless the timer did already (undo false: only forgets it; the thread has ended,
 * its id may be another's). Called once per raise (the caller exchanges its copy away). */
void asgst__hs_boost_end(int raise, bool undo) {
  if (raise <= 0 || raise > SLOTS) return;
  slot *s = &slots[raise - 1];
  put_back(s, undo);
  atomic_store(&s->tid, 0);
}

/* SS. Owners raised right now (for tests and the summary). */
int asgst__hs_boost_count(void) {
  return atomic_load_explicit(&raised_now, memory_order_relaxed);
}
