/*
 * thread_scan.c - every thread's CPU. JVMTI announces Java threads only; the JIT
 * compilers, the GC, the VM's own threads and threads that native code starts are seen
 * in /proc/self/task alone. With cputhreads=all (the default) a thread of ours, asgst-threads,
 * looks there every SCAN_MS: a thread not seen before is registered as an "other" thread
 * (threads.c: a per-thread cpu event, sampled with its C frames), and an other thread that
 * is gone is unregistered (its events closed, counted).
 *
 * Why a scan and per-thread events, not one perf event per process with inherit: an
 * inherited event's overflow is signalled through the parent event's fd, to the thread
 * that owns that fd, not to the thread that ran; a sample must interrupt the thread whose
 * stack it walks. A per-thread event on a thread the scan found costs what a Java thread's
 * costs. The price is the CPU a thread spends before the scan finds it (at most SCAN_MS of
 * it; counted, the summary says how much) and threads that live less than SCAN_MS.
 *
 * The same look keeps the CPU time of the profiler's and the library's own threads
 * (asgst-...), never sampled: the summary reports it apart, as the profiler's cost. And the
 * process's CPU time as the kernel counts it (CLOCK_PROCESS_CPUTIME_ID: utime + stime of
 * every thread, ended ones too) over the run, which the cpu samples are held against.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"
#include "core/thread_names.h"
#include "sampling/sampling.h"

/* How often: a thread's first SCAN_MS of CPU at most goes unsampled, and a thread that
 * lives less may be missed; a look costs little against that, and what goes unsampled in
 * practice is tiny (both measured: docs/budgets.md). */
#define SCAN_MS 20
#define MAX_OWN 64

static pthread_t thread;
static _Atomic int on;
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER; /* the scanner's sleep */
static pthread_cond_t wake;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the figures below */
static prof_cpu_figures figures;
static uint64_t process_start_ns;
static bool process_ended;
static struct {
  pid_t tid;
  uint64_t base, last; /* its CPU when first seen in this run (0 if born since), and now */
} own[MAX_OWN];
/* The tids of the last look, sorted: a tid in it was dealt with then. Scanner only. */
static pid_t seen[PROF_MAX_THREADS], now_alive[PROF_MAX_THREADS];
static int nseen;
/* Other threads met lately, whose names are read again. A new thread has its maker's name
 * until it or its maker sets one: pthread_setname_np after pthread_create, or, in HotSpot,
 * the thread itself once it runs (and G1's workers and the compilers' threads start
 * lazily, from threads of other names). The first look can come in between. So each is
 * read again YOUNG_LOOKS 1, 2, 4, ... after it was met: seven reads a thread over about
 * 1.3 s, a cost bounded by what meeting it cost, however many threads the process makes.
 * A later rename is not seen. Scanner (look's lock) only. */
#define YOUNG_MAX 128
#define YOUNG_LOOKS 64
static struct {
  pid_t tid;
  unsigned met; /* the look that met it */
} young[YOUNG_MAX];
static int nyoung;
static unsigned looks;

/* N. The calling thread's CPU time in ns (what a look costs, whatever the machine's load). */
static uint64_t own_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N. The CPU time of thread tid of this process (0 if it is gone), or of the whole process
 * for tid 0. */
static uint64_t cpu_ns(pid_t tid) {
  /* The kernel's encoding of a per-thread CPU clock id: ~tid << 3 | PERTHREAD | SCHED. */
  clockid_t c = tid ? (clockid_t)((~(unsigned)tid << 3) | 6) : CLOCK_PROCESS_CPUTIME_ID;
  struct timespec ts;
  if (clock_gettime(c, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N. Index of tid in own[], -1 if not there. Lock held. */
static int own_index(pid_t tid) {
  for (int i = 0; i < figures.own_threads && i < MAX_OWN; i++)
    if (own[i].tid == tid) return i;
  return -1;
}

/* N. */
static int by_tid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

/* N. Counts tid among our own threads: its CPU from now on is the profiler's, and what it
 * had spent before too unless from_now. */
static void own_add(pid_t tid, bool from_now) {
  pthread_mutex_lock(&lock);
  if (figures.own_threads < MAX_OWN) {
    uint64_t c = cpu_ns(tid);
    int o = figures.own_threads++;
    own[o].tid = tid;
    own[o].base = from_now ? c : 0;
    own[o].last = c;
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
static void young_add(pid_t tid) {
  if (nyoung < YOUNG_MAX) {
    young[nyoung].tid = tid;
    young[nyoung++].met = looks;
  }
}

/* N. Reads the names of the other threads met lately again, at 1, 2, 4, ... looks after:
 * a new name is remembered (the outputs name a thread's samples by its last name); a
 * thread that turns out to be ours (named after it was started) stops being sampled. */
static void look_again(void) {
  int k = 0;
  for (int i = 0; i < nyoung; i++) {
    unsigned age = looks - young[i].met;
    pid_t tid = young[i].tid;
    char comm[64];
    if ((age & (age - 1)) == 0) {
      if (!prof_thread_comm(tid, comm, sizeof comm)) continue; /* gone */
      if (prof_thread_is_own(comm)) {
        prof_threads_drop(tid);
        own_add(tid, true); /* what it spent before was sampled */
        continue;
      }
      prof_thread_name_remember(tid, comm, false); /* a Java name stays */
    }
    if (age < YOUNG_LOOKS) young[k++] = young[i];
  }
  nyoung = k;
}

/* N. A tid first seen now: one of ours (its CPU is the profiler's), or, with
 * cputhreads=all, a thread to sample unless it is a Java thread that JVMTI announced or
 * saw end. first: the look at the start, right after the registry took the threads
 * running then (threads.c, prof_threads_add_existing); one it left out (on attach, the
 * attach listener) stays out. */
static void meet(pid_t tid, bool first) {
  char comm[64];
  if (!prof_thread_comm(tid, comm, sizeof comm)) return;
  if (prof_thread_is_own(comm)) {
    own_add(tid, first);
    return;
  }
  if (first || prof.opts.java_threads_only || prof_threads_known(tid) || prof_thread_ended(tid))
    return;
  prof_threads_add_other(tid, comm);
  young_add(tid);
  uint64_t before = cpu_ns(tid);
  pthread_mutex_lock(&lock);
  figures.found_late++;
  figures.late_ns += before;
  pthread_mutex_unlock(&lock);
}

/* N. One look at /proc/self/task (one at a time: the start's and the scanner's). */
static void look(bool first) {
  static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&one);
  uint64_t t0 = own_cpu_ns();
  DIR *d = opendir("/proc/self/task");
  if (!d) {
    pthread_mutex_unlock(&one);
    return;
  }
  looks++;
  look_again();
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < PROF_MAX_THREADS) {
    pid_t tid = (pid_t)atoi(e->d_name);
    if (tid > 0) now_alive[n++] = tid;
  }
  closedir(d);
  qsort(now_alive, (size_t)n, sizeof now_alive[0], by_tid);
  for (int i = 0; i < n; i++) {
    pid_t tid = now_alive[i];
    pthread_mutex_lock(&lock);
    int o = own_index(tid);
    if (o >= 0) own[o].last = cpu_ns(tid);
    pthread_mutex_unlock(&lock);
    if (o < 0 && (first || !bsearch(&tid, seen, (size_t)nseen, sizeof seen[0], by_tid)))
      meet(tid, first);
  }
  memcpy(seen, now_alive, (size_t)n * sizeof seen[0]);
  nseen = n;
  if (!prof.opts.java_threads_only) prof_threads_prune(now_alive, n);
  pthread_mutex_lock(&lock);
  figures.scans++;
  figures.scan_ns += own_cpu_ns() - t0;
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&one);
}

/* N. The scan thread. */
static void *scanner(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_mutex_lock(&wait_lock);
  while (atomic_load(&on)) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long ns = until.tv_nsec + SCAN_MS * 1000000L;
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    /* Woken early only by the stop. */
    while (atomic_load(&on) && pthread_cond_timedwait(&wake, &wait_lock, &until) != ETIMEDOUT) {
    }
    if (!atomic_load(&on)) break;
    pthread_mutex_unlock(&wait_lock);
    look(false);
    pthread_mutex_lock(&wait_lock);
  }
  pthread_mutex_unlock(&wait_lock);
  return NULL;
}

/* N. */
int prof_scan_start(void) {
  pthread_mutex_lock(&lock);
  memset(&figures, 0, sizeof figures);
  process_start_ns = cpu_ns(0);
  process_ended = false;
  pthread_mutex_unlock(&lock);
  nseen = 0;
  static bool cond_made;
  if (!cond_made) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC); /* a wall-clock step does not matter */
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
    cond_made = true;
  }
  if (atomic_exchange(&on, 1)) return 0;
  if (pthread_create(&thread, NULL, scanner, NULL) != 0) {
    atomic_store(&on, 0);
    return -1;
  }
  pthread_setname_np(thread, "asgst-threads"); /* ours: not profiled (threads.c) */
  /* The threads running now, the scanner among them once named (so it counts as ours). */
  struct timespec ms = {0, 1000000};
  nanosleep(&ms, NULL);
  look(true);
  return 0;
}

/* N. The process's CPU is noted first: sampling stopped just before (prof.running), and
 * what runs after is not sampled. */
void prof_scan_stop(void) {
  pthread_mutex_lock(&lock);
  figures.process_ns = cpu_ns(0) - process_start_ns;
  process_ended = true;
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&wait_lock);
  bool was_on = atomic_exchange(&on, 0);
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&wait_lock);
  if (was_on) pthread_join(thread, NULL);
  look(false);
}

/* N. */
void prof_scan_figures(prof_cpu_figures *f) {
  pthread_mutex_lock(&lock);
  if (!process_ended) figures.process_ns = cpu_ns(0) - process_start_ns;
  figures.own_ns = 0;
  for (int i = 0; i < figures.own_threads && i < MAX_OWN; i++)
    figures.own_ns += own[i].last - own[i].base;
  *f = figures;
  pthread_mutex_unlock(&lock);
}
