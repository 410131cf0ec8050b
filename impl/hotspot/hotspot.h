/*
 * hotspot.h - what the files of the hotspot backend share (binding, threads, metadata,
 * class registry). The walker's own contract is walker.h.
 */
#ifndef ASGST_HOTSPOT_H
#define ASGST_HOTSPOT_H

#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../backend.h"
#include "vm_model.h"

/* The backend table (hotspot_backend.c). */
extern const asgst__backend asgst__hotspot_backend;
/* N. The table active while the classes loaded before the binding are listed: no walks,
 * conversions wait (hotspot_backend.c). */
const asgst__backend *asgst__hs_listing_backend(void);

/* The JVM and the library's own JVMTI environment (hotspot_init.c); NULL when unbound. */
extern JavaVM *asgst__hs_vm;
extern jvmtiEnv *asgst__hs_jvmti;

/* ---- Binding (hotspot_init.c): asgst__bind_jvm and friends of backend.h ---- */
/* N. Called by the class listing's thread once walks work (the classes are listed): runs
 * the caller's pending ASGST_SetInitializeCallback callback of a live-phase binding. */
void asgst__bind_listed(void);

/* ---- Threads (hotspot_thread.c) ---- */
/* N. Finds the pthread key under which the VM keeps the current Thread*, by scanning the
 * keys for the calling thread's JavaThread* (java.lang.Thread.eetop), and records the
 * vtables of the VM's JavaThreads. 0 or -1 with a reason. */
int asgst__hs_threads_init(JNIEnv *env, char *err, size_t errlen);
/* N. Records the vtable of the calling thread (a JavaThread: called from ThreadStart). */
void asgst__hs_thread_started(void);
/* SS. backend.h current_thread(). */
int asgst__hs_current_thread(asgst__thread *t);
/* SS (under the caller's crash guard). backend.h current_thread_unguarded(). */
int asgst__hs_current_thread_unguarded(asgst__thread *t);
/* SS. backend.h thread_state(). */
int asgst__hs_thread_state(void);
/* N. Learns where java.lang.Thread keeps its status (thread_status.c); at bind time. */
void asgst__hs_thread_status_init(JNIEnv *env);
/* SS (under a guard). JavaThread jt's java.lang.Thread threadStatus, -1 if not known. */
int asgst__hs_thread_status(uintptr_t jt);

/* ---- Metadata (method_info.c, class_info.c, line_table.c); SS, caller holds the guard ---- */
void asgst__hs_method_info(ASGST_Method m, ASGST_MethodInfo *info);
void asgst__hs_class_info(ASGST_Class k, ASGST_ClassInfo *info);
ASGST_Class asgst__hs_method_class(ASGST_Method m);
jint asgst__hs_method_idnum(ASGST_Method m);
jlong asgst__hs_class_idnum(ASGST_Class k);
int asgst__hs_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e, int length);

/* SS. Copies Symbol `sym` into dst (capacity *cap, asgst__copy_string semantics). False if
 * the symbol cannot be read (fields then set to empty). */
bool asgst__hs_copy_symbol(uintptr_t sym, char *dst, jint *cap);
/* SS. The Symbol* in constant pool slot `index`, 0 if out of range. */
uintptr_t asgst__hs_cp_symbol(uintptr_t cp, uint32_t index);
/* SS. Reads a VM field of `size` bytes at a + off (0 on failure). */
uint64_t asgst__hs_field(uintptr_t a, long off, int size);
/* SS. The methods of InstanceKlass k: *n methods at the returned address (0 if none). */
uintptr_t asgst__hs_class_methods(uintptr_t k, int *n);

/* ---- Safepoint queues (queue_thread.c); N ---- */
/* The library's JVMTI environment may suspend threads (hotspot_init.c). */
extern bool asgst__hs_can_suspend;
/* ASGST_Initialize's ASGST_INIT_REALTIME_QUEUES: real-time scheduling for queues. */
extern bool asgst__hs_realtime_queues;
/* backend.h queue_bind() and queue_unbind(). */
int asgst__hs_queue_bind(JNIEnv *env, void **owner);
/* ---- A waiting queue owner's real-time priority, on the opt-in (queue_boost.c) ---- */
/* N. From a processing thread at its real-time priority: tries once whether raising is
 * permitted and starts the timer that bounds every raise; off if either fails. */
void asgst__hs_boost_setup(void);
/* SS. Raises the caller (kernel id tid) to SCHED_FIFO 1; returns what asgst__hs_boost_end
 * takes, 0: not raised. */
int asgst__hs_boost_self(pid_t tid);
/* SS. Releases a raise: the thread back to its policy (unless the timer did it already, or
 * undo is false: the thread has ended). */
void asgst__hs_boost_end(int raise, bool undo);
/* SS. Owners raised right now. */
int asgst__hs_boost_count(void);

/* ---- Whether a thread's next poll stops it (poll_arm.c) ---- */
/* N. Finds the poll word on the calling Java thread (at init). */
void asgst__hs_poll_discover(void);
/* N. Confirms it on a second Java thread; only then is asgst__hs_poll_armed usable. */
void asgst__hs_poll_confirm(void);
/* SS. 1 if t's (the calling thread's) next safepoint poll stops it, 0 if not, -1 unknown. */
int asgst__hs_poll_armed(const asgst__thread *t);
/* N. The poll word's offset in JavaThread (0 on JDK 8: the global page), -1 if unusable. */
long asgst__hs_poll_offset(void);
void asgst__hs_queue_unbind(void *owner);

/* ---- Classes: the registry and its events; N. In layers, each calling only those
 * below it: class_registry.c (the table, the mirror lookup); class_info.c,
 * class_loaders.c, class_shadow.c; class_register.c (one class); class_backlog.c (the
 * classes loaded before the binding); class_jclass.c (conversions); class_unload.c (the
 * JVMTI events, init and reset). ---- */
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
 * they are listed, when the thread makes asgst__hotspot_backend active. Returns once they
 * are listed or after wait_ms (negative: no limit, the binding at VMInit). */
void asgst__hs_backlog_start(jvmtiEnv *jvmti, JNIEnv *env, const asgst__backend *listing,
                             long wait_ms);
/* How long a live-phase binding waits for that listing before it answers anyway: long
 * enough for the class counts of large applications on a quiet machine (docs/budgets.md),
 * short enough to stay within ASGST_Initialize's budget. */
#define ASGST__LISTING_WAIT_MS 6
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
/* N. Reads method and class metadata and the code cache of the live VM with the model and
 * compares them with JVMTI's answers (self_check.c). 0, or -1 with the reason. */
int asgst__hs_self_check(jvmtiEnv *jvmti, JNIEnv *env, char *err, size_t errlen);
/* N. Sets the VM flag `name` (a bool flag) through the JVMFlag table. 0, or -1 if the
 * table or the flag is not exported. */
int asgst__hs_set_bool_flag(const char *name, bool value);

#endif
