/*
 * accessors.c - method and class information, code blob names and handle conversions,
 * forwarded to the active backend under the crash guard (a stale Method* must give empty
 * fields, not a crash).
 */
#include <string.h>

#include "internal.h"
#include "../impl/guard.h"

static void clear_class_info(ASGST_ClassInfo *info) {
  asgst__copy_string(info->class_name, &info->class_name_length, "", 0);
  asgst__copy_string(info->generic_class_name, &info->generic_class_name_length, "", 0);
  info->modifiers = 0;
  info->idnum = 0;
}

/* Runs `call` under the guard (ASGST__GUARDED) with `be` set to the active backend;
 * `fallback` when no backend is active or the call faulted. */
#define BACKEND_CALL(call, fallback)                      \
  do {                                                    \
    const asgst__backend *be = asgst__active_backend();   \
    if (be == NULL) { fallback; }                         \
    else ASGST__GUARDED(call, fallback);                  \
  } while (0)

/* SS. */
void ASGST_GetMethodInfo(ASGST_Method m, ASGST_MethodInfo *info) {
  if (info == NULL) return;
  if (m == NULL) { asgst__clear_method_info(info); return; }
  /* Keep the capacities: a fault halfway must not leave lengths that are not capacities. */
  ASGST_MethodInfo in = *info;
  BACKEND_CALL(be->method_info(m, info), (*info = in, asgst__clear_method_info(info)));
}

/* SS. */
void ASGST_GetClassInfo(ASGST_Class k, ASGST_ClassInfo *info) {
  if (info == NULL) return;
  if (k == NULL) { clear_class_info(info); return; }
  ASGST_ClassInfo in = *info;
  BACKEND_CALL(be->class_info(k, info), (*info = in, clear_class_info(info)));
}

/* SS. */
jint ASGST_GetMethodIdNum(ASGST_Method m) {
  volatile jint r = 0;
  if (m) BACKEND_CALL(r = be->method_idnum(m), r = 0);
  return r;
}

/* SS. */
jlong ASGST_GetClassIdNum(ASGST_Class k) {
  volatile jlong r = 0;
  if (k) BACKEND_CALL(r = be->class_idnum(k), r = 0);
  return r;
}

/* SS. */
ASGST_Class ASGST_GetClass(ASGST_Method m) {
  ASGST_Class volatile r = NULL;
  if (m) BACKEND_CALL(r = be->method_class(m), r = NULL);
  return r;
}

/* SS. */
static int line_table_at(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *entries,
                         int length) {
  volatile int r = 0;
  if (m && length >= 0 && offset >= 0)
    BACKEND_CALL(r = be->line_table(m, offset, entries, length), r = 0);
  return r;
}

/* SS. */
int ASGST_GetMethodLineNumberTable(ASGST_Method m, ASGST_MethodLineNumberEntry *entries,
                                   int length) {
  return line_table_at(m, 0, entries, entries ? length : 0);
}

/* SS. The line of the entry with the greatest start_bci <= bci (the class file's rule),
 * scanning the table in stack-sized chunks so nothing is allocated. */
jint ASGST_GetMethodLineNumber(ASGST_Method m, jint bci) {
  enum { CHUNK = 32 };
  ASGST_MethodLineNumberEntry e[CHUNK];
  if (m == NULL || bci < 0) return -1;
  jint line = -1, best = -1;
  int total = line_table_at(m, 0, e, CHUNK);
  for (int base = 0; base < total; base += CHUNK) {
    if (base > 0 && line_table_at(m, base, e, CHUNK) != total) return -1;
    int n = total - base < CHUNK ? total - base : CHUNK;
    for (int i = 0; i < n; i++) {
      if (e[i].start_bci <= bci && e[i].start_bci >= best) {
        best = e[i].start_bci;
        line = e[i].line_number;
      }
    }
  }
  return line;
}

/* SS. Arguments first, so that a bad call is told as such whatever the backend. */
int ASGST_GetCodeBlobName(const void *pc, char *buf, int32_t len, const void **blob) {
  if (blob) *blob = NULL;
  if (pc == NULL || len < 0 || (buf == NULL && len > 0)) return ASGST_INVALID_ARGUMENT;
  const asgst__backend *be = asgst__active_backend();
  if (be == NULL) return asgst__unbound_error();
  if (be->code_blob_name == NULL) return ASGST_UNSUPPORTED;
  if (be->may_be_blob && !be->may_be_blob((uintptr_t)pc)) {
    if (len > 0) buf[0] = '\0';
    return 0;
  }
  volatile int r = ASGST_WALK_FAULTED;
  uintptr_t b = 0;
  /* A fault halfway leaves a partial name: hand back an empty one. */
  ASGST__GUARDED(r = be->code_blob_name((uintptr_t)pc, buf, len, &b),
                 if (len > 0) buf[0] = '\0');
  if (blob && r > 0) *blob = (const void *)b;
  return r;
}

/* N. */
jmethodID ASGST_MethodToJMethodID(ASGST_Method m) {
  const asgst__backend *be = asgst__active_backend();
  return be && be->to_jmethodid && m ? be->to_jmethodid(m) : NULL;
}

/* N. */
ASGST_Method ASGST_JMethodIDToMethod(jmethodID id) {
  const asgst__backend *be = asgst__active_backend();
  return be && be->from_jmethodid && id ? be->from_jmethodid(id) : NULL;
}

/* N. */
jclass ASGST_ClassToJClass(ASGST_Class k) {
  const asgst__backend *be = asgst__active_backend();
  return be && be->to_jclass && k ? be->to_jclass(k) : NULL;
}

/* N. */
ASGST_Class ASGST_JClassToClass(jclass k) {
  const asgst__backend *be = asgst__active_backend();
  return be && be->from_jclass && k ? be->from_jclass(k) : NULL;
}
