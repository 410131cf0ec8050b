/* test_prof_kallsyms.c - the demo profiler's kernel symbol table (kallsyms.c), without a
 * JVM: from a kallsyms text, only text symbols are kept, sorted; an address names the
 * function at or below it with the _[k] mark and its start; an address below every
 * symbol gets a marked hex name; a file of hidden (zero) addresses gives an empty table
 * and a reason; and the machine's own /proc/kallsyms names a syscall entry point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profiler-demo/src/symbols/kallsyms.c"

static void forget(void) {
  free(syms), free(names);
  syms = NULL, names = NULL, nsyms = 0, why[0] = 0;
}

static void load_text(const char *text) {
  forget();
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  read_symbols(f);
  fclose(f);
}

static void test_lookup(void **state) {
  (void)state;
  /* Out of order, with data symbols and a module's, as the file has them. */
  load_text("ffffffff81200000 T vfs_write\n"
            "ffffffff81100000 t do_syscall_64\n"
            "ffffffff81180000 D some_data\n"
            "ffffffff81300000 T ksys_write\n"
            "ffffffffc0001000 t ext4_write_begin\t[ext4]\n"
            "ffffffff81000000 T _text\n");
  assert_int_equal(nsyms, 5);
  char buf[128];
  prof_kallsyms_name(0xffffffff81200010ull, buf, sizeof buf);
  assert_string_equal(buf, "vfs_write_[k]");
  prof_kallsyms_name(0xffffffff81180004ull, buf, sizeof buf); /* data is not a frame */
  assert_string_equal(buf, "do_syscall_64_[k]");
  prof_kallsyms_name(0xffffffff81300000ull, buf, sizeof buf);
  assert_string_equal(buf, "ksys_write_[k]");
  prof_kallsyms_name(0xffffffffc0001234ull, buf, sizeof buf);
  assert_string_equal(buf, "ext4_write_begin_[k]");
  assert_int_equal(prof_kallsyms_start(0xffffffff812000ffull), 0xffffffff81200000ull);
  prof_kallsyms_name(0xffffffff80000000ull, buf, sizeof buf);
  assert_string_equal(buf, "[kernel 0xffffffff80000000]_[k]");
}

static void test_hidden(void **state) {
  (void)state;
  load_text("0000000000000000 T _text\n0000000000000000 T vfs_write\n");
  assert_int_equal(nsyms, 0);
  assert_non_null(strstr(why, "kptr_restrict"));
}

static void test_this_kernel(void **state) {
  (void)state;
  forget();
  if (prof_kallsyms_load()) skip(); /* not root: the addresses are hidden */
  assert_true(nsyms > 1000);
  for (size_t i = 1; i < nsyms; i++) assert_true(syms[i - 1].addr <= syms[i].addr);
  /* Every x86_64 and arm64 6.x kernel has do_syscall_64 or invoke_syscall. */
  bool found = false;
  for (size_t i = 0; i < nsyms && !found; i++)
    found = strcmp(names + syms[i].name, "do_syscall_64") == 0 ||
            strcmp(names + syms[i].name, "invoke_syscall") == 0;
  assert_true(found);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_lookup), cmocka_unit_test(test_hidden),
                                     cmocka_unit_test(test_this_kernel)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  forget();
  return rc;
}
