/* test_errors.c - error names come from the one list in asgst.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "asgst.h"

static void names_match_the_list(void **state) {
  (void)state;
  assert_string_equal(ASGST_ErrorName(ASGST_NO_FRAME), "ASGST_NO_FRAME");
  assert_string_equal(ASGST_ErrorName(ASGST_ENQUEUE_FULL_QUEUE), "ASGST_ENQUEUE_FULL_QUEUE");
  assert_string_equal(ASGST_ErrorName(ASGST_WALK_FAULTED), "ASGST_WALK_FAULTED");
  assert_string_equal(ASGST_ErrorName(12345), "ASGST_UNKNOWN_ERROR");
}

static void library_codes_are_below_minus_16(void **state) {
  (void)state;
#define CHECK(name, value) if (value < -7) assert_true(value < -16);
  ASGST_ERROR_LIST(CHECK)
#undef CHECK
}

static void walks_without_backend_fail_cleanly(void **state) {
  (void)state;
  assert_int_equal(ASGST_RunWithIterator(NULL, 0, NULL, NULL), ASGST_NOT_INITIALIZED);
  assert_int_equal(ASGST_State(NULL), 0);
  ASGST_Frame f;
  memset(&f, 0xff, sizeof f);
  assert_true(ASGST_NextFrame(NULL, &f) < 0);
  assert_null(f.method);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_match_the_list),
      cmocka_unit_test(library_codes_are_below_minus_16),
      cmocka_unit_test(walks_without_backend_fail_cleanly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
