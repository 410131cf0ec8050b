/*
 * perf_events.c - per-thread event sources: perf cpu-clock, perf events by name
 * (perf_names.c), perf tracepoints and the POSIX CPU timer fallback, each delivering its
 * signal to its own thread (a standard signal for cpu and named events, SIGSTKFLT unless
 * taken; the real-time signal for tracepoints; signal_handler.c says why).
 *
 * Re-arming: the kernel here (6.18) never re-arms an event with PERF_EVENT_IOC_REFRESH, so
 * events are opened without an event limit and simply stay enabled: every overflow (every
 * sample_period events) sends one fasync signal. F_SETSIG makes the kernel fill si_fd so
 * the handler knows which event fired.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/say.h"
#include "core/state.h"
#include "sampling/sampling.h"

/* fd -> event index + 1 (0: not ours), with OTHER_BIT for a thread that is not a Java
 * thread (threads.c), read in the signal handler. */
static _Atomic uint8_t fd_event[PROF_MAX_FD];
#define OTHER_BIT 0x80 /* above any event index + 1 (PROF_MAX_EVENTS) */
static _Atomic int timer_fallback_said;

/* SS. */
int prof_event_of_fd(int fd) {
  if (fd < 0 || fd >= PROF_MAX_FD) return -1;
  return (int)(atomic_load_explicit(&fd_event[fd], memory_order_relaxed) & ~OTHER_BIT) - 1;
}

/* SS. */
bool prof_fd_of_other(int fd) {
  if (fd < 0 || fd >= PROF_MAX_FD) return false;
  return atomic_load_explicit(&fd_event[fd], memory_order_relaxed) & OTHER_BIT;
}

/* N. Routes the fd's overflow signals to thread tid as sig. */
static int route_to_thread(int fd, pid_t tid, int sig) {
  struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0) return -1;
  if (fcntl(fd, F_SETSIG, sig) != 0) return -1;
  return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

/* N. */
int prof_perf_open(const prof_event *ev, pid_t tid, uint64_t period) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  if (ev->kind == EV_CPU) {
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
  } else if (ev->kind == EV_PERF) {
    a.type = ev->perf_type;
    a.config = ev->perf_config;
  } else {
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = (uint64_t)ev->tp_id;
  }
  a.sample_period = period;
  a.wakeup_events = 1;
  if (prof.kernel_frames && prof_kchain_wanted(ev)) {
    /* The kernel part of the callchain into the fd's ring (kernel_chain.c); the Java and
     * C frames come from the walk. */
    a.sample_type = PERF_SAMPLE_CALLCHAIN;
    a.exclude_callchain_user = 1;
    a.sample_max_stack = PROF_KERNEL_FRAMES;
  }
  a.disabled = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && errno == EACCES && (ev->kind == EV_CPU || ev->kind == EV_PERF)) {
    /* perf_event_paranoid 2 (the default) lets unprivileged users sample user mode only:
     * CPU time (or events) in the kernel then go unsampled. */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  }
  return fd;
}

/* N. Opens, filters, routes and enables a perf event; -1 on failure. */
static int open_perf_event(int index, const prof_event *ev, pid_t tid, bool other) {
  uint64_t period = ev->kind == EV_CPU && ev->period > ev->interval ? ev->period : ev->interval;
  int fd = prof_perf_open(ev, tid, period);
  if (fd < 0) return -1;
  if (fd >= PROF_MAX_FD || (ev->filter[0] && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter))
      || route_to_thread(fd, tid, ev->kind == EV_TRACEPOINT ? prof.signal : prof.signal_cpu)
             != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  if (ev->kind == EV_CPU) prof_load_open(fd, index, ev->interval, period);
  if (prof.kernel_frames && prof_kchain_wanted(ev) && prof_kchain_attach(fd) != 0)
    atomic_fetch_add(&prof.stats.no_ring, 1); /* locked-memory limit: samples go on without */
  atomic_store(&fd_event[fd], (uint8_t)((index + 1) | (other ? OTHER_BIT : 0)));
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  return fd;
}

/* N. A POSIX timer on tid's CPU clock that signals tid; NULL on failure. */
static void *open_cpu_timer(int index, const prof_event *ev, pid_t tid, bool other) {
  /* The kernel's encoding of a per-thread CPU clock id: ~tid << 3 | PERTHREAD | SCHED. */
  clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 6);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = prof.signal_cpu;
  sev.sigev_value.sival_int = index | (other ? PROF_TIMER_OTHER : 0);
  sev._sigev_un._tid = tid;
  timer_t t;
  if (timer_create(clock, &sev, &t) != 0) return NULL;
  struct itimerspec its;
  its.it_interval.tv_sec = (time_t)(ev->interval / 1000000000);
  its.it_interval.tv_nsec = (long)(ev->interval % 1000000000);
  its.it_value = its.it_interval;
  if (timer_settime(t, 0, &its, NULL) != 0) {
    timer_delete(t);
    return NULL;
  }
  return (void *)t;
}

/* N. */
void prof_events_open_thread(prof_thread *t) {
  for (int i = 0; i < prof.opts.nevents; i++) {
    const prof_event *ev = &prof.opts.events[i];
    t->fds[i] = -1;
    t->timers[i] = NULL;
    /* Other threads run no Java code: only CPU time is sampled on them. */
    if (ev->kind == EV_WALL || (!t->java && (ev->kind == EV_TRACEPOINT || ev->kind == EV_PERF)))
      continue;
    if (ev->kind == EV_CPU || ev->kind == EV_TRACEPOINT || ev->kind == EV_PERF) {
      t->fds[i] = open_perf_event(i, ev, t->tid, !t->java);
      if (t->fds[i] >= 0) continue;
      if (ev->kind != EV_CPU) continue; /* counted as a thread without the event */
      if (!atomic_exchange(&timer_fallback_said, 1))
        prof_say("asgst-prof: perf_event_open(cpu-clock) failed (%s); using a CPU timer "
                 "(at most CONFIG_HZ samples per second)\n", strerror(errno));
    }
    t->timers[i] = open_cpu_timer(i, ev, t->tid, !t->java);
  }
}

/* N. */
void prof_events_count_thread(const prof_thread *t, uint64_t *live) {
  for (int i = 0; i < prof.opts.nevents; i++) {
    uint64_t count = 0;
    if (t->fds[i] >= 0 && read(t->fds[i], &count, sizeof count) == sizeof count) live[i] += count;
  }
}

/* N. */
void prof_events_close_thread(prof_thread *t) {
  for (int i = 0; i < prof.opts.nevents; i++) {
    if (t->fds[i] >= 0) {
      int fd = t->fds[i];
      ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
      uint64_t count = 0;
      if (read(fd, &count, sizeof count) == sizeof count)
        atomic_fetch_add(&prof.stats.kernel_count[i], count);
      atomic_store(&fd_event[fd], 0);
      prof_kchain_detach(fd, t->tid == gettid());
      close(fd);
      t->fds[i] = -1;
    }
    if (t->timers[i]) {
      timer_delete((timer_t)t->timers[i]);
      t->timers[i] = NULL;
    }
  }
}
