/* test_synthetic_accessors.c - method and class information over synthetic metadata. */
#include <stdio.h>

#include "test_synthetic_util.h"

static ASGST_SynthVM *vm;
static ASGST_Class k;
static ASGST_Method m, m_long, m_nolines;
static ASGST_MethodLineNumberEntry long_table[100];

static int setup(void **state) {
  (void)state;
  vm = ASGST_SynthCreateVM();
  assert_int_equal(activate(vm), 0);
  k = ASGST_SynthDeclareClass(vm, "com/x/Foo", "<T:Ljava/lang/Object;>Ljava/lang/Object;",
                              0x0011, 4242);
  m = ASGST_SynthDeclareMethod(vm, k, "compute", "(ILjava/util/List;)J",
                               "(ILjava/util/List<TT;>;)J", 0x0009, 17, default_lines, 3);
  /* 100 entries, start_bci 0, 3, 6, ... lines 1000, 1001, ...; deliberately not sorted by
   * bci in the second half, as class files allow. */
  for (int i = 0; i < 100; i++) {
    int j = i < 50 ? i : 149 - i;
    long_table[i] = (ASGST_MethodLineNumberEntry){3 * j, 1000 + j};
  }
  m_long = ASGST_SynthDeclareMethod(vm, k, "long", "()V", NULL, 1, 18, long_table, 100);
  m_nolines = ASGST_SynthDeclareMethod(vm, k, "native0", "()V", NULL, 0x0100, 19, NULL, 0);
  assert_non_null(m);
  assert_non_null(m_long);
  assert_non_null(m_nolines);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyVM(vm);
  return 0;
}

static void method_info_full_buffers(void **state) {
  (void)state;
  char name[64], sig[64], gen[64];
  ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name,
                           .signature = sig, .signature_length = sizeof sig,
                           .generic_signature = gen, .generic_signature_length = sizeof gen};
  ASGST_GetMethodInfo(m, &info);
  assert_ptr_equal(info.klass, k);
  assert_string_equal(name, "compute");
  assert_int_equal(info.method_name_length, 7);
  assert_string_equal(sig, "(ILjava/util/List;)J");
  assert_int_equal(info.signature_length, strlen("(ILjava/util/List;)J"));
  assert_string_equal(gen, "(ILjava/util/List<TT;>;)J");
  assert_int_equal(info.modifiers, 0x0009);
  assert_int_equal(info.idnum, 17);
  assert_int_equal(info.class_idnum, 4242);
}

static void method_info_short_and_null_buffers(void **state) {
  (void)state;
  char name[4], sig[1];
  memset(name, 'x', sizeof name);
  memset(sig, 'x', sizeof sig);
  ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name,
                           .signature = sig, .signature_length = sizeof sig,
                           .generic_signature = NULL, .generic_signature_length = 99};
  ASGST_GetMethodInfo(m, &info);
  assert_string_equal(name, "com"); /* truncated, NUL-terminated */
  assert_int_equal(info.method_name_length, 7); /* full length: caller sees truncation */
  assert_string_equal(sig, "");
  assert_int_equal(info.signature_length, 20);
  assert_int_equal(info.generic_signature_length, 25); /* reported without a buffer */
  /* No generic signature: empty string, length 0. */
  char gen[8] = "zzzzzzz";
  ASGST_MethodInfo i2 = {.generic_signature = gen, .generic_signature_length = sizeof gen};
  ASGST_GetMethodInfo(m_nolines, &i2);
  assert_string_equal(gen, "");
  assert_int_equal(i2.generic_signature_length, 0);
  assert_int_equal(i2.method_name_length, 7);
  assert_int_equal(i2.modifiers, 0x0100);
}

static void class_info(void **state) {
  (void)state;
  char name[5], gen[128];
  ASGST_ClassInfo info = {.class_name = name, .class_name_length = sizeof name,
                          .generic_class_name = gen, .generic_class_name_length = sizeof gen};
  ASGST_GetClassInfo(k, &info);
  assert_string_equal(name, "com/");
  assert_int_equal(info.class_name_length, 9);
  assert_string_equal(gen, "<T:Ljava/lang/Object;>Ljava/lang/Object;");
  assert_int_equal(info.modifiers, 0x0011);
  assert_int_equal(info.idnum, 4242);
  assert_ptr_equal(ASGST_GetClass(m), k);
  assert_int_equal(ASGST_GetClassIdNum(k), 4242);
  assert_int_equal(ASGST_GetMethodIdNum(m), 17);
  assert_int_equal(ASGST_GetMethodIdNum(m_long), 18);
}

static void null_and_bogus_handles_give_empty_fields(void **state) {
  (void)state;
  use_guard(NULL);
  char name[16] = "stale";
  ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name,
                           .modifiers = 5, .idnum = 6};
  ASGST_GetMethodInfo(NULL, &info);
  assert_string_equal(name, "");
  assert_int_equal(info.method_name_length, 0);
  assert_int_equal(info.idnum, 0);
  ASGST_GetMethodInfo(m, NULL); /* no crash */
  ASGST_GetClassInfo(k, NULL);
  /* Handles that are not methods: a class, plain memory, unmapped memory, misaligned. */
  uint64_t plain[8] = {0};
  void *bogus[] = {(void *)k, plain, ASGST_SynthUnmappedAddress(), (char *)m + 1,
                   (void *)0xffff800000000000};
  for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
    strcpy(name, "stale");
    info = (ASGST_MethodInfo){.method_name = name, .method_name_length = sizeof name};
    ASGST_GetMethodInfo((ASGST_Method)bogus[i], &info);
    assert_string_equal(name, "");
    assert_null(info.klass);
    assert_null(ASGST_GetClass((ASGST_Method)bogus[i]));
    assert_int_equal(ASGST_GetMethodIdNum((ASGST_Method)bogus[i]), 0);
    assert_int_equal(ASGST_GetMethodLineNumber((ASGST_Method)bogus[i], 0), -1);
    assert_int_equal(ASGST_GetMethodLineNumberTable((ASGST_Method)bogus[i], NULL, 0), 0);
  }
  char cname[8] = "x";
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname, .idnum = 3};
  ASGST_GetClassInfo((ASGST_Class)m, &ci); /* a method is not a class */
  assert_string_equal(cname, "");
  assert_int_equal(ci.idnum, 0);
  ASGST_GetClassInfo(NULL, &ci);
  assert_int_equal(ASGST_GetClassIdNum(NULL), 0);
  assert_int_equal(ASGST_GetClassIdNum((ASGST_Class)ASGST_SynthUnmappedAddress()), 0);
  assert_null(ASGST_GetClass(NULL));
}

static void line_number_table(void **state) {
  (void)state;
  ASGST_MethodLineNumberEntry e[8];
  memset(e, 0xff, sizeof e);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m, e, 8), 3);
  assert_int_equal(e[0].start_bci, 0);
  assert_int_equal(e[0].line_number, 10);
  assert_int_equal(e[2].start_bci, 12);
  assert_int_equal(e[2].line_number, 13);
  assert_int_equal(e[3].start_bci, -1); /* untouched past the total */
  memset(e, 0xff, sizeof e);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m, e, 1), 3); /* short: the total */
  assert_int_equal(e[0].line_number, 10);
  assert_int_equal(e[1].start_bci, -1);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m, NULL, 5), 3);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m, e, 0), 3);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m_nolines, e, 8), 0);
  assert_int_equal(ASGST_GetMethodLineNumberTable(NULL, e, 8), 0);
  assert_int_equal(ASGST_GetMethodLineNumberTable(m_long, e, 8), 100);
}

static void line_number_by_bci(void **state) {
  (void)state;
  assert_int_equal(ASGST_GetMethodLineNumber(m, 0), 10);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 4), 10);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 5), 11);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 11), 11);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 12), 13);
  assert_int_equal(ASGST_GetMethodLineNumber(m, 5000), 13);
  assert_int_equal(ASGST_GetMethodLineNumber(m, -1), -1);
  assert_int_equal(ASGST_GetMethodLineNumber(m_nolines, 0), -1);
  assert_int_equal(ASGST_GetMethodLineNumber(NULL, 0), -1);
  /* The long table is read in chunks: entries beyond the first 32 must count. */
  for (int bci = 0; bci < 320; bci++) {
    int j = bci / 3 < 100 ? bci / 3 : 99;
    assert_int_equal(ASGST_GetMethodLineNumber(m_long, bci), 1000 + j);
  }
}

static void method_idnums_and_classes_of_many_methods(void **state) {
  (void)state;
  ASGST_Class k2 = ASGST_SynthDeclareClass(vm, "com/x/Bar", NULL, 0, 5);
  ASGST_Method ms[40];
  for (int i = 0; i < 40; i++) {
    char name[16];
    snprintf(name, sizeof name, "m%d", i);
    ms[i] = ASGST_SynthDeclareMethod(vm, k2, name, "()V", NULL, 0, 100 + i, NULL, 0);
  }
  for (int i = 0; i < 40; i++) {
    assert_int_equal(ASGST_GetMethodIdNum(ms[i]), 100 + i);
    assert_ptr_equal(ASGST_GetClass(ms[i]), k2);
    char name[16];
    ASGST_MethodInfo info = {.method_name = name, .method_name_length = sizeof name};
    ASGST_GetMethodInfo(ms[i], &info);
    char want[16];
    snprintf(want, sizeof want, "m%d", i);
    assert_string_equal(name, want);
  }
  /* No JVM: the conversions have no counterpart. */
  assert_null(ASGST_MethodToJMethodID(m));
  assert_null(ASGST_JMethodIDToMethod((jmethodID)m));
  assert_null(ASGST_ClassToJClass(k));
  assert_null(ASGST_JClassToClass((jclass)k));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(method_info_full_buffers),
      cmocka_unit_test(method_info_short_and_null_buffers),
      cmocka_unit_test(class_info),
      cmocka_unit_test(null_and_bogus_handles_give_empty_fields),
      cmocka_unit_test(line_number_table),
      cmocka_unit_test(line_number_by_bci),
      cmocka_unit_test(method_idnums_and_classes_of_many_methods),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
