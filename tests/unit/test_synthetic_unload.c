/* test_synthetic_unload.c - class unload and redefinition handlers, and what unloaded
 * handles give afterwards. */
#include "test_synthetic_util.h"

typedef struct {
  int calls;
  ASGST_Class k;
  ASGST_Method methods[8];
  int count;
  bool redefined;
  char first_name[32]; /* the first method's name, read inside the handler */
} record;

static void on_unload(ASGST_Class k, ASGST_Method *methods, int count, bool redefined,
                      void *arg) {
  record *r = arg;
  r->calls++;
  r->k = k;
  r->count = count;
  r->redefined = redefined;
  for (int i = 0; i < count && i < 8; i++) r->methods[i] = methods[i];
  /* Called before the handles become invalid: the information is still there. */
  ASGST_MethodInfo info = {.method_name = r->first_name,
                           .method_name_length = sizeof r->first_name};
  if (count > 0) ASGST_GetMethodInfo(methods[0], &info);
}

static ASGST_SynthVM *vm;

static int setup(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  return activate(vm);
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyVM(vm);
  return 0;
}

static void unload_calls_every_handler_with_the_methods(void **state) {
  (void)state;
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "u/A", NULL, 1, 31);
  ASGST_Method a = simple_method(vm, k, "a", 1), b = simple_method(vm, k, "b", 2);
  ASGST_Method c = simple_method(vm, k, "c", 3);
  record r1 = {0}, r2 = {0};
  ASGST_RegisterClassUnloadHandler(on_unload, &r1);
  ASGST_RegisterClassUnloadHandler(on_unload, &r2);
  assert_int_equal(ASGST_SynthUnloadClass(vm, k), 0);
  for (int i = 0; i < 2; i++) {
    record *r = i ? &r2 : &r1;
    assert_int_equal(r->calls, 1);
    assert_ptr_equal(r->k, k);
    assert_int_equal(r->count, 3);
    assert_false(r->redefined);
    assert_ptr_equal(r->methods[0], a);
    assert_ptr_equal(r->methods[1], b);
    assert_ptr_equal(r->methods[2], c);
    assert_string_equal(r->first_name, "a");
  }
  assert_true(ASGST_DeregisterClassUnloadHandler(on_unload, &r1));
  assert_true(ASGST_DeregisterClassUnloadHandler(on_unload, &r2));
  assert_false(ASGST_DeregisterClassUnloadHandler(on_unload, &r2));
  /* Unloading twice is refused. */
  assert_int_equal(ASGST_SynthUnloadClass(vm, k), ASGST_INVALID_ARGUMENT);
}

static void unloaded_handles_give_empty_information(void **state) {
  (void)state;
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "u/B", "Lgeneric;", 1, 32);
  ASGST_Method m = simple_method(vm, k, "gone", 7);
  assert_int_equal(ASGST_SynthUnloadClass(vm, k), 0);
  char name[16] = "old", sig[16] = "old";
  ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name,
                           .signature = sig, .signature_length = sizeof sig, .idnum = 9};
  ASGST_GetMethodInfo(m, &info);
  assert_string_equal(name, "");
  assert_string_equal(sig, "");
  assert_int_equal(info.method_name_length, 0);
  assert_null(info.klass);
  assert_int_equal(info.idnum, 0);
  assert_int_equal(info.class_idnum, 0);
  assert_null(ASGST_GetClass(m));
  assert_int_equal(ASGST_GetMethodIdNum(m), 0);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m, NULL, 0), 0);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 0), -1);
  char cname[16] = "old";
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname};
  ASGST_GetClassInfo(k, &ci);
  assert_string_equal(cname, "");
  assert_int_equal(ASGST_GetClassIdNum(k), 0);
  /* A method of an unloaded class cannot be declared. */
  assert_null(ASGST_SynthDeclareMethod(vm, k, "x", "()V", NULL, 0, 1, NULL, 0));
}

static void frame_of_an_unloaded_method_still_walks(void **state) {
  (void)state;
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "u/C", NULL, 1, 33);
  ASGST_Method m = simple_method(vm, k, "run", 1);
  ASGST_SynthStack *s = ASGST_SynthCreateStack(vm, 8192);
  ASGST_SynthPushInterpreted(s, m, 3);
  ASGST_SynthPushInterpreted(s, m, 4);
  assert_int_equal(ASGST_SynthUnloadClass(vm, k), 0);
  walk w = {0};
  walk_stack(s, 0, &w);
  assert_int_equal(w.n, 2);
  assert_int_equal(w.last, 0);
  assert_ptr_equal(w.frames[0].method, m);
  char name[8] = "x";
  ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name};
  ASGST_GetMethodInfo(w.frames[0].method, &info);
  assert_string_equal(name, "");
  ASGST_SynthDestroyStack(s);
}

static void redefinition_keeps_idnums(void **state) {
  (void)state;
  ASGST_Class k = ASGST_SynthDeclareClass(vm, "u/D", NULL, 1, 34);
  ASGST_Method a = simple_method(vm, k, "a", 11), b = simple_method(vm, k, "b", 12);
  record r = {0};
  ASGST_RegisterClassUnloadHandler(on_unload, &r);
  ASGST_Method fresh[4] = {0};
  assert_int_equal(ASGST_SynthRedefineClass(vm, k, fresh, 4), 2);
  assert_true(ASGST_DeregisterClassUnloadHandler(on_unload, &r));
  assert_int_equal(r.calls, 1);
  assert_true(r.redefined);
  assert_int_equal(r.count, 2);
  assert_ptr_equal(r.methods[0], a);
  assert_ptr_equal(r.methods[1], b);
  assert_ptr_not_equal(fresh[0], a);
  assert_int_equal(ASGST_GetMethodIdNum(fresh[0]), 11);
  assert_int_equal(ASGST_GetMethodIdNum(fresh[1]), 12);
  assert_ptr_equal(ASGST_GetClass(fresh[1]), k);
  assert_int_equal(ASGST_GetClassIdNum(k), 34); /* the class lives on */
  assert_int_equal(ASGST_GetMethodIdNum(a), 0); /* old versions are gone */
  assert_int_equal(ASGST_GetMethodLineNumber(fresh[0], 5), 11);
  /* A second redefinition reports the new methods. */
  record r2 = {0};
  ASGST_RegisterClassUnloadHandler(on_unload, &r2);
  assert_int_equal(ASGST_SynthRedefineClass(vm, k, NULL, 0), 2);
  ASGST_DeregisterClassUnloadHandler(on_unload, &r2);
  assert_ptr_equal(r2.methods[0], fresh[0]);
}

/* A handler that removes itself while being called; the others still run. */
static int self_removals;
static void remove_myself(ASGST_Class k, ASGST_Method *methods, int count, bool redefined,
                          void *arg) {
  (void)k, (void)methods, (void)count, (void)redefined;
  self_removals++;
  ASGST_DeregisterClassUnloadHandler(remove_myself, arg);
}

static void handlers_may_deregister_during_a_call(void **state) {
  (void)state;
  record r = {0};
  ASGST_RegisterClassUnloadHandler(remove_myself, NULL);
  ASGST_RegisterClassUnloadHandler(on_unload, &r);
  ASGST_Class k1 = ASGST_SynthDeclareClass(vm, "u/E", NULL, 1, 35);
  ASGST_Class k2 = ASGST_SynthDeclareClass(vm, "u/F", NULL, 1, 36);
  simple_method(vm, k1, "x", 1);
  ASGST_SynthUnloadClass(vm, k1);
  ASGST_SynthUnloadClass(vm, k2);
  assert_int_equal(self_removals, 1);
  assert_int_equal(r.calls, 2);
  assert_int_equal(r.count, 0); /* u/F had no methods */
  assert_ptr_equal(r.k, k2);
  assert_true(ASGST_DeregisterClassUnloadHandler(on_unload, &r));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(unload_calls_every_handler_with_the_methods),
      cmocka_unit_test(unloaded_handles_give_empty_information),
      cmocka_unit_test(frame_of_an_unloaded_method_still_walks),
      cmocka_unit_test(redefinition_keeps_idnums),
      cmocka_unit_test(handlers_may_deregister_during_a_call),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
