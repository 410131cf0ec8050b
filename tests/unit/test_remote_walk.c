/*
 * test_remote_walk.c - ASGST_RunWithIteratorOnThread: walking live threads from another
 * thread, over intact and deliberately corrupted stacks, and its error answers.
 * Uses the synthetic VM only as the active backend (real C frames are NON_JAVA frames).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "asgst.h"
#include "asgst_synthetic.h"
#include "impl/guard.h"
#include "native/function_range.h"
#include "test_arch.h"
#include "test_guard_handlers.h"

static ASGST_SynthVM *vm;
static volatile int stop_spinning;
static volatile pid_t spinner_tid;

/* A known chain of C functions with frame pointers: chain_outer -> chain_middle ->
 * chain_inner, which spins. Exported (-rdynamic) so dladdr1 gives their sizes. */
__attribute__((noinline)) void chain_inner(void) {
  spinner_tid = (pid_t)syscall(SYS_gettid);
  while (!stop_spinning) asgst__cpu_relax();
}
__attribute__((noinline)) void chain_middle(void) {
  chain_inner();
  __asm__ volatile("" ::: "memory"); /* keeps the call from becoming a tail call */
}
__attribute__((noinline)) void chain_outer(void) {
  chain_middle();
  __asm__ volatile("" ::: "memory");
}

static void *chain_thread(void *arg) {
  (void)arg;
  chain_outer();
  return NULL;
}


typedef struct {
  ASGST_Frame frames[16];
  int n;
  int last;
} trace;

static void collect(ASGST_Iterator *it, void *arg) {
  trace *t = arg;
  t->n = 0;
  while (t->n < 16 && (t->last = ASGST_NextFrame(it, &t->frames[t->n])) > 0) t->n++;
}

static int setup(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  if (vm == NULL || ASGST_SynthActivate(vm) != 0) return -1;
  capture_guard();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyVM(vm);
  return 0;
}

static void start_spinner(pthread_t *th, void *(*fn)(void *), void *arg) {
  stop_spinning = 0;
  spinner_tid = 0;
  assert_int_equal(pthread_create(th, NULL, fn, arg), 0);
  while (spinner_tid == 0) sched_yield();
}

static void stop_spinner(pthread_t th) {
  stop_spinning = 1;
  pthread_join(th, NULL);
}

/* 1,000 walks of a live C thread from another thread all give its known chain. */
static void walks_live_c_chain(void **state) {
  use_guard(state);
  range inner = function_range((void *)chain_inner);
  range middle = function_range((void *)chain_middle);
  range outer = function_range((void *)chain_outer);
  assert_true(inner.end > inner.start && middle.end > middle.start && outer.end > outer.start);
  pthread_t th;
  start_spinner(&th, chain_thread, NULL);
  int good = 0, late = 0;
  for (int i = 0; i < 1000; i++) {
    trace t = {0};
    int kind = ASGST_RunWithIteratorOnThread(spinner_tid, ASGST_INCLUDE_NON_JAVA_FRAMES,
                                             100000, collect, &t);
    /* On a busy machine the spinner may get no CPU within the 100 ms: that walk is not
     * made (a figure); every walk that is made must be exact. */
    if (kind == ASGST_THREAD_NOT_ANSWERING) { late++; continue; }
    assert_int_equal(kind, ASGST_NON_JAVA_TRACE);
    assert_true(t.n >= 3);
    uintptr_t pc0 = (uintptr_t)t.frames[0].pc, pc1 = (uintptr_t)t.frames[1].pc,
              pc2 = (uintptr_t)t.frames[2].pc;
    if (pc0 >= inner.start && pc0 < inner.end && pc1 > middle.start && pc1 <= middle.end &&
        pc2 > outer.start && pc2 <= outer.end && t.frames[0].type == ASGST_FRAME_NON_JAVA)
      good++;
  }
  stop_spinner(th);
  print_message("# figure: out-of-thread walks of a live C chain: %d/%d exact (%d not answered within 100 ms)\n",
                good, 1000 - late, late);
  assert_true(late < 100);
  assert_int_equal(good, 1000 - late);
}

/* Spins with the frame pointer = fake_fp (first argument) until *stop (second) is
 * non-zero; written in assembly so no compiled code depends on the frame pointer
 * meanwhile. */
void spin_with_fp(void *fake_fp, volatile int *stop);
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl spin_with_fp\n"
        "spin_with_fp:\n"
        "  push %rbp\n"
        "  mov %rdi, %rbp\n"
        "1: pause\n"
        "  cmpl $0, (%rsi)\n"
        "  je 1b\n"
        "  pop %rbp\n"
        "  ret\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl spin_with_fp\n"
        "spin_with_fp:\n"
        "  stp x29, x30, [sp, #-16]!\n"
        "  mov x29, x0\n"
        "1: yield\n"
        "  ldr w2, [x1]\n"
        "  cbz w2, 1b\n"
        "  ldp x29, x30, [sp], #16\n"
        "  ret\n");
#endif

static uintptr_t *volatile corrupt_region;
static volatile uintptr_t fake_fp;

static void *corrupt_thread(void *arg) {
  (void)arg;
  spinner_tid = (pid_t)syscall(SYS_gettid);
  spin_with_fp((void *)fake_fp, &stop_spinning);
  return NULL;
}

enum { REGION_WORDS = 4096 };

/* Fills the region with words a torn stack might hold: pointers into unmapped or
 * PROT_NONE memory, into the region itself (up, down, to themselves), small numbers. */
static void scramble(uintptr_t *region, uintptr_t hole, uintptr_t prot_none, unsigned *seed) {
  for (int i = 0; i < REGION_WORDS; i++) {
    uintptr_t self = (uintptr_t)&region[i];
    switch (rand_r(seed) % 7) {
      case 0: region[i] = hole + (rand_r(seed) % 4096 & ~7u); break;
      case 1: region[i] = prot_none + (rand_r(seed) % 4096 & ~7u); break;
      case 2: region[i] = self; break;
      case 3: region[i] = self + 8 * (rand_r(seed) % 64) - 256; break;
      case 4: region[i] = (uintptr_t)&region[rand_r(seed) % REGION_WORDS]; break;
      case 5: region[i] = rand_r(seed); break;
      default: region[i] = ((uintptr_t)rand_r(seed) << 32) ^ rand_r(seed); break;
    }
  }
}

typedef struct {
  int walks, errors, ends, late, failed; /* failed: walks that gave neither a trace nor late */
} corrupt_run;

/* Walks the corrupt thread run->walks times, scrambling its stack every 10 walks. */
static void walk_corrupted(corrupt_run *run, uintptr_t *region, uintptr_t hole,
                           uintptr_t prot_none, unsigned *seed) {
  for (int i = 0; i < run->walks; i++) {
    if (i % 10 == 0) scramble(region, hole, prot_none, seed);
    trace t = {0};
    int kind = ASGST_RunWithIteratorOnThread(spinner_tid, ASGST_INCLUDE_NON_JAVA_FRAMES,
                                             100000, collect, &t);
    /* On a loaded machine the target may not run within the 100 ms timeout: that answer
     * is allowed now and then, any other failure is not. */
    if (kind == ASGST_THREAD_NOT_ANSWERING) {
      run->late++;
    } else if (kind <= 0) {
      run->failed++;
    } else if (t.last < 0) {
      run->errors++;
    } else {
      run->ends++;
    }
  }
}

typedef struct {
  corrupt_run *run;
  uintptr_t *region, hole, prot_none;
  unsigned *seed;
} blocked_walker_args;

/* A profiler's sampler thread typically blocks every signal (so that the profiling
 * signals go to the threads they sample). The library must still catch its own faults
 * there: a synchronous SIGSEGV that is blocked kills the process. */
static void *blocked_walker(void *arg) {
  blocked_walker_args *a = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  walk_corrupted(a->run, a->region, a->hole, a->prot_none, a->seed);
  sigset_t after;
  pthread_sigmask(SIG_BLOCK, NULL, &after);
  /* The caller's mask is its own: the walks left it as it was. */
  a->run->failed += !sigismember(&after, SIGSEGV) || !sigismember(&after, SIGBUS);
  return NULL;
}

/* 10,000 out-of-thread walks of a thread whose frame chain is garbage, then 2,000 more
 * from a walker thread that blocks every signal: every walk ends (error or end of stack),
 * the process survives, and the guard caught real faults in both. */
static void survives_corrupted_remote_stacks(void **state) {
  use_guard(state);
  /* [region][PROT_NONE page][unmapped page]: both bad pages lie above the region, where a
   * frame chain growing toward the stack base would lead a walker. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = REGION_WORDS * 8;
  uint8_t *map = mmap(NULL, bytes + 2 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(map != MAP_FAILED);
  uintptr_t *region = (uintptr_t *)map;
  uintptr_t prot_none = (uintptr_t)map + bytes, hole = prot_none + page;
  mprotect((void *)prot_none, page, PROT_NONE);
  munmap((void *)hole, page);
  unsigned seed = 12345;
  scramble(region, hole, prot_none, &seed);
  corrupt_region = region;
  fake_fp = (uintptr_t)&region[REGION_WORDS / 2];
  uint64_t faults_before = asgst__guard_faults();
  pthread_t th;
  start_spinner(&th, corrupt_thread, NULL);
  corrupt_run here = {.walks = 10000};
  walk_corrupted(&here, region, hole, prot_none, &seed);
  uint64_t faults_here = asgst__guard_faults() - faults_before;
  corrupt_run blocked = {.walks = 2000};
  blocked_walker_args args = {&blocked, region, hole, prot_none, &seed};
  pthread_t walker;
  assert_int_equal(pthread_create(&walker, NULL, blocked_walker, &args), 0);
  pthread_join(walker, NULL);
  uint64_t faults_blocked = asgst__guard_faults() - faults_before - faults_here;
  stop_spinner(th);
  print_message("# figure: %d + %d walks not answered within 100 ms (a busy machine)\n",
                here.late, blocked.late);
  print_message("# figure: 10000 corrupted out-of-thread walks: %d errors, %d ended, "
                "%llu faults caught\n", here.errors, here.ends,
                (unsigned long long)faults_here);
  print_message("# figure: 2000 more from a walker blocking every signal: %d errors, "
                "%d ended, %llu faults caught\n", blocked.errors, blocked.ends,
                (unsigned long long)faults_blocked);
  assert_int_equal(here.failed + blocked.failed, 0);
  assert_true(here.late <= 100 && blocked.late <= 20);
  assert_true(here.errors > 0 && blocked.errors > 0);
  assert_true(faults_here > 0 && faults_blocked > 0);
  munmap(map, bytes + page);
}

static void *blocked_thread(void *arg) {
  (void)arg;
  sigset_t all;
  sigemptyset(&all);
  for (int s = SIGRTMIN; s <= SIGRTMAX; s++) sigaddset(&all, s);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  spinner_tid = (pid_t)syscall(SYS_gettid);
  while (!stop_spinning) usleep(1000);
  return NULL;
}

/* A target that never answers gives ASGST_THREAD_NOT_ANSWERING within the timeout, and
 * the next walk of an answering thread still works. */
static void target_that_never_answers(void **state) {
  (void)state;
  pthread_t th;
  start_spinner(&th, blocked_thread, NULL);
  trace t = {0};
  assert_int_equal(ASGST_RunWithIteratorOnThread(spinner_tid, 0, 20000, collect, &t),
                   ASGST_THREAD_NOT_ANSWERING);
  stop_spinner(th);
  start_spinner(&th, chain_thread, NULL);
  assert_int_equal(ASGST_RunWithIteratorOnThread(spinner_tid, ASGST_INCLUDE_NON_JAVA_FRAMES,
                                                 100000, collect, &t),
                   ASGST_NON_JAVA_TRACE);
  assert_true(t.n >= 3);
  stop_spinner(th);
}

static void bad_targets(void **state) {
  (void)state;
  trace t = {0};
  assert_int_equal(ASGST_RunWithIteratorOnThread(0, 0, 1000, collect, &t),
                   ASGST_INVALID_ARGUMENT);
  assert_int_equal(ASGST_RunWithIteratorOnThread(0x3fffffff, 0, 1000, collect, &t),
                   ASGST_THREAD_NOT_FOUND);
  /* No tid is above INT32_MAX; cut to a pid_t this one would name the calling thread. */
  assert_int_equal(ASGST_RunWithIteratorOnThread((int64_t)syscall(SYS_gettid) + (1LL << 32), 0,
                                                 1000, collect, &t),
                   ASGST_INVALID_ARGUMENT);
  /* Walking oneself walks here. */
  int kind = ASGST_RunWithIteratorOnThread((int64_t)syscall(SYS_gettid),
                                           ASGST_INCLUDE_NON_JAVA_FRAMES, 1000, collect, &t);
  assert_int_equal(kind, ASGST_NON_JAVA_TRACE);
  assert_true(t.n >= 1);
}

/* With the user's queued-signal quota used up, the walk request cannot be sent: the answer
 * says so instead of claiming the thread does not exist. A limit of 0 makes every queued
 * real-time signal of this process count as over quota. */
static void quota_full(void **state) {
  (void)state;
  pthread_t th;
  start_spinner(&th, chain_thread, NULL);
  struct rlimit old, none;
  assert_int_equal(getrlimit(RLIMIT_SIGPENDING, &old), 0);
  none = old;
  none.rlim_cur = 0;
  assert_int_equal(setrlimit(RLIMIT_SIGPENDING, &none), 0);
  trace t = {0};
  int r = ASGST_RunWithIteratorOnThread(spinner_tid, 0, 100000, collect, &t);
  setrlimit(RLIMIT_SIGPENDING, &old);
  assert_int_equal(r, ASGST_SIGNAL_NOT_DELIVERED);
  assert_string_equal(ASGST_ErrorName(r), "ASGST_SIGNAL_NOT_DELIVERED");
  assert_int_equal(ASGST_RunWithIteratorOnThread(spinner_tid, ASGST_INCLUDE_NON_JAVA_FRAMES,
                                                 100000, collect, &t),
                   ASGST_NON_JAVA_TRACE);
  stop_spinner(th);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(walks_live_c_chain),
      cmocka_unit_test(survives_corrupted_remote_stacks),
      cmocka_unit_test(target_that_never_answers),
      cmocka_unit_test(bad_targets),
      cmocka_unit_test(quota_full),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
