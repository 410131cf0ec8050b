/*
 * sampling.h - the event sources and the signal handler. Event sources (perf_events.c:
 * perf cpu-clock, perf events by name, tracepoints and the CPU-timer fallback;
 * wall_clock.c) signal the Java thread an event belongs to; signal_handler.c takes the
 * sample (walk/ says where it is walked); overload.c and clock_cost.c hold sampling under
 * an overhead budget; threads.c is the registry of profiled threads; tracepoints.c
 * resolves kernel tracepoints, perf_names.c perf's named events.
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_SAMPLING_SAMPLING_H
#define ASGSTPROF_SAMPLING_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/options.h"
#include "core/records.h"
#include "output/output.h"

/* ---- Kernel tracepoints (tracepoints.c) ---- */
/* N. Tracefs directory (mounted on demand), NULL with a reason in err if unusable. */
const char *prof_tracefs(char *err, size_t errlen);
/* N. Fills ev->tp_id, fd_call and syscall for "cat:name"; may rename a blocking
 * sys_enter_X to sys_exit_X (note written to note). 0 or -1 with err. */
int prof_tracepoint_resolve(prof_event *ev, char *note, size_t notelen, char *err,
                            size_t errlen);
/* N. Opens the tracepoint once on this thread with its filter to prove both are accepted. */
int prof_tracepoint_check(const prof_event *ev, char *err, size_t errlen);
/* N. The tracepoints event=fds stands for, NULL-terminated ("syscalls:sys_enter_socket"...). */
extern const char *const prof_fd_tracepoints[];

/* ---- Hardware and software perf events by name (perf_names.c) ---- */
/* N. Makes ev (its name set) an EV_PERF event with its type, config and default period if
 * the name is one of perf's ("page-faults", "cycles"...); false otherwise. */
bool prof_perf_event_resolve(prof_event *ev);
/* N. Sets an EV_PERF event's interval= (every n events); 0, or -1 with err if n is below
 * what the event allows (context-switches: 2, perf_names.c says why). */
int prof_perf_event_interval(prof_event *ev, uint64_t n, char *err, size_t len);
/* N. The names prof_perf_event_resolve knows, comma-separated, into buf. */
void prof_perf_event_list(char *buf, size_t len);
/* N. Opens ev once on this thread to see that the kernel offers it; 0, or -1 with one line
 * saying why it is not available in why. */
int prof_perf_event_check(const prof_event *ev, char *why, size_t len);

/* ---- Kernel frames of perf samples (kernel_chain.c) ---- */
/* N. Maps the ring buffer the kernel writes fd's samples' callchains to; 0 or -1. */
int prof_kchain_attach(int fd);
/* N. Unmaps fd's ring (before the fd is closed); owner: called on the fd's own thread,
 * else the unmapping waits for prof_kchain_reap. */
void prof_kchain_detach(int fd, bool owner);
/* N. Unmaps the rings detached from other threads (after the handlers have returned). */
void prof_kchain_reap(void);
/* SS. The kernel frames of the newest sample in fd's ring (innermost first, at most max)
 * into out, and empties the ring; with oldest, those of the oldest sample, which alone is
 * taken out. 0 if none (a sample in user mode, no ring). */
int prof_kchain_take(int fd, prof_frame *out, int max, bool oldest);
/* N. Decides at start whether cpu and named perf event samples carry kernel frames
 * (kernel=off, kallsyms_off: why kernel addresses cannot be named or NULL,
 * perf_event_paranoid): sets prof.kernel_frames, and prof.kernel_frames_off to why not. */
void prof_kchain_check(const char *kallsyms_off);

/* ---- Per-thread event sources (perf_events.c, clock_cost.c) ---- */
typedef struct {
  pid_t tid;
  bool used;
  bool java;  /* a Java thread: every event; else an other thread: cpu events only */
  char name[64];
  int fds[PROF_MAX_EVENTS];   /* perf fds, -1 if none */
  void *timers[PROF_MAX_EVENTS]; /* POSIX timers (timer_t) for EV_CPU_TIMER, else NULL */
} prof_thread;

/* N. Opens a perf event for ev on tid, disabled, with period (cpu: the kernel-sampling
 * fallback applied); -1 with errno. */
int prof_perf_open(const prof_event *ev, pid_t tid, uint64_t period);
/* N. The smallest cpu-clock period from `requested` up whose timer interrupts alone cost
 * this machine at most budget_pct percent of a thread's time; note says what was measured
 * when it is not `requested` (clock_cost.c). */
uint64_t prof_cpu_clock_floor(const prof_event *ev, uint64_t requested, int budget_pct,
                              char *note, size_t notelen);
/* N. Opens every configured per-thread event for tid (events are live immediately). */
void prof_events_open_thread(prof_thread *t);
/* N. Closes them, adding their kernel event counts to the totals. */
void prof_events_close_thread(prof_thread *t);
/* N. Adds the kernel's counts so far of t's open events to live[] (per event). */
void prof_events_count_thread(const prof_thread *t, uint64_t *live);
/* SS. Which event a perf fd belongs to, -1 if none. */
int prof_event_of_fd(int fd);
/* SS. Whether a perf fd samples a thread that is not a Java thread. */
bool prof_fd_of_other(int fd);
/* A CPU timer's signal value: the event index, with this bit for a thread that is not a
 * Java thread. */
#define PROF_TIMER_OTHER 0x100

/* ---- The signal handler (signal_handler.c) ---- */
/* N. Picks the real-time signal and installs the handler; 0 or -1. */
int prof_signal_install(char *err, size_t errlen);
/* N. Which event index the wall clock's tgkill signals stand for. */
void prof_signal_set_wall_event(int index);

/* ---- Profiled threads (threads.c) ---- */
/* N. Registers the calling thread (JVMTI ThreadStart) or any tid (attach enumeration). */
void prof_threads_add(pid_t tid, const char *name, bool java_name);
/* N. Registers tid as a thread that is not a Java thread (a JIT compiler, GC, VM or
 * native thread): cpu and cputimer events only, walked with its C frames. A Java thread's
 * registration wins over it. */
void prof_threads_add_other(pid_t tid, const char *name);
/* N. Whether tid is registered. */
bool prof_threads_known(pid_t tid);
/* N. Unregisters every other (not Java) thread whose tid is not in alive[0..n). */
void prof_threads_prune(const pid_t *alive, int n);
/* N. True for the profiler's and the library's own threads (never sampled). */
bool prof_thread_is_own(const char *comm);
/* N. tid's /proc comm into comm; false if the thread is gone. */
bool prof_thread_comm(pid_t tid, char *comm, size_t len);
/* N. Unregisters tid (JVMTI ThreadEnd). */
void prof_threads_remove(pid_t tid);
/* N. Unregisters tid without taking it for ended (an other thread found to be ours). */
void prof_threads_drop(pid_t tid);
/* N. Registers every existing thread of the process: JVM-internal threads as other threads
 * (cputhreads=all) or not at all (cputhreads=java), the others as Java threads (the calling
 * thread too unless skip_self). */
void prof_threads_add_existing(bool skip_self);
/* N. Whether a thread of this name is left out of profiling (threads.c). */
bool prof_thread_not_profiled(const char *name);
/* N. Closes every thread's events (stop). */
void prof_threads_remove_all(void);
/* N. Reads the kernel's counts of every open event into prof.stats.kernel_live, so an
 * output written while profiling (a dump) counts the running threads too. */
void prof_threads_count_events(void);
/* N. Sends sig to every registered thread (the wall clock's tick); returns how many. */
int prof_threads_signal_all(int sig);
/* N. Copies up to max registered tids into out; returns how many. */
int prof_threads_tids(pid_t *out, int max);

/* ---- Every thread's CPU (thread_scan.c) ---- */
/* N. Starts the scan thread (asgst-threads): with cputhreads=all it registers the threads
 * started since the last look as other threads and forgets those gone; in every mode it
 * keeps the CPU time of the profiler's own threads. Notes the process's CPU time first. */
int prof_scan_start(void);
/* N. Stops it, after a last look; notes the process's CPU time (call before the events are
 * closed). */
void prof_scan_stop(void);
/* N. What the run's CPU was, for the summary (prof_cpu_figures: output/output.h, which
 * the control room hands this function to, prof_output_set_cpu_figures). */
void prof_scan_figures(prof_cpu_figures *f);

/* ---- Wall clock (wall_clock.c) ---- */
/* N. Starts/stops the wall-clock timer thread. */
int prof_wall_start(uint64_t interval_ns, int event_index);
void prof_wall_stop(void);

/* ---- Overload (overload.c) ---- */
/* N. A perf cpu fd was opened with period, for an event asked at requested (before it is
 * enabled). */
void prof_load_open(int fd, int event, uint64_t requested, uint64_t period);
/* SS. After a perf cpu event's handler: counts throttled samples, steers the period. */
void prof_load_perf_sample(int fd, uint64_t t_in, uint64_t t_out);
/* SS. After a wall-clock handler that took ns. */
void prof_load_wall_sample(uint64_t ns);
/* N. The wall timer's next tick (see overload.c). */
uint64_t prof_load_wall_interval(int event, uint64_t requested, uint64_t round_ns,
                                 int nthreads);
/* N. Starts / stops the thread that reports throttling as it happens. */
void prof_load_start(void);
void prof_load_stop(void);

#endif /* ASGSTPROF_SAMPLING_SAMPLING_H */
