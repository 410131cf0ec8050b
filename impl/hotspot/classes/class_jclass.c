/*
 * class_jclass.c - ASGST_Class (InstanceKlass*) <-> jclass for the backend table, through
 * the class registry (class_registry.h). Ordinary code (N), for occasional use.
 */
#include "class_registry.h"
#include "classes.h"
#include "../model/bound_vm.h"

/* N. */
JNIEnv *asgst__hs_jni_env(void) {
  JNIEnv *env = NULL;
  if (asgst__hs_vm == NULL ||
      (*asgst__hs_vm)->GetEnv(asgst__hs_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
    return NULL;
  return env;
}

/* N. A local reference to the mirror of a registered class (NULL if unknown or gone). A
 * class not found may be one loaded before the binding and not registered yet: the
 * lookup is retried once the backlog is done. */
jclass asgst__hs_to_jclass(ASGST_Class k) {
  JNIEnv *env = asgst__hs_jni_env();
  if (env == NULL) return NULL;
  jweak ref = asgst__hs_registry_ref((uintptr_t)k);
  if (ref == NULL) {
    asgst__hs_backlog_wait();
    ref = asgst__hs_registry_ref((uintptr_t)k);
  }
  return ref ? (jclass)(*env)->NewLocalRef(env, ref) : NULL;
}

/* N. Through the class's tag (GC-safe); classes not (yet) registered through the mirror. */
ASGST_Class asgst__hs_from_jclass(jclass c) {
  JNIEnv *env = asgst__hs_jni_env();
  jlong tag = 0;
  if (env == NULL || asgst__hs_jvmti == NULL) return NULL;
  if ((*asgst__hs_jvmti)->GetTag(asgst__hs_jvmti, c, &tag) == JVMTI_ERROR_NONE && tag > 0) {
    uintptr_t k = asgst__hs_registry_klass(tag);
    if (k) return (ASGST_Class)k;
  }
  return (ASGST_Class)asgst__hs_klass_of(env, c);
}
