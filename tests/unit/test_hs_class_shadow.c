/* test_hs_class_shadow.c - shadow copies of class metadata (impl/hotspot/classes/class_shadow.c)
 * over a hand-built JDK 17 class with one method (no JVM): the backend's accessors answer
 * from a published shadow after the class's memory is wiped (as after an unload), and
 * from VM memory again once the shadow is retired; retired shadows are freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "impl/hotspot/classes/class_shadow.h"
#include "impl/hotspot/hotspot_backend.h"
#include "impl/hotspot/classes/metadata.h"
#include "impl/hotspot/model/vm_model.h"
#include "impl/test_build.h" /* asgst__hs_shadow_stats */

/* JDK 17 offsets, as in test_hs_line_table.c. */
static void set_layout(void) {
  memset(&asgst__vm, 0, sizeof asgst__vm);
  asgst__vm_model *h = &asgst__vm;
  h->method_const = 8, h->method_access = 40, h->method_access_w = 4;
  h->cm_constants = 8, h->cm_size = 24, h->cm_flags = 28, h->cm_flags_w = 2;
  h->cm_code_size = 32, h->cm_name_index = 34, h->cm_sig_index = 36, h->cm_idnum = 38;
  h->cm_sizeof = 48, h->cm_has_lines = 1, h->cm_has_generic = 16;
  h->cp_holder = 24, h->cp_length = 60, h->cp_generic_index = -1, h->cp_sizeof = 72;
  h->sym_length = 4, h->sym_body = 6;
  h->k_name = 24, h->k_access = 164, h->k_access_w = 4, h->k_modifier = 16;
  h->ik_constants = 232;
}

typedef struct {
  uint64_t method[8], cm[16], cp[16], klass[40], sym[3][4];
} fake;

static void put(void *base, size_t off, const void *v, size_t n) { memcpy((char *)base + off, v, n); }

static void symbol(uint64_t *s, const char *text) {
  uint16_t len = (uint16_t)strlen(text);
  put(s, 4, &len, 2);
  put(s, 6, text, len);
}

/* Class "pkg/Dying" with method "step" "(I)I", idnum 2, public; lines (0,6), (3,7). */
static fake *build(void) {
  fake *f = calloc(1, sizeof *f);
  f->method[1] = (uintptr_t)f->cm;
  uint32_t acc = 1;
  put(f->method, 40, &acc, 4);
  f->cm[1] = (uintptr_t)f->cp;
  int32_t words = 16, cplen = 3;
  uint16_t flags = 1, code = 4, name = 1, sig = 2, idnum = 2;
  put(f->cm, 24, &words, 4);
  put(f->cm, 28, &flags, 2);
  put(f->cm, 32, &code, 2);
  put(f->cm, 34, &name, 2);
  put(f->cm, 36, &sig, 2);
  put(f->cm, 38, &idnum, 2);
  const uint8_t lines[] = {0xFF, 0, 12, (3 << 3) | 1, 0}; /* (0,6), (3,7) */
  put(f->cm, 48 + 4, lines, sizeof lines);
  f->cp[3] = (uintptr_t)f->klass;
  put(f->cp, 60, &cplen, 4);
  f->cp[10] = (uintptr_t)f->sym[0];
  f->cp[11] = (uintptr_t)f->sym[1];
  symbol(f->sym[0], "step");
  symbol(f->sym[1], "(I)I");
  symbol(f->sym[2], "pkg/Dying");
  f->klass[3] = (uintptr_t)f->sym[2];
  return f;
}

static void method_info(ASGST_Method m, char *name, char *sig, ASGST_MethodInfo *mi) {
  *mi = (ASGST_MethodInfo){NULL, name, 32, sig, 32, NULL, 0, 0, 0, 0};
  asgst__hotspot_backend.method_info(m, mi);
}

static void answers_from_the_shadow_while_published(void **state) {
  (void)state;
  set_layout();
  fake *f = build();
  ASGST_Method m = (ASGST_Method)f->method;
  ASGST_Class k = (ASGST_Class)f->klass;
  long live = asgst__hs_shadow_stats().live;
  asgst__hs_shadow *s = asgst__hs_shadow_take((uintptr_t)k, &m, 1);
  assert_non_null(s);
  assert_false(asgst__hs_shadow_maybe());
  memset(f, 0, sizeof *f); /* the VM freed the metadata */
  char name[32], sig[32], cname[32];
  ASGST_MethodInfo mi;
  method_info(m, name, sig, &mi);
  assert_string_equal(name, "");

  assert_true(asgst__hs_shadow_publish(s));
  assert_true(asgst__hs_shadow_maybe());
  method_info(m, name, sig, &mi);
  assert_string_equal(name, "step");
  assert_string_equal(sig, "(I)I");
  assert_int_equal(mi.generic_signature_length, 0);
  assert_int_equal(mi.idnum, 2);
  assert_int_equal(mi.modifiers, 1);
  assert_ptr_equal(mi.klass, k);
  assert_ptr_equal(asgst__hotspot_backend.method_class(m), k);
  assert_int_equal(asgst__hotspot_backend.method_idnum(m), 2);
  ASGST_ClassInfo ci = {cname, sizeof cname, NULL, 0, 0, 0};
  asgst__hotspot_backend.class_info(k, &ci);
  assert_string_equal(cname, "pkg/Dying");
  assert_int_equal(ci.idnum, (jlong)(uintptr_t)k);
  ASGST_MethodLineNumberEntry e[4];
  assert_int_equal(asgst__hotspot_backend.line_table(m, 0, e, 4), 2);
  assert_int_equal(e[0].line_number, 6);
  assert_int_equal(e[1].start_bci, 3);
  assert_int_equal(e[1].line_number, 7);
  assert_int_equal(asgst__hotspot_backend.line_table(m, 1, e, 1), 2);
  assert_int_equal(e[0].line_number, 7);
  /* Another Method* is not the shadow's: read from (here unreadable) memory. */
  assert_int_equal(asgst__hotspot_backend.method_idnum((ASGST_Method)f->cm), 0);

  asgst__hs_shadow_retire(s); /* no reader inside: freed at once */
  assert_false(asgst__hs_shadow_maybe());
  assert_int_equal(asgst__hs_shadow_stats().live, live);
  method_info(m, name, sig, &mi);
  assert_string_equal(name, "");
  free(f);
}

static void a_method_of_another_class_is_left_out(void **state) {
  (void)state;
  set_layout();
  fake *f = build(), *g = build();
  ASGST_Method ms[2] = {(ASGST_Method)f->method, (ASGST_Method)g->method};
  asgst__hs_shadow *s = asgst__hs_shadow_take((uintptr_t)f->klass, ms, 2);
  assert_non_null(s);
  memset(f, 0, sizeof *f);
  memset(g, 0, sizeof *g);
  assert_true(asgst__hs_shadow_publish(s));
  assert_int_equal(asgst__hotspot_backend.method_idnum(ms[0]), 2);
  assert_int_equal(asgst__hotspot_backend.method_idnum(ms[1]), 0);
  asgst__hs_shadow_retire(s);
  free(f);
  free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_from_the_shadow_while_published),
      cmocka_unit_test(a_method_of_another_class_is_left_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
