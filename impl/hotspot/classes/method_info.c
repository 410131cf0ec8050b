/*
 * method_info.c - method metadata read from VM memory: Method -> ConstMethod ->
 * ConstantPool -> Symbol. Every function here is SS and reads only through safe_read.h;
 * the caller (api/accessors.c) holds the crash guard, so a stale Method* that passes the
 * plausibility checks but points at unmapped memory ends in the guard, not a crash.
 */
#include "metadata.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"

#include "../../backend.h"
#include "../../safe_read.h"

/* Method modifiers JVMTI GetMethodModifiers reports: the class-file flags HotSpot
 * recognises (public ... synthetic, 0x1DFF); the VM's internal bits above are masked. */
#define RECOGNIZED_METHOD_MODIFIERS 0x1DFF

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
  p->cm = asgst__hs_ptr_field(mp, asgst__vm.method_const);
  if (p->cm == 0 || (p->cm & 7) != 0) return false;
  p->cp = asgst__hs_ptr_field(p->cm, asgst__vm.cm_constants);
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
  uintptr_t k = asgst__hs_ptr_field(p.cp, asgst__vm.cp_holder);
  info->klass = (ASGST_Class)k;
  info->class_idnum = asgst__hs_class_idnum((ASGST_Class)k);
}

/* SS. */
ASGST_Class asgst__hs_method_class(ASGST_Method m) {
  parts p;
  return method_parts(m, &p) ? (ASGST_Class)asgst__hs_ptr_field(p.cp, asgst__vm.cp_holder) : NULL;
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
