/*
 * queue_thread.c - safepoint queues on a live HotSpot: the library's processing threads.
 *
 * A queue registered by a Java thread is bound to it (queue_bind: a global reference to its
 * java.lang.Thread and the walker's view of it). ASGST_Enqueue, in the owner's signal
 * handler, records the top Java frame and wakes a processing thread through an eventfd
 * (one write(2): async-signal-safe), then keeps the owner in its handler, bounded, until
 * that thread's suspend request has armed the owner's safepoint poll (wait_until_armed,
 * poll_arm.c; without the opt-in ASGST_INIT_REALTIME_QUEUES the owner blocks meanwhile
 * rather than spin, leaving its CPU to the processing thread): the owner then stops at its very next poll, with the sampled frame still on
 * its stack or being returned from. The threads, "asgst-queues", daemons attached to the
 * VM (four; one on 21+), bring each owner with waiting elements to a safe point with JVMTI
 * SuspendThread (a handshake on JDK 17+, a safepoint of the whole VM on 8 and 11), have
 * the API process the owner's queues there (api/queue_process.c: stale checks against the
 * stopped stack, hooks, handlers, removal) and resume it. Handlers therefore run on these
 * threads while the owner is stopped; they must not wait for anything the owner holds.
 *
 * An owner that has ended cannot be suspended: its remaining elements are handled as
 * stale (ASGST_THREAD_EXIT in their iterators). The library's ThreadEnd callback processes
 * a thread's queues on the thread itself before it ends, so that case is rare. An owner
 * suspended with no Java frame left (ending, inside another agent's ThreadEnd callback)
 * has its elements reported as ASGST_STALE_FRAME: their frames have returned.
 *
 * Owner handles are freed only by the first processing thread, with the handles lock
 * taken for writing (processing threads hold it for reading), so a handle in use never
 * goes away; an owner is processed by one thread at a time (claimed).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "queues.h"
#include "../threads/threads.h"
#include "../model/bound_vm.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"
#include "../walking/walker.h"

#include "../../arch/arch.h"
#include "../../guard.h"
#include "../../services.h"
#include "../../test_build.h"

#define MAX_OWNERS 256
#define MAX_WORKERS 16

typedef struct owner {
  jthread thread;       /* global reference to the owner's java.lang.Thread */
  pid_t tid;            /* its kernel thread id */
  asgst__thread t;      /* the owner as the walker sees it */
  int kind;             /* current_thread()'s answer on the owner */
  atomic_int unbound;   /* its queue was deregistered: free it */
  atomic_int claimed;   /* a processing thread is suspending/processing it */
  atomic_int urgent;    /* it waits in its handler for its suspension (see wait_until_armed) */
  atomic_int boost;     /* its raise to real-time priority while it waits, 0: none (opt-in) */
  atomic_int suspending; /* a processing thread is in SuspendThread for it */
  int nap_fd;           /* eventfd: the processing thread wakes the napping owner (-1: none) */
  struct owner *next;   /* every handle, for the sweep */
} owner;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* handles list, thread start */
/* Processing threads hold it for reading while they use handles; the sweep that frees
 * handles takes it for writing (and only tries: it is never in a hurry). */
static pthread_rwlock_t using_handles = PTHREAD_RWLOCK_INITIALIZER;
static owner *owners;
static int wake_fd = -1;
static bool started;
/* Processing threads: several, so that an owner slow to reach its poll (descheduled on a
 * busy machine: milliseconds) delays no other owner's suspension. */
static int nworkers = 4;
/* How long an owner's handler waits for its poll to be armed (ns; 0: it does not wait),
 * whether it yields meanwhile, whether the processing threads wait for owners at real-time
 * priority (the opt-in ASGST_INIT_REALTIME_QUEUES, off by default), and how many of them
 * reached it (owners are raised only when all did). */
static uint64_t wait_bound_ns = 500 * 1000;
static atomic_int realtime;
static atomic_int realtime_workers;
static bool yield_in_wait;
/* Whether a waiting owner naps (blocks in ppoll on its nap_fd) until its processing thread
 * is about to suspend it, instead of spinning: it then leaves its CPU to the processing
 * thread, which at normal priority otherwise competes with it for one. The default without
 * the opt-in (read_settings). */
static bool nap_in_wait;
/* After its nap, how long an owner sleeps between two looks at its poll (ns; 0: it spins):
 * the processing thread needs a CPU to arm the poll, and an owner spinning out its bound
 * takes that CPU from it. The kernel's timer slack rounds any short sleep up to the same
 * length, so the value matters little as long as it is short (docs/queues.md, "Why the
 * defaults", has the figures). */
static uint64_t snooze_ns;
/* The calling thread's kernel id once it has bound a queue, else 0. */
static __thread pid_t my_tid __attribute__((tls_model("initial-exec")));

/* SS. Monotonic nanoseconds (vDSO). */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void note_wait(const owner *o, int armed, uint64_t ns);
static void note_wake(void);

/* With one processing thread (21+), the owner it is suspending and since when (ns, 0: none).
 * An owner whose poll is not armed yet waits behind that round: its suspension cannot
 * start before the round ends. */
static const owner *_Atomic round_for;
static _Atomic uint64_t round_began;
/* How long such a round may have lasted before a waiting owner gives up at once (ns). */
static uint64_t hopeless_ns = 150 * 1000;
/* The processing threads' kernel ids, whether owners keep them off their CPU
 * (away_from_me), and the CPUs they may use. */
static _Atomic pid_t worker_tids[MAX_WORKERS];
static atomic_int nstarted;
static bool away = true;
static cpu_set_t online;

/* SS. How long the processing thread has been in another owner's round at time now (ns),
 * 0 if it is not (or there are several processing threads). */
static uint64_t behind_another(const owner *o, uint64_t now) {
  if (nworkers != 1) return 0;
  uint64_t b = atomic_load_explicit(&round_began, memory_order_relaxed);
  if (b == 0 || atomic_load_explicit(&round_for, memory_order_relaxed) == o || now < b) return 0;
  return now - b;
}

/* SS. Whether the owner's poll is armed for its suspension: armed by another handshake or
 * a safepoint, it would stop at its poll and run on before its suspension comes. */
static int ours(owner *o) {
  int armed = asgst__hs_poll_armed(&o->t);
  return armed > 0 && !atomic_load_explicit(&o->suspending, memory_order_acquire) ? 0 : armed;
}

/* SS. Keeps the owner in its handler until its next safepoint poll will stop it (the
 * processing thread's SuspendThread has armed it), at most wait_bound_ns: it then stops
 * while the sampled frame is still on its stack, or while it returns from it. Yields each
 * turn so that a processing thread queued on this CPU runs. Bounded, so neither a busy
 * processing thread nor one that never comes holds the owner (or a safepoint) for long. */
static void nap(owner *o, uint64_t until);
static void wait_until_armed(owner *o) {
  uint64_t t0 = now_ns(), t = t0;
  int armed;
  if (nap_in_wait && o->nap_fd >= 0) nap(o, t0 + wait_bound_ns);
  while ((armed = ours(o)) == 0 && (t = now_ns()) - t0 < wait_bound_ns) {
    /* The processing thread has been stuck suspending another owner for long: that owner
     * was descheduled before its poll, and on a busy machine such a round lasts far
     * longer than a usual one; waiting on would only burn this owner's time. */
    if (hopeless_ns && behind_another(o, t) > hopeless_ns) break;
    if (yield_in_wait) syscall(SYS_sched_yield);
    else if (snooze_ns) {
      struct timespec ts = {0, (long)snooze_ns};
      nanosleep(&ts, NULL);
    } else asgst__cpu_relax();
  }
  /* Given up: withdraw the request. Suspending the owner later, wherever it is then
   * (often descheduled: milliseconds), would only find the frame gone and keep a
   * processing thread from owners that do wait; its elements go with its next sample's,
   * or when no owner waits (process_waiting).
   * Armed, it keeps its priority until it is stopped (the processing thread lowers it). */
  if (armed >= 0) note_wait(o, armed, now_ns() - t0);
  if (armed == 0) {
    atomic_store(&o->urgent, 0);
    asgst__hs_boost_end(atomic_exchange(&o->boost, 0), true);
  }
}

/* SS. Blocks the waiting owner until its processing thread is about to suspend it (a write
 * to nap_fd right before SuspendThread) or until `until` (ns): its CPU goes to the
 * processing thread meanwhile. A wakeup left from an earlier round is drained first. */
static void nap(owner *o, uint64_t until) {
  uint64_t n;
  if (read(o->nap_fd, &n, sizeof n) == sizeof n) {
    /* drained */
  }
  struct pollfd p = {.fd = o->nap_fd, .events = POLLIN};
  uint64_t now = now_ns();
  while (now < until && ours(o) == 0) {
    uint64_t left = until - now;
    struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
    long r = syscall(SYS_ppoll, &p, 1, &ts, NULL, (size_t)8);
    if (r > 0) {
      if (read(o->nap_fd, &n, sizeof n) == sizeof n) {
        /* the processing thread's word: it suspends us now */
      }
      return;
    }
    if (r == 0) return; /* the bound */
    now = now_ns();     /* EINTR: another signal */
  }
}

/* SS. With the opt-in only: keeps the processing threads off the waiting owner's CPU: woken there (the kernel
 * places a real-time thread on the waker's CPU when that runs only normal threads), one
 * preempts the owner, and when it then sleeps in SuspendThread until the owner reaches its
 * poll, the kernel may give the CPU to another busy thread for a whole time slice: the
 * owner reaches its poll milliseconds later, and on 21+ every other owner waits behind that
 * round. One sched_setaffinity per processing thread when the owner's CPU differs from the
 * last one's. */
static void away_from_me(void) {
  static atomic_int last_cpu = -1;
  unsigned cpu = 0;
  if (!away || !atomic_load_explicit(&realtime, memory_order_relaxed) ||
      syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
    return;
  if (atomic_exchange(&last_cpu, (int)cpu) == (int)cpu) return;
  cpu_set_t set = online;
  CPU_CLR(cpu, &set);
  if (CPU_COUNT(&set) == 0) return;
  for (int i = 0; i < nworkers; i++) {
    pid_t w = atomic_load_explicit(&worker_tids[i], memory_order_relaxed);
    if (w > 0) syscall(SYS_sched_setaffinity, w, sizeof set, &set);
  }
}

/* SS. With the opt-in, once every processing thread runs at its real-time priority:
 * raises the waiting owner (queue_boost.c) when it runs Java code, which reaches a poll
 * within microseconds once armed; in native code or the VM it might run on for long, and
 * it stops without a poll there anyway. Not when its poll is armed for it already: it stops
 * without waiting then. An owner still holding a raise from an earlier sample has not
 * reached a poll since (a counted loop compiled without one): that raise is undone now (if
 * the timer has not yet) and none is taken this time. */
static void boost(owner *o) {
  int r = atomic_exchange(&o->boost, 0);
  if (r != 0) {
    asgst__hs_boost_end(r, true);
    return;
  }
  if (atomic_load_explicit(&realtime_workers, memory_order_relaxed) < nworkers) return;
  if ((int32_t)asgst__hs_field((uintptr_t)o->t.vm_thread, asgst__vm.jt_state, 4) != asgst__vm.st_in_java ||
      ours(o) != 0)
    return;
  atomic_store(&o->boost, asgst__hs_boost_self(o->tid));
}

static void raise_workers(void);

/* SS. asgst__queue_waker: one write to the eventfd, then (on the owner) the wait above. */
static void wake(void *handle) {
  owner *o = handle;
  note_wake();
  bool waits = o && o->tid == my_tid && wait_bound_ns != 0 && asgst__hs_poll_armed(&o->t) >= 0;
  if (o) atomic_store(&o->urgent, 1);
  if (waits) away_from_me(), boost(o);
  if (waits && atomic_load_explicit(&realtime_workers, memory_order_relaxed) >= nworkers) raise_workers();
  uint64_t one = 1;
  if (wake_fd >= 0 && write(wake_fd, &one, sizeof one) < 0) {
    /* The counter is saturated: the thread is awake anyway. */
  }
  if (waits) wait_until_armed(o);
}

/* N. The stopped owner's last Java frame, under the guard. */
static bool last_java_frame(const owner *o, asgst__regs *here) {
  volatile bool ok = false;
  ASGST__GUARDED(ok = asgst__hs_last_java_frame(&o->t, here), ok = false);
  return ok;
}

#if ASGST__TEST_BUILD
/* What asgst__hs_queue_stats_get and asgst__hs_queue_median_ns report (impl/test_build.h). */
static asgst__hs_queue_stats stats;
#define TIMES 4096
static uint64_t times[TIMES]; /* the last suspend-to-resume times */
static atomic_uint ntimes;
/* The rounds' numbers (with one processing thread: the current one), and the round the
 * calling owner's last wait gave up behind (asgst__hs_queue_last_behind). */
static _Atomic uint64_t round_seq;
static __thread uint64_t last_behind __attribute__((tls_model("initial-exec")));

/* SS. An owner's sample starts: no give-up yet. */
static void note_wake(void) { last_behind = 0; }

/* SS. */
uint64_t asgst__hs_queue_last_behind(void) { return last_behind; }

/* N. */
uint64_t asgst__hs_queue_give_up_ns(void) { return hopeless_ns ? hopeless_ns : wait_bound_ns; }

/* SS. Counts an owner's wait for its poll: armed (1) or gave up (0) after ns. */
static void note_wait(const owner *o, int armed, uint64_t ns) {
  atomic_fetch_add(&stats.waits, 1);
  atomic_fetch_add(armed ? &stats.armed : &stats.gave_up, 1);
  if (!armed && behind_another(o, now_ns()) != 0) {
    atomic_fetch_add(&stats.gave_up_behind, 1);
    last_behind = atomic_load(&round_seq);
  }
  if (atomic_load(&o->boost)) atomic_fetch_add(armed ? &stats.raised : &stats.raised_gave_up, 1);
  atomic_fetch_add(&stats.wait_ns, ns);
}

/* N. Counts a round whose owner was stopped with no Java frame. */
static void note_no_java(void) { atomic_fetch_add(&stats.no_java, 1); }

/* N. The start of a round for owner o: with one processing thread, its number and its
 * threads' run-queue time so far (queue_machine.c). */
static uint64_t round_start(const owner *o) {
  if (nworkers == 1) asgst__hs_round_machine_start(atomic_fetch_add(&round_seq, 1) + 1, o->tid);
  return now_ns();
}

/* N. Counts a round for o that began at t0 and handled n elements. */
static void round_end(const owner *o, uint64_t t0, int n, bool suspended) {
  uint64_t dt = now_ns() - t0;
  if (nworkers == 1) asgst__hs_round_machine_end(atomic_load(&round_seq), o->tid);
  atomic_fetch_add(&stats.rounds, 1);
  atomic_fetch_add(&stats.elements, (uint64_t)n);
  atomic_fetch_add(&stats.stopped_ns, dt);
  if (!suspended) atomic_fetch_add(&stats.not_suspended, 1);
  times[atomic_fetch_add(&ntimes, 1) % TIMES] = dt;
}

/* N. */
asgst__hs_queue_stats asgst__hs_queue_stats_get(void) {
  asgst__hs_queue_stats s;
  s.rounds = atomic_load(&stats.rounds);
  s.elements = atomic_load(&stats.elements);
  s.not_suspended = atomic_load(&stats.not_suspended);
  s.no_java = atomic_load(&stats.no_java);
  s.stopped_ns = atomic_load(&stats.stopped_ns);
  s.waits = atomic_load(&stats.waits);
  s.armed = atomic_load(&stats.armed);
  s.gave_up = atomic_load(&stats.gave_up);
  s.gave_up_behind = atomic_load(&stats.gave_up_behind);
  s.wait_ns = atomic_load(&stats.wait_ns);
  s.raised = atomic_load(&stats.raised);
  s.raised_gave_up = atomic_load(&stats.raised_gave_up);
  return s;
}

/* N. qsort order. */
static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* N. */
uint64_t asgst__hs_queue_median_ns(void) { return asgst__hs_queue_quantile_ns(0.5); }

/* N. */
uint64_t asgst__hs_queue_quantile_ns(double q) {
  unsigned n = atomic_load(&ntimes);
  if (n > TIMES) n = TIMES;
  if (n == 0) return 0;
  uint64_t *copy = malloc(n * sizeof *copy);
  if (copy == NULL) return 0;
  memcpy(copy, times, n * sizeof *copy);
  qsort(copy, n, sizeof *copy, by_value);
  uint64_t m = copy[(unsigned)(q * (n - 1))];
  free(copy);
  return m;
}
#else
/* The product measures no round and no wait. */
static void note_wait(const owner *o, int armed, uint64_t ns) { (void)o, (void)armed, (void)ns; }
static inline void note_no_java(void) {}
static inline void note_wake(void) {}
static inline uint64_t round_start(const owner *o) { return (void)o, 0; }
static inline void round_end(const owner *o, uint64_t t0, int n, bool suspended) {
  (void)o, (void)t0, (void)n, (void)suspended;
}
#endif

static bool go_realtime(void);
static void leave_realtime(void);

/* N. Processes one owner's queues while it is suspended. */
static void process_owner(jvmtiEnv *jvmti, owner *o) {
  uint64_t t0 = round_start(o);
  atomic_store(&round_for, o);
  atomic_store(&round_began, now_ns());
  atomic_store(&o->suspending, 1);
  go_realtime(); /* for a second owner of the same wakeup */
  if (o->nap_fd >= 0) {
    uint64_t one = 1;
    if (write(o->nap_fd, &one, sizeof one) < 0) {
      /* saturated: the owner is awake anyway */
    }
  }
  jvmtiError err = (*jvmti)->SuspendThread(jvmti, o->thread);
  atomic_store(&o->suspending, 0);
  /* Stopped: its real-time priority has done its work. An ended thread's id may be
   * another thread's already. */
  asgst__hs_boost_end(atomic_exchange(&o->boost, 0), err != JVMTI_ERROR_THREAD_NOT_ALIVE);
  asgst__regs here = {0, 0, 0, 0};
  int kind = o->kind;
  if (err != JVMTI_ERROR_NONE) kind = ASGST_THREAD_EXIT; /* ended, or not suspendable */
  else if (!last_java_frame(o, &here)) {
    kind = ASGST_NO_TOP_JAVA_FRAME;
    note_no_java();
  }
  int n = asgst__queues_process_stopped(o, &o->t, kind, &here);
  if (err == JVMTI_ERROR_NONE) (*jvmti)->ResumeThread(jvmti, o->thread);
  atomic_store(&round_began, 0);
  round_end(o, t0, n, err == JVMTI_ERROR_NONE);
}

/* N. Frees the handles whose queues are all deregistered, unless a processing thread is
 * using handles (then a later round does it). */
static void sweep(JNIEnv *env) {
  if (pthread_rwlock_trywrlock(&using_handles) != 0) return;
  pthread_mutex_lock(&lock);
  for (owner **p = &owners; *p;) {
    owner *o = *p;
    if (!atomic_load(&o->unbound)) {
      p = &o->next;
      continue;
    }
    *p = o->next;
    (*env)->DeleteGlobalRef(env, o->thread);
    if (o->nap_fd >= 0) close(o->nap_fd);
    free(o);
  }
  pthread_mutex_unlock(&lock);
  pthread_rwlock_unlock(&using_handles);
}

/* N. Suspends and processes owner o unless another processing thread has it; 1 if it did.
 * One suspension per owner at a time: a second SuspendThread would fail (already
 * suspended) and its elements would wrongly end as THREAD_EXIT. */
static int take_and_process(jvmtiEnv *jvmti, owner *o) {
  int free_ = 0;
  if (!atomic_compare_exchange_strong(&o->claimed, &free_, 1)) return 0;
  atomic_store(&o->urgent, 0);
  process_owner(jvmti, o);
  atomic_store(&o->claimed, 0);
  return 1;
}

/* N. Processes the waiting owners that asked for it (urgent) and no other processing
 * thread has taken; when there is none, the others with elements. */
static void process_waiting(jvmtiEnv *jvmti) {
  void *waiting[MAX_OWNERS];
  pthread_rwlock_rdlock(&using_handles);
  int n = asgst__queues_waiting(waiting, MAX_OWNERS), done = 0;
  for (int i = 0; i < n; i++)
    if (atomic_load(&((owner *)waiting[i])->urgent)) done += take_and_process(jvmti, waiting[i]);
  /* Owners that gave up waiting withdrew their request (wait_until_armed): left alone,
   * their elements would wait for the owner's next sample, which may never come (a
   * processing thread still attaching to the VM when the only samples came). They are
   * processed when no owner waits: late, so mostly stale, but never left behind. */
  if (done == 0)
    for (int i = 0; i < n; i++) take_and_process(jvmti, waiting[i]);
  pthread_rwlock_unlock(&using_handles);
}

/* N. The defaults per JDK, then settings from the environment, for measurements:
 * ASGST_QUEUE_WAIT_US (the owner's wait bound, 0: no wait), ASGST_QUEUE_YIELD=0|1,
 * ASGST_QUEUE_REALTIME=0|1 (overrides the opt-in ASGST_INIT_REALTIME_QUEUES either way),
 * ASGST_QUEUE_THREADS (processing threads), ASGST_QUEUE_HOPELESS_US (an owner stops waiting
 * behind a round older than this, 0: never), ASGST_QUEUE_AWAY=0 (with the opt-in, owners do
 * not move the processing thread off their CPU), ASGST_QUEUE_NAP=0|1 (owners nap until
 * their processing thread comes), ASGST_QUEUE_SNOOZE_NS (then sleep between looks at the
 * poll; 0: spin).
 * On 17+ SuspendThread is a handshake: the processing thread arms the owner's poll itself
 * within microseconds once it runs (at once at real-time priority), and a yield would only hand the owner's CPU to
 * another busy thread for a whole time slice. On 8 and 11 it is a safepoint of the whole
 * VM: the VM thread, at normal priority, has to run first (often on the owner's CPU), so
 * the owner would have to yield and wait about a millisecond a sample for a small gain in
 * fresh elements: by default owners do not wait there. On 21 and later, with the opt-in,
 * one processing thread: JVMTI serializes suspensions and resumptions there (for virtual
 * threads), and several real-time threads only queue behind each other on that lock.
 * Without the opt-in the processing threads run at normal priority and get about their
 * fair share of the CPUs beside busy owners: there four threads, and owners that nap
 * instead of spinning while they wait, do better than one. The figures behind each of
 * these choices: docs/queues.md, "Why the defaults". */
static void read_settings(void) {
  if (asgst__vm.jdk <= 11) {
    wait_bound_ns = 0; /* ASGST_QUEUE_WAIT_US=1000 for the wait: see below */
    yield_in_wait = true;
  }
  const char *w = getenv("ASGST_QUEUE_WAIT_US");
  if (w && *w) wait_bound_ns = strtoull(w, NULL, 10) * 1000u;
  const char *rt = getenv("ASGST_QUEUE_REALTIME");
  bool rt_on = asgst__hs_realtime_queues;
  if (rt && *rt) rt_on = strcmp(rt, "0") != 0;
  atomic_store(&realtime, rt_on);
  if (asgst__vm.jdk >= 21 && rt_on) nworkers = 1;
  nap_in_wait = !rt_on;
  snooze_ns = nap_in_wait ? 20 * 1000 : 0;
  const char *a = getenv("ASGST_QUEUE_AWAY");
  away = !(a && strcmp(a, "0") == 0);
  if (sched_getaffinity(0, sizeof online, &online) != 0 || CPU_COUNT(&online) < 2) away = false;
  const char *h = getenv("ASGST_QUEUE_HOPELESS_US");
  if (h && *h) hopeless_ns = strtoull(h, NULL, 10) * 1000u;
  const char *y = getenv("ASGST_QUEUE_YIELD");
  if (y && *y) yield_in_wait = strcmp(y, "1") == 0;
  const char *sn = getenv("ASGST_QUEUE_SNOOZE_NS");
  if (sn && *sn) snooze_ns = strtoull(sn, NULL, 10);
  const char *nap_env = getenv("ASGST_QUEUE_NAP");
  if (nap_env && *nap_env) nap_in_wait = strcmp(nap_env, "0") != 0;
  const char *n = getenv("ASGST_QUEUE_THREADS");
  if (n && *n) nworkers = atoi(n);
  if (nworkers < 1) nworkers = 1;
  if (nworkers > MAX_WORKERS) nworkers = MAX_WORKERS;
}

/* With the opt-in, the processing threads run at real-time priority, just above the
 * lowest, from an owner's wakeup to the end of that owner's suspension (ResumeThread): the
 * wakeup then preempts a CPU-bound owner at once instead of waiting for the owner's time
 * slice. Above the waiting owners (1, queue_boost.c), which must never keep it off a CPU. The waking owner raises them (a
 * thread at normal priority would first have to get a CPU to raise itself); each lowers
 * itself when the suspension is done. worker_rt[i]: whether thread i is raised. Where
 * real-time priority is not permitted the opt-in is off, reported among the features off. */
static atomic_int worker_rt[MAX_WORKERS];
static __thread int my_worker __attribute__((tls_model("initial-exec")));

/* SS. Sets thread tid's policy: SCHED_FIFO 2 (up) or SCHED_OTHER. */
static int set_worker_policy(pid_t tid, bool up) {
  struct sched_param sp = {.sched_priority = up ? 2 : 0};
  return (int)syscall(SYS_sched_setscheduler, tid, up ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* SS. From the waking owner: raises every processing thread not raised yet. */
static void raise_workers(void) {
  for (int i = 0; i < nworkers; i++) {
    pid_t w = atomic_load_explicit(&worker_tids[i], memory_order_relaxed);
    if (w > 0 && atomic_exchange(&worker_rt[i], 1) == 0) set_worker_policy(w, true);
  }
}

/* N. Raises the calling processing thread (once the opt-in is set); true if it runs at
 * real-time priority. */
static bool go_realtime(void) {
  if (!atomic_load(&realtime)) return false;
  if (atomic_exchange(&worker_rt[my_worker], 1) == 1) return true;
  if (set_worker_policy(0, true) != 0) {
    atomic_store(&worker_rt[my_worker], 0);
    atomic_store(&realtime, 0);
    asgst__vm_feature_off("queue processing at real-time priority (SCHED_FIFO not permitted)");
    return false;
  }
  return true;
}

/* N. Back to the normal policy the thread started with; raised again at once if an owner
 * raised it in between (its wakeup must not be lost). */
static void leave_realtime(void) {
  if (atomic_exchange(&worker_rt[my_worker], 0) == 0) return;
  set_worker_policy(0, false);
  if (atomic_load(&worker_rt[my_worker])) set_worker_policy(0, true);
}

/* N. A processing thread; the first one (arg non-NULL) also frees handles. */
static void *work(void *arg) {
  JNIEnv *env = NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "asgst-queues", NULL};
  /* The same name for the kernel (top, perf, /proc), so profilers can tell it ours. */
  pthread_setname_np(pthread_self(), "asgst-queues");
  if ((*asgst__hs_vm)->AttachCurrentThreadAsDaemon(asgst__hs_vm, (void **)&env, &args) != JNI_OK)
    return NULL;
  if (arg) asgst__hs_poll_confirm();
  int me = atomic_fetch_add(&nstarted, 1);
  my_worker = me < MAX_WORKERS ? me : MAX_WORKERS - 1;
  if (me < MAX_WORKERS) atomic_store(&worker_tids[me], (pid_t)syscall(SYS_gettid));
  /* Owners are raised only once this thread has run at its real-time priority (the raise
   * is set up from it), and only when every processing thread has (boost()). Not on 8
   * and 11: there the VM thread, at normal priority, must run to arm the poll. */
  if (go_realtime()) {
    if (arg && wait_bound_ns != 0 && asgst__vm.jdk > 11) asgst__hs_boost_setup();
    atomic_fetch_add(&realtime_workers, 1);
    leave_realtime(); /* it waits for owners at normal priority; they raise it */
  }
  for (;;) {
    uint64_t count;
    if (read(wake_fd, &count, sizeof count) < 0) continue;
    jvmtiEnv *jvmti = asgst__hs_jvmti;
    if (jvmti == NULL) continue;
    process_waiting(jvmti);
    /* The suspensions of this wakeup are done (a drop between two of them would leave the
     * thread waiting for a CPU at normal priority): the sweep and the wait for the next
     * wakeup at the thread's normal priority. */
    leave_realtime();
    if (arg) sweep(env);
  }
  return NULL;
}

/* N. Starts the processing thread once (with the lock held). */
static int start_locked(void) {
  if (started) return 0;
  read_settings();
  wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0) return ASGST_UNSUPPORTED;
  int made = 0;
  for (int i = 0; i < nworkers; i++) {
    pthread_t w;
    /* The first one frees handles and confirms the poll word: its arg is non-NULL. */
    if (pthread_create(&w, NULL, work, made == 0 ? (void *)&nworkers : NULL) != 0) continue;
    pthread_detach(w);
    made++;
  }
  if (made == 0) {
    close(wake_fd);
    wake_fd = -1;
    return ASGST_UNSUPPORTED;
  }
  asgst__queues_set_waker(wake);
  started = true;
  return 0;
}

/* N. backend.h queue_bind(). */
int asgst__hs_queue_bind(JNIEnv *env, void **out) {
  JNIEnv *mine = NULL;
  jvmtiEnv *jvmti = asgst__hs_jvmti;
  if (!asgst__hs_can_suspend) return ASGST_UNSUPPORTED;
  if (jvmti == NULL || (*asgst__hs_vm)->GetEnv(asgst__hs_vm, (void **)&mine, JNI_VERSION_1_6) != JNI_OK)
    return ASGST_NO_THREAD;
  if (env != NULL && env != mine) return ASGST_INVALID_ARGUMENT; /* another thread's env */
  jthread self = NULL;
  owner *o = calloc(1, sizeof *o);
  if (o == NULL || (*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || self == NULL) {
    free(o);
    return ASGST_NO_THREAD;
  }
  o->thread = (*mine)->NewGlobalRef(mine, self);
  o->tid = my_tid = (pid_t)syscall(SYS_gettid);
  o->nap_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  (*mine)->DeleteLocalRef(mine, self);
  o->kind = asgst__hs_current_thread(&o->t);
  pthread_mutex_lock(&lock);
  int rc = o->thread ? start_locked() : ASGST_NO_THREAD;
  if (rc == 0) {
    o->next = owners;
    owners = o;
  }
  pthread_mutex_unlock(&lock);
  if (rc != 0) {
    if (o->thread) (*mine)->DeleteGlobalRef(mine, o->thread);
    if (o->nap_fd >= 0) close(o->nap_fd);
    free(o);
    return rc;
  }
  *out = o;
  return 0;
}

/* N. backend.h queue_unbind(): the processing thread frees it at its next round. */
void asgst__hs_queue_unbind(void *handle) {
  owner *o = handle;
  asgst__hs_boost_end(atomic_exchange(&o->boost, 0), true);
  atomic_store(&o->unbound, 1);
  wake(NULL);
}
