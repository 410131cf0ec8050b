/*
 * metadata.c - method and class information of the synthetic VM.
 *
 * Handles come from callers and may be stale or random: each is first checked with a safe
 * load of its magic number (the API runs these callbacks under the crash guard). A handle
 * whose magic is not "live" (an unloaded class, a method replaced by a redefinition)
 * gives empty fields.
 */
#include "internal.h"
#include "../safe_read.h"

/* SS. */
const asgst__synth_method *asgst__synth_live_method(ASGST_Method m) {
  uint32_t magic;
  if (!asgst__load_u32((uintptr_t)m, &magic) || magic != ASGST__SYNTH_METHOD_LIVE) return NULL;
  return (const asgst__synth_method *)m;
}

/* SS. */
const asgst__synth_class *asgst__synth_live_class(ASGST_Class k) {
  uint32_t magic;
  if (!asgst__load_u32((uintptr_t)k, &magic) || magic != ASGST__SYNTH_CLASS_LIVE) return NULL;
  return (const asgst__synth_class *)k;
}

/* SS. */
void asgst__synth_method_info(ASGST_Method handle, ASGST_MethodInfo *info) {
  const asgst__synth_method *m = asgst__synth_live_method(handle);
  if (m == NULL) {
    asgst__clear_method_info(info);
    return;
  }
  info->klass = (ASGST_Class)m->klass;
  asgst__copy_string(info->method_name, &info->method_name_length, m->name, m->name_len);
  asgst__copy_string(info->signature, &info->signature_length, m->signature,
                     m->signature_len);
  asgst__copy_string(info->generic_signature, &info->generic_signature_length, m->generic,
                     m->generic_len);
  info->modifiers = m->modifiers;
  info->idnum = m->idnum;
  info->class_idnum = m->klass->idnum;
}

/* SS. */
void asgst__synth_class_info(ASGST_Class handle, ASGST_ClassInfo *info) {
  const asgst__synth_class *k = asgst__synth_live_class(handle);
  if (k == NULL) {
    asgst__copy_string(info->class_name, &info->class_name_length, "", 0);
    asgst__copy_string(info->generic_class_name, &info->generic_class_name_length, "", 0);
    info->modifiers = 0;
    info->idnum = 0;
    return;
  }
  asgst__copy_string(info->class_name, &info->class_name_length, k->name, k->name_len);
  asgst__copy_string(info->generic_class_name, &info->generic_class_name_length, k->generic,
                     k->generic_len);
  info->modifiers = k->modifiers;
  info->idnum = k->idnum;
}

/* SS. */
ASGST_Class asgst__synth_method_class(ASGST_Method handle) {
  const asgst__synth_method *m = asgst__synth_live_method(handle);
  return m ? (ASGST_Class)m->klass : NULL;
}

/* SS. */
jint asgst__synth_method_idnum(ASGST_Method handle) {
  const asgst__synth_method *m = asgst__synth_live_method(handle);
  return m ? m->idnum : 0;
}

/* SS. */
jlong asgst__synth_class_idnum(ASGST_Class handle) {
  const asgst__synth_class *k = asgst__synth_live_class(handle);
  return k ? k->idnum : 0;
}

/* SS. */
int asgst__synth_line_table(ASGST_Method handle, int offset, ASGST_MethodLineNumberEntry *e,
                            int length) {
  const asgst__synth_method *m = asgst__synth_live_method(handle);
  if (m == NULL) return 0;
  for (int i = 0; e && i < length && i < m->nlines - offset; i++) e[i] = m->lines[offset + i];
  return m->nlines;
}
