/*
 * test_native_cfi_debug_frame.c - objects without .eh_frame: a small library compiled
 * here without unwind tables but with debug information (so only .debug_frame describes
 * it), without frame pointers, and linked without .eh_frame_hdr. Its rules must agree
 * with readelf's, and a walk must step through it, which backtrace() (libgcc reads only
 * .eh_frame) cannot. Skipped without a C compiler or readelf.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <ucontext.h>
#include <cmocka.h>

#include "impl/native/cfi.h"
#include "tests/unit/native/readelf_frames.h"
#include "tests/unit/native/unwind_context.h"

/* The library: `through` calls back into the test with a frame of its own. */
static const char library_source[] =
    "int scale(int x) { return x * 3; }\n"
    "int through(int (*cb)(int), int x) {\n"
    "  volatile int keep[4] = {x, x + 1, x + 2, x + 3};\n"
    "  return cb(keep[1]) + scale(keep[2]) + keep[0];\n"
    "}\n";

static char dir[64], lib_path[128];
static void *lib;

static int setup(void **state) {
  (void)state;
  char cmd[512];
  snprintf(dir, sizeof dir, "/tmp/asgst_cfi_XXXXXX");
  if (!mkdtemp(dir)) return -1;
  snprintf(cmd, sizeof cmd, "%s/lib.c", dir);
  FILE *f = fopen(cmd, "w");
  if (!f) return -1;
  fputs(library_source, f);
  fclose(f);
  snprintf(lib_path, sizeof lib_path, "%s/libdebugframe.so", dir);
  snprintf(cmd, sizeof cmd,
           ASGST_TEST_CC " -O2 -g -fPIC -shared -fomit-frame-pointer -fno-asynchronous-unwind-tables "
           "-fno-unwind-tables -Wl,--no-eh-frame-hdr -o %s %s/lib.c 2>/dev/null",
           lib_path, dir);
  if (system(cmd) != 0) return -1;
  lib = dlopen(lib_path, RTLD_NOW);
  return lib ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  if (lib) dlclose(lib);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

struct loaded {
  uintptr_t base;
  bool has_eh_frame_hdr, found;
};

static int find_library(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct loaded *l = data;
  if (!info->dlpi_name || strcmp(info->dlpi_name, lib_path) != 0) return 0;
  l->found = true;
  l->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++)
    l->has_eh_frame_hdr |= info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME;
  return 1;
}

static void rules_come_from_debug_frame(void **state) {
  (void)state;
  struct loaded l = {0};
  dl_iterate_phdr(find_library, &l);
  assert_true(l.found);
  assert_false(l.has_eh_frame_hdr);
  assert_int_equal(asgst__cfi_build(), 0);
  assert_non_null(asgst__cfi_lookup((uintptr_t)dlsym(lib, "through"), false));
  compare_object("library with .debug_frame only", lib_path, ".debug_frame", l.base);
  asgst__cfi_shutdown();
}

enum { MAX = 128 };
static uintptr_t ours[MAX];
static int ours_n, stop_rc;

/* Called back by the library: unwinds from here while the stack stands. */
static int capture(int x) {
  ucontext_t uc;
  getcontext(&uc);
  ours_n = unwind_context(&uc, ours, MAX, &stop_rc);
  return x;
}

/* Exported (-rdynamic) so that dladdr names it. */
__attribute__((noinline)) int asgst_test_call_through_library(int x) {
  int (*through)(int (*)(int), int) = (int (*)(int (*)(int), int))dlsym(lib, "through");
  return through(capture, x) + 1;
}

static void a_walk_steps_through_the_library(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  asgst_test_call_through_library(5);
  assert_int_equal(stop_rc, ASGST_CFI_OUTERMOST);
  int in_library = -1;
  for (int i = 1; i < ours_n && in_library < 0; i++) {
    Dl_info at;
    if (dladdr((void *)ours[i], &at) && at.dli_sname && !strcmp(at.dli_sname, "through"))
      in_library = i;
  }
  assert_true(in_library > 0 && in_library + 1 < ours_n);
  Dl_info caller;
  assert_true(dladdr((void *)ours[in_library + 1], &caller) && caller.dli_sname);
  assert_string_equal(caller.dli_sname, "asgst_test_call_through_library");
  print_message("# figure: %d frames stepped to the outermost one, through the library at "
                "frame %d\n", ours_n, in_library);
  asgst__cfi_shutdown();
}

int main(void) {
  if (system("command -v cc >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1") != 0) {
    printf("1..0 # SKIP no C compiler or no readelf\n");
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rules_come_from_debug_frame),
      cmocka_unit_test(a_walk_steps_through_the_library),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
