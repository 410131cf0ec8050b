/* test_hs_line_table.c - the HotSpot compressed line number table decoder and the
 * method/class accessors over hand-built VM structures laid out as on JDK 17 (no JVM):
 * short and escaped (multi-byte, negative) deltas, the generic signature slot at the end
 * of a ConstMethod, hidden class names. (Hidden vmStructs names: test_hs_vm_model.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "impl/hotspot/classes/metadata.h"
#include "impl/hotspot/model/vm_model.h"

/* JDK 17 offsets (see the vmStructs dump): Method::_constMethod 8, _access_flags 40;
 * ConstMethod::_constants 8, _constMethod_size 24, _flags 28 (u2), _code_size 32,
 * _name_index 34, _signature_index 36, _method_idnum 38, sizeof 48; ConstantPool
 * _pool_holder 24, _length 60, _generic_signature_index 52, sizeof 72; Symbol _length 4,
 * _body 6; Klass::_name 24, _access_flags 164, _modifier_flags 16; InstanceKlass
 * _constants 232. */
static void set_jdk17_layout(void) {
  memset(&asgst__vm, 0, sizeof asgst__vm);
  asgst__vm_model *h = &asgst__vm;
  h->method_const = 8, h->method_access = 40, h->method_access_w = 4;
  h->cm_constants = 8, h->cm_size = 24, h->cm_flags = 28, h->cm_flags_w = 2;
  h->cm_code_size = 32, h->cm_name_index = 34, h->cm_sig_index = 36, h->cm_idnum = 38;
  h->cm_sizeof = 48;
  h->cm_has_lines = 1, h->cm_has_generic = 16, h->cm_has_method_ann = 128;
  h->cm_has_param_ann = 256, h->cm_has_type_ann = 512, h->cm_has_default_ann = 1024;
  h->cp_holder = 24, h->cp_length = 60, h->cp_generic_index = 52, h->cp_sizeof = 72;
  h->sym_length = 4, h->sym_body = 6;
  h->k_name = 24, h->k_access = 164, h->k_access_w = 4, h->k_modifier = 16;
  h->k_mirror = 112, h->ik_methods = 408, h->ik_constants = 232;
  h->array_length = 0, h->array_data = 8;
}

typedef struct {
  uint64_t method[11];
  uint64_t cm[32];
  uint64_t cp[16];
  uint64_t klass[64];
  uint64_t sym[4][8];
} fake;

static void make_symbol(uint64_t *s, const char *text) {
  uint16_t len = (uint16_t)strlen(text);
  memcpy((char *)s + 4, &len, 2);
  memcpy((char *)s + 6, text, len);
}

/* A method "run" "()V" with generic signature "<T:>()V", 4 bytecodes, the line table
 * `stream`, and one method annotation pointer after the generic signature index. */
static fake *build(const uint8_t *stream, size_t n) {
  fake *f = calloc(1, sizeof *f);
  f->method[1] = (uintptr_t)f->cm;
  uint32_t acc = 0x0009 | 0x20000000; /* public static + a VM-internal bit */
  memcpy((char *)f->method + 40, &acc, 4);
  f->cm[1] = (uintptr_t)f->cp;
  int32_t words = 32;
  memcpy((char *)f->cm + 24, &words, 4);
  uint16_t flags = 1 | 16 | 128, code = 4, name = 1, sig = 2, idnum = 7, gen = 3;
  memcpy((char *)f->cm + 28, &flags, 2);
  memcpy((char *)f->cm + 32, &code, 2);
  memcpy((char *)f->cm + 34, &name, 2);
  memcpy((char *)f->cm + 36, &sig, 2);
  memcpy((char *)f->cm + 38, &idnum, 2);
  memcpy((char *)f->cm + 48 + 4, stream, n);
  /* generic signature index: the last u2 before the one annotation pointer */
  memcpy((char *)f->cm + 32 * 8 - 8 - 2, &gen, 2);
  f->cp[3] = (uintptr_t)f->klass;
  int32_t len = 5;
  memcpy((char *)f->cp + 60, &len, 4);
  f->cp[9 + 1] = (uintptr_t)f->sym[0];
  f->cp[9 + 2] = (uintptr_t)f->sym[1];
  f->cp[9 + 3] = (uintptr_t)f->sym[2];
  make_symbol(f->sym[0], "run");
  make_symbol(f->sym[1], "()V");
  make_symbol(f->sym[2], "<T:>()V");
  make_symbol(f->sym[3], "Foo$$Lambda$14+0x800c01");
  f->klass[3] = (uintptr_t)f->sym[3];
  f->klass[29] = (uintptr_t)f->cp;
  return f;
}

static void decodes_short_and_escaped_deltas(void **state) {
  (void)state;
  set_jdk17_layout();
  /* (0,10): escape, zigzag 0 and 20; (3,11): (3<<3)|1; (300,5): escape, bci +297 =
   * zigzag 594 = 210 + 6*64 (two bytes), line -6 = zigzag 11; end. */
  const uint8_t stream[] = {0xFF, 0, 20, 0x19, 0xFF, 210, 6, 11, 0};
  fake *f = build(stream, sizeof stream);
  ASGST_MethodLineNumberEntry e[8];
  assert_int_equal(asgst__hs_line_table((ASGST_Method)f->method, 0, e, 8), 3);
  assert_int_equal(e[0].start_bci, 0);
  assert_int_equal(e[0].line_number, 10);
  assert_int_equal(e[1].start_bci, 3);
  assert_int_equal(e[1].line_number, 11);
  assert_int_equal(e[2].start_bci, 300);
  assert_int_equal(e[2].line_number, 5);
  /* offset/length window */
  assert_int_equal(asgst__hs_line_table((ASGST_Method)f->method, 2, e, 1), 3);
  assert_int_equal(e[0].start_bci, 300);
  free(f);
}

static void unterminated_stream_gives_no_table(void **state) {
  (void)state;
  set_jdk17_layout();
  uint8_t stream[32 * 8 - 48 - 4];
  memset(stream, 0x19, sizeof stream); /* never a terminator before the ConstMethod ends */
  fake *f = build(stream, sizeof stream);
  memset((char *)f->cm + 52, 0x19, sizeof stream); /* over the generic signature slot too */
  ASGST_MethodLineNumberEntry e[8];
  assert_int_equal(asgst__hs_line_table((ASGST_Method)f->method, 0, e, 8), 0);
  free(f);
}

/* A stream whose deltas leave the class file's ranges (a line below 0 or above 65535, a
 * negative bci) is no line table: none, never a line below -1. */
static void out_of_range_deltas_give_no_table(void **state) {
  (void)state;
  set_jdk17_layout();
  const uint8_t negative_line[] = {0x19, 0xFF, 0, 5, 0};  /* (3,1), then line -2 */
  const uint8_t negative_bci[] = {0xFF, 3, 20, 0};        /* bci -2 */
  const uint8_t huge_line[] = {0xFF, 0, 192, 192, 40, 0}; /* line +88160 */
  const uint8_t *streams[] = {negative_line, negative_bci, huge_line};
  size_t sizes[] = {sizeof negative_line, sizeof negative_bci, sizeof huge_line};
  for (int i = 0; i < 3; i++) {
    fake *f = build(streams[i], sizes[i]);
    ASGST_MethodLineNumberEntry e[8];
    assert_int_equal(asgst__hs_line_table((ASGST_Method)f->method, 0, e, 8), 0);
    free(f);
  }
}

static void method_and_class_info(void **state) {
  (void)state;
  set_jdk17_layout();
  const uint8_t stream[] = {0x19, 0};
  fake *f = build(stream, sizeof stream);
  char name[16], sig[16], gen[16];
  ASGST_MethodInfo mi = {NULL, name, sizeof name, sig, sizeof sig, gen, 4, 0, 0, 0};
  asgst__hs_method_info((ASGST_Method)f->method, &mi);
  assert_string_equal(name, "run");
  assert_string_equal(sig, "()V");
  assert_string_equal(gen, "<T:"); /* truncated to capacity 4 */
  assert_int_equal(mi.generic_signature_length, 7);
  assert_int_equal(mi.modifiers, 0x0009);
  assert_int_equal(mi.idnum, 7);
  assert_ptr_equal(mi.klass, f->klass);
  char cname[64];
  ASGST_ClassInfo ci = {cname, sizeof cname, NULL, 0, 0, 0};
  asgst__hs_class_info((ASGST_Class)f->klass, &ci);
  assert_string_equal(cname, "Foo$$Lambda$14.0x800c01"); /* JVMTI's form of a hidden class */
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decodes_short_and_escaped_deltas),
      cmocka_unit_test(unterminated_stream_gives_no_table),
      cmocka_unit_test(out_of_range_deltas_give_no_table),
      cmocka_unit_test(method_and_class_info),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
