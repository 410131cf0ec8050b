/*
 * class_unload.c - the JVMTI events of the library's own environment that keep the class
 * registry (class_registry.h) and turn class unloading and redefinition into ASGST class
 * unload handler calls: ClassPrepare registers a class (class_register.c), ObjectFree of
 * its tagged mirror reports its unload, ClassFileLoadHook a redefinition, and
 * GarbageCollectionStart refreshes what a redefinition made stale. The top of the class
 * files: it readies the registry for the classes loaded before (class_backlog.c).
 *
 * Redefinition (and retransformation): ClassFileLoadHook with class_being_redefined set
 * runs before the VM swaps in the new methods, so the handlers get the current (soon old)
 * Method*s with redefined = true while they are still valid; HotSpot keeps old methods
 * alive at least until no frame uses them. JVMTI has no event after a redefinition, so a
 * redefinition the VM then rejects (bad class file) has still been reported; the methods
 * reported stay valid in that case. The InstanceKlass stays the same; the copy of
 * its methods is refreshed at the next GarbageCollectionStart (VM thread, at a safepoint,
 * when the new methods are in place and nothing can be unloaded yet).
 *
 * Unload: JDK 17 posts nothing before it frees an unloaded class's metadata: with G1 the
 * class is unloaded and its metadata purged inside one GC safepoint. The VM's
 * com.sun.hotspot.events.ClassUnload extension event is posted later by the ServiceThread
 * with only the class name; JVMTI ObjectFree of the tagged mirror is also posted by the
 * ServiceThread after that GC (tag map cleaning is lazy since JDK 16). So the handlers
 * still run late, at ObjectFree, with the class's last-known InstanceKlass* and Method*s,
 * whose memory is already freed. What keeps the contract's "before the handles become
 * invalid" is the shadow: while the handlers for a class run, the ASGST metadata
 * accessors (class and method info, class of a method, idnums, line tables and line of a
 * bci) answer for that class and its methods from the copy, on any thread. Not covered:
 *  - after its handler returns, a profiler gets nothing for the handles (the shadow is
 *    retired; resolving them then reads freed memory, guarded, empty fields), so it must
 *    resolve what it needs inside the handler;
 *  - classes of the boot, platform and system loaders have no shadow: those loaders are
 *    never collected, so their classes are not unloaded in practice; should one be, its
 *    handlers may see empty fields, as before;
 *  - a class whose shadow could not be taken (out of memory) or a method the copy could not
 *    read, and more than 8 classes reported at the same time, fall back to VM memory;
 *  - while a shadow is published, a reader that resolves a new class's Method* at an
 *    address reused from the unloaded class gets the old class's answer.
 * A class redefined since registration gets a new shadow at the next
 * GarbageCollectionStart, with its new methods (like the copy of its Method* array).
 */
#include <stdlib.h>

#include "class_loaders.h"
#include "class_registry.h"
#include "class_shadow.h"
#include "classes.h"
#include "../model/init_timing.h"

#include "../../services.h"

/* N. The classes loaded so far are listed and registered by a background thread that the
 * binding starts last (class_backlog.c). */
int asgst__hs_classes_init(JNIEnv *env, char *err, size_t errlen) {
  asgst__hs_loaders_init(env);
  asgst__init_timing_mark("builtin loaders");
  if (asgst__hs_registry_init(env, err, errlen) != 0) return -1;
  asgst__init_timing_mark("registry init");
  return 0;
}

/* N. */
void JNICALL asgst__hs_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread t, jclass c) {
  (void)t;
  asgst__hs_registry_drain_dead(env);
  asgst__hs_register_class(jvmti, env, c);
}

/* N (restricted JVMTI context: ServiceThread, no JNI). */
void JNICALL asgst__hs_on_object_free(jvmtiEnv *jvmti, jlong tag) {
  (void)jvmti;
  asgst__hs_class_entry e;
  if (!asgst__hs_registry_remove(tag, &e)) return;
  /* The accessors answer from the shadow while the handlers run; then it is retired
   * (freed once no concurrent signal-handler reader can hold it, class_shadow.c). */
  asgst__hs_shadow_publish(e.shadow);
  asgst__notify_class_unload((ASGST_Class)e.klass, e.methods, e.nmethods, false);
  asgst__hs_shadow_retire(e.shadow);
  asgst__hs_forget_anonymous(e.klass);
  free(e.methods);
}

/* N (VM thread at a safepoint, registry locked; only memory is touched). Takes the
 * method copy of a redefined class again, and its shadow (an entry's shadow is never
 * published: that happens only after the entry is removed). */
static void refresh(asgst__hs_class_entry *e) {
  free(e->methods);
  e->methods = asgst__hs_copy_methods(e->klass, &e->nmethods);
  if (e->shadow != NULL) {
    asgst__hs_shadow_discard(e->shadow);
    e->shadow = asgst__hs_shadow_take(e->klass, e->methods, e->nmethods);
  }
}

/* N (VM thread at a safepoint). Refreshes the classes redefined since the last
 * collection, and frees retired shadows. */
void JNICALL asgst__hs_on_gc_start(jvmtiEnv *jvmti) {
  (void)jvmti;
  asgst__hs_registry_refresh_stale(refresh);
  asgst__hs_shadow_reclaim();
}

/* N. */
void JNICALL asgst__hs_on_class_file_load(jvmtiEnv *jvmti, JNIEnv *env, jclass redefined,
                                          jobject loader, const char *name, jobject pd,
                                          jint len, const unsigned char *data, jint *new_len,
                                          unsigned char **new_data) {
  (void)jvmti, (void)loader, (void)name, (void)pd, (void)len, (void)data, (void)new_len,
      (void)new_data;
  if (redefined == NULL) return;
  uintptr_t k = asgst__hs_klass_of(env, redefined);
  if (k == 0) return;
  int n = 0;
  ASGST_Method *methods = asgst__hs_copy_methods(k, &n);
  asgst__notify_class_unload((ASGST_Class)k, methods, n, true);
  free(methods);
  asgst__hs_registry_mark_stale(k);
}

/* N. Forgets every registration (the tags stay on the mirrors of a disposed env); the
 * shadows left in the registry were never published, so they are freed at once. */
void asgst__hs_classes_reset(void) { asgst__hs_registry_reset(asgst__hs_shadow_free); }
