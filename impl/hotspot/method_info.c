/*
 * method_info.c - method metadata read from VM memory: Method -> ConstMethod ->
 * ConstantPool -> Symbol. Every function here is SS and reads only through safe_read.h;
 * the caller (api/accessors.c) holds the crash guard, so a stale Method* that passes the
 * plausibility checks but points at unmapped memory ends in the guard, not a crash.
 */
#include "hotspot.h"

#include "../safe_read.h"


/* Method modifiers JVMTI GetMethodModifiers reports: the class-file flags HotSpot
 * recognises (public ... synthetic, 0x1DFF); the VM's internal bits above are masked. */
#define RECOGNIZED_METHOD_MODIFIERS 0x1DFF

/* SS. */
uint64_t asgst__hs_field(uintptr_t a, long off, int size) {
  uint64_t v = 0;
  if (off < 0 || !asgst__load_sized(a + (uintptr_t)off, (size_t)size, &v)) return 0;
  return v;
}

/* SS. Loads a pointer field; 0 when the holder or the field is not plausible. */
static uintptr_t ptr_field(uintptr_t a, long off) {
  uintptr_t v = 0;
  if (off < 0 || !asgst__load_ptr(a + (uintptr_t)off, &v)) return 0;
  return asgst__plausible(v, 8) ? v : 0;
}

/* SS. */
uintptr_t asgst__hs_cp_symbol(uintptr_t cp, uint32_t index) {
  int32_t len = (int32_t)asgst__hs_field(cp, asgst__vm.cp_length, 4);
  if (index == 0 || (int64_t)index >= len) return 0;
  uintptr_t sym = ptr_field(cp, asgst__vm.cp_sizeof + (long)index * 8);
  /* A slot may carry a tag in its lowest bit (a pseudo-string); Symbols are aligned. */
  return sym & ~(uintptr_t)1;
}

/* SS. */
bool asgst__hs_copy_symbol(uintptr_t sym, char *dst, jint *cap) {
  if (cap == NULL) return sym != 0;
  uint16_t len = 0;
  if (sym == 0 || !asgst__load_u16(sym + (uintptr_t)asgst__vm.sym_length, &len)) {
    asgst__copy_string(dst, cap, "", 0);
    return false;
  }
  if (dst != NULL && *cap > 0) {
    size_t n = len < (size_t)(*cap - 1) ? len : (size_t)(*cap - 1);
    if (!asgst__load_bytes(sym + (uintptr_t)asgst__vm.sym_body, dst, n)) n = 0, len = 0;
    dst[n] = '\0';
  }
  *cap = len;
  return true;
}

/* The parts of a method every accessor starts from. */
typedef struct {
  uintptr_t cm;   /* ConstMethod* */
  uintptr_t cp;   /* ConstantPool* */
  uint32_t flags; /* ConstMethod flags */
} parts;

/* SS. */
static bool method_parts(ASGST_Method m, parts *p) {
  uintptr_t mp = (uintptr_t)m;
  if ((mp & 7) != 0) return false;
  p->cm = ptr_field(mp, asgst__vm.method_const);
  if (p->cm == 0 || (p->cm & 7) != 0) return false;
  p->cp = ptr_field(p->cm, asgst__vm.cm_constants);
  if (p->cp == 0 || (p->cp & 7) != 0) return false;
  p->flags = (uint32_t)asgst__hs_field(p->cm, asgst__vm.cm_flags, asgst__vm.cm_flags_w);
  return true;
}

/* SS. The generic signature's constant pool index, stored as the last u2 of the
 * ConstMethod before the trailing annotation-array pointers (one per present kind). */
static uint32_t generic_index(const parts *p) {
  if ((p->flags & asgst__vm.cm_has_generic) == 0) return 0;
  int32_t words = (int32_t)asgst__hs_field(p->cm, asgst__vm.cm_size, 4);
  if (words <= 0 || words > (1 << 20)) return 0;
  int anns = !!(p->flags & asgst__vm.cm_has_method_ann) + !!(p->flags & asgst__vm.cm_has_param_ann) +
             !!(p->flags & asgst__vm.cm_has_type_ann) + !!(p->flags & asgst__vm.cm_has_default_ann);
  uintptr_t end = p->cm + (uintptr_t)words * 8;
  uint16_t idx = 0;
  if (!asgst__load_u16(end - (uintptr_t)anns * 8 - 2, &idx)) return 0;
  return idx;
}

/* SS. */
void asgst__hs_method_info(ASGST_Method m, ASGST_MethodInfo *info) {
  parts p;
  if (!method_parts(m, &p)) {
    info->klass = NULL;
    asgst__copy_string(info->method_name, &info->method_name_length, "", 0);
    asgst__copy_string(info->signature, &info->signature_length, "", 0);
    asgst__copy_string(info->generic_signature, &info->generic_signature_length, "", 0);
    info->modifiers = info->idnum = 0;
    info->class_idnum = 0;
    return;
  }
  uint32_t name = (uint32_t)asgst__hs_field(p.cm, asgst__vm.cm_name_index, 2);
  uint32_t sig = (uint32_t)asgst__hs_field(p.cm, asgst__vm.cm_sig_index, 2);
  uint32_t gen = generic_index(&p);
  asgst__hs_copy_symbol(asgst__hs_cp_symbol(p.cp, name), info->method_name, &info->method_name_length);
  asgst__hs_copy_symbol(asgst__hs_cp_symbol(p.cp, sig), info->signature, &info->signature_length);
  asgst__hs_copy_symbol(gen ? asgst__hs_cp_symbol(p.cp, gen) : 0, info->generic_signature,
                        &info->generic_signature_length);
  uint32_t acc = (uint32_t)asgst__hs_field((uintptr_t)m, asgst__vm.method_access, asgst__vm.method_access_w);
  info->modifiers = (jint)(acc & RECOGNIZED_METHOD_MODIFIERS);
  info->idnum = (jint)asgst__hs_field(p.cm, asgst__vm.cm_idnum, 2);
  uintptr_t k = ptr_field(p.cp, asgst__vm.cp_holder);
  info->klass = (ASGST_Class)k;
  info->class_idnum = asgst__hs_class_idnum((ASGST_Class)k);
}

/* SS. */
ASGST_Class asgst__hs_method_class(ASGST_Method m) {
  parts p;
  return method_parts(m, &p) ? (ASGST_Class)ptr_field(p.cp, asgst__vm.cp_holder) : NULL;
}

/* SS. ConstMethod::_method_idnum: the index of the method in its class's original method
 * order; a redefinition gives the new version of a method the idnum of the old one. */
jint asgst__hs_method_idnum(ASGST_Method m) {
  parts p;
  return method_parts(m, &p) ? (jint)asgst__hs_field(p.cm, asgst__vm.cm_idnum, 2) : 0;
}

/* SS. The class id is the InstanceKlass address: HotSpot redefines a class in place
 * (the new bytecodes are swapped into the same InstanceKlass), so the address is stable
 * across redefinition for as long as the class is loaded. After an unload the address may
 * be reused by a new class; the unload handler is the profiler's cue to forget it. */
jlong asgst__hs_class_idnum(ASGST_Class k) {
  return (jlong)(uintptr_t)k;
}

/* SS. */
uintptr_t asgst__hs_class_methods(uintptr_t k, int *n) {
  *n = 0;
  uintptr_t arr = ptr_field(k, asgst__vm.ik_methods);
  if (arr == 0) return 0;
  int32_t len = (int32_t)asgst__hs_field(arr, asgst__vm.array_length, 4);
  if (len <= 0 || len > 65535) return 0;
  *n = len;
  return arr + (uintptr_t)asgst__vm.array_data;
}
