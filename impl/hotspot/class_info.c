/*
 * class_info.c - class metadata read from the InstanceKlass (SS, under the caller's guard).
 */
#include "hotspot.h"

#include "../safe_read.h"

#define H asgst__vm

/* Class-file flags HotSpot recognises for a class (public, final, super, interface,
 * abstract, synthetic, annotation, enum). */
#define RECOGNIZED_CLASS_MODIFIERS 0x7631
#define ACC_SUPER 0x20

/* SS. The modifiers JVMTI GetClassModifiers reports: the VM's cached modifier flags
 * (the InnerClasses attribute's flags for a nested class, without ACC_SUPER) plus
 * ACC_SUPER when the class has it. On VMs without Klass::_modifier_flags (JDK 24+), the
 * class file's own flags. */
static jint class_modifiers(uintptr_t k) {
  uint32_t acc = (uint32_t)asgst__hs_field(k, H.k_access, H.k_access_w);
  if (H.k_modifier < 0) return (jint)(acc & RECOGNIZED_CLASS_MODIFIERS);
  uint32_t mod = (uint32_t)asgst__hs_field(k, H.k_modifier, 4);
  return (jint)(mod | (acc & ACC_SUPER));
}

/* SS. The class's generic signature from its constant pool, 0 if none. */
static uintptr_t generic_symbol(uintptr_t k) {
  if (H.cp_generic_index < 0) return 0;
  uintptr_t cp = 0;
  if (!asgst__load_ptr(k + (uintptr_t)H.ik_constants, &cp)) return 0;
  uint32_t idx = (uint32_t)asgst__hs_field(cp, H.cp_generic_index, 2);
  return idx ? asgst__hs_cp_symbol(cp, idx) : 0;
}

/* SS. A hidden class's name is "<name>+0x<hex>" in the VM (the suffix is an address);
 * JVMTI GetClassSignature prints the suffix after a '.' (Class.getName after a '/'), so
 * ASGST reports the JVMTI form. Only a complete (not truncated) copy is rewritten. */
static void hidden_class_form(char *name, jint len, jint cap) {
  if (name == NULL || len >= cap) return;
  jint i = len;
  while (i > 0 && ((name[i - 1] >= '0' && name[i - 1] <= '9') || (name[i - 1] >= 'a' && name[i - 1] <= 'f')))
    i--;
  if (i == len || len - i > 16 || i < 4 || name[i - 1] != 'x' || name[i - 2] != '0' || name[i - 3] != '+')
    return;
  name[i - 3] = '.';
}

/* SS. */
void asgst__hs_class_info(ASGST_Class k, ASGST_ClassInfo *info) {
  uintptr_t kp = (uintptr_t)k;
  uintptr_t name = 0;
  if ((kp & 7) || !asgst__load_ptr(kp + (uintptr_t)H.k_name, &name)) name = 0;
  jint cap = info->class_name_length;
  asgst__hs_copy_symbol(name, info->class_name, &info->class_name_length);
  hidden_class_form(info->class_name, info->class_name_length, cap);
  uintptr_t gen = name ? generic_symbol(kp) : 0;
  asgst__hs_copy_symbol(gen, info->generic_class_name, &info->generic_class_name_length);
  info->modifiers = name ? class_modifiers(kp) : 0;
  info->idnum = name ? asgst__hs_class_idnum(k) : 0;
}
