/* test_hs_jmethodids.c - jmethodID -> Method* over hand-built VM structures (no JVM):
 * JDK 26+, where a jmethodID is a number found in its holder's jmethodID cache
 * (InstanceKlass::_methods_jmethod_ids: the length, then the id of each idnum) and the
 * method is the one of that idnum; and up to 25, where it points at a Method* slot.
 * Resolves a class's ids at once (asgst__hs_from_jmethodids, as the self-check and
 * ASGST_MethodToJMethodID do), with the methods array in idnum order and out of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "impl/hotspot/classes/classes.h"
#include "impl/hotspot/model/vm_model.h"

#define NM 5

/* Offsets as JDK 26's vmStructs give them where the code reads (Method::_constMethod 8,
 * ConstMethod::_constants 8 and _method_idnum 40, InstanceKlass::_methods 400 and
 * _methods_jmethod_ids 336, Array<Method*> length 0 and data 8). */
static void set_layout(bool table) {
  memset(&asgst__vm, 0, sizeof asgst__vm);
  asgst__vm_model *h = &asgst__vm;
  h->jdk = table ? 26 : 25;
  h->jmethodid_table = table;
  h->method_const = 8, h->cm_constants = 8, h->cm_idnum = 40, h->cm_flags = 28;
  h->cm_flags_w = 4;
  h->ik_methods = 400, h->ik_jmethod_ids = table ? 336 : -1;
  h->array_length = 0, h->array_data = 8;
}

typedef struct {
  uint64_t method[NM][4];
  uint64_t cm[NM][8];
  uint64_t cp[4];
  uint64_t methods[1 + NM]; /* Array<Method*>: length, then the pointers */
  uint64_t cache[1 + NM];   /* jmethodID cache: length, then the id of each idnum */
  uint64_t klass[64];
} fake;

/* A class of NM methods whose idnums are idnum[i] for methods[i]; jmethodIDs 1000 +
 * idnum, none for the idnum `no_id` (the VM makes ids only on demand). */
static fake *build(const uint16_t *idnum, int no_id) {
  fake *f = calloc(1, sizeof *f);
  int32_t n = NM;
  memcpy(f->methods, &n, 4);
  f->cache[0] = NM;
  for (int i = 0; i < NM; i++) {
    f->method[i][1] = (uintptr_t)f->cm[i];
    f->cm[i][1] = (uintptr_t)f->cp;
    memcpy((char *)f->cm[i] + 40, &idnum[i], 2);
    f->methods[1 + i] = (uintptr_t)f->method[i];
    if (idnum[i] != no_id) f->cache[1 + idnum[i]] = 1000 + idnum[i];
  }
  f->klass[400 / 8] = (uintptr_t)f->methods;
  f->klass[336 / 8] = (uintptr_t)f->cache;
  return f;
}

static void resolves_in_idnum_order(void **state) {
  (void)state;
  set_layout(true);
  const uint16_t idnum[NM] = {0, 1, 2, 3, 4};
  fake *f = build(idnum, -1);
  jmethodID ids[NM] = {(jmethodID)1003, (jmethodID)1000, (jmethodID)1004, (jmethodID)1001,
                       (jmethodID)1002};
  ASGST_Method out[NM];
  asgst__hs_from_jmethodids((uintptr_t)f->klass, ids, NM, out);
  assert_ptr_equal(out[0], f->method[3]);
  assert_ptr_equal(out[1], f->method[0]);
  assert_ptr_equal(out[2], f->method[4]);
  assert_ptr_equal(out[3], f->method[1]);
  assert_ptr_equal(out[4], f->method[2]);
  free(f);
}

/* Overpasses and redefinitions leave methods[i] with another idnum than i. */
static void resolves_out_of_idnum_order(void **state) {
  (void)state;
  set_layout(true);
  const uint16_t idnum[NM] = {4, 2, 0, 3, 1};
  fake *f = build(idnum, 3);
  jmethodID ids[4] = {(jmethodID)1000, (jmethodID)1001, (jmethodID)1002, (jmethodID)1004};
  ASGST_Method out[4];
  asgst__hs_from_jmethodids((uintptr_t)f->klass, ids, 4, out);
  assert_ptr_equal(out[0], f->method[2]);
  assert_ptr_equal(out[1], f->method[4]);
  assert_ptr_equal(out[2], f->method[1]);
  assert_ptr_equal(out[3], f->method[0]);
  free(f);
}

/* An id the holder's cache does not hold (another class's, or a stale one) and an id
 * whose idnum no method has any longer (a method a redefinition deleted) give NULL. */
static void unknown_ids_give_null(void **state) {
  (void)state;
  set_layout(true);
  const uint16_t idnum[NM] = {0, 1, 2, 3, 4};
  fake *f = build(idnum, -1);
  uint16_t gone = 9;
  memcpy((char *)f->cm[4] + 40, &gone, 2); /* idnum 4's id stays in the cache */
  jmethodID ids[3] = {(jmethodID)999, (jmethodID)1004, (jmethodID)1002};
  ASGST_Method out[3];
  asgst__hs_from_jmethodids((uintptr_t)f->klass, ids, 3, out);
  assert_null(out[0]);
  assert_null(out[1]);
  assert_ptr_equal(out[2], f->method[2]);
  /* A class with no cache yet (no id ever made): nothing resolves, nothing is read amiss. */
  f->klass[336 / 8] = 0;
  asgst__hs_from_jmethodids((uintptr_t)f->klass, ids + 2, 1, out);
  assert_null(out[0]);
  free(f);
}

/* Up to 25 a jmethodID points at a slot holding the Method*. */
static void slot_ids_up_to_25(void **state) {
  (void)state;
  set_layout(false);
  const uint16_t idnum[NM] = {0, 1, 2, 3, 4};
  fake *f = build(idnum, -1);
  uintptr_t slots[2] = {(uintptr_t)f->method[3], (uintptr_t)f->method[1]};
  jmethodID ids[2] = {(jmethodID)&slots[0], (jmethodID)&slots[1]};
  ASGST_Method out[2];
  asgst__hs_from_jmethodids((uintptr_t)f->klass, ids, 2, out);
  assert_ptr_equal(out[0], f->method[3]);
  assert_ptr_equal(out[1], f->method[1]);
  assert_ptr_equal(asgst__hs_from_jmethodid(ids[0]), f->method[3]);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(resolves_in_idnum_order),
      cmocka_unit_test(resolves_out_of_idnum_order),
      cmocka_unit_test(unknown_ids_give_null),
      cmocka_unit_test(slot_ids_up_to_25),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
