/*
 * asgct_oracle.c - see asgct_oracle.h.
 */
#include "asgct_oracle.h"

#include <dlfcn.h>
#include <stddef.h>

/* N. */
asgct_fn asgct_oracle_lookup(void) {
  return (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
}

/* N. Creates the jmethodIDs of a class. */
static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)env, (void)t;
  jint n;
  jmethodID *ids;
  if ((*j)->GetClassMethods(j, c, &n, &ids) == JVMTI_ERROR_NONE) (*j)->Deallocate(j, (unsigned char *)ids);
}

/* N. Nothing to do: the event only has to be enabled. */
static void JNICALL on_class_load(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)j, (void)env, (void)t, (void)c;
}

/* N. */
void asgct_oracle_callbacks(jvmtiEventCallbacks *cb) {
  cb->ClassPrepare = on_class_prepare;
  cb->ClassLoad = on_class_load;
}

/* N. */
void asgct_oracle_enable(jvmtiEnv *j) {
  (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
  (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
}

/* N. */
void asgct_oracle_prepare_loaded(jvmtiEnv *j) {
  jint n;
  jclass *classes;
  if ((*j)->GetLoadedClasses(j, &n, &classes) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < n; i++) on_class_prepare(j, NULL, NULL, classes[i]);
  (*j)->Deallocate(j, (unsigned char *)classes);
}
