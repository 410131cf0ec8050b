/*
 * test_scratch_libs.h - small shared libraries built by a unit test at run time, for the
 * tests of the C frame tables across library loads (test_native_cfi_reuse.c,
 * test_native_cfi_churn.c): COPIES files lib0.so ... of one C source in a fresh
 * directory under /tmp, copies rather than rebuilds so that every load maps a new object
 * with the same rows.
 */
#ifndef ASGST_TEST_SCRATCH_LIBS_H
#define ASGST_TEST_SCRATCH_LIBS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* N. Writes source to DIR/lib.c in a new directory made from template (its name goes to
 * dir, of size n), builds lib0.so with ASGST_TEST_CC and copies it to lib1.so ...
 * lib<copies-1>.so. Returns 0, 1 when no C compiler could build it (dir stays, empty of
 * libraries), -1 when the directory or a file could not be made. */
static inline int scratch_libs_make(char *dir, size_t n, const char *template, const char *source,
                                    int copies) {
  char cmd[512], path[256];
  snprintf(dir, n, "%s", template);
  if (!mkdtemp(dir)) return -1;
  snprintf(path, sizeof path, "%s/lib.c", dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(source, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, ASGST_TEST_CC " -O2 -fPIC -shared -o %s/lib0.so %s 2>/dev/null", dir, path);
  if (system(cmd) != 0) return 1;
  for (int i = 1; i < copies; i++) {
    snprintf(cmd, sizeof cmd, "cp %s/lib0.so %s/lib%d.so", dir, dir, i);
    if (system(cmd) != 0) return -1;
  }
  return 0;
}

/* N. Removes what scratch_libs_make made. Returns 0 or -1. */
static inline int scratch_libs_remove(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

#endif
