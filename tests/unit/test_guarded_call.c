/* test_guarded_call.c - ASGST__GUARDED (impl/guard.h), the one guarded-call helper: the
 * call runs to its end when it does not fault; on a fault the fallback runs instead of the
 * call's rest, the fault is counted, and the guard that was innermost before (none, or an
 * enclosing region's) is innermost again, so a later fault goes where it went before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "impl/guard.h"
#include "test_guard_handlers.h"

static volatile int *no_access; /* one PROT_NONE page: every load of it faults */

static int setup(void **state) {
  (void)state;
  if (asgst__guard_install() != 0) return -1;
  capture_guard();
  void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  no_access = p;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  munmap((void *)no_access, (size_t)sysconf(_SC_PAGESIZE));
  return 0;
}

/* N. A load that faults, in a function of its own so that the call is a real call. */
static __attribute__((noinline)) int load_no_access(void) {
  return *no_access;
}

static void a_call_that_does_not_fault_runs_to_its_end(void **state) {
  use_guard(state);
  volatile int steps = 0, fell = 0;
  uint64_t faults = asgst__guard_faults();
  ASGST__GUARDED({ steps++; steps++; }, fell = 1);
  assert_int_equal(steps, 2);
  assert_int_equal(fell, 0);
  assert_int_equal(asgst__guard_faults(), faults);
  assert_null(asgst__guard_top);
}

static void a_fault_runs_the_fallback_instead_of_the_rest(void **state) {
  use_guard(state);
  volatile int before = 0, after = 0, fell = 0;
  uint64_t faults = asgst__guard_faults();
  ASGST__GUARDED({ before = 1; (void)load_no_access(); after = 1; }, fell = 1);
  assert_int_equal(before, 1);
  assert_int_equal(after, 0);
  assert_int_equal(fell, 1);
  assert_int_equal(asgst__guard_faults(), faults + 1);
  assert_null(asgst__guard_top);
}

static void an_empty_fallback_just_ends_the_call(void **state) {
  use_guard(state);
  volatile int after = 0;
  ASGST__GUARDED({ (void)load_no_access(); after = 1; }, );
  assert_int_equal(after, 0);
  assert_null(asgst__guard_top);
}

/* Inside an enclosing region, the helper's guard is the innermost while its call runs and
 * the enclosing one is again after it, fault or not: a later fault of the enclosing
 * region comes back to that region's start. */
static void the_enclosing_guard_is_innermost_again(void **state) {
  use_guard(state);
  volatile int inner_fell = 0, outer_fell = 0, reached = 0;
  /* The innermost guard inside the call, after a call, after a faulted call. No assert
   * inside the region: a failed one jumps out of it (cmocka) and leaves its guard set. */
  sigjmp_buf *volatile inside = NULL, *volatile after_call = NULL, *volatile after_fault = NULL;
  asgst__guard outer;
  ASGST__GUARD_BEGIN(outer)
    ASGST__GUARDED(inside = asgst__guard_top, );
    after_call = asgst__guard_top;
    ASGST__GUARDED((void)load_no_access(), inner_fell = 1);
    after_fault = asgst__guard_top;
    reached = 1;
    (void)load_no_access();
    reached = 2;
  ASGST__GUARD_FAULTED(outer)
    outer_fell = 1;
  ASGST__GUARD_END(outer);
  assert_non_null(inside);
  assert_ptr_not_equal(inside, &outer.buf);
  assert_ptr_equal(after_call, &outer.buf);
  assert_ptr_equal(after_fault, &outer.buf);
  assert_int_equal(inner_fell, 1);
  assert_int_equal(reached, 1);
  assert_int_equal(outer_fell, 1);
  assert_null(asgst__guard_top);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_call_that_does_not_fault_runs_to_its_end),
      cmocka_unit_test(a_fault_runs_the_fallback_instead_of_the_rest),
      cmocka_unit_test(an_empty_fallback_just_ends_the_call),
      cmocka_unit_test(the_enclosing_guard_is_innermost_again),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
