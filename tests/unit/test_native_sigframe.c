/*
 * test_native_sigframe.c - stepping with the tables through signal frames
 * (impl/native/sigframe.h): a walk that starts inside a signal handler reaches, after the
 * signal return trampoline, the frames of the code the signal interrupted.
 *
 * A thread spins in sig_spin_inner (called by sig_spin_outer); another thread sends it
 * SIGUSR1, whose handler runs a chain of C functions (sig_handler_outer,
 * sig_handler_inner), which captures a context there, either with getcontext() or as the
 * ucontext of a nested SIGUSR2 that it raises, and unwinds it with asgst__cfi_step
 * (tests/unit/native/unwind_context.h). A third case has both signals pending when they
 * are unblocked: the kernel (or qemu-user) sets up SIGUSR1's frame and then SIGUSR2's on
 * top of it, so that SIGUSR2's handler finds SIGUSR1's handler at its first instruction,
 * as a profiler's signal finds another agent's handler just begun. A last case installs
 * SIGUSR1 with a trampoline of this file (SA_RESTORER, by the raw system call), in no
 * table: recognized by its code alone. Functions are found by their dladdr1 ranges
 * (-rdynamic), the trampoline by its code.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <cmocka.h>

#include "impl/native/cfi.h"
#include "impl/native/sigframe.h"
#include "tests/unit/native/function_range.h"
#include "tests/unit/native/unwind_context.h"

enum { MAX = 128 };
enum { MODE_GETCONTEXT = 1, MODE_NESTED = 2 };

static volatile int mode, spinning, stop_spinning;
static pthread_t spinner;
static ucontext_t captured;
static uintptr_t pcs[MAX];
/* Written in signal handlers: volatile, read afresh after the calls that let them run. */
static volatile int npcs, stop_rc, nsignals;

/* The captured stack is unwound while it still stands. SS. */
static void unwind(void) {
  int stop, nsig;
  npcs = unwind_context_counting(&captured, pcs, MAX, &stop, &nsig);
  stop_rc = stop;
  nsignals = nsig;
}

/* Exported for dladdr1; never inlined, and no tail calls (the barriers). */
__attribute__((noinline)) void sig_spin_inner(void) {
  spinning = 1;
  while (!stop_spinning) asgst__cpu_relax();
}
__attribute__((noinline)) void sig_spin_outer(void) {
  sig_spin_inner();
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void sig_handler_inner(void) {
  if (mode == MODE_GETCONTEXT) {
    getcontext(&captured);
    unwind();
  } else {
    raise(SIGUSR2);
  }
  __asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) void sig_handler_outer(void) {
  sig_handler_inner();
  __asm__ volatile("" ::: "memory");
}

void sig_on_usr1(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info, (void)uc;
  if (mode) sig_handler_outer();
  stop_spinning = 1;
}

void sig_on_usr2(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info;
  captured = *(ucontext_t *)uc;
  unwind();
}

/* The function's bytes, which must be known. */
static range known_range(void *fn) {
  range r = function_range(fn);
  assert_true(r.end > r.start);
  return r;
}

/* True if pc lies in fn: exactly (an interrupted pc), or as a return address (after a
 * call, possibly at the function's end). */
static bool in(uintptr_t pc, void *fn, bool exact) {
  range r = known_range(fn);
  return exact ? pc >= r.start && pc < r.end : pc > r.start && pc <= r.end;
}

/* The index of the first pc from `from` on in fn, -1 if none. */
static int find(void *fn, int from, bool exact) {
  for (int i = from; i < npcs; i++)
    if (in(pcs[i], fn, exact)) return i;
  return -1;
}

static bool read_code(void *ctx, uintptr_t a, uintptr_t *v) { return read_live_word(ctx, a, v); }

/* The walk went on into the interrupted code: the handler frame at h, then the
 * trampoline (its code a trampoline's, no usable table rule), the interrupted pc itself in
 * sig_spin_inner, its caller, and on to the thread's outermost frame. */
static void crosses_into_spinner(const char *what, int h) {
  assert_true(h >= 0 && h + 3 < npcs);
  uintptr_t tramp = pcs[h + 1];
  assert_true(asgst__is_sigreturn(tramp, read_code, NULL));
  const struct asgst_cfi_rule *rule = asgst__cfi_lookup(tramp, true);
  assert_true(rule == NULL || rule->cfa_reg == ASGST_CFA_SIGNAL || rule->cfa_reg == ASGST_CFA_EXPR);
  assert_true(in(pcs[h + 2], (void *)sig_spin_inner, true));
  assert_true(in(pcs[h + 3], (void *)sig_spin_outer, false));
  assert_int_equal(stop_rc, ASGST_CFI_OUTERMOST);
  assert_int_equal(nsignals, 1);
  print_message("# figure: %s: %d frames, the trampoline at frame %d (%s), then sig_spin_inner, "
                "sig_spin_outer, ... to the outermost frame\n",
                what, npcs, h + 1, rule ? "its CIE says 'S'" : "in no table");
}

static void *send_usr1(void *arg) {
  (void)arg;
  while (!spinning) sched_yield();
  pthread_kill(spinner, SIGUSR1);
  return NULL;
}

/* Spins in sig_spin_inner until SIGUSR1's handler (installed by the caller) has run. */
static void interrupt_spinner(int m) {
  mode = m;
  spinning = stop_spinning = 0;
  npcs = 0;
  spinner = pthread_self();
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, send_usr1, NULL), 0);
  sig_spin_outer();
  pthread_join(t, NULL);
  mode = 0;
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old) {
  struct sigaction sa = {.sa_sigaction = fn, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(sig, &sa, old), 0);
}

/* getcontext() in the handler's chain: handler frames, trampoline, interrupted code. */
static void from_getcontext_in_a_handler(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  struct sigaction old;
  install(SIGUSR1, sig_on_usr1, &old);
  interrupt_spinner(MODE_GETCONTEXT);
  sigaction(SIGUSR1, &old, NULL);
  assert_true(in(pcs[0], (void *)sig_handler_inner, true));
  assert_true(in(pcs[1], (void *)sig_handler_outer, false));
  crosses_into_spinner("getcontext in a handler", find((void *)sig_on_usr1, 2, false));
  asgst__cfi_shutdown();
}

/* A nested signal's context: the walk crosses libc's raise(), the handler chain, then the
 * first signal's frame. */
static void from_a_nested_signal(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  struct sigaction old1, old2;
  install(SIGUSR1, sig_on_usr1, &old1);
  install(SIGUSR2, sig_on_usr2, &old2);
  interrupt_spinner(MODE_NESTED);
  sigaction(SIGUSR1, &old1, NULL);
  sigaction(SIGUSR2, &old2, NULL);
  int inner = find((void *)sig_handler_inner, 0, false);
  assert_true(inner >= 0);
  assert_true(in(pcs[inner + 1], (void *)sig_handler_outer, false));
  crosses_into_spinner("a nested signal", find((void *)sig_on_usr1, inner + 2, false));
  asgst__cfi_shutdown();
}

__attribute__((noinline)) void sig_unblock_both(const sigset_t *set) {
  pthread_sigmask(SIG_UNBLOCK, set, NULL);
  __asm__ volatile("" ::: "memory");
}

/* Both signals pending at once: SIGUSR2's context is SIGUSR1's handler at its first
 * instruction; the walk goes from there through SIGUSR1's frame into the code the two
 * interrupted (pthread_sigmask in sig_unblock_both). */
static void from_a_handler_at_its_first_instruction(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  struct sigaction old1, old2;
  install(SIGUSR1, sig_on_usr1, &old1);
  install(SIGUSR2, sig_on_usr2, &old2);
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  npcs = 0;
  mode = 0;
  pthread_sigmask(SIG_BLOCK, &both, NULL);
  pthread_kill(pthread_self(), SIGUSR1);
  pthread_kill(pthread_self(), SIGUSR2);
  sig_unblock_both(&both);
  sigaction(SIGUSR1, &old1, NULL);
  sigaction(SIGUSR2, &old2, NULL);
  assert_true(npcs >= 4);
  assert_int_equal(pcs[0], (uintptr_t)sig_on_usr1);
  assert_true(asgst__is_sigreturn(pcs[1], read_code, NULL));
  int caller = find((void *)sig_unblock_both, 2, false);
  assert_true(caller > 2);
  assert_int_equal(stop_rc, ASGST_CFI_OUTERMOST);
  assert_int_equal(nsignals, 1);
  print_message("# figure: from a handler's first instruction: %d frames, the trampoline at "
                "frame 1, sig_unblock_both at frame %d\n", npcs, caller);
  asgst__cfi_shutdown();
}

/* A trampoline of our own, without call frame information (in no table's rows). */
void sig_own_restorer(void);
#if defined(__x86_64__)
__asm__(".text\n.globl sig_own_restorer\n.type sig_own_restorer,@function\n"
        "sig_own_restorer:\n  mov $15, %rax\n  syscall\n  hlt\n"
        ".size sig_own_restorer, .-sig_own_restorer\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl sig_own_restorer\n.type sig_own_restorer,%function\n"
        "sig_own_restorer:\n  mov x8, #139\n  svc #0\n  brk #0\n"
        ".size sig_own_restorer, .-sig_own_restorer\n");
#endif

/* The kernel's struct sigaction (rt_sigaction), the same on x86_64 and arm64. */
struct kernel_sigaction {
  void (*handler)(int, siginfo_t *, void *);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};
#define KERNEL_SA_RESTORER 0x04000000UL

/* SIGUSR1 installed with our trampoline (SA_RESTORER, as a JVM or agent may): the walk
 * from getcontext in the handler goes through it. */
static void through_a_trampoline_installed_with_sa_restorer(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  struct sigaction old;
  sigaction(SIGUSR1, NULL, &old);
  struct kernel_sigaction ka = {.handler = sig_on_usr1,
                                .flags = SA_SIGINFO | KERNEL_SA_RESTORER,
                                .restorer = sig_own_restorer};
  assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, sizeof ka.mask), 0);
  interrupt_spinner(MODE_GETCONTEXT);
  sigaction(SIGUSR1, &old, NULL);
  int h = find((void *)sig_on_usr1, 0, false);
  assert_true(h >= 0 && h + 1 < npcs);
  assert_int_equal(pcs[h + 1], (uintptr_t)sig_own_restorer);
  crosses_into_spinner("own SA_RESTORER trampoline", h);
  asgst__cfi_shutdown();
}

/* Words that follow a trampoline's address but are no kernel's signal frame (uc_link
 * set): refused, *frame unchanged. A pc that is no trampoline: no rule. */
static void a_frame_that_is_no_signal_frame_is_refused(void **state) {
  (void)state;
  _Alignas(16) uintptr_t fake[1024];
  memset(fake, 0, sizeof fake);
  uintptr_t uc = (uintptr_t)fake + ASGST__SIGFRAME_UC;
  *(uintptr_t *)(uc + offsetof(ucontext_t, uc_link)) = (uintptr_t)fake;
  struct asgst_cfi_frame f = {.pc = (uintptr_t)sig_own_restorer, .sp = (uintptr_t)fake};
  assert_int_equal(asgst__sigframe_step(&f, false, read_code, NULL), ASGST_CFI_BAD_READ);
  assert_int_equal(f.pc, (uintptr_t)sig_own_restorer);
  f.pc = (uintptr_t)sig_spin_inner;
  assert_int_equal(asgst__sigframe_step(&f, false, read_code, NULL), ASGST_CFI_NO_RULE);
  /* Interrupted on the trampoline's last instruction (top): still one. */
  f.pc = (uintptr_t)sig_own_restorer + ASGST__SIGRETURN_LAST;
  assert_int_equal(asgst__sigframe_step(&f, true, read_code, NULL), ASGST_CFI_BAD_READ);
  assert_int_equal(asgst__sigframe_step(&f, false, read_code, NULL), ASGST_CFI_NO_RULE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(from_getcontext_in_a_handler),
      cmocka_unit_test(from_a_nested_signal),
      cmocka_unit_test(from_a_handler_at_its_first_instruction),
      cmocka_unit_test(through_a_trampoline_installed_with_sa_restorer),
      cmocka_unit_test(a_frame_that_is_no_signal_frame_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
