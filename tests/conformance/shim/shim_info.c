/*
 * shim_info.c - method and class information of the AsyncGetCallTrace shim, from JVMTI
 * (N, not signal safe). A method handle is its jmethodID; a class handle is a record the
 * shim attaches to the class mirror with a JVMTI tag, so one class has one handle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

typedef struct {
  jweak mirror;
  jlong idnum;
} shim_class;

/* N. Copies s into buf (capacity *len), NUL-terminated and truncated; *len becomes the full
 * length. A NULL buffer is skipped; a NULL string is reported as length 0. */
static void copy_out(char *buf, jint *len, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (buf && *len > 0) snprintf(buf, (size_t)*len, "%s", s ? s : "");
  *len = (jint)n;
}

/* N. The record of class c, created on first sight. */
static shim_class *record_of(JNIEnv *env, jclass c) {
  static jlong next_idnum = 1;
  jlong tag = 0;
  if (!env || !c || (*shim_jvmti)->GetTag(shim_jvmti, c, &tag) != JVMTI_ERROR_NONE) return NULL;
  if (tag) return (shim_class *)(intptr_t)tag;
  shim_class *k = malloc(sizeof *k);
  if (!k) return NULL;
  k->mirror = (*env)->NewWeakGlobalRef(env, c);
  k->idnum = __atomic_fetch_add(&next_idnum, 1, __ATOMIC_RELAXED);
  (*shim_jvmti)->SetTag(shim_jvmti, c, (jlong)(intptr_t)k);
  return k;
}

/* N. */
ASGST_Class ASGST_JClassToClass(jclass c) {
  return (ASGST_Class)record_of(shim_env(), c);
}

/* N. A local reference to the class, NULL if it is gone. */
jclass ASGST_ClassToJClass(ASGST_Class k) {
  JNIEnv *env = shim_env();
  return k && env ? (jclass)(*env)->NewLocalRef(env, ((shim_class *)k)->mirror) : NULL;
}

/* N. */
ASGST_Class ASGST_GetClass(ASGST_Method m) {
  jclass c = NULL;
  JNIEnv *env = shim_env();
  if (!m || !env || (*shim_jvmti)->GetMethodDeclaringClass(shim_jvmti, (jmethodID)m, &c) != JVMTI_ERROR_NONE)
    return NULL;
  ASGST_Class k = (ASGST_Class)record_of(env, c);
  (*env)->DeleteLocalRef(env, c);
  return k;
}

/* N. The method's position among its class's methods (stable while the class lives). */
jint ASGST_GetMethodIdNum(ASGST_Method m) {
  jclass c = NULL;
  jint n = 0, idnum = 0;
  jmethodID *ids = NULL;
  if (!m || (*shim_jvmti)->GetMethodDeclaringClass(shim_jvmti, (jmethodID)m, &c) != JVMTI_ERROR_NONE) return 0;
  if ((*shim_jvmti)->GetClassMethods(shim_jvmti, c, &n, &ids) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < n; i++)
      if (ids[i] == (jmethodID)m) idnum = i + 1;
    (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)ids);
  }
  JNIEnv *env = shim_env();
  if (env) (*env)->DeleteLocalRef(env, c);
  return idnum;
}

/* N. */
jlong ASGST_GetClassIdNum(ASGST_Class k) {
  return k ? ((shim_class *)k)->idnum : 0;
}

/* N. */
void ASGST_GetMethodInfo(ASGST_Method m, ASGST_MethodInfo *info) {
  char *name = NULL, *sig = NULL, *gen = NULL;
  jint mods = 0;
  if (m) (*shim_jvmti)->GetMethodName(shim_jvmti, (jmethodID)m, &name, &sig, &gen);
  if (m) (*shim_jvmti)->GetMethodModifiers(shim_jvmti, (jmethodID)m, &mods);
  copy_out(info->method_name, &info->method_name_length, name);
  copy_out(info->signature, &info->signature_length, sig);
  copy_out(info->generic_signature, &info->generic_signature_length, gen);
  info->modifiers = mods;
  info->klass = name ? ASGST_GetClass(m) : NULL;
  info->idnum = name ? ASGST_GetMethodIdNum(m) : 0;
  info->class_idnum = ASGST_GetClassIdNum(info->klass);
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)name);
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)sig);
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)gen);
}

/* N. "Lpkg/Name;" becomes "pkg/Name" in place. */
static char *internal_form(char *sig) {
  if (!sig || sig[0] != 'L') return sig;
  sig[strlen(sig) - 1] = '\0';
  return sig + 1;
}

/* N. */
void ASGST_GetClassInfo(ASGST_Class k, ASGST_ClassInfo *info) {
  char *sig = NULL, *gen = NULL;
  jint mods = 0;
  jclass c = ASGST_ClassToJClass(k);
  if (c) {
    (*shim_jvmti)->GetClassSignature(shim_jvmti, c, &sig, &gen);
    (*shim_jvmti)->GetClassModifiers(shim_jvmti, c, &mods);
  }
  copy_out(info->class_name, &info->class_name_length, internal_form(sig));
  copy_out(info->generic_class_name, &info->generic_class_name_length, gen);
  info->modifiers = mods;
  info->idnum = c ? ASGST_GetClassIdNum(k) : 0;
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)sig);
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)gen);
  JNIEnv *env = shim_env();
  if (c && env) (*env)->DeleteLocalRef(env, c);
}

/* N. */
int ASGST_GetMethodLineNumberTable(ASGST_Method m, ASGST_MethodLineNumberEntry *entries, int length) {
  jint n = 0;
  jvmtiLineNumberEntry *t = NULL;
  if (!m || (*shim_jvmti)->GetLineNumberTable(shim_jvmti, (jmethodID)m, &n, &t) != JVMTI_ERROR_NONE) return 0;
  for (jint i = 0; i < n && i < length && entries; i++)
    entries[i] = (ASGST_MethodLineNumberEntry){(jint)t[i].start_location, t[i].line_number};
  (*shim_jvmti)->Deallocate(shim_jvmti, (unsigned char *)t);
  return n;
}

/* N. The entry with the largest start at or below bci. */
jint ASGST_GetMethodLineNumber(ASGST_Method m, jint bci) {
  ASGST_MethodLineNumberEntry e[256];
  int n = ASGST_GetMethodLineNumberTable(m, e, 256);
  jint line = -1, best = -1;
  for (int i = 0; i < n && i < 256 && bci >= 0; i++)
    if (e[i].start_bci <= bci && e[i].start_bci > best) best = e[i].start_bci, line = e[i].line_number;
  return line;
}

/* N. A jmethodID is the shim's method handle. */
jmethodID ASGST_MethodToJMethodID(ASGST_Method m) {
  return (jmethodID)m;
}

/* N. */
ASGST_Method ASGST_JMethodIDToMethod(jmethodID id) {
  return (ASGST_Method)id;
}
