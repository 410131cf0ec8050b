/*
 * test_read_hooks.c - the read layer's hooks (impl/safe_read.h) with a logger of the
 * test's own, as the recorder registers one: the logging thread's guarded loads read where
 * its logger says, other threads' loads read live memory, asgst__relearn() is true on the
 * logging thread only, and stopping the logger puts back the fast path's bound.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "impl/guard.h"
#include "impl/safe_read.h"

static uint64_t live[4] = {10, 11, 12, 13};
static uint64_t moved[4] = {20, 21, 22, 23};
static int logged_loads;

/* SS. Sends loads of `live` to `moved` and counts every load it sees. */
static uintptr_t to_moved(uintptr_t a, size_t n) {
  logged_loads++;
  uintptr_t lo = (uintptr_t)live, hi = lo + sizeof live;
  if (a >= lo && a < hi && n <= hi - a) return (uintptr_t)moved + (a - lo);
  return a;
}

static uint64_t load(const void *p) { return asgst__guarded_ptr((uintptr_t)p); }

static void *load_elsewhere(void *p) {
  static uint64_t v;
  v = load(p);
  return &v;
}

static void *relearn_elsewhere(void *p) {
  (void)p;
  static bool v;
  v = asgst__relearn();
  return &v;
}

static void a_logger_moves_the_loads_of_its_thread_only(void **state) {
  (void)state;
  asgst__guard_install();
  uintptr_t bound = asgst__fast_limit;
  assert_int_equal(load(&live[1]), 11);
  assert_false(asgst__read_logged());
  assert_false(asgst__relearn());
  asgst__read_log(to_moved);
  assert_int_equal(asgst__fast_limit, 0); /* every load takes the slow path */
  assert_true(asgst__read_logged());
  assert_true(asgst__relearn());
  logged_loads = 0;
  assert_int_equal(load(&live[1]), 21);
  assert_int_equal(load(&live[3]), 23);
  assert_int_equal(logged_loads, 2);
  pthread_t th;
  uint64_t *other;
  pthread_create(&th, NULL, load_elsewhere, &live[1]);
  pthread_join(th, (void **)&other);
  assert_int_equal(*other, 11);
  assert_int_equal(logged_loads, 2); /* the other thread's load was not logged */
  bool *elsewhere;
  pthread_create(&th, NULL, relearn_elsewhere, NULL);
  pthread_join(th, (void **)&elsewhere);
  assert_false(*elsewhere);
  asgst__read_log(NULL);
  assert_int_equal(asgst__fast_limit, bound);
  assert_false(asgst__relearn());
  assert_int_equal(load(&live[1]), 11);
  assert_int_equal(logged_loads, 2);
}

/* A copy and a logger on one thread: the logger decides (it sees every load first). */
static void the_logger_comes_before_a_copy(void **state) {
  (void)state;
  static const uint64_t copied[4] = {30, 31, 32, 33};
  asgst__read_copy c = {(uintptr_t)live, (uintptr_t)live + sizeof live, (const uint8_t *)copied};
  uintptr_t bound = asgst__fast_limit;
  asgst__read_from_copy(&c);
  assert_int_equal(load(&live[2]), 32);
  asgst__read_log(to_moved);
  assert_int_equal(load(&live[2]), 22);
  asgst__read_log(NULL);
  assert_int_equal(asgst__fast_limit, 0); /* the copy is still on */
  assert_int_equal(load(&live[2]), 32);
  asgst__read_from_copy(NULL);
  assert_int_equal(asgst__fast_limit, bound);
  assert_int_equal(load(&live[2]), 12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_logger_moves_the_loads_of_its_thread_only),
      cmocka_unit_test(the_logger_comes_before_a_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
