/* test_synthetic_guard.c - the crash guard under fire: thousands of walks over randomly
 * corrupted synthetic stacks in-process, and a fault outside any walk still reaching the
 * handler that was installed before the library's, with asynchronous signals blocked. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_synthetic_util.h"

static volatile sig_atomic_t child_handler_calls;

static void child_on_segv(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info, (void)uc;
  child_handler_calls++;
  /* The guard's handler serves a fault with every asynchronous signal blocked, as the
   * JVM's own does: a profiling signal landing here would walk with SIGSEGV blocked, and a
   * guarded fault of that walk would kill the process (found by the live-JVM fuzzer). */
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  if (!sigismember(&now, SIGPROF) || sigismember(&now, SIGBUS)) _exit(43);
  /* Only a fault outside a walk may get here; 42 tells the parent it did. */
  _exit(42);
}

/* Must run first in this process: the guard installs itself once per process, in front
 * of whatever handler is there at that moment, so the child must set its own handler
 * before any VM of this process was activated. */
static void fault_outside_a_walk_reaches_the_previous_handler(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = child_on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) _exit(1);
    ASGST_SynthVM *vm = ASGST_SynthCreateVM();
    if (vm == NULL || ASGST_SynthActivate(vm) != 0) _exit(2);
    /* A walk that faults is recovered by the guard and never reaches our handler. */
    ASGST_SynthStack *s = ASGST_SynthCreateStack(vm, 8192);
    ASGST_SynthBlob *stub = ASGST_SynthDeclareStub(vm, 64);
    ASGST_SynthPushStub(s, stub, 0);
    ASGST_SynthPushStub(s, stub, 8);
    ((uintptr_t *)ASGST_SynthFrameFp(s, 1))[0] = (uintptr_t)ASGST_SynthGuardPage(s, 1) + 16;
    walk w = {0};
    ucontext_t uc;
    ASGST_SynthContext(s, &uc);
    ASGST_RunWithIterator(&uc, ASGST_INCLUDE_NON_JAVA_FRAMES, collect, &w);
    if (w.last != ASGST_WALK_FAULTED) _exit(3);
    if (child_handler_calls != 0) _exit(4);
    /* Now a fault of the program itself, outside any walk. */
    volatile int *bad = ASGST_SynthUnmappedAddress();
    if (bad == NULL) _exit(5);
    (void)*bad;
    _exit(6); /* the fault did not happen or was swallowed */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 42);
}

/* ---- Random corruption ----------------------------------------------------------------- */

static ASGST_SynthVM *vm;
static ASGST_SynthStack *s;
static ASGST_Method methods[6];
static void *unmapped;

/* A mixed stack of 40 frames: interpreted, compiled with inlining, native, stub, C. */
static void build_world(void) {
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  ASGST_SynthAttachThread(vm);
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "g/Guard", NULL, 1, 1);
  for (int i = 0; i < 6; i++) {
    char name[8];
    snprintf(name, sizeof name, "m%d", i);
    methods[i] = simple_method(vm, k, name, i + 1);
  }
  ASGST_SynthBlob *c2 = ASGST_SynthDeclareCompiled(vm, methods[1], 4, 512);
  ASGST_SynthScope sc[] = {{methods[3], 1}, {methods[2], 2}, {methods[1], 3}};
  ASGST_SynthAddScopes(c2, 0, sc, 3);
  ASGST_SynthBlob *wrap = ASGST_SynthDeclareNativeWrapper(vm, methods[4]);
  ASGST_SynthBlob *stub = ASGST_SynthDeclareStub(vm, 64);
  s = ASGST_SynthCreateStack(vm, 16384);
  for (int i = 0; i < 40; i++) {
    int r;
    switch (i % 5) {
      case 0: r = ASGST_SynthPushInterpreted(s, methods[i % 6], i); break;
      case 1: r = ASGST_SynthPushCompiled(s, c2, (size_t)i); break;
      case 2: r = ASGST_SynthPushNative(s, wrap); break;
      case 3: r = ASGST_SynthPushStub(s, stub, 4); break;
      default: r = ASGST_SynthPushC(s, NULL); break;
    }
    assert_int_equal(r, i);
  }
  unmapped = ASGST_SynthUnmappedAddress();
  assert_non_null(unmapped);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A value to write into a frame word: all either fault, are rejected, or are memory the
 * walk may legitimately read (never heap memory, which ASan could call a bug). */
static uintptr_t bad_value(void) {
  uint64_t r = next_random();
  int frame = (int)((r >> 8) % 40);
  switch (r % 8) {
    case 0: return (uintptr_t)unmapped + ((r >> 16) % 512) * 8;
    case 1: return (uintptr_t)ASGST_SynthGuardPage(s, 0) + ((r >> 16) % 512) * 8;
    case 2: return (uintptr_t)ASGST_SynthGuardPage(s, 1) + ((r >> 16) % 512) * 8;
    case 3: return (uintptr_t)r | 0x8000000000000000ull; /* non-canonical */
    case 4: return (uintptr_t)ASGST_SynthFrameFp(s, frame); /* another frame: loops */
    case 5: return (uintptr_t)ASGST_SynthFrameSp(s, frame) + ((r >> 16) % 8) * 4;
    case 6: return (uintptr_t)(r >> 52); /* small: the NULL page */
    default: return 0;
  }
}

static bool known_method(ASGST_Method m) {
  for (int i = 0; i < 6; i++)
    if (methods[i] == m) return true;
  return false;
}

static void random_corruption_never_crashes(void **state) {
  (void)state;
  build_world();
  use_guard(NULL);
  int ended = 0, errors = 0, faulted = 0;
  long frames = 0;
  for (int iter = 0; iter < 10000; iter++) {
    /* Corrupt 1-3 words: the caller link, return pc, or an interpreter slot. */
    uintptr_t *where[3], saved[3];
    int n = 1 + (int)(next_random() % 3);
    for (int j = 0; j < n; j++) {
      uintptr_t *fp = ASGST_SynthFrameFp(s, (int)(next_random() % 40));
      static const int slots[] = {0, 1, -1, -2};
      where[j] = fp + slots[next_random() % 4];
      saved[j] = *where[j];
      *where[j] = bad_value();
    }
    walk w = {0};
    ucontext_t uc;
    ASGST_SynthContext(s, &uc);
    if (iter % 10 == 0) uc_set_fp(&uc, bad_value());
    int kind = ASGST_RunWithIterator(&uc, iter % 2 ? ASGST_INCLUDE_NON_JAVA_FRAMES : 0,
                                     collect, &w);
    for (int j = n - 1; j >= 0; j--) *where[j] = saved[j];
    assert_true(kind == ASGST_JAVA_TRACE || kind < 0);
    assert_true(w.last <= 0); /* ended by itself */
    frames += w.n;
    for (int i = 0; i < w.n; i++) {
      const ASGST_Frame *f = &w.frames[i];
      assert_true(f->type >= ASGST_FRAME_JAVA && f->type <= ASGST_FRAME_NON_JAVA);
      if (f->type == ASGST_FRAME_NON_JAVA) assert_null(f->method);
      else assert_true(known_method(f->method));
    }
    if (w.last == 0) {
      ended++;
    } else {
      errors++;
      faulted += w.last == ASGST_WALK_FAULTED;
      ASGST_Frame zero;
      memset(&zero, 0, sizeof zero);
      assert_memory_equal(&w.last_frame, &zero, sizeof zero);
    }
  }
  printf("# figure: guard: 10000 corrupted walks: %d ended, %d errors (%d faults caught), "
         "%ld frames\n", ended, errors, faulted, frames);
  assert_int_equal(ended + errors, 10000);
  assert_true(faulted > 100); /* the guard really was exercised */
  /* The pristine stack still walks completely afterwards. */
  walk w = {0};
  walk_stack(s, ASGST_INCLUDE_NON_JAVA_FRAMES, &w);
  assert_int_equal(w.last, 0);
  assert_int_equal(w.n, 40 + 8 * 2); /* 8 compiled frames with 2 inlined scopes each */
  ASGST_SynthDestroyStack(s);
  ASGST_SynthDestroyVM(vm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fault_outside_a_walk_reaches_the_previous_handler),
      cmocka_unit_test(random_corruption_never_crashes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
