/*
 * layout.c - the one table of VM facts the binding and metadata code reads (layout.h).
 *
 * Each row names a vmStructs entry, with alternative spellings for JDKs that renamed it,
 * and says where its value goes and whether the backend can work without it. Init walks
 * the table once and collects the names of every missing required row into one message.
 */
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmstructs.h"

asgst__hs_layout_t asgst__hs;

enum kind { OFFSET, STATIC, SIZE, INT };

typedef struct {
  enum kind kind;
  const char *names[3]; /* "Type::field" / constant name; the first one found is used */
  void *dest;           /* long* (OFFSET, SIZE), uintptr_t* (STATIC), int32_t* (INT) */
  bool required;
  int *size_dest;       /* OFFSET: receives the field's size in bytes, if not NULL */
} row;

#define H asgst__hs
static const row rows[] = {
    {STATIC, {"Abstract_VM_Version::_vm_major_version"}, &H.jdk_major_addr, true, NULL},
    {OFFSET, {"Method::_constMethod"}, &H.method_const, true, NULL},
    {OFFSET, {"Method::_access_flags"}, &H.method_access, true, NULL},
    {OFFSET, {"ConstMethod::_constants"}, &H.cm_constants, true, NULL},
    {OFFSET, {"ConstMethod::_constMethod_size"}, &H.cm_size, true, NULL},
    {OFFSET, {"ConstMethod::_flags", "ConstMethod::_flags._flags"}, &H.cm_flags, true, &H.cm_flags_size},
    {OFFSET, {"ConstMethod::_code_size"}, &H.cm_code_size, true, NULL},
    {OFFSET, {"ConstMethod::_name_index"}, &H.cm_name_index, true, NULL},
    {OFFSET, {"ConstMethod::_signature_index"}, &H.cm_sig_index, true, NULL},
    {OFFSET, {"ConstMethod::_method_idnum"}, &H.cm_idnum, true, NULL},
    {SIZE, {"ConstMethod"}, &H.cm_sizeof, true, NULL},
    {INT, {"ConstMethod::_has_linenumber_table", "ConstMethodFlags::_misc_has_linenumber_table"}, &H.cm_has_lines, true, NULL},
    {INT, {"ConstMethod::_has_generic_signature", "ConstMethodFlags::_misc_has_generic_signature"}, &H.cm_has_generic, true, NULL},
    {INT, {"ConstMethod::_has_method_annotations", "ConstMethodFlags::_misc_has_method_annotations"}, &H.cm_has_method_ann, true, NULL},
    {INT, {"ConstMethod::_has_parameter_annotations", "ConstMethodFlags::_misc_has_parameter_annotations"}, &H.cm_has_param_ann, true, NULL},
    {INT, {"ConstMethod::_has_type_annotations", "ConstMethodFlags::_misc_has_type_annotations"}, &H.cm_has_type_ann, true, NULL},
    {INT, {"ConstMethod::_has_default_annotations", "ConstMethodFlags::_misc_has_default_annotations"}, &H.cm_has_default_ann, true, NULL},
    {OFFSET, {"ConstantPool::_pool_holder"}, &H.cp_holder, true, NULL},
    {OFFSET, {"ConstantPool::_length"}, &H.cp_length, true, NULL},
    {OFFSET, {"ConstantPool::_generic_signature_index"}, &H.cp_generic_index, false, NULL},
    {SIZE, {"ConstantPool"}, &H.cp_sizeof, true, NULL},
    {OFFSET, {"Symbol::_length"}, &H.sym_length, true, NULL},
    {OFFSET, {"Symbol::_body"}, &H.sym_body, true, NULL},
    {OFFSET, {"Klass::_name"}, &H.k_name, true, NULL},
    {OFFSET, {"Klass::_access_flags"}, &H.k_access, true, &H.k_access_size},
    {OFFSET, {"Klass::_java_mirror"}, &H.k_mirror, true, NULL},
    {OFFSET, {"Klass::_modifier_flags"}, &H.k_modifier, false, NULL},
    {OFFSET, {"InstanceKlass::_methods"}, &H.ik_methods, true, NULL},
    {OFFSET, {"InstanceKlass::_constants"}, &H.ik_constants, true, NULL},
    {OFFSET, {"Array<Klass*>::_length"}, &H.array_length, true, NULL},
    {OFFSET, {"Array<Method*>::_data", "Array<Klass*>::_data"}, &H.array_data, true, NULL},
    /* Optional: only to tell which hidden classes can be unloaded on their own
     * (class_unload.c); without them such classes are treated as not unloadable. */
    {OFFSET, {"Klass::_class_loader_data"}, &H.k_cld, false, NULL},
    {OFFSET, {"ClassLoaderData::_has_class_mirror_holder"}, &H.cld_mirror_holder, false, NULL},
    {OFFSET, {"JavaThread::_stack_base", "Thread::_stack_base"}, &H.t_stack_base, true, NULL},
    {OFFSET, {"JavaThread::_stack_size", "Thread::_stack_size"}, &H.t_stack_size, true, NULL},
    {OFFSET, {"JavaThread::_thread_state"}, &H.jt_state, true, NULL},
    {OFFSET, {"JavaThread::_terminated"}, &H.jt_terminated, true, NULL},
    {OFFSET, {"JavaThread::_current_pending_monitor"}, &H.jt_pending_monitor, false, NULL},
    {OFFSET, {"JavaThread::_current_waiting_monitor"}, &H.jt_waiting_monitor, false, NULL},
    {INT, {"JavaThread::_not_terminated"}, &H.not_terminated, true, NULL},
    {INT, {"_thread_new"}, &H.st_new, true, NULL},
    {INT, {"_thread_in_native"}, &H.st_in_native, true, NULL},
    {INT, {"_thread_in_native_trans"}, &H.st_in_native_trans, true, NULL},
    {INT, {"_thread_in_vm"}, &H.st_in_vm, true, NULL},
    {INT, {"_thread_in_vm_trans"}, &H.st_in_vm_trans, true, NULL},
    {INT, {"_thread_in_Java"}, &H.st_in_java, true, NULL},
    {INT, {"_thread_in_Java_trans"}, &H.st_in_java_trans, true, NULL},
    {INT, {"_thread_blocked"}, &H.st_blocked, true, NULL},
    {INT, {"_thread_blocked_trans"}, &H.st_blocked_trans, true, NULL},
    {STATIC, {"ThreadsSMRSupport::_java_thread_list"}, &H.java_thread_list, true, NULL},
    {OFFSET, {"ThreadsList::_length"}, &H.tl_length, true, NULL},
    {OFFSET, {"ThreadsList::_threads"}, &H.tl_threads, true, NULL},
    {STATIC, {"java_lang_Class::_klass_offset"}, &H.mirror_klass_offset_addr, true, NULL},
    {STATIC, {"JVMFlag::flags"}, &H.flags_addr, false, NULL},
    {STATIC, {"JVMFlag::numFlags"}, &H.num_flags_addr, false, NULL},
    {OFFSET, {"JVMFlag::_name"}, &H.flag_name, false, NULL},
    {OFFSET, {"JVMFlag::_addr"}, &H.flag_addr, false, NULL},
    {SIZE, {"JVMFlag"}, &H.flag_sizeof, false, NULL},
};
#undef H

/* N. */
bool asgst__hs_hidden(const char *name) {
  const char *list = getenv("ASGST_TEST_HIDE_FIELD");
  if (list == NULL || *list == '\0') return false;
  size_t n = strlen(name);
  for (const char *p = list; p != NULL; p = strchr(p, ',')) {
    if (*p == ',') p++;
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0')) return true;
  }
  return false;
}

/* N. Splits "Type::field" at its last "::" (type names such as Array<Method*> have none
 * inside, field names such as _flags._flags neither). */
static bool split(const char *name, char *type, size_t cap, const char **field) {
  const char *sep = NULL;
  for (const char *p = strstr(name, "::"); p; p = strstr(p + 2, "::")) sep = p;
  if (sep == NULL || (size_t)(sep - name) >= cap) return false;
  memcpy(type, name, (size_t)(sep - name));
  type[sep - name] = '\0';
  *field = sep + 2;
  return true;
}

/* N. Looks up one name; true and the value stored if the VM exports it. */
static bool lookup(const row *r, const char *name) {
  char type[128];
  const char *field = NULL;
  if (asgst__hs_hidden(name)) return false;
  switch (r->kind) {
    case OFFSET: {
      if (!split(name, type, sizeof type, &field)) return false;
      long off = asgst__vms_offset(type, field);
      if (off < 0) return false;
      *(long *)r->dest = off;
      if (r->size_dest) *r->size_dest = asgst__vms_field_size(type, field);
      return true;
    }
    case STATIC: {
      if (!split(name, type, sizeof type, &field)) return false;
      uintptr_t a = asgst__vms_static(type, field);
      if (a == 0) return false;
      *(uintptr_t *)r->dest = a;
      return true;
    }
    case SIZE: {
      long s = asgst__vms_type_size(name);
      if (s < 0) return false;
      *(long *)r->dest = s;
      return true;
    }
    case INT:
      return asgst__vms_int(name, (int32_t *)r->dest);
  }
  return false;
}

/* N. Appends `name` to the list of missing pieces in err. */
static void add_missing(char *err, size_t errlen, int *nmissing, const char *name) {
  size_t used = strlen(err);
  if (used + 1 >= errlen) return;
  snprintf(err + used, errlen - used, "%s%s", *nmissing ? ", " : "unsupported VM: missing ", name);
  (*nmissing)++;
}

/* N. Facts the tables do not export, derived from values they do. */
static int derive(char *err, size_t errlen) {
  asgst__hs.jdk_major = *(const int *)asgst__hs.jdk_major_addr;
  asgst__hs.lines_unsigned5 = asgst__hs.jdk_major >= 20;
  asgst__hs.mirror_klass_offset = *(const int *)asgst__hs.mirror_klass_offset_addr;
  if (asgst__hs.cm_flags_size != 2 && asgst__hs.cm_flags_size != 4) {
    snprintf(err, errlen, "unsupported VM: ConstMethod flags of %d bytes", asgst__hs.cm_flags_size);
    return -1;
  }
  /* java_lang_Class::_klass_offset is computed when java.lang.Class is loaded, after
   * Agent_OnLoad; the binding re-reads it once the VM is live (hotspot_init.c). */
  return 0;
}

/* N. */
int asgst__hs_layout_init(char *err, size_t errlen) {
  int missing = 0;
  err[0] = '\0';
  memset(&asgst__hs, 0, sizeof asgst__hs);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const row *r = &rows[i];
    if (r->kind == OFFSET) *(long *)r->dest = -1;
    bool found = false;
    for (int j = 0; j < 3 && r->names[j] && !found; j++) found = lookup(r, r->names[j]);
    if (!found && r->required) add_missing(err, errlen, &missing, r->names[0]);
  }
  if (missing) return -1;
  return derive(err, errlen);
}
