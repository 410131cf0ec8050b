/*
 * stall_probe.c - how often this machine takes the CPU away from a running thread, and for
 * how long. One thread spins reading CLOCK_MONOTONIC and counts the gaps between two
 * consecutive reads longer than 20 us (nothing in the loop takes a microsecond).
 *
 * On a virtual machine most such gaps are the host running something else on the core:
 * the guest does not see them as preemption (no steal time is reported, and the thread's
 * CPU clock keeps running through them), so the walk agent's "descheduled" test cannot set
 * them apart either.
 *
 * Why the benchmarks need it: a walk that takes T seconds absorbs at least one gap with
 * probability 1 - exp(-rate * T). When that is over 1% for a workload's walks, more than
 * 1% of them last longer than the shortest gap (20 us), so their p99 says more about the
 * machine than about the walker. javac_bench.sh prints that probability next to the walk
 * times.
 *
 * Usage: stall_probe [SECONDS]  (default 3). Prints one line of key=value figures.
 * Ordinary code (not signal safe); a plain program, no library code.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* N. CLOCK_MONOTONIC in nanoseconds (vDSO: no system call). */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct {
  long over20, over40, over100; /* gaps longer than 20, 40 and 100 us */
  uint64_t lost_ns, longest_ns;  /* their total and the longest */
} gaps;

/* N. Spins for `ns` nanoseconds and counts the gaps. */
static void spin(uint64_t ns, gaps *g) {
  uint64_t prev = now_ns(), end = prev + ns;
  while (prev < end) {
    uint64_t t = now_ns(), d = t - prev;
    prev = t;
    if (d <= 20000) continue;
    g->over20++;
    g->over40 += d > 40000;
    g->over100 += d > 100000;
    g->lost_ns += d;
    if (d > g->longest_ns) g->longest_ns = d;
  }
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 3.0;
  if (!(secs > 0 && secs <= 600)) {
    fprintf(stderr, "stall_probe: SECONDS must be in (0, 600], got '%s'\n", argv[1]);
    return 2;
  }
  gaps g = {0};
  spin((uint64_t)(secs * 1e9), &g);
  printf("stalls_per_s=%.0f over_40us_per_s=%.0f over_100us_per_s=%.0f longest_us=%.0f time_lost=%.1f%% "
         "seconds=%.1f\n",
         g.over20 / secs, g.over40 / secs, g.over100 / secs, g.longest_ns / 1e3, 100.0 * g.lost_ns / (secs * 1e9),
         secs);
  return 0;
}
