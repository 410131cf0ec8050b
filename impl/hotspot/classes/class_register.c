/*
 * class_register.c - registering one loaded class (class_registry.h): every loaded class
 * (those loaded before the binding by a background thread, class_backlog.c; then each at
 * its ClassPrepare, class_unload.c) is tagged with its registry index + 1 and keeps a weak
 * global reference and a copy of its Method* array. A class that can be unloaded
 * (class_loaders.c: not of the boot, platform or system loader, or a hidden class with a
 * ClassLoaderData of its own) also gets a shadow copy of its metadata (class_shadow.c),
 * taken while it is alive: by the time its unload is reported, its metadata is gone
 * (class_unload.c).
 */
#include <stdlib.h>

#include "class_loaders.h"
#include "class_registry.h"
#include "class_shadow.h"
#include "classes.h"
#include "../model/vm_read.h"

#include "../../guard.h"

/* N. */
ASGST_Method *asgst__hs_copy_methods(uintptr_t k, int *n) {
  *n = 0;
  int count = 0;
  volatile uintptr_t at = 0;
  ASGST__GUARDED(at = asgst__hs_class_methods(k, &count), at = 0);
  if (at == 0 || count <= 0) return NULL;
  ASGST_Method *m = malloc((size_t)count * sizeof *m);
  if (m == NULL) return NULL;
  for (int i = 0; i < count; i++) m[i] = (ASGST_Method)asgst__guarded_ptr(at + (uintptr_t)i * 8);
  *n = count;
  return m;
}

/* N. */
void asgst__hs_register_class(jvmtiEnv *jvmti, JNIEnv *env, jclass c) {
  jlong tag = 0;
  jint status = 0;
  if ((*jvmti)->GetTag(jvmti, c, &tag) != JVMTI_ERROR_NONE || tag != 0) return;
  if ((*jvmti)->GetClassStatus(jvmti, c, &status) != JVMTI_ERROR_NONE ||
      (status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)))
    return;
  uintptr_t k = asgst__hs_klass_of(env, c);
  if (k == 0) return;
  asgst__hs_note_anonymous(jvmti, c, k);
  asgst__hs_class_entry e = {.klass = k};
  e.methods = asgst__hs_copy_methods(k, &e.nmethods);
  /* Taken now, while the class is alive: its metadata is gone by the time its unload is
   * reported. */
  e.shadow = asgst__hs_can_unload(jvmti, env, c, k) ? asgst__hs_shadow_take(k, e.methods, e.nmethods) : NULL;
  e.ref = (*env)->NewWeakGlobalRef(env, c);
  int index = asgst__hs_registry_add(&e);
  if (index < 0) {
    free(e.methods);
    asgst__hs_shadow_discard(e.shadow); /* registered meanwhile by the other path */
    if (e.ref) (*env)->DeleteWeakGlobalRef(env, e.ref);
    return;
  }
  (*jvmti)->SetTag(jvmti, c, (jlong)index + 1);
}
