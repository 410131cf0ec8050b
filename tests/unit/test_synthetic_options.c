/* test_synthetic_options.c - iterator options, rewind and state over a synthetic stack. */
#include "test_synthetic_util.h"

static ASGST_SynthVM *vm;
static ASGST_Method m_main, m_run, m_helper, m_leaf, m_nat;
static ASGST_SynthStack *s;      /* main(i) <- C <- run(c2: leaf, helper inlined) <- stub <- nat */
static ASGST_SynthStack *inl;    /* main(i) <- run(c2) on top: the top frame is inlined */

static int setup(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  ASGST_SynthAttachThread(vm);
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "opt/Main", NULL, 1, 1);
  m_main = simple_method(vm, k, "main", 1);
  m_run = simple_method(vm, k, "run", 2);
  m_helper = simple_method(vm, k, "helper", 3);
  m_leaf = simple_method(vm, k, "leaf", 4);
  m_nat = simple_method(vm, k, "nat", 5);
  ASGST_SynthBlob *c2 = ASGST_SynthDeclareCompiled(vm, m_run, 4, 256);
  ASGST_SynthScope sc[] = {{m_leaf, 1}, {m_helper, 2}, {m_run, 3}};
  assert_int_equal(ASGST_SynthAddScopes(c2, 16, sc, 3), 0);
  ASGST_SynthBlob *stub = ASGST_SynthDeclareStub(vm, 64);
  ASGST_SynthBlob *wrap = ASGST_SynthDeclareNativeWrapper(vm, m_nat);
  s = ASGST_SynthCreateStack(vm, 16384);
  ASGST_SynthPushInterpreted(s, m_main, 4);
  ASGST_SynthPushC(s, NULL);
  ASGST_SynthPushCompiled(s, c2, 20);
  ASGST_SynthPushStub(s, stub, 0);
  assert_true(ASGST_SynthPushNative(s, wrap) >= 0);
  inl = ASGST_SynthCreateStack(vm, 16384);
  ASGST_SynthPushInterpreted(inl, m_main, 4);
  assert_true(ASGST_SynthPushCompiled(inl, c2, 16) >= 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyStack(s);
  ASGST_SynthDestroyStack(inl);
  ASGST_SynthDestroyVM(vm);
  return 0;
}

static void java_only_is_an_ordered_subsequence(void **state) {
  (void)state;
  walk all = {0}, java = {0};
  assert_int_equal(walk_stack(s, ASGST_INCLUDE_NON_JAVA_FRAMES, &all), ASGST_JAVA_TRACE);
  assert_int_equal(walk_stack(s, 0, &java), ASGST_JAVA_TRACE);
  assert_int_equal(all.n, 7);
  assert_int_equal(java.n, 5);
  int j = 0;
  for (int i = 0; i < all.n; i++) {
    if (all.frames[i].type == ASGST_FRAME_NON_JAVA) continue;
    assert_memory_equal(&all.frames[i], &java.frames[j], sizeof(ASGST_Frame));
    j++;
  }
  assert_int_equal(j, java.n);
}

static void end_on_first_java_frame_skips_native_and_c(void **state) {
  (void)state;
  walk w = {0};
  walk_stack(s, ASGST_END_ON_FIRST_JAVA_FRAME, &w);
  /* The native wrapper is not bytecode-backed; the first inlined frame is. */
  assert_int_equal(w.n, 2);
  assert_int_equal(w.frames[0].type, ASGST_FRAME_JAVA_NATIVE);
  assert_ptr_equal(w.frames[1].method, m_leaf);
  assert_int_equal(w.frames[1].type, ASGST_FRAME_JAVA_INLINED);
  assert_int_equal(w.states[1], 0);
  assert_int_equal(w.last, 0);
  walk w2 = {0};
  walk_stack(s, ASGST_END_ON_FIRST_JAVA_FRAME | ASGST_INCLUDE_NON_JAVA_FRAMES, &w2);
  assert_int_equal(w2.n, 3);
  assert_int_equal(w2.frames[1].type, ASGST_FRAME_NON_JAVA);
  assert_ptr_equal(w2.frames[2].method, m_leaf);
}

static void end_on_first_java_frame_with_inlined_top(void **state) {
  (void)state;
  walk w = {.rewind = 1};
  walk_stack(inl, ASGST_END_ON_FIRST_JAVA_FRAME, &w);
  assert_int_equal(w.n, 1);
  assert_ptr_equal(w.frames[0].method, m_leaf);
  assert_int_equal(w.frames[0].bci, 1);
  assert_true(w.rewind_ok);
}

static void inlined_frames_share_the_physical_frame(void **state) {
  (void)state;
  walk w = {0};
  walk_stack(inl, 0, &w);
  assert_int_equal(w.n, 4);
  for (int i = 1; i < 3; i++) {
    assert_ptr_equal(w.frames[i].pc, w.frames[0].pc);
    assert_ptr_equal(w.frames[i].sp, w.frames[0].sp);
    assert_ptr_equal(w.frames[i].fp, w.frames[0].fp);
  }
  assert_int_equal(w.frames[0].type, ASGST_FRAME_JAVA_INLINED);
  assert_int_equal(w.frames[1].type, ASGST_FRAME_JAVA_INLINED);
  assert_int_equal(w.frames[2].type, ASGST_FRAME_JAVA);
  assert_ptr_not_equal(w.frames[3].sp, w.frames[0].sp);
}

/* State is 1 before and during, 0 after; a rewind mid-walk starts over. */
static void state_and_rewind_mid_walk(ASGST_Iterator *it, void *arg) {
  int *ok = arg;
  ASGST_Frame first[3], again[7], f;
  *ok = ASGST_State(it) == 1;
  for (int i = 0; i < 3; i++) *ok &= ASGST_NextFrame(it, &first[i]) == 1 && ASGST_State(it) == 1;
  ASGST_RewindIterator(it);
  *ok &= ASGST_State(it) == 1;
  int n = 0;
  while (n < 7 && ASGST_NextFrame(it, &again[n]) == 1) n++;
  *ok &= n == 7 && ASGST_State(it) == 0;
  for (int i = 0; i < 3; i++) *ok &= same_frame(&first[i], &again[i]);
  *ok &= ASGST_NextFrame(it, &f) == 0 && ASGST_State(it) == 0;
  ASGST_RewindIterator(it);
  *ok &= ASGST_State(it) == 1 && ASGST_NextFrame(it, &f) == 1 && same_frame(&f, &again[0]);
}

static void rewind_and_state(void **state) {
  (void)state;
  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  int ok = 0;
  assert_int_equal(ASGST_RunWithIterator(&uc, ASGST_INCLUDE_NON_JAVA_FRAMES,
                                         state_and_rewind_mid_walk, &ok),
                   ASGST_JAVA_TRACE);
  assert_true(ok);
}

static void null_handler_still_returns_the_kind(void **state) {
  (void)state;
  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  assert_int_equal(ASGST_RunWithIterator(&uc, 0, NULL, NULL), ASGST_JAVA_TRACE);
  ASGST_SynthDetachThread();
  assert_int_equal(ASGST_RunWithIterator(&uc, 0, NULL, NULL), ASGST_NON_JAVA_TRACE);
  ASGST_SynthAttachThread(vm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(java_only_is_an_ordered_subsequence),
      cmocka_unit_test(end_on_first_java_frame_skips_native_and_c),
      cmocka_unit_test(end_on_first_java_frame_with_inlined_top),
      cmocka_unit_test(inlined_frames_share_the_physical_frame),
      cmocka_unit_test(rewind_and_state),
      cmocka_unit_test(null_handler_still_returns_the_kind),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
