/*
 * perf_names.c - hardware and software perf events by perf's own names (`perf list`):
 * cycles, instructions, cache-misses, page-faults, context-switches... Each is sampled
 * every N events on every profiled thread as cpu-clock is (perf_events.c), its overflow a
 * signal to the thread that caused it.
 *
 * Default periods (interval= overrides them). The aim is cpu's: a sample's handler (a few
 * microseconds) stays around a percent of what the events themselves cost or take.
 *   - cycles, instructions, ref-cycles: 10,000,000, a sample every few ms of a busy core
 *     (cpu's 10 ms default at 1-3 GHz).
 *   - branches, cache-references, bus-cycles: 1,000,000; cache-misses, branch-misses and
 *     the cache events: 10,000 (a memory-bound loop misses some 10^6-10^7 times a second).
 *   - page-faults, minor-faults: 1000. A minor fault costs about a microsecond (a page
 *     zeroed or mapped); a JVM growing its heap faults hundreds of thousands of times a
 *     second, where a sample per fault would cost ten times the faults.
 *   - cpu-migrations, major-faults, alignment-faults, emulation-faults: 1. Each is rare
 *     or costs far more than a sample (a major fault is a disk read).
 *   - context-switches: 10, and never below 2. The kernel counts a switch as the thread
 *     leaves the CPU, mostly to block; the overflow's signal then wakes it (a blocked
 *     thread takes a signal at once), the handler runs, and the thread blocks again: a
 *     switch of its own making. At 1 that switch overflows again and a thread in a long
 *     wait never rests (an idle thread sampled tens of thousands of times a second:
 *     docs/budgets.md). From 2 up each sample adds one switch, so a sample stands for N-1
 *     switches of the program's own (N the interval); 10 keeps that extra cost at a
 *     tenth of the switches while a thread blocking every millisecond still gets about
 *     100 samples a second.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/say.h"
#include "sampling/sampling.h"

/* A hardware cache event's config: which cache, which operation, which result. */
#define CACHE(id, op, result) \
  ((uint64_t)(id) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))
#define READ_MISS(id) CACHE(id, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)

static const struct {
  const char *name;
  uint32_t type;
  uint64_t config;
  uint64_t period;
  uint64_t min_period; /* the least interval= allowed (see above) */
} names[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 10000000, 1},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 10000000, 1},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 10000000, 1},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1000000, 1},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 10000, 1},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000000, 1},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000000, 1},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 10000, 1},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 1000000, 1},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 10000000, 1},
    {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE, READ_MISS(PERF_COUNT_HW_CACHE_L1D), 10000, 1},
    {"L1-icache-load-misses", PERF_TYPE_HW_CACHE, READ_MISS(PERF_COUNT_HW_CACHE_L1I), 10000, 1},
    {"LLC-load-misses", PERF_TYPE_HW_CACHE, READ_MISS(PERF_COUNT_HW_CACHE_LL), 10000, 1},
    {"dTLB-load-misses", PERF_TYPE_HW_CACHE, READ_MISS(PERF_COUNT_HW_CACHE_DTLB), 10000, 1},
    {"iTLB-load-misses", PERF_TYPE_HW_CACHE, READ_MISS(PERF_COUNT_HW_CACHE_ITLB), 10000, 1},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1000, 1},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1000, 1},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 1000, 1},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, 1},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 10, 2},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 10, 2},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1, 1},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1, 1},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1, 1},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 1, 1},
};

/* N. */
bool prof_perf_event_resolve(prof_event *ev) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(ev->name, names[i].name) == 0) {
      ev->kind = EV_PERF;
      ev->perf_type = names[i].type;
      ev->perf_config = names[i].config;
      ev->interval = names[i].period;
      return true;
    }
  return false;
}

/* N. */
int prof_perf_event_interval(prof_event *ev, uint64_t n, char *err, size_t len) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(ev->name, names[i].name) == 0 && n < names[i].min_period)
      return prof_fail(err, len, "interval=%llu: %s needs at least %llu (each sample's signal "
                       "wakes a blocked thread, which then switches again by itself: at 1 it "
                       "would be sampled without end)", (unsigned long long)n, ev->name,
                       (unsigned long long)names[i].min_period);
  ev->interval = n;
  return 0;
}

/* N. */
void prof_perf_event_list(char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && at < len; i++) {
    int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i].name);
    if (n < 0) break;
    at += (size_t)n;
  }
}

/* N. */
int prof_perf_event_check(const prof_event *ev, char *why, size_t len) {
  int fd = prof_perf_open(ev, 0, ev->interval);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  int e = errno;
  const char *hint = "";
  /* ENOENT: the kernel has no such counter (no PMU driver: most VMs and containers);
   * EOPNOTSUPP: it has one that cannot sample. */
  if (ev->perf_type != PERF_TYPE_SOFTWARE && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
    hint = "; this machine exposes no hardware performance counters to perf";
  else if (e == EACCES || e == EPERM)
    hint = "; perf events need root or a lower kernel.perf_event_paranoid";
  snprintf(why, len, "event=%s: not available here (perf_event_open: %s%s)", ev->name,
           strerror(e), hint);
  return -1;
}
