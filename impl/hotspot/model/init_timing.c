/*
 * init_timing.c - ASGST_INIT_TIMING=1: where ASGST_Initialize's time goes, phase by phase.
 * Wall time and the binding thread's CPU time are both kept: on a loaded machine the
 * difference says whether a phase waited (for a safepoint, a lock, the scheduler) or worked.
 * The thread's context switches tell which wait it was: a voluntary one is the thread
 * blocking (a lock, a condition, a sleep, a system call that waits), an involuntary one the
 * scheduler taking the CPU away (another thread's turn: the load of the machine).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "init_timing.h"

#define MAX_PHASES 32

static bool on;
static const char *title;
static int count;
static const char *names[MAX_PHASES];
static long long wall[MAX_PHASES], cpu[MAX_PHASES];
static long vol[MAX_PHASES], invol[MAX_PHASES]; /* context switches */
static long long last_wall, last_cpu;
static long long start_wall; /* the whole call's start, marks' own time included */
static long last_vol, last_invol;
static int others;
static const char *other_names[MAX_PHASES];
static long long other_wall[MAX_PHASES], other_cpu[MAX_PHASES];

/* N. Nanoseconds of the given clock. */
static long long ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* N. The calling thread's voluntary and involuntary context switches so far. */
static void switches(long *v, long *iv) {
  struct rusage ru;
  *v = *iv = 0;
  if (getrusage(RUSAGE_THREAD, &ru) == 0) *v = ru.ru_nvcsw, *iv = ru.ru_nivcsw;
}

/* N. */
void asgst__init_timing_start(const char *what) {
  const char *v = getenv("ASGST_INIT_TIMING");
  on = v != NULL && strcmp(v, "1") == 0;
  if (!on) return;
  title = what;
  count = others = 0;
  last_wall = start_wall = ns(CLOCK_MONOTONIC);
  last_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
  switches(&last_vol, &last_invol);
}

/* N. */
void asgst__init_timing_mark(const char *phase) {
  if (!on || count >= MAX_PHASES) return;
  long long w = ns(CLOCK_MONOTONIC), c = ns(CLOCK_THREAD_CPUTIME_ID);
  long v = 0, iv = 0;
  switches(&v, &iv);
  names[count] = phase;
  wall[count] = w - last_wall;
  cpu[count] = c - last_cpu;
  vol[count] = v - last_vol;
  invol[count] = iv - last_invol;
  count++;
  /* The clocks are read again so that the time spent here is nobody's phase. */
  last_wall = ns(CLOCK_MONOTONIC);
  last_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
  switches(&last_vol, &last_invol);
}

/* N. */
void asgst__init_timing_other(const char *phase, long long wall_ns, long long cpu_ns) {
  if (!on || others >= MAX_PHASES) return;
  other_names[others] = phase;
  other_wall[others] = wall_ns;
  other_cpu[others] = cpu_ns;
  others++;
}

/* N. */
void asgst__init_timing_report(void) {
  if (!on) return;
  long long tw = 0, tc = 0;
  long tv = 0, tiv = 0;
  for (int i = 0; i < count; i++) tw += wall[i], tc += cpu[i], tv += vol[i], tiv += invol[i];
  fprintf(stderr, "asgst init timing (%s): %.2f ms wall, %.2f ms cpu, %ld/%ld switches "
          "(voluntary/involuntary); %.2f ms wall from start to report\n", title, tw / 1e6,
          tc / 1e6, tv, tiv, (ns(CLOCK_MONOTONIC) - start_wall) / 1e6);
  for (int i = 0; i < count; i++)
    fprintf(stderr, "asgst init timing   %-22s %8.2f ms wall %8.2f ms cpu %3ld/%ld sw\n", names[i],
            wall[i] / 1e6, cpu[i] / 1e6, vol[i], invol[i]);
  for (int i = 0; i < others; i++)
    fprintf(stderr, "asgst init timing   (other thread) %-22s %8.2f ms wall %8.2f ms cpu\n",
            other_names[i], other_wall[i] / 1e6, other_cpu[i] / 1e6);
  on = false;
}
