/* test_synthetic_frames.c - every frame kind of the synthetic VM through the iterator. */
#include "test_synthetic_util.h"

typedef struct {
  ASGST_SynthVM *vm;
  ASGST_Class k;
  ASGST_Method main_m, run, helper, leaf, natm;
  ASGST_SynthBlob *c2, *c1[4], *wrapper, *stub;
  ASGST_SynthStack *s;
  int f_main, f_c, f_c2, f_run, f_stub, f_native; /* frame indices */
} world;

static world W;

/* The stack, bottom to top:
 *   interpreted main bci 7 -> C frame -> compiled tier 4 "run" with helper and leaf
 *   inlined -> interpreted run bci 3 -> stub -> native wrapper of natm (top). */
static int setup(void **state) {
  (void)state;
  memset(&W, 0, sizeof W);
  W.vm = ASGST_SynthCreateVM();
  assert_non_null(W.vm);
  assert_int_equal(activate(W.vm), 0);
  assert_int_equal(ASGST_SynthAttachThread(W.vm), 0);
  W.k = ASGST_SynthDeclareClass(W.vm, "com/x/Foo", NULL, 0x0001, 77);
  W.main_m = simple_method(W.vm, W.k, "main", 1);
  W.run = simple_method(W.vm, W.k, "run", 2);
  W.helper = simple_method(W.vm, W.k, "helper", 3);
  W.leaf = simple_method(W.vm, W.k, "leaf", 4);
  W.natm = simple_method(W.vm, W.k, "nat", 5);
  W.c2 = ASGST_SynthDeclareCompiled(W.vm, W.run, 4, 1024);
  ASGST_SynthScope scopes[] = {{W.leaf, 2}, {W.helper, 9}, {W.run, 21}};
  assert_int_equal(ASGST_SynthAddScopes(W.c2, 0x40, scopes, 3), 0);
  for (int t = 1; t <= 3; t++) W.c1[t] = ASGST_SynthDeclareCompiled(W.vm, W.run, t, 64);
  W.wrapper = ASGST_SynthDeclareNativeWrapper(W.vm, W.natm);
  W.stub = ASGST_SynthDeclareStub(W.vm, 128);
  assert_non_null(W.c2);
  assert_non_null(W.wrapper);
  assert_non_null(W.stub);
  W.s = ASGST_SynthCreateStack(W.vm, 64 * 1024);
  assert_non_null(W.s);
  W.f_main = ASGST_SynthPushInterpreted(W.s, W.main_m, 7);
  W.f_c = ASGST_SynthPushC(W.s, NULL);
  W.f_c2 = ASGST_SynthPushCompiled(W.s, W.c2, 0x48);
  W.f_run = ASGST_SynthPushInterpreted(W.s, W.run, 3);
  W.f_stub = ASGST_SynthPushStub(W.s, W.stub, 8);
  W.f_native = ASGST_SynthPushNative(W.s, W.wrapper);
  assert_int_equal(W.f_native, 5);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyStack(W.s);
  ASGST_SynthDetachThread();
  ASGST_SynthDestroyVM(W.vm);
  return 0;
}

static void check_frame(const ASGST_Frame *f, int type, int level, int bci, ASGST_Method m,
                        int phys) {
  assert_int_equal(f->type, type);
  assert_int_equal(f->comp_level, level);
  assert_int_equal(f->bci, bci);
  assert_ptr_equal(f->method, m);
  assert_ptr_equal(f->pc, ASGST_SynthFramePc(W.s, phys));
  assert_ptr_equal(f->sp, ASGST_SynthFrameSp(W.s, phys));
  assert_ptr_equal(f->fp, ASGST_SynthFrameFp(W.s, phys));
}

static void full_trace_has_every_kind_in_order(void **state) {
  (void)state;
  walk w = {.rewind = 1};
  assert_int_equal(walk_stack(W.s, ASGST_INCLUDE_NON_JAVA_FRAMES, &w), ASGST_JAVA_TRACE);
  assert_int_equal(w.state_before, 1);
  assert_int_equal(w.n, 8);
  check_frame(&w.frames[0], ASGST_FRAME_JAVA_NATIVE, 0, -1, W.natm, W.f_native);
  check_frame(&w.frames[1], ASGST_FRAME_NON_JAVA, -1, -1, NULL, W.f_stub);
  check_frame(&w.frames[2], ASGST_FRAME_JAVA, 0, 3, W.run, W.f_run);
  check_frame(&w.frames[3], ASGST_FRAME_JAVA_INLINED, 4, 2, W.leaf, W.f_c2);
  check_frame(&w.frames[4], ASGST_FRAME_JAVA_INLINED, 4, 9, W.helper, W.f_c2);
  check_frame(&w.frames[5], ASGST_FRAME_JAVA, 4, 21, W.run, W.f_c2);
  check_frame(&w.frames[6], ASGST_FRAME_NON_JAVA, -1, -1, NULL, W.f_c);
  check_frame(&w.frames[7], ASGST_FRAME_JAVA, 0, 7, W.main_m, W.f_main);
  assert_int_equal(w.last, 0);
  assert_int_equal(w.state_after, 0);
  for (int i = 0; i < w.n - 1; i++) assert_int_equal(w.states[i], 1);
  assert_int_equal(w.states[w.n - 1], 0);
  assert_true(w.rewind_ok);
}

static void compiled_tiers_one_to_four(void **state) {
  (void)state;
  ASGST_SynthStack *s = ASGST_SynthCreateStack(W.vm, 16384);
  ASGST_SynthScope sc = {W.run, 5};
  for (int t = 1; t <= 3; t++) {
    assert_int_equal(ASGST_SynthAddScopes(W.c1[t], 0, &sc, 1), 0);
    ASGST_SynthPushCompiled(s, W.c1[t], 4 + (size_t)t);
  }
  ASGST_SynthPushCompiled(s, W.c2, 0x40);
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 6);
  for (int i = 0; i < 3; i++) assert_int_equal(w.frames[i].comp_level, 4);
  assert_int_equal(w.frames[3].comp_level, 3);
  assert_int_equal(w.frames[4].comp_level, 2);
  assert_int_equal(w.frames[5].comp_level, 1);
  assert_int_equal(w.frames[5].bci, 5);
  assert_int_equal(w.frames[5].type, ASGST_FRAME_JAVA);
  ASGST_SynthDestroyStack(s);
}

static void compiled_without_scopes_reports_the_root(void **state) {
  (void)state;
  ASGST_SynthBlob *b = ASGST_SynthDeclareCompiled(W.vm, W.leaf, 2, 32);
  ASGST_SynthStack *s = ASGST_SynthCreateStack(W.vm, 8192);
  ASGST_SynthPushCompiled(s, b, 3);
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 1);
  assert_ptr_equal(w.frames[0].method, W.leaf);
  assert_int_equal(w.frames[0].bci, -1);
  assert_int_equal(w.frames[0].comp_level, 2);
  ASGST_SynthDestroyStack(s);
}

static void detached_thread_is_non_java_trace(void **state) {
  (void)state;
  ASGST_SynthDetachThread();
  walk w = {0};
  assert_int_equal(walk_stack(W.s, 0, &w), ASGST_NON_JAVA_TRACE);
  assert_int_equal(ASGST_ThreadState(), 0);
  ASGST_SynthAttachThread(W.vm);
  assert_int_not_equal(ASGST_ThreadState(), 0);
}

static void run_from_frame_starts_there(void **state) {
  (void)state;
  walk w = {0};
  int i = W.f_c2;
  int r = ASGST_RunWithIteratorFromFrame(ASGST_SynthFrameSp(W.s, i), ASGST_SynthFrameFp(W.s, i),
                                         ASGST_SynthFramePc(W.s, i), 0, collect, &w);
  assert_int_equal(r, ASGST_JAVA_TRACE);
  assert_int_equal(w.n, 4);
  assert_ptr_equal(w.frames[0].method, W.leaf);
  assert_ptr_equal(w.frames[3].method, W.main_m);
}

/* RunWithIterator(NULL): the real C stack of this thread, only C frames, ending cleanly. */
static void real_c_stack_walks_to_its_end(void **state) {
  (void)state;
  walk w = {0};
  assert_int_equal(ASGST_RunWithIterator(NULL, ASGST_INCLUDE_NON_JAVA_FRAMES, collect, &w),
                   ASGST_JAVA_TRACE);
  assert_true(w.n >= 2); /* this test function and cmocka's caller at least */
  assert_int_equal(w.last, 0);
  for (int i = 0; i < w.n; i++) assert_int_equal(w.frames[i].type, ASGST_FRAME_NON_JAVA);
  walk j = {0};
  ASGST_RunWithIterator(NULL, 0, collect, &j);
  assert_int_equal(j.n, 0);
  assert_int_equal(j.state_before, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(full_trace_has_every_kind_in_order),
      cmocka_unit_test(compiled_tiers_one_to_four),
      cmocka_unit_test(compiled_without_scopes_reports_the_root),
      cmocka_unit_test(detached_thread_is_non_java_trace),
      cmocka_unit_test(run_from_frame_starts_there),
      cmocka_unit_test(real_c_stack_walks_to_its_end),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
