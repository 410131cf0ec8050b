/* test_prof_perf_names.c - the demo profiler's perf events by name (perf_names.c), without
 * a JVM: names and aliases resolve to perf's type and config with their default period,
 * unknown names do not, context-switches refuses an interval below 2, and an event the
 * kernel refuses is said to be unavailable in one line naming it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profiler-demo/src/sampling/perf_names.c"

static int open_errno; /* what the stub perf_event_open fails with, 0: succeeds */

/* The profiler's own, stubbed: perf_names.c needs these two only. */
int prof_fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

int prof_perf_open(const prof_event *ev, pid_t tid, uint64_t period) {
  (void)ev, (void)tid, (void)period;
  if (open_errno) return errno = open_errno, -1;
  return dup(0); /* an fd of its own for the check to close */
}

static prof_event named(const char *name) {
  prof_event ev;
  memset(&ev, 0, sizeof ev);
  snprintf(ev.name, sizeof ev.name, "%s", name);
  return ev;
}

static void test_resolve(void **state) {
  (void)state;
  prof_event ev = named("page-faults");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(ev.kind, EV_PERF);
  assert_int_equal(ev.perf_type, PERF_TYPE_SOFTWARE);
  assert_int_equal(ev.perf_config, PERF_COUNT_SW_PAGE_FAULTS);
  assert_int_equal(ev.interval, 1000);
  ev = named("cs");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(ev.perf_config, PERF_COUNT_SW_CONTEXT_SWITCHES);
  ev = named("cycles");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(ev.perf_type, PERF_TYPE_HARDWARE);
  ev = named("LLC-load-misses");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(ev.perf_type, PERF_TYPE_HW_CACHE);
  assert_int_equal(ev.perf_config, PERF_COUNT_HW_CACHE_LL |
                   (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
  ev = named("cpu");
  assert_false(prof_perf_event_resolve(&ev));
  ev = named("page-fault");
  assert_false(prof_perf_event_resolve(&ev));
}

static void test_interval(void **state) {
  (void)state;
  char err[512];
  prof_event ev = named("context-switches");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(prof_perf_event_interval(&ev, 1, err, sizeof err), -1);
  assert_non_null(strstr(err, "interval=1"));
  assert_int_equal(prof_perf_event_interval(&ev, 2, err, sizeof err), 0);
  assert_int_equal(ev.interval, 2);
  ev = named("page-faults");
  assert_true(prof_perf_event_resolve(&ev));
  assert_int_equal(prof_perf_event_interval(&ev, 1, err, sizeof err), 0);
  assert_int_equal(ev.interval, 1);
}

static void test_unavailable(void **state) {
  (void)state;
  char why[512];
  prof_event ev = named("cycles");
  assert_true(prof_perf_event_resolve(&ev));
  open_errno = ENOENT;
  assert_int_equal(prof_perf_event_check(&ev, why, sizeof why), -1);
  assert_non_null(strstr(why, "event=cycles: not available here"));
  assert_non_null(strstr(why, "no hardware performance counters"));
  assert_null(strchr(why, '\n'));
  open_errno = 0;
  assert_int_equal(prof_perf_event_check(&ev, why, sizeof why), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_resolve),
                                     cmocka_unit_test(test_interval),
                                     cmocka_unit_test(test_unavailable)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
