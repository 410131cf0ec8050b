/* test_synthetic_errors.c - every error path of a walk: an error code, zeroed frame fields,
 * never a crash and never an endless walk. */
#include <stdlib.h>

#include "test_synthetic_util.h"

static ASGST_SynthVM *vm;
static ASGST_Class k;
static ASGST_Method m_a, m_b;
static ASGST_SynthBlob *c1;

static int setup(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  ASGST_SynthAttachThread(vm);
  k = ASGST_SynthDeclareClass(vm, "err/A", NULL, 1, 1);
  m_a = simple_method(vm, k, "a", 1);
  m_b = simple_method(vm, k, "b", 2);
  c1 = ASGST_SynthDeclareCompiled(vm, m_b, 1, 64);
  ASGST_SynthScope sc = {m_b, 4};
  assert_int_equal(ASGST_SynthAddScopes(c1, 0, &sc, 1), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyVM(vm);
  return 0;
}

/* A stack of n frames alternating interpreted and compiled, interpreted at the bottom. */
static ASGST_SynthStack *make_stack(int n) {
  ASGST_SynthStack *s = ASGST_SynthCreateStack(vm, 4096 + (size_t)n * 128);
  assert_non_null(s);
  for (int i = 0; i < n; i++) {
    int r = i % 2 ? ASGST_SynthPushCompiled(s, c1, 8) : ASGST_SynthPushInterpreted(s, m_a, i);
    assert_int_equal(r, i);
  }
  return s;
}

static void assert_zero_frame(const ASGST_Frame *f) {
  ASGST_Frame zero;
  memset(&zero, 0, sizeof zero);
  assert_memory_equal(f, &zero, sizeof zero);
}

/* The walk ended with an error after `frames_ok` good frames; its frame was zeroed. */
static void assert_walk_error(const walk *w, int expected) {
  assert_true(w->last < 0);
  if (expected) assert_int_equal(w->last, expected);
  assert_int_equal(w->state_after, w->last);
  assert_zero_frame(&w->last_frame);
}

static void null_iterator_and_frame(void **state) {
  (void)state;
  ASGST_Frame f;
  memset(&f, 0x5a, sizeof f);
  assert_int_equal(ASGST_NextFrame(NULL, &f), ASGST_INVALID_ARGUMENT);
  assert_zero_frame(&f);
  assert_int_equal(ASGST_NextFrame(NULL, NULL), ASGST_INVALID_ARGUMENT);
  assert_int_equal(ASGST_State(NULL), 0);
  ASGST_RewindIterator(NULL);
}

static void null_frame_pointer_argument(ASGST_Iterator *it, void *arg) {
  *(int *)arg = ASGST_NextFrame(it, NULL);
}

static void null_frame_argument(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(2);
  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  int r = 1;
  ASGST_RunWithIterator(&uc, 0, null_frame_pointer_argument, &r);
  assert_int_equal(r, ASGST_INVALID_ARGUMENT);
  ASGST_SynthDestroyStack(s);
}

static void no_active_backend(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(2);
  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  ASGST_SynthDestroyStack(s);
  /* A second VM, activated then destroyed, leaves no backend behind. */
  ASGST_SynthVM *other = ASGST_SynthCreateVM();
  assert_int_equal(ASGST_SynthActivate(other), 0);
  ASGST_SynthDestroyVM(other);
  walk w = {0};
  assert_int_equal(ASGST_RunWithIterator(&uc, 0, collect, &w), ASGST_NOT_INITIALIZED);
  assert_int_equal(w.state_before, ASGST_NOT_INITIALIZED);
  assert_int_equal(w.n, 0);
  assert_walk_error(&w, ASGST_NOT_INITIALIZED);
  assert_int_equal(ASGST_ThreadState(), ASGST_NOT_INITIALIZED);
  assert_int_equal(ASGST_RunWithIteratorFromFrame(NULL, NULL, NULL, 0, NULL, NULL),
                   ASGST_NOT_INITIALIZED);
  assert_int_equal(ASGST_SynthActivate(vm), 0);
}

static void garbage_registers_are_rejected(void **state) {
  (void)state;
  struct { uintptr_t pc, sp, fp; } cases[] = {
      {0, 0, 0},                                     /* all zero */
      {0x7f0000001000, 0, 0x7f0000002000},           /* sp NULL */
      {0, 0x7f0000001000, 0x7f0000002000},           /* pc NULL */
      {0x400000, 0x7f0000001003, 0},                 /* misaligned sp */
      {0xdeadbeefdeadbeef, 0x8000000000000000, 1},   /* non-canonical */
      {0x1234, 0x7f0000001000, 0},                   /* pc in the NULL page area */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    walk w = {0};
    int r = ASGST_RunWithIteratorFromFrame((void *)cases[i].sp, (void *)cases[i].fp,
                                           (void *)cases[i].pc, 0, collect, &w);
    assert_int_equal(r, ASGST_BAD_FRAME);
    assert_int_equal(w.state_before, ASGST_BAD_FRAME);
    assert_walk_error(&w, ASGST_BAD_FRAME);
  }
}

/* Fully random 64-bit registers: almost never canonical, always rejected or ended. */
static void random_ucontexts_never_crash(void **state) {
  (void)state;
  use_guard(NULL);
  srand(12345);
  ASGST_SynthStack *s = make_stack(8);
  void *unmapped = ASGST_SynthUnmappedAddress();
  assert_non_null(unmapped);
  int errors = 0;
  for (int i = 0; i < 2000; i++) {
    ucontext_t uc;
    ASGST_SynthContext(s, &uc);
    uintptr_t r1 = ((uintptr_t)rand() << 33) ^ ((uintptr_t)rand() << 11) ^ (uintptr_t)rand();
    uintptr_t r2 = ((uintptr_t)rand() << 31) ^ (uintptr_t)rand();
    uintptr_t lo = (uintptr_t)ASGST_SynthFrameSp(s, 7);
    switch (i % 4) {
      case 0: /* all random */
        uc_set_regs(&uc, r1, r1 * 31, r2);
        break;
      case 1: /* sp/fp at random places of the synthetic stack, random pc */
        /* Within the 8 frames (64 bytes each) and the guard page above them. */
        uc_set_regs(&uc, r2 & 0x7fffffffffff, lo + (r1 % 64) * 8, lo + (r2 % 96) * 8);
        break;
      case 2: /* fp into unmapped memory */
        uc_set_fp(&uc, (uintptr_t)unmapped + (r1 % 512) * 8);
        break;
      case 3: /* fp into the guard page above the stack */
        uc_set_fp(&uc, (uintptr_t)ASGST_SynthGuardPage(s, 1) + (r1 % 512) * 8);
        break;
    }
    walk w = {0};
    ASGST_RunWithIterator(&uc, ASGST_INCLUDE_NON_JAVA_FRAMES, collect, &w);
    assert_true(w.last <= 0); /* ended by itself, within MAX_WALK calls */
    if (w.last < 0) {
      errors++;
      assert_zero_frame(&w.last_frame);
    }
    if (i % 4 >= 2) assert_true(w.last < 0);
  }
  assert_true(errors >= 1000);
  ASGST_SynthDestroyStack(s);
}

static void fp_pointing_to_itself(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(6);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 3);
  fp[0] = (uintptr_t)fp;
  walk w = {0};
  walk_stack(s, ASGST_INCLUDE_NON_JAVA_FRAMES, &w);
  assert_int_equal(w.n, 3); /* frames 5, 4 and 3 */
  assert_walk_error(&w, 0);
  ASGST_SynthDestroyStack(s);
}

static void fp_pointing_downward(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(6);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 2);
  fp[0] = (uintptr_t)ASGST_SynthFrameFp(s, 4); /* the caller link points at a callee */
  walk w = {0};
  walk_stack(s, 0, &w);
  /* Frames 5..2, then frame 1 (decoded from its pc), whose fp lies below its sp. */
  assert_int_equal(w.n, 5);
  assert_walk_error(&w, ASGST_BAD_FRAME);
  ASGST_SynthDestroyStack(s);
}

/* Counts frames (up to 20000) and keeps the result that ended the walk. */
static void count(ASGST_Iterator *it, void *arg) {
  struct { int n, last; } *r = arg;
  ASGST_Frame f;
  int x;
  while ((x = ASGST_NextFrame(it, &f)) == 1 && r->n < 20000) r->n++;
  r->last = x;
}

/* A depth beyond the API's bound is reported as a loop. */
static void too_deep_is_a_loop(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(9000);
  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  struct { int n, last; } r = {0, 1};
  assert_int_equal(ASGST_RunWithIterator(&uc, 0, count, &r), ASGST_JAVA_TRACE);
  assert_int_equal(r.last, ASGST_STACK_LOOP);
  assert_true(r.n >= 8000 && r.n < 9000);
  ASGST_SynthDestroyStack(s);
}

static void chain_into_unmapped_memory(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(6);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 3);
  fp[0] = (uintptr_t)ASGST_SynthUnmappedAddress() + 256;
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 3);
  assert_walk_error(&w, ASGST_WALK_FAULTED);
  ASGST_SynthDestroyStack(s);
}

static void chain_into_guard_pages(void **state) {
  (void)state;
  /* A caller link into the stack's own upper PROT_NONE page: above the frames, so the
   * step to it passes the checks, frame 3 is decoded from its pc alone (compiled), and
   * reading frame 3's links faults. */
  ASGST_SynthStack *s = make_stack(6);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 4);
  fp[0] = (uintptr_t)ASGST_SynthGuardPage(s, 1) + 64;
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 3);
  assert_walk_error(&w, ASGST_WALK_FAULTED);
  ASGST_SynthDestroyStack(s);
  /* An interpreted frame whose Method* points into the lower guard page. */
  s = make_stack(6);
  fp = ASGST_SynthFrameFp(s, 4);
  fp[-1] = (uintptr_t)ASGST_SynthGuardPage(s, 0) + 8;
  walk w2 = {0};
  walk_stack(s, 0, &w2);
  assert_int_equal(w2.n, 1);
  assert_walk_error(&w2, ASGST_WALK_FAULTED);
  ASGST_SynthDestroyStack(s);
}

static void garbage_return_pc_is_a_c_frame_or_an_error(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(6);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 3);
  fp[1] = 0x1234567; /* frame 2's pc: plausible, in no blob */
  walk w = {0};
  walk_stack(s, ASGST_INCLUDE_NON_JAVA_FRAMES, &w);
  assert_int_equal(w.n, 6);
  assert_int_equal(w.frames[3].type, ASGST_FRAME_NON_JAVA);
  assert_ptr_equal(w.frames[3].pc, (void *)0x1234567);
  assert_int_equal(w.last, 0);
  /* Cannot be code: in the first 64 KiB, which Linux never maps. (A non-canonical
   * address is no test on arm64, where the bits above 48 of a return address are a
   * pointer-authentication signature that the walker strips.) */
  fp[1] = 0x1234;
  walk w2 = {0};
  walk_stack(s, ASGST_INCLUDE_NON_JAVA_FRAMES, &w2);
  assert_int_equal(w2.n, 3);
  assert_walk_error(&w2, ASGST_BAD_FRAME);
  ASGST_SynthDestroyStack(s);
}

static void bad_method_in_interpreted_frame(void **state) {
  (void)state;
  ASGST_SynthStack *s = make_stack(3);
  uintptr_t *fp = ASGST_SynthFrameFp(s, 2);
  fp[-1] = (uintptr_t)&fp[-4]; /* readable memory without a method's magic */
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 0);
  assert_int_equal(w.state_before, ASGST_BAD_FRAME);
  assert_walk_error(&w, ASGST_BAD_FRAME);
  fp[-1] = (uintptr_t)m_a;
  fp[-2] = (uintptr_t)-5; /* negative bci */
  walk w2 = {0};
  walk_stack(s, 0, &w2);
  assert_walk_error(&w2, ASGST_BAD_FRAME);
  ASGST_SynthDestroyStack(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(null_iterator_and_frame),
      cmocka_unit_test(null_frame_argument),
      cmocka_unit_test(no_active_backend),
      cmocka_unit_test(garbage_registers_are_rejected),
      cmocka_unit_test(random_ucontexts_never_crash),
      cmocka_unit_test(fp_pointing_to_itself),
      cmocka_unit_test(fp_pointing_downward),
      cmocka_unit_test(too_deep_is_a_loop),
      cmocka_unit_test(chain_into_unmapped_memory),
      cmocka_unit_test(chain_into_guard_pages),
      cmocka_unit_test(garbage_return_pc_is_a_c_frame_or_an_error),
      cmocka_unit_test(bad_method_in_interpreted_frame),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
