/*
 * init_timing.c - ASGST_INIT_TIMING=1: where ASGST_Initialize's time goes, phase by phase.
 * Wall time and the binding thread's CPU time are both kept: on a loaded machine the
 * difference says whether a phase waited (for a safepoint, a lock, the scheduler) or worked.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "init_timing.h"

#define MAX_PHASES 32

static bool on;
static const char *title;
static int count;
static const char *names[MAX_PHASES];
static long long wall[MAX_PHASES], cpu[MAX_PHASES];
static long long last_wall, last_cpu;

/* N. Nanoseconds of the given clock. */
static long long ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* N. */
void asgst__init_timing_start(const char *what) {
  const char *v = getenv("ASGST_INIT_TIMING");
  on = v != NULL && strcmp(v, "1") == 0;
  if (!on) return;
  title = what;
  count = 0;
  last_wall = ns(CLOCK_MONOTONIC);
  last_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
}

/* N. */
void asgst__init_timing_mark(const char *phase) {
  if (!on || count >= MAX_PHASES) return;
  long long w = ns(CLOCK_MONOTONIC), c = ns(CLOCK_THREAD_CPUTIME_ID);
  names[count] = phase;
  wall[count] = w - last_wall;
  cpu[count] = c - last_cpu;
  count++;
  /* The clocks are read again so that the time spent here is nobody's phase. */
  last_wall = ns(CLOCK_MONOTONIC);
  last_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
}

/* N. */
void asgst__init_timing_report(void) {
  if (!on) return;
  long long tw = 0, tc = 0;
  for (int i = 0; i < count; i++) tw += wall[i], tc += cpu[i];
  fprintf(stderr, "asgst init timing (%s): %.2f ms wall, %.2f ms cpu\n", title, tw / 1e6, tc / 1e6);
  for (int i = 0; i < count; i++)
    fprintf(stderr, "asgst init timing   %-22s %8.2f ms wall %8.2f ms cpu\n", names[i],
            wall[i] / 1e6, cpu[i] / 1e6);
  on = false;
}
