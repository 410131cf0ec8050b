/*
 * test_native_cfi_unwind.c - stepping with the tables against an independent unwinder:
 * a chain of functions built without frame pointers calls qsort, whose comparator
 * captures its registers (getcontext, or a signal's ucontext) and glibc's backtrace()
 * (libgcc's unwinder) at the same point. Unwinding the captured registers with
 * asgst__cfi_step must give the same return addresses, through libc, to the end.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <ucontext.h>
#include <cmocka.h>

#include "impl/native/cfi.h"
#include "tests/unit/native/unwind_context.h"

/* The chain is built without frame pointers whatever the build's flags (they keep them
 * everywhere), and never inlined, so that each step needs the tables. */
#define NO_FP __attribute__((noinline, optimize("omit-frame-pointer")))

enum { MAX = 128 };

static ucontext_t captured;
static void *bt[MAX];
static int bt_n;
static volatile int capture_mode; /* 0: done, 1: getcontext, 2: signal */

static uintptr_t ours[MAX];
static int ours_n, stop_rc;
static void unwind(void);

/* The captured stack is unwound while it still stands (before the chain returns). */
static void on_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  captured = *(ucontext_t *)uc;
  bt_n = backtrace(bt, MAX);
  unwind();
}

static NO_FP int compare(const void *a, const void *b) {
  if (capture_mode == 1) {
    capture_mode = 0;
    getcontext(&captured);
    bt_n = backtrace(bt, MAX);
    unwind();
  } else if (capture_mode == 2) {
    capture_mode = 0;
    raise(SIGUSR1);
  }
  return *(const int *)a - *(const int *)b;
}

static NO_FP int chain3(int n) {
  int v[8];
  for (int i = 0; i < 8; i++) v[i] = (n * 7 + i * 13) % 8;
  qsort(v, 8, sizeof v[0], compare);
  return v[0] + v[7];
}

static NO_FP int chain2(int n) {
  volatile int keep = n;
  return chain3(n + 1) + keep;
}

static NO_FP int chain1(int n) {
  volatile int keep = n;
  return chain2(n + 1) * 2 + keep;
}

/* SS. The captured stack is unwound while it still stands. */
static void unwind(void) {
  ours_n = unwind_context(&captured, ours, MAX, &stop_rc);
}

/* Our frames from `from` on must be backtrace()'s from the frame holding pcs[from] on,
 * and backtrace() must have no frame beyond ours. */
static void compare_with_backtrace(const char *what, const uintptr_t *pcs, int n, int from) {
  int j = 0;
  while (j < bt_n && (uintptr_t)bt[j] != pcs[from]) j++;
  assert_true(j < bt_n);
  int same = 0, first = j;
  for (int i = from; i < n && j < bt_n; i++, j++) {
    if ((uintptr_t)bt[j] == pcs[i]) same++;
    else print_message("# %s frame %d: backtrace %p, ours %#lx\n", what, i, bt[j],
                       (unsigned long)pcs[i]);
  }
  print_message("# figure: %s: %d of backtrace()'s %d frames from there equal ours (%d in all)\n",
                what, same, bt_n - first, n - from);
  assert_int_equal(same, bt_n - first);
}

/* The frames of this binary (the comparator and the chain at least) are stepped with
 * rsp-based rules: they really have no frame pointer. */
static void chain_has_no_frame_pointer(const uintptr_t *pcs, int n) {
  Dl_info self, at;
  assert_true(dladdr((void *)unwind, &self));
  int sp_based = 0;
  for (int i = 0; i < n; i++) {
    const struct asgst_cfi_rule *r = asgst__cfi_lookup(pcs[i], i > 0);
    if (dladdr((void *)pcs[i], &at) && at.dli_fbase == self.dli_fbase && r &&
        r->cfa_reg == ASGST_CFA_SP)
      sp_based++;
  }
  assert_true(sp_based >= 4);
}

static void unwinds_from_getcontext_like_backtrace(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  capture_mode = 1;
  chain1(1);
  assert_int_equal(stop_rc, ASGST_CFI_OUTERMOST);
  assert_true(ours_n > 8);
  /* ours[0] is after getcontext's call, backtrace's own first frame after its call: the
   * comparator's caller (ours[1]) is the first frame both see. */
  compare_with_backtrace("getcontext", ours, ours_n, 1);
  chain_has_no_frame_pointer(ours, ours_n);
  asgst__cfi_shutdown();
}

static void unwinds_from_a_signal_like_backtrace(void **state) {
  (void)state;
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
  struct sigaction old;
  assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
  assert_int_equal(asgst__cfi_build(), 0);
  capture_mode = 2;
  chain1(1);
  sigaction(SIGUSR1, &old, NULL);
  assert_int_equal(stop_rc, ASGST_CFI_OUTERMOST);
  assert_true(ours_n > 8);
  /* backtrace() crosses the signal frame and then reports the interrupted pc itself. */
  compare_with_backtrace("signal", ours, ours_n, 0);
  chain_has_no_frame_pointer(ours, ours_n);
  asgst__cfi_shutdown();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(unwinds_from_getcontext_like_backtrace),
      cmocka_unit_test(unwinds_from_a_signal_like_backtrace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
