/*
 * overload.c - keeps sampling from taking over the threads it samples.
 *
 * A sample costs the sampled thread the signal's delivery and return plus the handler's
 * walk. When that cost comes close to the interval, the thread does nothing but handle
 * signals (at the shortest intervals, with kernel samples on a busy machine, a thread was
 * seen never to get back to its own code). So each sampled thread's handler share is measured and held under a budget
 * (option overhead=, default 10% of the thread's time):
 *   - cpu (perf cpu-clock): the period starts no shorter than what the machine's timer
 *     interrupts allow (clock_cost.c). Then, per perf fd, a moving average of
 *     cost / (time between two handler exits): above the budget the handler doubles that
 *     fd's sample period (PERF_EVENT_IOC_PERIOD); well below it, it halves it back toward
 *     the starting one.
 *     Every sample taken at a period P stands for P / requested - 1 samples not taken,
 *     which are counted as throttled.
 *   - wall: the timer thread stretches its tick so that the average cost of one sample
 *     and its own cost of one round of signals stay under the budget.
 * A monitor thread says when a throttle starts and how far it went.
 *
 * Tracepoint events are never throttled: they count exact events, and one syscall makes
 * at most one signal per tracepoint.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "core/say.h"
#include "core/state.h"
#include "sampling/sampling.h"

/* What the kernel takes to deliver a signal and return from it, on top of the handler's
 * own time: an estimate of its order (a signal sent to oneself costs a few microseconds
 * more than a plain syscall), which is all the budget needs. */
#define DELIVERY_NS 2500u
#define MAX_PERIOD_NS 100000000ull /* the throttle never samples slower than every 100 ms */
#define SHARE_ONE 65536u           /* fixed point for shares of time */

typedef struct {
  uint64_t last_exit; /* monotonic ns when the previous handler for this fd ended, 0: none */
  uint64_t period;    /* the fd's sample period now, ns */
  uint64_t requested; /* the period the user asked for, ns */
  uint64_t floor;     /* the shortest period this machine's timer serves (clock_cost.c) */
  uint32_t duty;      /* moving average of the handler's share of the thread's time */
  int event;
} fd_load;

/* Written only by the handler of the fd's own thread (the fd signals one thread, and the
 * signal is blocked while its handler runs), and by prof_load_open before enabling. */
static fd_load loads[PROF_MAX_FD];

static _Atomic uint64_t wall_cost_ns, wall_samples;
static pthread_t monitor;
static _Atomic int monitor_on;

/* SS. The budget as a share of SHARE_ONE. */
static uint32_t budget(void) {
  return (uint32_t)(SHARE_ONE * (uint64_t)prof.opts.max_overhead / 100);
}

/* SS. Counts a throttle step of event ev to period and keeps the longest period used. */
static void note_period(int ev, uint64_t period) {
  atomic_fetch_add_explicit(&prof.stats.throttle_steps[ev], 1, memory_order_relaxed);
  uint64_t max = atomic_load_explicit(&prof.stats.max_period[ev], memory_order_relaxed);
  while (period > max && !atomic_compare_exchange_weak(&prof.stats.max_period[ev], &max, period)) {
  }
}

/* N. */
void prof_load_open(int fd, int event, uint64_t requested, uint64_t period) {
  if (fd < 0 || fd >= PROF_MAX_FD) return;
  fd_load *l = &loads[fd];
  l->last_exit = 0;
  l->requested = requested;
  l->period = l->floor = period;
  l->duty = 0;
  l->event = event;
}

/* SS. Asks the kernel for a new sample period; false if it refused. */
static bool set_period(int fd, fd_load *l, uint64_t period) {
  if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) != 0) return false;
  l->period = period;
  return true;
}

/* SS. Raises or lowers the fd's period when the moving average leaves the band. */
static void steer(int fd, fd_load *l) {
  uint32_t b = budget();
  int ev = l->event;
  if (l->duty > b && l->period < MAX_PERIOD_NS) {
    if (!set_period(fd, l, l->period * 2)) return;
    l->duty = b / 2; /* judge the new period on its own samples */
    note_period(ev, l->period);
  } else if (l->duty < b / 4 && l->period > l->floor) {
    uint64_t p = l->period / 2 < l->floor ? l->floor : l->period / 2;
    if (set_period(fd, l, p)) l->duty = b / 2;
  }
}

/* SS. Called after every handler of a perf cpu event, with the handler's entry and exit
 * times. Counts the samples a raised period left out and steers the period. */
void prof_load_perf_sample(int fd, uint64_t t_in, uint64_t t_out) {
  if (fd < 0 || fd >= PROF_MAX_FD) return;
  fd_load *l = &loads[fd];
  if (l->requested == 0) return;
  if (l->period > l->requested)
    atomic_fetch_add_explicit(&prof.stats.throttled[l->event],
                              l->period / l->requested - 1, memory_order_relaxed);
  uint64_t cost = t_out - t_in + DELIVERY_NS;
  if (l->last_exit) {
    uint64_t span = t_out - l->last_exit;
    if (span < cost) span = cost;
    uint32_t share = (uint32_t)(cost * SHARE_ONE / span);
    /* An average over about 8 samples: one preempted handler does not trip it. */
    l->duty = (uint32_t)(((uint64_t)l->duty * 7 + share) / 8);
    steer(fd, l);
  }
  l->last_exit = t_out;
}

/* SS. Called after every wall-clock handler with its time. */
void prof_load_wall_sample(uint64_t ns) {
  atomic_fetch_add_explicit(&wall_cost_ns, ns + DELIVERY_NS, memory_order_relaxed);
  atomic_fetch_add_explicit(&wall_samples, 1, memory_order_relaxed);
}

/* N. The wall tick to use next: the requested one unless the average cost of a sample or
 * of the timer thread's own round of signals needs a longer one to stay under the budget.
 * Both are moving averages over about 8 rounds, so one round in which the timer thread was
 * preempted does not stretch the tick. Called by the wall timer thread once a round. */
uint64_t prof_load_wall_interval(int event, uint64_t requested, uint64_t round_ns,
                                 int nthreads) {
  static uint64_t last_cost, last_samples, per_sample, round;
  uint64_t cost = atomic_load(&wall_cost_ns), n = atomic_load(&wall_samples);
  if (n < last_samples || !round) last_cost = last_samples = per_sample = 0, round = round_ns;
  if (n > last_samples)
    per_sample = (per_sample * 7 + (cost - last_cost) / (n - last_samples)) / 8;
  round = (round * 7 + round_ns) / 8;
  last_cost = cost, last_samples = n;
  uint64_t pct = (uint64_t)prof.opts.max_overhead;
  uint64_t need = (per_sample > round ? per_sample : round) * 100 / pct;
  uint64_t next = need > requested ? need : requested;
  if (next > MAX_PERIOD_NS) next = MAX_PERIOD_NS > requested ? MAX_PERIOD_NS : requested;
  if (next > requested) {
    atomic_fetch_add(&prof.stats.throttled[event], (next / requested - 1) * (uint64_t)nthreads);
    note_period(event, next);
  }
  return next;
}

/* N. Says what changed since the last look: the quota filling up, a throttle going
 * further (said[] holds the longest period already told, per event). */
static void tell(uint64_t *said, bool *quota_said) {
  if (!*quota_said && atomic_load(&prof.stats.lost_signals)) {
    *quota_said = true;
    prof_say("asgst-prof: the user's queued-signal quota (ulimit -i) is full, so tracepoint "
             "signals cannot be queued; the summary counts the events not attributed\n");
  }
  for (int i = 0; i < prof.opts.nevents; i++) {
    uint64_t max = atomic_load(&prof.stats.max_period[i]);
    if (max <= said[i]) continue;
    said[i] = max;
    prof_say("asgst-prof: %s: samples cost more than %d%% of the sampled threads' time at "
             "interval %.0f us; sampling throttled to every %.0f us (see the summary)\n",
             prof.opts.events[i].name, prof.opts.max_overhead,
             prof.opts.events[i].interval / 1e3, max / 1e3);
  }
}

/* N. The monitor thread: looks ten times a second, and once more at the end. */
static void *watch(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  uint64_t said[PROF_MAX_EVENTS];
  for (int i = 0; i < prof.opts.nevents; i++) said[i] = prof.opts.events[i].period;
  bool quota_said = false;
  while (atomic_load(&monitor_on)) {
    tell(said, &quota_said);
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  tell(said, &quota_said);
  return NULL;
}

/* N. */
void prof_load_start(void) {
  atomic_store(&wall_cost_ns, 0);
  atomic_store(&wall_samples, 0);
  if (atomic_exchange(&monitor_on, 1)) return;
  if (pthread_create(&monitor, NULL, watch, NULL) != 0) {
    atomic_store(&monitor_on, 0);
    return;
  }
  pthread_setname_np(monitor, "asgst-load");
}

/* N. */
void prof_load_stop(void) {
  if (atomic_exchange(&monitor_on, 0)) pthread_join(monitor, NULL);
}
