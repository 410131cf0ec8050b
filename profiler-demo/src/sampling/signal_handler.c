/*
 * signal_handler.c - the profiler's signal handler: find which event fired, note the file
 * descriptors a traced syscall produced, and take the sample as walk= says: walk the
 * interrupted thread's stack here with ASGST_RunWithIterator and append one record to the
 * sample buffer (signal), ask the walker thread to walk it (thread, walk_thread.c), or
 * enqueue it for the thread's next safe point (queue, walk_queue.c). Everything here is
 * async-signal-safe: no allocation, no locks, no stdio.
 *
 * Three signals, chosen for what each event needs:
 *   - cpu, cputimer and perf events by name (page-faults...): a standard signal, SIGSTKFLT (else SIGPROF, else SIGPWR: see
 *     "Beside another profiler"). A standard signal is pending at most once per thread, so
 *     a thread can never pile up samples it has no time to handle, and the kernel delivers
 *     one it sends itself (si_code > 0: a perf fd's, with si_fd; a timer's) even when the
 *     user's queued-signal quota (RLIMIT_SIGPENDING, shared by every process of the user)
 *     is exhausted: every standard signal alike, SIGSTKFLT as SIGPROF.
 *   - wall: SIGVTALRM (else SIGPWR, else SIGSTKFLT), sent with tgkill. Its own number
 *     tells the event even when a full quota makes the kernel drop the sender's details.
 *   - tracepoints: a free real-time signal, one queued per event, for exact counts. A
 *     syscall makes at most one per tracepoint and the thread takes it on its way back to
 *     user mode, so each thread holds about one at a time.
 *
 * Beside another profiler (async-profiler). Each agent takes its own signal; we do not
 * share one by chaining. async-profiler (4.x) takes SIGPROF for cpu unless someone else
 * handles it, then SIGSTKFLT, SIGPWR, real-time ones (SIGVTALRM is its wall signal); it
 * replaces a handler without keeping the previous one (on every start), and its perf
 * handler takes any signal with si_code > 0 as its own and re-arms the fd in si_fd. So a
 * chained SIGPROF would break as soon as it starts again after us: our samples counted by
 * it, our perf fds re-armed under its rules. With a signal each, whatever the load order,
 * a sample costs what it costs alone: no extra instruction per sample, ours or theirs.
 *   Why SIGSTKFLT (16) first, below SIGPROF (27): when both agents' cpu-clock events fire
 * together, the kernel sets up the lower-numbered signal's frame first and, if that
 * handler's mask lets the other through, the other's on top of it, before returning to
 * user mode. The handler on top then runs first and sees the other handler's entry, not
 * the Java code (async-profiler's handlers block nothing): with ours on SIGPROF (loaded
 * first) and async-profiler's then on SIGSTKFLT, many of our samples lost their Java
 * frames (docs/budgets.md). With ours lower and every profiling signal in our handler's mask (install), ours
 * runs first on the true context and theirs right after on the same context (delayed by
 * our handler's few microseconds). cpusignal= and wallsignal= name another signal when
 * the lists' are taken.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/say.h"
#include "core/state.h"
#include "core/thread_state.h"
#include "fd/fd.h"
#include "sampling/sampling.h"
#include "walk/walk.h"

/* Standard signals cpu and wall samples may use, most preferred first (0 ends a list; the
 * header says why this order). */
static const int cpu_choices[] = {SIGSTKFLT, SIGPROF, SIGPWR, 0};
static const int wall_choices[] = {SIGVTALRM, SIGPWR, SIGSTKFLT, 0};
static int wall_event = -1;
static int sole_tracepoint = -1; /* see on_sigio */

/* SS. Which event a signal belongs to, -1 if none of ours. */
static int event_of(int sig, const siginfo_t *si) {
  if (sig == prof.signal_wall) return wall_event;
  if (si->si_code == SI_TIMER) return si->si_value.sival_int & ~PROF_TIMER_OTHER;
  if (si->si_code > 0) return prof_event_of_fd(si->si_fd); /* POLL_IN etc. from fasync */
  return -1;
}

/* SS. Whether the signal samples a thread that is not a Java thread (threads.c). */
static bool from_other(int sig, const siginfo_t *si) {
  if (sig == prof.signal_wall) return false;
  if (si->si_code == SI_TIMER) return (si->si_value.sival_int & PROF_TIMER_OTHER) != 0;
  return si->si_code > 0 && prof_fd_of_other(si->si_fd);
}

/* SS. The in-handler walk (walk=signal, and every sample of an other thread: with its C
 * frames, which are all it has), on top of the nk kernel frames in kernel. */
static void walk_here(int ev, void *ucontext, uint64_t t0, const prof_fdinfo *fdi,
                      const prof_frame *kernel, int nk, bool other, uint8_t state) {
  prof_walk w;
  memcpy(w.frames, kernel, (size_t)nk * sizeof *kernel);
  w.n = nk;
  w.error = 0;
  w.other = other;
  w.state = state;
  int opts = prof_walk_options() | (other ? ASGST_INCLUDE_NON_JAVA_FRAMES : 0);
  uint64_t t1 = prof_now_ns();
  int r = ASGST_RunWithIterator(ucontext, opts, prof_walk_collect, &w);
  uint64_t walk_ns = prof_now_ns() - t1;
  prof_recorder_walk(ucontext, opts, r > 0 && w.error < 0 ? w.error : r);
  prof_store_walk(ev, gettid(), r, &w, walk_ns, t1 - t0, fdi, NULL, 1);
}

/* SS. Takes one sample of event ev; t0 is the handler's entry time (prof_now_ns), read
 * once for the walk time, the event-to-walk time and the overload accounting. The file
 * descriptors a syscall produced are read here in every mode: only the interrupted
 * registers know them. A thread that is not a Java thread is walked here in every mode: it
 * has no safe point to queue for, and its C frames are read best where it stopped. */
static void sample(int ev, const siginfo_t *si, void *ucontext, uint64_t t0, bool other) {
  prof_fdinfo fi;
  const prof_event *e = &prof.opts.events[ev];
  bool has_fdi = e->fd_call != FDC_NONE && prof_fd_capture(e, ucontext, &fi);
  /* The ring of a perf fd is emptied at every signal, whatever the walk mode; its frames
   * are kept by the in-handler walk only (walk=thread and walk=queue walk elsewhere, and
   * carry no kernel frames). */
  prof_frame kernel[PROF_KERNEL_FRAMES];
  int nk = 0;
  if (prof.kernel_frames && si && si->si_code > 0 && e->kind != EV_WALL)
    nk = prof_kchain_take(si->si_fd, kernel, PROF_KERNEL_FRAMES, e->kind == EV_TRACEPOINT);
  if (nk) atomic_fetch_add_explicit(&prof.stats.with_kernel[ev], 1, memory_order_relaxed);
  /* The state is the interrupted thread's, so it is read here in every mode; a thread that
   * is not a Java thread has none (the library would look it up only to say so). */
  uint8_t state = other ? TS_UNKNOWN : prof_tstate_now();
  if (other) {
    walk_here(ev, ucontext, t0, NULL, kernel, nk, true, state);
    return;
  }
  switch (prof.opts.walk) {
    case WALK_THREAD: prof_thread_request(ev, ucontext, t0, has_fdi ? &fi : NULL, state); break;
    case WALK_QUEUE:
      if (!prof_queue_sample(ev, ucontext, t0, has_fdi ? &fi : NULL, state))
        walk_here(ev, ucontext, t0, has_fdi ? &fi : NULL, kernel, nk, false, state);
      break;
    default: walk_here(ev, ucontext, t0, has_fdi ? &fi : NULL, kernel, nk, false, state); break;
  }
}

/* SS. What our handler cost the sampled thread (every mode). */
static void count_handler(uint64_t t_in) {
  uint64_t ns = prof_now_ns() - t_in;
  atomic_fetch_add_explicit(&prof.stats.handler_ns, ns, memory_order_relaxed);
  prof_hist_add(&prof.stats.handler_hist, ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns);
  atomic_fetch_add_explicit(&prof.stats.handler_calls, 1, memory_order_relaxed);
}

/* SS. Tells the overload throttle what this sample cost. */
static void account(int ev, const siginfo_t *si, uint64_t t_in) {
  enum prof_event_kind kind = prof.opts.events[ev].kind;
  if (kind == EV_CPU && si->si_code > 0) prof_load_perf_sample(si->si_fd, t_in, prof_now_ns());
  else if (kind == EV_WALL) prof_load_wall_sample(prof_now_ns() - t_in);
}

/* SS. */
static void on_signal(int sig, siginfo_t *si, void *ucontext) {
  int saved = errno;
  int ev = event_of(sig, si);
  if (ev < 0 || ev >= prof.opts.nevents) {
    atomic_fetch_add_explicit(&prof.stats.unknown_signal, 1, memory_order_relaxed);
  } else {
    uint64_t t_in = prof_now_ns();
    atomic_fetch_add_explicit(&prof.stats.signals[ev], 1, memory_order_relaxed);
    if (atomic_load_explicit(&prof.running, memory_order_acquire)) {
      sample(ev, si, ucontext, t_in, from_other(sig, si));
      count_handler(t_in);
    }
    account(ev, si, t_in);
  }
  errno = saved;
}

/* SS. The kernel falls back to SIGIO when a real-time signal cannot be queued (the
 * user's queue quota is used up), and SIGIO does not say which fd fired. With a single
 * tracepoint event there is no doubt, and the thread takes SIGIO at the same point it
 * would have taken the real-time signal (on its way out of the syscall), so the sample is
 * recorded as usual; otherwise it is counted as lost. */
static void on_sigio(int sig, siginfo_t *si, void *ucontext) {
  (void)sig, (void)si;
  int saved = errno;
  atomic_fetch_add_explicit(&prof.stats.lost_signals, 1, memory_order_relaxed);
  int ev = sole_tracepoint;
  if (ev >= 0 && atomic_load_explicit(&prof.running, memory_order_acquire)) {
    atomic_fetch_add_explicit(&prof.stats.via_sigio, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&prof.stats.signals[ev], 1, memory_order_relaxed);
    uint64_t t_in = prof_now_ns();
    sample(ev, NULL, ucontext, t_in, false);
    count_handler(t_in);
  }
  errno = saved;
}

/* N. The index of the only tracepoint event, -1 if there are none or several. */
static int find_sole_tracepoint(void) {
  int found = -1;
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.opts.events[i].kind == EV_TRACEPOINT) {
      if (found >= 0) return -1;
      found = i;
    }
  return found;
}

/* N. Installs fn for sig with every profiler signal blocked while it runs, so handlers
 * never nest. */
static int install(int sig, void (*fn)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, prof.signal);
  sigaddset(&sa.sa_mask, prof.signal_cpu);
  sigaddset(&sa.sa_mask, prof.signal_wall);
  /* Another profiler's standard signals too (the header says why). */
  for (int i = 0; cpu_choices[i]; i++) sigaddset(&sa.sa_mask, cpu_choices[i]);
  sigaddset(&sa.sa_mask, SIGVTALRM);
  /* Real-time signals wait until the handler returns: the ASGST library's out-of-thread
   * walk signal (walk=thread) must find the thread in its Java code, not in this handler,
   * whose C frames hide the Java stack. Its number is the library's choice, so all of them;
   * the others are only delayed by the handler's few microseconds. */
  for (int s = SIGRTMIN; s <= SIGRTMAX; s++) sigaddset(&sa.sa_mask, s);
  return sigaction(sig, &sa, NULL);
}

/* N. True if fn already handles sig. */
static bool is_ours(int sig, void (*fn)(int, siginfo_t *, void *)) {
  struct sigaction old;
  return sigaction(sig, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == fn;
}

/* N. True if nobody else (the JVM, the application, another agent) handles sig. */
static bool is_free(int sig) {
  struct sigaction old;
  if (sigaction(sig, NULL, &old) != 0) return false;
  return is_ours(sig, on_signal) || (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL);
}

/* N. The short name of one of the choices' signals. */
static const char *name_of(int sig) {
  switch (sig) {
    case SIGSTKFLT: return "STKFLT";
    case SIGPROF: return "PROF";
    case SIGPWR: return "PWR";
    case SIGVTALRM: return "VTALRM";
    default: return "?";
  }
}

/* N. Picks the signal for cpu (what "cpu") or wall samples: the one the option asks
 * (asked, 0 if none) or the first free of choices, never avoid (the other kind's signal).
 * 0 or -1 with a message naming the option to change. */
static int choose(const char *what, int asked, const int *choices, int avoid, int *out,
                  char *err, size_t errlen) {
  const char *opt = what[0] == 'c' ? "cpusignal" : "wallsignal";
  if (asked) {
    if (asked == avoid)
      snprintf(err, errlen, "%s=%d: already the signal of the other sampling kind", opt, asked);
    else if (!is_free(asked))
      snprintf(err, errlen, "%s=%d: %s is already handled by someone else in this process; "
               "name a free signal with %s=", opt, asked, strsignal(asked), opt);
    else
      return *out = asked, 0;
    return -1;
  }
  for (int i = 0; choices[i]; i++)
    if (choices[i] != avoid && is_free(choices[i])) return *out = choices[i], 0;
  snprintf(err, errlen, "%s sampling needs one of SIG%s, SIG%s, SIG%s and someone else in this "
           "process handles all three; name a free signal with %s=N (a real-time signal works, "
           "but loses samples when the user's queued-signal quota is full)", what,
           name_of(choices[0]), name_of(choices[1]), name_of(choices[2]), opt);
  return -1;
}

/* N. Installs our handler for sig. */
static int take(int sig, char *err, size_t errlen) {
  if (install(sig, on_signal) == 0) return 0;
  snprintf(err, errlen, "sigaction(%s): %s", strsignal(sig), strerror(errno));
  return -1;
}

/* N. Picks a real-time signal nobody handles yet; from the top, away from the low ones
 * that threading libraries and the ASGST library's own out-of-thread walking may take. */
static int take_realtime(char *err, size_t errlen) {
  if (prof.signal) return 0;
  for (int s = SIGRTMAX - 3; s > SIGRTMIN + 2 && !prof.signal; s--)
    if (is_free(s) && install(s, on_signal) == 0) prof.signal = s;
  if (!prof.signal) snprintf(err, errlen, "no free real-time signal");
  return prof.signal ? 0 : -1;
}

/* N. Takes the signals the configured events need (again on every start: the events may
 * differ from the previous run's). Both standard signals are chosen before either handler
 * is installed: each handler's mask blocks both. */
int prof_signal_install(char *err, size_t errlen) {
  if (take_realtime(err, errlen)) return -1;
  bool cpu = false, wall = false;
  for (int i = 0; i < prof.opts.nevents; i++) {
    enum prof_event_kind k = prof.opts.events[i].kind;
    cpu |= k == EV_CPU || k == EV_CPU_TIMER || k == EV_PERF;
    wall |= k == EV_WALL;
  }
  if (cpu && choose("cpu", prof.opts.cpu_signal, cpu_choices, 0, &prof.signal_cpu, err, errlen))
    return -1;
  if (wall && choose("wall", prof.opts.wall_signal, wall_choices, cpu ? prof.signal_cpu : 0,
                     &prof.signal_wall, err, errlen))
    return -1;
  if ((cpu && take(prof.signal_cpu, err, errlen)) || (wall && take(prof.signal_wall, err, errlen)))
    return -1;
  sole_tracepoint = find_sole_tracepoint();
  if (is_free(SIGIO) || is_ours(SIGIO, on_sigio)) install(SIGIO, on_sigio);
  return 0;
}

/* N. Which event index the wall clock's tgkill signals stand for. */
void prof_signal_set_wall_event(int index) {
  wall_event = index;
}
