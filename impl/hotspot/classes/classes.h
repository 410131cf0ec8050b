/*
 * classes.h - the room of classes: the registry and its JVMTI events, the classes
 * loaded before the binding, and jclass and jmethodID conversions. In layers, each file
 * calling only those below it: class_registry.c (the table, the mirror lookup);
 * class_info.c, class_loaders.c, class_shadow.c; class_register.c (one class);
 * class_backlog.c (the classes loaded before the binding); class_jclass.c and
 * jmethodids.c (conversions); class_unload.c (the JVMTI events, init and reset).
 */
#ifndef ASGST_HOTSPOT_CLASSES_H
#define ASGST_HOTSPOT_CLASSES_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../backend.h"

/* N. Makes the registry ready (the built-in loaders, the mirror lookup); the binding then
 * enables ClassPrepare, ObjectFree, ClassFileLoadHook and GarbageCollectionStart on the
 * library's environment and, last, starts the backlog. 0 or -1 with a reason
 * (class_unload.c). */
int asgst__hs_classes_init(JNIEnv *env, char *err, size_t errlen);
/* N. Registers one class (no-op for primitive/array classes and already tagged ones;
 * class_register.c). */
void asgst__hs_register_class(jvmtiEnv *jvmti, JNIEnv *env, jclass c);
/* N. A malloc'ed copy of InstanceKlass k's Method* array, *n entries (read under the
 * guard; NULL if none or out of memory; class_register.c). */
ASGST_Method *asgst__hs_copy_methods(uintptr_t k, int *n);
/* N. class_backlog.c: lists the classes loaded before the binding and registers them on
 * a background thread; `listing` (asgst__hs_listing_backend) is the active table until
 * they are listed, when the thread makes `ready` active and calls listed_cb (the binding's
 * news that walks work; not called when the listing runs on the caller's thread). Returns
 * once they are listed or after wait_ms (negative: no limit, the binding at VMInit): true
 * if listed_cb is called (now or later), false if the listing ran here. */
bool asgst__hs_backlog_start(jvmtiEnv *jvmti, JNIEnv *env, const asgst__backend *listing,
                             const asgst__backend *ready, void (*listed_cb)(void), long wait_ms);
/* How long a live-phase binding waits for that listing before it answers anyway: long
 * enough for the class counts of large applications on a quiet machine (docs/budgets.md),
 * short enough to stay within ASGST_Initialize's budget. */
#define ASGST__LISTING_WAIT_MS 2
/* N. Waits until the classes loaded before the binding are listed (pinned). */
void asgst__hs_backlog_wait_listed(void);
/* N. True once they are listed (walks work), or when no listing runs. */
bool asgst__hs_backlog_listed(void);
/* N. Waits until the classes loaded before the binding are registered. */
void asgst__hs_backlog_wait(void);
/* N. Stops and joins the background registration (unbinding). */
void asgst__hs_backlog_stop(void);
/* N. The JVMTI callbacks the registry needs (installed by hotspot_init.c; class_unload.c). */
void JNICALL asgst__hs_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread t, jclass c);
void JNICALL asgst__hs_on_object_free(jvmtiEnv *jvmti, jlong tag);
void JNICALL asgst__hs_on_gc_start(jvmtiEnv *jvmti);
void JNICALL asgst__hs_on_class_file_load(jvmtiEnv *jvmti, JNIEnv *env, jclass redefined,
                                          jobject loader, const char *name, jobject pd,
                                          jint len, const unsigned char *data, jint *new_len,
                                          unsigned char **new_data);
/* N. Forgets the registry (Shutdown; class_unload.c). */
void asgst__hs_classes_reset(void);
/* N. InstanceKlass* of a class handle (0 for primitive/array classes or failure;
 * class_registry.c). */
uintptr_t asgst__hs_klass_of(JNIEnv *env, jclass c);
/* N. Conversions for the backend table (class_jclass.c, jmethodids.c). */
jclass asgst__hs_to_jclass(ASGST_Class k);
ASGST_Class asgst__hs_from_jclass(jclass c);
jmethodID asgst__hs_to_jmethodid(ASGST_Method m);
ASGST_Method asgst__hs_from_jmethodid(jmethodID id);
/* N. The Method* of each of n jmethodIDs of InstanceKlass k's methods into out (NULL where
 * none): one index of the class for all of them, where asgst__hs_from_jmethodid would
 * search the class once per id (jmethodids.c). */
void asgst__hs_from_jmethodids(uintptr_t k, const jmethodID *ids, int n, ASGST_Method *out);
/* N. A JNIEnv for the calling thread, NULL if it is not attached (class_jclass.c). */
JNIEnv *asgst__hs_jni_env(void);

/* N. Learns where class mirrors keep their modifiers when Klass has none (class_info.c). */
void asgst__hs_learn_mirror_modifiers(jvmtiEnv *jvmti, JNIEnv *env);
/* N. JDK 8: notes whether class c (InstanceKlass k) is VM-anonymous, which its tables do
 * not tell: JVMTI names it "<Klass name>/<digits>" (class_info.c). Called at each
 * registration of a class, before anything copies its name. */
void asgst__hs_note_anonymous(jvmtiEnv *jvmti, jclass c, uintptr_t k);
/* N. JDK 8: class k has been unloaded (no JNI or JVMTI call: JVMTI ObjectFree context). */
void asgst__hs_forget_anonymous(uintptr_t k);
/* N. Where that set is (for asgst__vm.anonymous_set). */
uintptr_t asgst__hs_anonymous_set(void);
/* SS. True if k is a VM-anonymous class (8, 11: it has a ClassLoaderData of its own and
 * a hash-suffixed name in JVMTI); false on other JDKs or when unknown. */
bool asgst__hs_is_anonymous(uintptr_t k);

#endif
