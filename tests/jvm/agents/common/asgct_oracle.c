/*
 * asgct_oracle.c - see asgct_oracle.h.
 */
#include "asgct_oracle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "asgst.h"

/* JDK 26 and later: jmethodID -> Method*, filled at ClassPrepare (and for the classes
 * loaded before, at VMInit) through ASGST_JMethodIDToMethod, read in signal handlers.
 * Open addressing, never shrinks; an entry's method is published before its id. */
#define IDMAP (1u << 19)
static struct {
  _Atomic uintptr_t id, method;
} idmap[IDMAP];
static bool ids_are_slots = true; /* up to JDK 25 a jmethodID points at its Method* */

/* SS. The slot of id in the map. */
static size_t id_hash(uintptr_t id) {
  return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 45) & (IDMAP - 1);
}

/* N. Records id -> its Method* (under the caller's serialisation: JVMTI callbacks of one
 * agent may run on several threads, so a mutex). */
static void remember(jmethodID id) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  uintptr_t m = (uintptr_t)ASGST_JMethodIDToMethod(id);
  if (m == 0) return; /* ASGST not bound yet: prepare_loaded comes back for it */
  pthread_mutex_lock(&lock);
  for (size_t i = id_hash((uintptr_t)id), n = 0; n < IDMAP; i = (i + 1) & (IDMAP - 1), n++) {
    uintptr_t cur = atomic_load_explicit(&idmap[i].id, memory_order_relaxed);
    if (cur == (uintptr_t)id) break;
    if (cur == 0) {
      atomic_store_explicit(&idmap[i].method, m, memory_order_relaxed);
      atomic_store_explicit(&idmap[i].id, (uintptr_t)id, memory_order_release);
      break;
    }
  }
  pthread_mutex_unlock(&lock);
}

/* SS. */
uintptr_t asgct_oracle_method(jmethodID id) {
  if (id == NULL) return 0;
  if (ids_are_slots) return *(const uintptr_t *)id; /* jmethodIDs are never freed */
  for (size_t i = id_hash((uintptr_t)id), n = 0; n < IDMAP; i = (i + 1) & (IDMAP - 1), n++) {
    uintptr_t cur = atomic_load_explicit(&idmap[i].id, memory_order_acquire);
    if (cur == (uintptr_t)id) return atomic_load_explicit(&idmap[i].method, memory_order_relaxed);
    if (cur == 0) return 0;
  }
  return 0;
}

/* N. */
asgct_fn asgct_oracle_lookup(void) {
  return (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
}

/* N. Creates the jmethodIDs of a class. */
static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)env, (void)t;
  jint n;
  jmethodID *ids;
  if ((*j)->GetClassMethods(j, c, &n, &ids) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < n && !ids_are_slots; i++) remember(ids[i]);
  (*j)->Deallocate(j, (unsigned char *)ids);
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
  char *v = NULL;
  if ((*j)->GetSystemProperty(j, "java.vm.specification.version", &v) == JVMTI_ERROR_NONE && v) {
    ids_are_slots = strncmp(v, "1.", 2) == 0 || atoi(v) < 26;
    (*j)->Deallocate(j, (unsigned char *)v);
  }
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
