/*
 * jmethodids.c - jmethodID <-> ASGST_Method (Method*) for the backend table. Ordinary code
 * (N): both directions may call JVMTI; meant for occasional use (once per method a profiler
 * reports), never per sample.
 *
 * Up to JDK 25 a jmethodID points at a slot holding the Method*. JDK 26 made it a number
 * the VM maps to the Method* in a table of its own (not exported). What is exported is the
 * holder's cache of its jmethodIDs (InstanceKlass::_methods_jmethod_ids): word 0 holds the
 * cache's length, word idnum + 1 the jmethodID of the method with that idnum
 * (ConstMethod::_method_idnum), 0 where none was made yet. So a jmethodID is resolved by
 * finding its word in the holder's cache, then the method with that idnum: reads of words,
 * no name read. A redefinition hands the new version of a method the old one's idnum and
 * jmethodID, so this finds the current version, as the VM's table does.
 *
 * Without the exported cache (a build that drops it) the Method* is found in the holder's
 * methods array by name and signature, as before the cache was used: correct, but each
 * lookup reads every method's name, so converting all methods of a class is quadratic in
 * its method count (1 ms for java.lang.String in the self-check).
 */
#include "classes.h"
#include "metadata.h"
#include "../model/bound_vm.h"
#include "../model/vm_read.h"

#include <stdlib.h>
#include <string.h>

#include "../../guard.h"
#include "../../safe_read.h"
#include "../model/vm_model.h"

#define NAME_CAP 512
/* Idnums are u2: no cache or methods array is longer. */
#define MAX_SLOTS 65536

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
  for (uint32_t i = 0; i < n && i < MAX_SLOTS; i++) {
    uintptr_t m = asgst__guarded_ptr(methods + (uintptr_t)asgst__vm.array_data + i * 8);
    if (m && method_named(m, name, sig)) return m;
  }
  return 0;
}

/* N. JDK 26+ without the exported cache: the Method* of id, found by its name and
 * signature in InstanceKlass k. */
static ASGST_Method lookup_by_name(uintptr_t k, jmethodID id) {
  jvmtiEnv *jvmti = asgst__hs_jvmti;
  char *name = NULL, *sig = NULL;
  uintptr_t m = 0;
  if (jvmti && (*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL) == JVMTI_ERROR_NONE)
    m = find_in_class(k, name, sig);
  if (jvmti) {
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  }
  return (ASGST_Method)m;
}

/* SS (under a guard). InstanceKlass k's jmethodID cache: its first slot (the jmethodID of
 * idnum 0) and its length in *n; 0 if it has none. */
static uintptr_t cache_of(uintptr_t k, uint32_t *n) {
  uintptr_t cache = 0, len = 0;
  *n = 0;
  if (!asgst__load_ptr(k + (uintptr_t)asgst__vm.ik_jmethod_ids, &cache) || cache == 0 ||
      !asgst__load_ptr(cache, &len) || len == 0 || len > MAX_SLOTS)
    return 0;
  *n = (uint32_t)len;
  return cache + 8;
}

/* SS (under a guard). The method of InstanceKlass k whose idnum is idnum, 0 if none. The
 * methods array is sorted by name, and idnums are given in that order when the class is
 * parsed, so methods[idnum] is usually it; methods added later (overpasses) and
 * redefinitions break the order, and then the array is searched. */
static uintptr_t method_of_idnum(uintptr_t k, uint32_t idnum) {
  int n = 0;
  uintptr_t methods = asgst__hs_class_methods(k, &n), m = 0;
  if (idnum < (uint32_t)n && asgst__load_ptr(methods + idnum * 8, &m) && m &&
      (uint32_t)asgst__hs_method_idnum((ASGST_Method)m) == idnum)
    return m;
  for (int i = 0; i < n; i++)
    if (asgst__load_ptr(methods + (uintptr_t)i * 8, &m) && m &&
        (uint32_t)asgst__hs_method_idnum((ASGST_Method)m) == idnum)
      return m;
  return 0;
}

/* SS (under a guard). The method of id's slot in InstanceKlass k's jmethodID cache, 0 if
 * id is not there. */
static uintptr_t find_in_cache_unguarded(uintptr_t k, jmethodID id) {
  uint32_t n = 0;
  uintptr_t slots = cache_of(k, &n), v = 0;
  for (uint32_t i = 0; i < n; i++)
    if (asgst__load_ptr(slots + (uintptr_t)i * 8, &v) && v == (uintptr_t)id) return method_of_idnum(k, i);
  return 0;
}

/* N. JDK 26+: the Method* of id in InstanceKlass k by its slot in k's jmethodID cache (a
 * scan of the cache's words), NULL if id is not there. */
static ASGST_Method lookup_in_cache(uintptr_t k, jmethodID id) {
  volatile uintptr_t found = 0;
  ASGST__GUARDED(found = find_in_cache_unguarded(k, id), found = 0);
  return (ASGST_Method)found;
}

/* N. JDK 26+: the Method* of id in InstanceKlass k. */
static ASGST_Method lookup_in(uintptr_t k, jmethodID id) {
  return asgst__vm.ik_jmethod_ids >= 0 ? lookup_in_cache(k, id) : lookup_by_name(k, id);
}

/* N. JDK 26+: the Method* of id, its holder found through JVMTI. */
static ASGST_Method lookup(jmethodID id) {
  jvmtiEnv *jvmti = asgst__hs_jvmti;
  JNIEnv *env = asgst__hs_jni_env();
  jclass c = NULL;
  if (jvmti == NULL || env == NULL ||
      (*jvmti)->GetMethodDeclaringClass(jvmti, id, &c) != JVMTI_ERROR_NONE || c == NULL)
    return NULL;
  uintptr_t k = asgst__hs_klass_of(env, c);
  ASGST_Method m = k ? lookup_in(k, id) : NULL;
  (*env)->DeleteLocalRef(env, c);
  return m;
}

/* N. */
ASGST_Method asgst__hs_from_jmethodid(jmethodID id) {
  if (asgst__vm.jmethodid_table) return lookup(id);
  return (ASGST_Method)asgst__guarded_ptr((uintptr_t)id);
}

/* One jmethodID of the index below and the idnum it stands for. */
typedef struct {
  uintptr_t id;
  uint32_t idnum;
} slot;

/* N. qsort/bsearch order of slots: by jmethodID. */
static int by_id(const void *a, const void *b) {
  uintptr_t x = ((const slot *)a)->id, y = ((const slot *)b)->id;
  return x < y ? -1 : x > y;
}

/* SS (under a guard). The length of InstanceKlass k's jmethodID cache, 0 if none. */
static uint32_t cache_len_unguarded(uintptr_t k) {
  uint32_t n = 0;
  cache_of(k, &n);
  return n;
}

/* SS (under a guard). Fills s with the jmethodIDs of InstanceKlass k's cache and their
 * idnums (returns how many), and m[idnum] with k's methods, for idnums below cap. */
static int fill_index_unguarded(uintptr_t k, uint32_t cap, slot *s, uintptr_t *m) {
  int used = 0, nm = 0;
  uint32_t n = 0;
  uintptr_t at = cache_of(k, &n), v = 0;
  for (uint32_t i = 0; i < n && i < cap; i++)
    if (asgst__load_ptr(at + (uintptr_t)i * 8, &v) && v) s[used++] = (slot){v, i};
  uintptr_t methods = asgst__hs_class_methods(k, &nm), mp = 0;
  for (int i = 0; i < nm; i++) {
    if (!asgst__load_ptr(methods + (uintptr_t)i * 8, &mp) || mp == 0) continue;
    uint32_t idnum = (uint32_t)asgst__hs_method_idnum((ASGST_Method)mp);
    if (idnum < cap) m[idnum] = mp;
  }
  return used;
}

/* N. JDK 26+ with the cache: the index of InstanceKlass k, built once for all its ids.
 * slots: the cache's jmethodIDs with their idnums, sorted (count in *nslots); by_idnum: the
 * methods by idnum (*nidnums entries). False if the class could not be read (or out of
 * memory): the caller then resolves one by one. */
static bool build_index(uintptr_t k, slot **slots, int *nslots, uintptr_t **by_idnum,
                        uint32_t *nidnums) {
  volatile uint32_t cap = 0;
  volatile bool ok = true;
  ASGST__GUARDED(cap = cache_len_unguarded(k), ok = false);
  if (!ok || cap == 0) return false;
  slot *s = malloc(cap * sizeof *s);
  uintptr_t *m = calloc(cap, sizeof *m);
  volatile int used = 0;
  if (s && m) ASGST__GUARDED(used = fill_index_unguarded(k, cap, s, m), ok = false);
  if (!ok || !s || !m) {
    free(s), free(m);
    return false;
  }
  qsort(s, (size_t)used, sizeof *s, by_id);
  *slots = s, *nslots = used, *by_idnum = m, *nidnums = cap;
  return true;
}

/* N. */
void asgst__hs_from_jmethodids(uintptr_t k, const jmethodID *ids, int n, ASGST_Method *out) {
  slot *slots = NULL;
  uintptr_t *by_idnum = NULL;
  int nslots = 0;
  uint32_t nidnums = 0;
  bool indexed = asgst__vm.jmethodid_table && asgst__vm.ik_jmethod_ids >= 0 &&
                 build_index(k, &slots, &nslots, &by_idnum, &nidnums);
  for (int i = 0; i < n; i++) {
    if (!asgst__vm.jmethodid_table) {
      out[i] = (ASGST_Method)asgst__guarded_ptr((uintptr_t)ids[i]);
    } else if (!indexed) {
      out[i] = lookup_in(k, ids[i]);
    } else {
      slot key = {(uintptr_t)ids[i], 0};
      const slot *s = bsearch(&key, slots, (size_t)nslots, sizeof key, by_id);
      out[i] = s && s->idnum < nidnums ? (ASGST_Method)by_idnum[s->idnum] : NULL;
    }
  }
  free(slots);
  free(by_idnum);
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
    ASGST_Method *ms = n > 0 ? malloc((size_t)n * sizeof *ms) : NULL;
    if (ms) asgst__hs_from_jmethodids((uintptr_t)k, ids, n, ms);
    for (jint i = 0; ms && i < n && found == NULL; i++)
      if (ms[i] == m) found = ids[i];
    free(ms);
    (*asgst__hs_jvmti)->Deallocate(asgst__hs_jvmti, (unsigned char *)ids);
  }
  (*env)->DeleteLocalRef(env, c);
  return found;
}
