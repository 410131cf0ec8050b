/*
 * test_native_cfi_readelf.c - the tables against an independent decoder (binutils'
 * readelf, tests/unit/native/readelf_frames.h): the .eh_frame rules of libc, of this
 * test binary and of every other loaded library at 2,000 random pcs each.
 */
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "impl/native/cfi.h"
#include "tests/unit/native/readelf_frames.h"

struct found {
  const char *needle;
  char path[4096];
  uintptr_t base;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct found *f = data;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (f->path[0] || (f->needle[0] ? !strstr(name, f->needle) : name[0] != 0)) return 0;
  /* The main program has no name; "/proc/self/exe" in readelf's command would be readelf. */
  if (name[0]) snprintf(f->path, sizeof f->path, "%s", name);
  else if (readlink("/proc/self/exe", f->path, sizeof f->path - 1) < 0) f->path[0] = 0;
  f->base = info->dlpi_addr;
  return 1;
}

static void libc_agrees_with_readelf(void **state) {
  (void)state;
  struct found f = {.needle = "libc.so"};
  dl_iterate_phdr(find_object, &f);
  assert_true(f.path[0] != 0);
  assert_int_equal(asgst__cfi_build(), 0);
  srand(1);
  compare_object("libc", f.path, ".eh_frame", f.base);
  asgst__cfi_shutdown();
}

static void this_binary_agrees_with_readelf(void **state) {
  (void)state;
  struct found f = {.needle = ""};
  dl_iterate_phdr(find_object, &f);
  assert_true(f.path[0] != 0);
  assert_int_equal(asgst__cfi_build(), 0);
  srand(2);
  compare_object("test binary", f.path, ".eh_frame", f.base);
  asgst__cfi_shutdown();
}

/* Every other library with a file (the sanitizer runtime, cmocka, libm, ...). */
static int compare_library(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  int *compared = data;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (!name[0] || strstr(name, "libc.so") || access(name, R_OK) != 0) return 0;
  const char *slash = strrchr(name, '/');
  compare_object(slash ? slash + 1 : name, name, ".eh_frame", info->dlpi_addr);
  ++*compared;
  return 0;
}

static void other_libraries_agree_with_readelf(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  srand(3);
  int compared = 0;
  dl_iterate_phdr(compare_library, &compared);
  assert_true(compared >= 2);
  asgst__cfi_shutdown();
}

int main(void) {
  if (system("command -v readelf >/dev/null 2>&1") != 0) {
    printf("1..0 # SKIP readelf (binutils) not found\n");
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(libc_agrees_with_readelf),
      cmocka_unit_test(this_binary_agrees_with_readelf),
      cmocka_unit_test(other_libraries_agree_with_readelf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
