/*
 * test_stack_copy.c - the stack copy of the experimental non-blocking out-of-thread walk
 * (impl/stack_copy.h): what is copied, and that guarded loads read the copy on the thread
 * that uses it, and live memory everywhere else.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "impl/guard.h"
#include "impl/safe_read.h"
#include "impl/stack_copy.h"

enum { PAGE = 4096, STACK_PAGES = 4 };

/* A pretend stack: STACK_PAGES pages of words holding their own index, then a PROT_NONE
 * page where a stack of unknown base would run into its guard zone. */
static uint64_t *make_stack(void) {
  uint8_t *m = mmap(NULL, (STACK_PAGES + 1) * PAGE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(mprotect(m + STACK_PAGES * PAGE, PAGE, PROT_NONE), 0);
  uint64_t *w = (uint64_t *)m;
  for (size_t i = 0; i < STACK_PAGES * PAGE / 8; i++) w[i] = i;
  return w;
}

/* A guarded load (0 if it faults). */
static uint64_t load(const void *p) {
  return asgst__guarded_ptr((uintptr_t)p);
}

static void *load_elsewhere(void *p) {
  static uint64_t v;
  v = load(p);
  return &v;
}

/* The copy runs from sp (rounded down to 64 bytes) to the given base, and loads of that
 * range read it only on the thread using it. */
static void copies_up_to_the_base_and_redirects_this_thread_only(void **state) {
  (void)state;
  uint64_t *stack = make_stack();
  asgst__stack_copy c;
  assert_int_equal(asgst__stack_copy_init(&c, 1u << 20), 0);
  uintptr_t sp = (uintptr_t)&stack[100] + 8, base = (uintptr_t)&stack[1000];
  size_t n = asgst__stack_copy_take(&c, sp, base);
  assert_int_equal(c.lo, (uintptr_t)&stack[96]);
  assert_int_equal(c.hi, base);
  assert_int_equal(n, base - c.lo);
  stack[500] = 7777; /* the thread moved on */
  asgst__stack_copy_use(&c);
  assert_int_equal(load(&stack[500]), 500);   /* this thread reads the copy */
  uint64_t *other;
  pthread_t th;
  pthread_create(&th, NULL, load_elsewhere, &stack[500]);
  pthread_join(th, (void **)&other);
  assert_int_equal(*other, 7777);             /* another thread reads live memory */
  assert_int_equal(load(&stack[1000]), 1000); /* above the copy: live */
  asgst__stack_copy_use(NULL);
  assert_int_equal(load(&stack[500]), 7777);
  munmap(stack, (STACK_PAGES + 1) * PAGE);
  munmap(c.buf, c.cap);
}

/* Without a known base the copy stops at the first page that faults, and the guard keeps
 * the process alive. */
static void stops_at_a_faulting_page(void **state) {
  (void)state;
  asgst__guard_install();
  uint64_t *stack = make_stack();
  asgst__stack_copy c;
  assert_int_equal(asgst__stack_copy_init(&c, 1u << 20), 0);
  asgst__stack_copy_take(&c, (uintptr_t)&stack[8], 0);
  assert_int_equal(c.hi, (uintptr_t)stack + STACK_PAGES * PAGE);
  asgst__stack_copy_use(&c);
  assert_int_equal(load(&stack[STACK_PAGES * PAGE / 8 - 1]), STACK_PAGES * PAGE / 8 - 1);
  assert_int_equal(load(&stack[STACK_PAGES * PAGE / 8]), 0); /* the guard page faults */
  asgst__stack_copy_use(NULL);
  munmap(stack, (STACK_PAGES + 1) * PAGE);
  munmap(c.buf, c.cap);
}

/* A copy never exceeds its capacity. */
static void stops_at_capacity(void **state) {
  (void)state;
  uint64_t *stack = make_stack();
  asgst__stack_copy c;
  assert_int_equal(asgst__stack_copy_init(&c, PAGE), 0);
  size_t n = asgst__stack_copy_take(&c, (uintptr_t)stack, (uintptr_t)stack + 3 * PAGE);
  assert_int_equal(n, PAGE);
  assert_int_equal(c.hi, (uintptr_t)stack + PAGE);
  munmap(stack, (STACK_PAGES + 1) * PAGE);
  munmap(c.buf, c.cap);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_up_to_the_base_and_redirects_this_thread_only),
      cmocka_unit_test(stops_at_a_faulting_page),
      cmocka_unit_test(stops_at_capacity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
