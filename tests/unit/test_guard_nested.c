/*
 * test_guard_nested.c - the crash guard takes only its own faults. Another agent with a
 * SIGSEGV protection of its own (guard_agent/other_agent.c, a shared object of its own,
 * installed before the library's guard, so the guard chains to it) faults on the walking
 * thread while a walk's guard is set: from its signal handler that interrupted the walk,
 * or called by the walk itself (here from a read logger the walk calls on every load),
 * with a load of its own code or with libc's memcpy. Each time the agent recovers its own
 * fault and the walk completes as it does without the agent; a fault of the walk itself
 * still ends it with ASGST_WALK_FAULTED.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "test_synthetic_util.h"
#include "impl/guard.h"
#include "impl/safe_read.h"
#include "guard_agent/other_agent.h"

enum { DEPTH = 20, HIT_AT_LOAD = 25 };

static ASGST_SynthVM *vm;
static ASGST_SynthStack *healthy, *broken;
static void *unmapped;

/* What the read logger does at the walk's HIT_AT_LOAD-th guarded load. */
typedef enum { NOTHING, RAISE_SIGNAL, AGENT_READS, AGENT_COPIES } interference;
static interference doing;
static int loads_seen;
static int agent_result = -1;

/* SS. The walk's read logger: reads live memory, and interferes once. */
static uintptr_t logger(uintptr_t a, size_t n) {
  (void)n;
  if (++loads_seen != HIT_AT_LOAD) return a;
  uintptr_t v = 0;
  switch (doing) {
    case RAISE_SIGNAL: pthread_kill(pthread_self(), SIGUSR1); break;
    case AGENT_READS: agent_result = other_agent_read(unmapped, &v); break;
    case AGENT_COPIES: agent_result = other_agent_copy(unmapped, &v); break;
    case NOTHING: break;
  }
  return a;
}

/* Walks s with the logger on (also without interference, so that only the interference
 * differs between the walks compared). */
static void walk_logged(ASGST_SynthStack *st, interference what, walk *w) {
  doing = what;
  loads_seen = 0;
  agent_result = -1;
  asgst__read_log(logger);
  walk_stack(st, ASGST_INCLUDE_NON_JAVA_FRAMES, w);
  asgst__read_log(NULL);
}

static void assert_same_walk(const walk *a, const walk *b) {
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->last, b->last);
  for (int i = 0; i < a->n; i++) assert_true(same_frame(&a->frames[i], &b->frames[i]));
}

/* Interpreted, compiled, native, stub and C frames; `broken` has a frame link into its
 * guard page, so its walk faults. */
static ASGST_SynthStack *make_stack(ASGST_Method *m, ASGST_SynthBlob *c2, ASGST_SynthBlob *stub) {
  ASGST_SynthStack *st = ASGST_SynthCreateStack(vm, 16384);
  assert_non_null(st);
  for (int i = 0; i < DEPTH; i++) {
    int r;
    switch (i % 4) {
      case 0: r = ASGST_SynthPushInterpreted(st, m[i % 3], i); break;
      case 1: r = ASGST_SynthPushCompiled(st, c2, (size_t)i); break;
      case 2: r = ASGST_SynthPushStub(st, stub, 4); break;
      default: r = ASGST_SynthPushC(st, NULL); break;
    }
    assert_int_equal(r, i);
  }
  return st;
}

/* Must run first: the agent's handler goes in before the library's guard, which then
 * chains to it. */
static void the_guard_sits_in_front_of_the_agent(void **state) {
  (void)state;
  assert_int_equal(other_agent_install(), 0);
  struct sigaction agents;
  sigaction(SIGSEGV, NULL, &agents);
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  ASGST_SynthAttachThread(vm);
  assert_true(guard_segv.sa_sigaction != agents.sa_sigaction);
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "g/Nested", NULL, 1, 1);
  ASGST_Method m[3] = {simple_method(vm, k, "a", 1), simple_method(vm, k, "b", 2),
                       simple_method(vm, k, "c", 3)};
  ASGST_SynthBlob *c2 = ASGST_SynthDeclareCompiled(vm, m[1], 4, 512);
  ASGST_SynthScope sc[] = {{m[2], 1}, {m[1], 2}};
  ASGST_SynthAddScopes(c2, 0, sc, 2);
  ASGST_SynthBlob *stub = ASGST_SynthDeclareStub(vm, 64);
  healthy = make_stack(m, c2, stub);
  broken = make_stack(m, c2, stub);
  ((uintptr_t *)ASGST_SynthFrameFp(broken, 3))[0] =
      (uintptr_t)ASGST_SynthGuardPage(broken, 1) + 16;
  unmapped = ASGST_SynthUnmappedAddress();
  assert_non_null(unmapped);
  other_agent_set_target(unmapped);
  /* The walks read through the logger, and far enough for the interference to land. */
  walk w = {0};
  walk_logged(healthy, NOTHING, &w);
  assert_int_equal(w.last, 0);
  assert_true(w.n >= DEPTH);
  assert_true(loads_seen > HIT_AT_LOAD);
}

/* The agent's profiling signal interrupts the walk; its handler's protected read faults. */
static void a_nested_handlers_fault_is_the_agents(void **state) {
  use_guard(state);
  for (int b = 0; b < 2; b++) {
    ASGST_SynthStack *st = b ? broken : healthy;
    walk ref = {0}, w = {0};
    walk_logged(st, NOTHING, &ref);
    other_agent_stats before = other_agent_seen();
    uint64_t guard_before = asgst__guard_faults();
    walk_logged(st, RAISE_SIGNAL, &w);
    other_agent_stats after = other_agent_seen();
    assert_int_equal(after.signals - before.signals, 1);
    assert_int_equal(after.signal_faults - before.signal_faults, 1);
    assert_int_equal(after.recovered - before.recovered, 1);
    assert_int_equal(after.unowned - before.unowned, 0);
    assert_int_equal(ref.last, b ? ASGST_WALK_FAULTED : 0);
    assert_same_walk(&w, &ref);
    /* The broken stack's walk fault is the guard's, as without the agent. */
    assert_int_equal(asgst__guard_faults() - guard_before, b ? 1 : 0);
  }
}

/* The walk calls the agent's code (as it would call any code outside the library), and
 * that code faults, by a load of its own or in libc's memcpy: not the guard's fault. */
static void a_fault_outside_the_library_goes_to_the_previous_handler(void **state) {
  use_guard(state);
  static const interference how[] = {AGENT_READS, AGENT_COPIES};
  for (int i = 0; i < 2; i++) {
    for (int b = 0; b < 2; b++) {
      ASGST_SynthStack *st = b ? broken : healthy;
      walk ref = {0}, w = {0};
      walk_logged(st, NOTHING, &ref);
      other_agent_stats before = other_agent_seen();
      uint64_t guard_before = asgst__guard_faults();
      walk_logged(st, how[i], &w);
      other_agent_stats after = other_agent_seen();
      assert_int_equal(agent_result, 0); /* the agent's read faulted and came back */
      assert_int_equal(after.recovered - before.recovered, 1);
      assert_int_equal(after.unowned - before.unowned, 0);
      assert_same_walk(&w, &ref);
      assert_int_equal(asgst__guard_faults() - guard_before, b ? 1 : 0);
    }
  }
  printf("# guard: the agent recovered %ld faults of its own inside walks\n",
         other_agent_seen().recovered);
}

/* Outside any walk the agent's protection works as without the library. */
static void outside_a_walk_the_agent_is_alone(void **state) {
  use_guard(state);
  uintptr_t v = 0, good = 42;
  long before = other_agent_seen().recovered;
  assert_int_equal(other_agent_read(unmapped, &v), 0);
  assert_int_equal(other_agent_copy(unmapped, &v), 0);
  assert_int_equal(other_agent_read(&good, &v), 1);
  assert_int_equal(v, 42);
  assert_int_equal(other_agent_seen().recovered - before, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_guard_sits_in_front_of_the_agent),
      cmocka_unit_test(a_nested_handlers_fault_is_the_agents),
      cmocka_unit_test(a_fault_outside_the_library_goes_to_the_previous_handler),
      cmocka_unit_test(outside_a_walk_the_agent_is_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
