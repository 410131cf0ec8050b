/* test_hs_elf_symtab.c - the .symtab lookup (impl/hotspot/model/elf_symtab.c) that finds libjvm's
 * unexported statics (JDK 21's ContinuationEntry::_return_pc), tried on this test program's
 * own file: the symbols of its globals must give their run-time addresses once the load bias
 * is added, a name that is only the tail of a longer name must still be found, and a name
 * absent from the table or a file that is no ELF must give 0. */
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "impl/hotspot/model/elf_symtab.h"

/* Not static, used: kept in .symtab under these names. The second name is a tail of the
 * first, which a linker may store once (the tail sharing the lookup must handle). */
int asgst_test_marker_long_tail = 1;
int marker_long_tail = 2;
static int local_marker = 3;

/* N. dl_iterate_phdr callback: the main program's load bias (its first entry). */
static int first_bias(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  *(uintptr_t *)data = info->dlpi_addr;
  return 1;
}

static uintptr_t bias(void) {
  uintptr_t b = 0;
  dl_iterate_phdr(first_bias, &b);
  return b;
}

static void finds_globals(void **state) {
  (void)state;
  uintptr_t b = bias();
  assert_int_equal(b + asgst__elf_file_symbol("/proc/self/exe", "asgst_test_marker_long_tail"),
                   (uintptr_t)&asgst_test_marker_long_tail);
  assert_int_equal(b + asgst__elf_file_symbol("/proc/self/exe", "marker_long_tail"),
                   (uintptr_t)&marker_long_tail);
}

static void finds_a_local_static(void **state) {
  (void)state;
  assert_int_equal(bias() + asgst__elf_file_symbol("/proc/self/exe", "local_marker"),
                   (uintptr_t)&local_marker);
  assert_int_equal(local_marker, 3);
}

static void absent_names_and_files_give_zero(void **state) {
  (void)state;
  assert_int_equal(asgst__elf_file_symbol("/proc/self/exe", "no_such_symbol_anywhere_xyz"), 0);
  /* A tail of a name that is no symbol's name by itself. */
  assert_int_equal(asgst__elf_file_symbol("/proc/self/exe", "g_tail"), 0);
  assert_int_equal(asgst__elf_file_symbol("/nonexistent/file", "marker_long_tail"), 0);
  char path[] = "/tmp/asgst_elf_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  static const char junk[256] = "not an ELF file";
  assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
  close(fd);
  assert_int_equal(asgst__elf_file_symbol(path, "marker_long_tail"), 0);
  unlink(path);
}

/* No libjvm is loaded in this process: the libjvm lookup says 0. */
static void no_libjvm_gives_zero(void **state) {
  (void)state;
  assert_int_equal(asgst__elf_libjvm_symbol("_ZN17ContinuationEntry10_return_pcE"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(finds_globals),
      cmocka_unit_test(finds_a_local_static),
      cmocka_unit_test(absent_names_and_files_give_zero),
      cmocka_unit_test(no_libjvm_gives_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
