/*
 * class_unload.c - the registry of loaded classes, fed by the library's own JVMTI
 * environment, that turns class unloading and redefinition into ASGST class unload
 * handler calls, and serves the jclass/jmethodID conversions.
 *
 * Registration: every loaded class (those loaded before the binding by a background
 * thread, class_backlog.c; then each at its ClassPrepare) is
 * tagged with its registry index + 1 and keeps a weak global reference and a copy of its
 * Method* array. A class that can be unloaded (class_loaders.c: not of the boot, platform
 * or system loader, or a hidden class with a ClassLoaderData of its own) also gets a
 * shadow copy of its metadata (class_shadow.c), taken while it is alive.
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
 *
 * Locking: one mutex protects the registry, and no JNI or JVMTI call is made while it is
 * held (a thread blocked at a safepoint while holding it would deadlock the VM thread's
 * GarbageCollectionStart callback).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "class_shadow.h"
#include "hotspot.h"

#include "../services.h"
#include "../guard.h"
#include "../safe_read.h"

typedef struct {
  uintptr_t klass;     /* InstanceKlass*, 0 once unloaded */
  jweak ref;           /* weak global reference to the mirror */
  ASGST_Method *methods;
  int nmethods;
  bool stale;          /* redefined since the copy of methods was taken */
  asgst__hs_shadow *shadow; /* metadata copy of a class that can be unloaded, else NULL */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static int nentries, cap_entries;
static int *slots; /* open addressing: klass -> entry index + 1 (0 empty, -1 deleted) */
static int nslots;
static jweak *dead_refs; /* weak refs of unloaded classes, deleted later with a JNIEnv */
static int ndead, cap_dead;
static jobject pin_array; /* a byte[1] whose critical region holds off the GC */

/* ---- guarded reads for N code ---- */


/* N. A malloc'ed copy of InstanceKlass k's Method* array (read under the guard). */
static ASGST_Method *copy_methods(uintptr_t k, int *n) {
  *n = 0;
  int count = 0;
  volatile uintptr_t at = 0;
  asgst__guard g;
  ASGST__GUARD_BEGIN(g)
    at = asgst__hs_class_methods(k, &count);
  ASGST__GUARD_FAULTED(g)
    at = 0;
  ASGST__GUARD_END(g);
  if (at == 0 || count <= 0) return NULL;
  ASGST_Method *m = malloc((size_t)count * sizeof *m);
  if (m == NULL) return NULL;
  for (int i = 0; i < count; i++) m[i] = (ASGST_Method)asgst__guarded_ptr(at + (uintptr_t)i * 8);
  *n = count;
  return m;
}

/* ---- the klass -> index hash (lock held) ---- */

static unsigned hash(uintptr_t k) { return (unsigned)((k >> 3) * 2654435761u); }

static int find_slot(uintptr_t k) {
  if (nslots == 0) return -1;
  for (unsigned i = hash(k) & (unsigned)(nslots - 1), n = 0; n < (unsigned)nslots;
       i = (i + 1) & (unsigned)(nslots - 1), n++) {
    if (slots[i] == 0) return -1;
    if (slots[i] > 0 && entries[slots[i] - 1].klass == k) return (int)i;
  }
  return -1;
}

static void insert_slot(uintptr_t k, int index);

static bool grow_slots(void) {
  int old_n = nslots;
  int *old = slots;
  int n = old_n ? old_n * 2 : 1024;
  int *s = calloc((size_t)n, sizeof *s);
  if (s == NULL) return false;
  slots = s;
  nslots = n;
  for (int i = 0; i < old_n; i++)
    if (old[i] > 0) insert_slot(entries[old[i] - 1].klass, old[i] - 1);
  free(old);
  return true;
}

static void insert_slot(uintptr_t k, int index) {
  unsigned i = hash(k) & (unsigned)(nslots - 1);
  while (slots[i] > 0) i = (i + 1) & (unsigned)(nslots - 1);
  slots[i] = index + 1;
}

/* N (lock held). Room for one more entry / dead reference; false when out of memory. */
static bool room_for_entry(void) {
  if (nentries < cap_entries) return true;
  int cap = cap_entries ? cap_entries * 2 : 4096;
  entry *grown = realloc(entries, (size_t)cap * sizeof *grown);
  if (grown == NULL) return false;
  entries = grown;
  cap_entries = cap;
  return true;
}

static bool room_for_dead(void) {
  if (ndead < cap_dead) return true;
  int cap = cap_dead ? cap_dead * 2 : 256;
  jweak *grown = realloc(dead_refs, (size_t)cap * sizeof *grown);
  if (grown == NULL) return false;
  dead_refs = grown;
  cap_dead = cap;
  return true;
}

/* ---- registration ---- */

/* N. The InstanceKlass* of a class mirror. The mirror oop is read inside a JNI critical
 * region, which holds off the collectors that honour it (Serial, Parallel, G1 on 17), and
 * the result is checked: the klass's own _java_mirror must lead back to the same oop. */
uintptr_t asgst__hs_klass_of(JNIEnv *env, jclass c) {
  if (c == NULL || pin_array == NULL) return 0;
  void *pin = (*env)->GetPrimitiveArrayCritical(env, pin_array, NULL);
  if (pin == NULL) return 0;
  /* A JNI handle points at its oop slot; low bits tag weak/global handles. */
  uintptr_t mirror = asgst__guarded_ptr((uintptr_t)c & ~(uintptr_t)3);
  uintptr_t k = mirror ? asgst__guarded_ptr(mirror + (uintptr_t)asgst__vm.mirror_klass_offset) : 0;
  uintptr_t handle = k ? asgst__guarded_ptr(k + (uintptr_t)asgst__vm.k_mirror) : 0;
  uintptr_t back = handle && asgst__vm.mirror_handle ? asgst__guarded_ptr(handle) : handle;
  (*env)->ReleasePrimitiveArrayCritical(env, pin_array, pin, JNI_ABORT);
  return back == mirror ? k : 0;
}

/* N. Deletes the weak references of unloaded classes (needs a JNIEnv, so not done in
 * ObjectFree). */
static void drain_dead(JNIEnv *env) {
  jweak local[64];
  int n;
  do {
    pthread_mutex_lock(&lock);
    n = ndead < 64 ? ndead : 64;
    ndead -= n;
    memcpy(local, dead_refs + ndead, (size_t)n * sizeof *local);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) (*env)->DeleteWeakGlobalRef(env, local[i]);
  } while (n == 64);
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
  int n = 0;
  ASGST_Method *methods = copy_methods(k, &n);
  /* Taken now, while the class is alive: its metadata is gone by the time its unload is
   * reported (see the header comment). */
  asgst__hs_shadow *shadow = asgst__hs_can_unload(jvmti, env, c, k) ? asgst__hs_shadow_take(k, methods, n) : NULL;
  jweak ref = (*env)->NewWeakGlobalRef(env, c);
  int index = -1;
  pthread_mutex_lock(&lock);
  if (find_slot(k) < 0 && room_for_entry() && ((nentries + 1) * 2 <= nslots || grow_slots())) {
    index = nentries++;
    entries[index] = (entry){k, ref, methods, n, false, shadow};
    insert_slot(k, index);
  }
  pthread_mutex_unlock(&lock);
  if (index < 0) {
    free(methods);
    asgst__hs_shadow_discard(shadow); /* registered meanwhile by the other path */
    if (ref) (*env)->DeleteWeakGlobalRef(env, ref);
    return;
  }
  (*jvmti)->SetTag(jvmti, c, (jlong)index + 1);
}

/* N. */
int asgst__hs_classes_init(jvmtiEnv *jvmti, JNIEnv *env, char *err, size_t errlen) {
  asgst__hs_loaders_init(env);
  if (pin_array == NULL) {
    jbyteArray a = (*env)->NewByteArray(env, 1);
    pin_array = a ? (*env)->NewGlobalRef(env, a) : NULL;
    if (a) (*env)->DeleteLocalRef(env, a);
  }
  if (pin_array == NULL) {
    snprintf(err, errlen, "cannot allocate the array that holds off the collector");
    return -1;
  }
  /* The classes loaded so far are registered by a background thread (class_backlog.c). */
  return asgst__hs_backlog_start(jvmti, env, err, errlen);
}

/* N. */
void JNICALL asgst__hs_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread t, jclass c) {
  (void)t;
  if (ndead) drain_dead(env);
  asgst__hs_register_class(jvmti, env, c);
}

/* N (restricted JVMTI context: ServiceThread, no JNI). */
void JNICALL asgst__hs_on_object_free(jvmtiEnv *jvmti, jlong tag) {
  (void)jvmti;
  entry e = {0};
  pthread_mutex_lock(&lock);
  if (tag > 0 && tag <= nentries && entries[tag - 1].klass != 0) {
    e = entries[tag - 1];
    int s = find_slot(e.klass);
    if (s >= 0) slots[s] = -1;
    entries[tag - 1].klass = 0;
    entries[tag - 1].methods = NULL;
    entries[tag - 1].shadow = NULL;
    entries[tag - 1].ref = NULL;
    if (e.ref && room_for_dead()) dead_refs[ndead++] = e.ref;
  }
  pthread_mutex_unlock(&lock);
  if (e.klass == 0) return;
  /* The accessors answer from the shadow while the handlers run; then it is retired
   * (freed once no concurrent signal-handler reader can hold it, class_shadow.c). */
  asgst__hs_shadow_publish(e.shadow);
  asgst__notify_class_unload((ASGST_Class)e.klass, e.methods, e.nmethods, false);
  asgst__hs_shadow_retire(e.shadow);
  asgst__hs_forget_anonymous(e.klass);
  free(e.methods);
}

/* N (VM thread at a safepoint; only memory is touched). Refreshes the method copies and
 * shadows of classes redefined since the last collection (an entry's shadow is never
 * published: that happens only after the entry is removed), and frees retired shadows. */
void JNICALL asgst__hs_on_gc_start(jvmtiEnv *jvmti) {
  (void)jvmti;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nentries; i++) {
    if (!entries[i].stale || entries[i].klass == 0) continue;
    int n = 0;
    ASGST_Method *m = copy_methods(entries[i].klass, &n);
    free(entries[i].methods);
    entries[i].methods = m;
    entries[i].nmethods = n;
    entries[i].stale = false;
    if (entries[i].shadow != NULL) {
      asgst__hs_shadow_discard(entries[i].shadow);
      entries[i].shadow = asgst__hs_shadow_take(entries[i].klass, m, n);
    }
  }
  pthread_mutex_unlock(&lock);
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
  ASGST_Method *methods = copy_methods(k, &n);
  asgst__notify_class_unload((ASGST_Class)k, methods, n, true);
  free(methods);
  pthread_mutex_lock(&lock);
  int s = find_slot(k);
  if (s >= 0) entries[slots[s] - 1].stale = true;
  pthread_mutex_unlock(&lock);
}

/* ---- conversions ---- */

/* N. */
JNIEnv *asgst__hs_jni_env(void) {
  JNIEnv *env = NULL;
  if (asgst__hs_vm == NULL ||
      (*asgst__hs_vm)->GetEnv(asgst__hs_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
    return NULL;
  return env;
}

/* N. The weak reference of registered class k, NULL if unknown. */
static jweak registered_ref(uintptr_t k) {
  jweak ref = NULL;
  pthread_mutex_lock(&lock);
  int s = find_slot(k);
  if (s >= 0) ref = entries[slots[s] - 1].ref;
  pthread_mutex_unlock(&lock);
  return ref;
}

/* N. A local reference to the mirror of a registered class (NULL if unknown or gone). A
 * class not found may be one loaded before the binding and not registered yet: the
 * lookup is retried once the backlog is done. */
jclass asgst__hs_to_jclass(ASGST_Class k) {
  JNIEnv *env = asgst__hs_jni_env();
  if (env == NULL) return NULL;
  jweak ref = registered_ref((uintptr_t)k);
  if (ref == NULL) {
    asgst__hs_backlog_wait();
    ref = registered_ref((uintptr_t)k);
  }
  return ref ? (jclass)(*env)->NewLocalRef(env, ref) : NULL;
}

/* N. Through the class's tag (GC-safe); classes not (yet) registered through the mirror. */
ASGST_Class asgst__hs_from_jclass(jclass c) {
  JNIEnv *env = asgst__hs_jni_env();
  jlong tag = 0;
  if (env == NULL || asgst__hs_jvmti == NULL) return NULL;
  if ((*asgst__hs_jvmti)->GetTag(asgst__hs_jvmti, c, &tag) == JVMTI_ERROR_NONE && tag > 0) {
    uintptr_t k = 0;
    pthread_mutex_lock(&lock);
    if (tag <= nentries) k = entries[tag - 1].klass;
    pthread_mutex_unlock(&lock);
    if (k) return (ASGST_Class)k;
  }
  return (ASGST_Class)asgst__hs_klass_of(env, c);
}

/* N. Forgets every registration (the tags stay on the mirrors of a disposed env). */
void asgst__hs_classes_reset(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nentries; i++) {
    free(entries[i].methods);
    asgst__hs_shadow_free(entries[i].shadow);
  }
  free(entries);
  free(slots);
  entries = NULL;
  slots = NULL;
  nentries = cap_entries = nslots = 0;
  ndead = 0;
  pthread_mutex_unlock(&lock);
}
