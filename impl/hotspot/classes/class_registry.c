/*
 * class_registry.c - the table of registered classes (class_registry.h) and the mirror
 * lookup (jclass -> InstanceKlass*).
 *
 * Entries live in one array, indexed by the tag their mirror carries minus 1; an
 * open-addressing hash finds an entry by InstanceKlass*. Weak references of removed
 * entries wait in a list until a thread with a JNIEnv deletes them (removal happens in
 * JVMTI ObjectFree, where JNI may not be called).
 *
 * Locking: one mutex protects the table, and no JNI or JVMTI call is made while it is
 * held (a thread blocked at a safepoint while holding it would deadlock the VM thread's
 * GarbageCollectionStart callback, which refreshes entries).
 */
#include "class_registry.h"
#include "../model/vm_model.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"

#include "../../guard.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static asgst__hs_class_entry *entries;
static int nentries, cap_entries;
static int *slots; /* open addressing: klass -> entry index + 1 (0 empty, -1 deleted) */
static int nslots;
static jweak *dead_refs; /* weak refs of unloaded classes, deleted later with a JNIEnv */
static int ndead, cap_dead;
static jobject pin_array; /* a byte[1] whose critical region holds off the GC */

/* ---- the klass -> index hash (lock held) ---- */

/* N. The first slot to probe for k (times a 32-bit golden-ratio constant). */
static unsigned klass_hash(uintptr_t k) { return (unsigned)((k >> 3) * 2654435761u); }

/* N. The slot of k, -1 if absent. */
static int find_slot(uintptr_t k) {
  if (nslots == 0) return -1;
  for (unsigned i = klass_hash(k) & (unsigned)(nslots - 1), n = 0; n < (unsigned)nslots;
       i = (i + 1) & (unsigned)(nslots - 1), n++) {
    if (slots[i] == 0) return -1;
    if (slots[i] > 0 && entries[slots[i] - 1].klass == k) return (int)i;
  }
  return -1;
}

/* N. Puts entry `index` (klass k) in the first free or deleted slot of its probe. */
static void insert_slot(uintptr_t k, int index) {
  unsigned i = klass_hash(k) & (unsigned)(nslots - 1);
  while (slots[i] > 0) i = (i + 1) & (unsigned)(nslots - 1);
  slots[i] = index + 1;
}

/* N. Doubles the slots (1024 at first) and rehashes; false when out of memory. */
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

/* N (lock held). The array p of *cap elements of `size` bytes (used taken), grown if
 * full (to `first` elements when empty) so that one more fits; NULL when out of memory
 * (p is then unchanged). */
static void *room_for_one(void *p, int *cap, int used, int first, size_t size) {
  if (used < *cap) return p;
  int n = *cap ? *cap * 2 : first;
  void *grown = realloc(p, (size_t)n * size);
  if (grown != NULL) *cap = n;
  return grown;
}

/* N. Room for one more entry / dead reference; false when out of memory. */
static bool room_for_entry(void) {
  asgst__hs_class_entry *e = room_for_one(entries, &cap_entries, nentries, 4096, sizeof *entries);
  if (e != NULL) entries = e;
  return e != NULL;
}

static bool room_for_dead(void) {
  jweak *d = room_for_one(dead_refs, &cap_dead, ndead, 256, sizeof *dead_refs);
  if (d != NULL) dead_refs = d;
  return d != NULL;
}

/* ---- the table ---- */

/* N. */
int asgst__hs_registry_add(const asgst__hs_class_entry *e) {
  int index = -1;
  pthread_mutex_lock(&lock);
  if (find_slot(e->klass) < 0 && room_for_entry() && ((nentries + 1) * 2 <= nslots || grow_slots())) {
    index = nentries++;
    entries[index] = *e;
    insert_slot(e->klass, index);
  }
  pthread_mutex_unlock(&lock);
  return index;
}

/* N. */
bool asgst__hs_registry_remove(jlong tag, asgst__hs_class_entry *out) {
  bool found = false;
  pthread_mutex_lock(&lock);
  if (tag > 0 && tag <= nentries && entries[tag - 1].klass != 0) {
    asgst__hs_class_entry *e = &entries[tag - 1];
    *out = *e;
    int s = find_slot(e->klass);
    if (s >= 0) slots[s] = -1;
    if (e->ref && room_for_dead()) dead_refs[ndead++] = e->ref;
    *e = (asgst__hs_class_entry){0};
    found = true;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* N. */
void asgst__hs_registry_drain_dead(JNIEnv *env) {
  jweak local[64];
  int n;
  if (ndead == 0) return; /* unlocked peek: a reference missed now goes at the next call */
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
void asgst__hs_registry_mark_stale(uintptr_t k) {
  pthread_mutex_lock(&lock);
  int s = find_slot(k);
  if (s >= 0) entries[slots[s] - 1].stale = true;
  pthread_mutex_unlock(&lock);
}

/* N. */
void asgst__hs_registry_refresh_stale(void (*refresh)(asgst__hs_class_entry *e)) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nentries; i++) {
    if (!entries[i].stale || entries[i].klass == 0) continue;
    refresh(&entries[i]);
    entries[i].stale = false;
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
jweak asgst__hs_registry_ref(uintptr_t k) {
  jweak ref = NULL;
  pthread_mutex_lock(&lock);
  int s = find_slot(k);
  if (s >= 0) ref = entries[slots[s] - 1].ref;
  pthread_mutex_unlock(&lock);
  return ref;
}

/* N. */
uintptr_t asgst__hs_registry_klass(jlong tag) {
  uintptr_t k = 0;
  pthread_mutex_lock(&lock);
  if (tag > 0 && tag <= nentries) k = entries[tag - 1].klass;
  pthread_mutex_unlock(&lock);
  return k;
}

/* N. */
void asgst__hs_registry_reset(void (*free_shadow)(struct asgst__hs_shadow *s)) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nentries; i++) {
    free(entries[i].methods);
    free_shadow(entries[i].shadow);
  }
  free(entries);
  free(slots);
  entries = NULL;
  slots = NULL;
  nentries = cap_entries = nslots = 0;
  ndead = 0;
  pthread_mutex_unlock(&lock);
}

/* ---- the mirror lookup ---- */

/* N. */
int asgst__hs_registry_init(JNIEnv *env, char *err, size_t errlen) {
  if (pin_array == NULL) {
    jbyteArray a = (*env)->NewByteArray(env, 1);
    pin_array = a ? (*env)->NewGlobalRef(env, a) : NULL;
    if (a) (*env)->DeleteLocalRef(env, a);
  }
  if (pin_array == NULL) {
    snprintf(err, errlen, "cannot allocate the array that holds off the collector");
    return -1;
  }
  return 0;
}

/* N. The InstanceKlass* of a class mirror. The mirror oop is read inside a JNI critical
 * region, which holds off the collectors that honour it (Serial, Parallel, G1 on 17), and
 * the result is checked: the klass's own _java_mirror must lead back to the same oop. */
uintptr_t asgst__hs_klass_of(JNIEnv *env, jclass c) {
  if (c == NULL || pin_array == NULL) return 0;
  void *held = (*env)->GetPrimitiveArrayCritical(env, pin_array, NULL);
  if (held == NULL) return 0;
  /* A JNI handle points at its oop slot; low bits tag weak/global handles. */
  uintptr_t mirror = asgst__guarded_ptr((uintptr_t)c & ~(uintptr_t)3);
  uintptr_t k = mirror ? asgst__guarded_ptr(mirror + (uintptr_t)asgst__vm.mirror_klass_offset) : 0;
  uintptr_t handle = k ? asgst__guarded_ptr(k + (uintptr_t)asgst__vm.k_mirror) : 0;
  uintptr_t back = handle && asgst__vm.mirror_handle ? asgst__guarded_ptr(handle) : handle;
  (*env)->ReleasePrimitiveArrayCritical(env, pin_array, held, JNI_ABORT);
  return back == mirror ? k : 0;
}
