/*
 * clock_cost.c - what a perf cpu-clock period costs this machine before any signal is sent.
 *
 * The kernel runs cpu-clock as a per-thread hrtimer, and every expiry interrupts the
 * thread. On virtual machines an expiry can cost tens of microseconds, with no signal
 * sent at all: the share of a thread's time that the interrupts take grows steeply as the
 * period shortens, and at the shortest periods they alone keep the thread in the kernel for
 * good, where no user-space throttle can help. The cost depends on the host, so it is
 * measured where the profiler runs, not written down here. Before a short
 * interval is used, a probe thread times a fixed piece of work with and without an
 * enabled event of that period (no signals, nothing else running on it), and the period
 * doubles until the cost fits the budget. The probe is stopped from outside if the
 * interrupts leave it no progress.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/say.h"
#include "sampling/sampling.h"

#define CHECK_BELOW_NS 1000000ull /* periods of 1 ms and more are not probed */
#define ROUNDS 5                  /* timings per measurement; the fastest counts */
#define PROBE_LIMIT_NS 300000000ull /* a probe not done by then is starved: stop it */

typedef struct {
  const prof_event *ev;
  uint64_t period;
  _Atomic int fd;     /* the probe's event, -1 until opened */
  _Atomic int done;
  uint64_t base, with; /* fastest timing of the work without and with the event, ns */
} probe;

static volatile uint64_t sink;

/* N. A fixed piece of work (a million multiply-adds: several periods of the intervals
 * probed), timed in monotonic ns. */
static uint64_t timed_work(void) {
  uint64_t t0 = prof_now_ns(), x = 1;
  for (int i = 0; i < 1000000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  sink = x;
  return prof_now_ns() - t0;
}

/* N. The fastest of ROUNDS timings: the least disturbed by other processes. */
static uint64_t fastest(void) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < ROUNDS; i++) {
    uint64_t t = timed_work();
    if (t < best) best = t;
  }
  return best;
}

/* N. The probe thread: times the work, then again under its own cpu-clock event. */
static void *run_probe(void *arg) {
  probe *p = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  p->base = fastest();
  int fd = prof_perf_open(p->ev, 0, p->period);
  if (fd >= 0) {
    atomic_store(&p->fd, fd);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    p->with = fastest();
  }
  atomic_store(&p->done, 1);
  return NULL;
}

/* N. Cost of the period's interrupts in percent of the work's time; -1 if no event could
 * be opened, 1000 if the probe made no progress. */
static int measure(const prof_event *ev, uint64_t period) {
  probe p = {.ev = ev, .period = period, .fd = -1};
  pthread_t t;
  if (pthread_create(&t, NULL, run_probe, &p) != 0) return -1;
  pthread_setname_np(t, "asgst-probe");
  uint64_t start = prof_now_ns();
  bool starved = false;
  while (!atomic_load(&p.done)) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    int fd = atomic_load(&p.fd);
    if (!starved && fd >= 0 && prof_now_ns() - start > PROBE_LIMIT_NS) {
      ioctl(fd, PERF_EVENT_IOC_DISABLE, 0); /* give the probe its thread back */
      starved = true;
    }
  }
  pthread_join(t, NULL);
  if (p.fd >= 0) close(p.fd);
  if (p.fd < 0 || !p.base) return -1;
  if (starved) return 1000;
  return p.with > p.base ? (int)((p.with - p.base) * 100 / p.base) : 0;
}

/* N. */
uint64_t prof_cpu_clock_floor(const prof_event *ev, uint64_t requested, int budget_pct,
                              char *note, size_t notelen) {
  note[0] = 0;
  uint64_t period = requested;
  int first = -2;
  while (period < CHECK_BELOW_NS) {
    int cost = measure(ev, period);
    if (first == -2) first = cost;
    if (cost < 0 || cost <= budget_pct) break;
    period *= 2;
  }
  if (period != requested)
    snprintf(note, notelen, "%s: at interval %.0f us the kernel's timer interrupts alone "
             "take %s%d%% of a thread's time here; sampling every %.0f us instead (the "
             "shortest interval found under %d%%)", ev->name, requested / 1e3,
             first >= 1000 ? "over " : "", first, period / 1e3, budget_pct);
  return period;
}
