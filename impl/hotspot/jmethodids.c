/*
 * jmethodids.c - jmethodID <-> ASGST_Method (Method*) for the backend table. Ordinary code
 * (N): both directions may call JVMTI; meant for occasional use (once per method a profiler
 * reports), never per sample.
 *
 * Up to JDK 25 a jmethodID points at a slot holding the Method*. JDK 26 made it a number
 * the VM looks up in a table of its own (not exported), so there the Method* is found in
 * the holder's methods array by name and signature.
 */
#include "hotspot.h"

#include <string.h>

#include "../guard.h"
#include "../safe_read.h"
#include "vm_model.h"

#define NAME_CAP 512

/* N. True if the Method* m is named `name` with signature `sig` (read under the guard). */
static bool method_named(uintptr_t m, const char *name, const char *sig) {
  char mname[NAME_CAP], msig[NAME_CAP];
  ASGST_MethodInfo mi;
  memset(&mi, 0, sizeof mi);
  mi.method_name = mname, mi.method_name_length = sizeof mname;
  mi.signature = msig, mi.signature_length = sizeof msig;
  volatile bool ok = true;
  ASGST__GUARDED(asgst__hs_method_info((ASGST_Method)m, &mi), ok = false);
  return ok && strcmp(mname, name) == 0 && strcmp(msig, sig) == 0;
}

/* N. The Method* of the methods array of InstanceKlass k named name with signature sig,
 * 0 if none. */
static uintptr_t find_in_class(uintptr_t k, const char *name, const char *sig) {
  uintptr_t methods = asgst__guarded_ptr(k + (uintptr_t)asgst__vm.ik_methods);
  if (methods == 0) return 0;
  volatile uint32_t n = 0;
  ASGST__GUARDED({
    uint32_t len = 0;
    if (asgst__load_u32(methods + (uintptr_t)asgst__vm.array_length, &len)) n = len;
  }, n = 0);
  for (uint32_t i = 0; i < n && i < 65536; i++) {
    uintptr_t m = asgst__guarded_ptr(methods + (uintptr_t)asgst__vm.array_data + i * 8);
    if (m && method_named(m, name, sig)) return m;
  }
  return 0;
}

/* N. JDK 26+: the Method* of id through JVMTI (its class, name and signature). */
static ASGST_Method lookup_by_name(jmethodID id) {
  jvmtiEnv *jvmti = asgst__hs_jvmti;
  JNIEnv *env = asgst__hs_jni_env();
  jclass c = NULL;
  char *name = NULL, *sig = NULL;
  uintptr_t m = 0;
  if (jvmti == NULL || env == NULL ||
      (*jvmti)->GetMethodDeclaringClass(jvmti, id, &c) != JVMTI_ERROR_NONE || c == NULL)
    return NULL;
  if ((*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
    uintptr_t k = asgst__hs_klass_of(env, c);
    if (k) m = find_in_class(k, name, sig);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  (*env)->DeleteLocalRef(env, c);
  return (ASGST_Method)m;
}

/* N. */
ASGST_Method asgst__hs_from_jmethodid(jmethodID id) {
  if (asgst__vm.jmethodid_table) return lookup_by_name(id);
  return (ASGST_Method)asgst__guarded_ptr((uintptr_t)id);
}

/* N. Lists the holder's methods through JVMTI (creating their jmethodIDs) and picks the
 * one that leads back to m. */
jmethodID asgst__hs_to_jmethodid(ASGST_Method m) {
  JNIEnv *env = asgst__hs_jni_env();
  if (env == NULL || asgst__hs_jvmti == NULL) return NULL;
  volatile ASGST_Class k = NULL;
  ASGST__GUARDED(k = asgst__hs_method_class(m), k = NULL);
  jclass c = k ? asgst__hs_to_jclass(k) : NULL;
  if (c == NULL) return NULL;
  jint n = 0;
  jmethodID *ids = NULL, found = NULL;
  if ((*asgst__hs_jvmti)->GetClassMethods(asgst__hs_jvmti, c, &n, &ids) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < n && found == NULL; i++)
      if (asgst__hs_from_jmethodid(ids[i]) == m) found = ids[i];
    (*asgst__hs_jvmti)->Deallocate(asgst__hs_jvmti, (unsigned char *)ids);
  }
  (*env)->DeleteLocalRef(env, c);
  return found;
}
