/*
 * class_info.c - class metadata read from the InstanceKlass (SS, under the caller's guard).
 */
#include "classes.h"
#include "metadata.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "../../guard.h"
#include "../../safe_read.h"


/* Class-file flags HotSpot recognises for a class (public, final, super, interface,
 * abstract, synthetic, annotation, enum). */
#define RECOGNIZED_CLASS_MODIFIERS 0x7631
#define ACC_SUPER 0x20

/* SS. The class's java.lang.Class mirror object, 0 if unreadable. */
static uintptr_t mirror_of(uintptr_t k) {
  uintptr_t handle = 0, mirror = 0;
  if (!asgst__load_ptr(k + (uintptr_t)asgst__vm.k_mirror, &handle) || handle == 0) return 0;
  if (!asgst__vm.mirror_handle) return handle; /* JDK 8: the field is the oop itself */
  if (!asgst__load_ptr(handle, &mirror)) return 0;
  return mirror;
}

/* SS. The modifiers JVMTI GetClassModifiers reports: the VM's cached modifier flags
 * (the InnerClasses attribute's flags for a nested class, without ACC_SUPER) plus
 * ACC_SUPER when the class has it. JDK 24+ keeps them in the mirror's `modifiers` field
 * instead (its offset learned at initialization); failing both, the class file's flags. */
static jint class_modifiers(uintptr_t k) {
  uint32_t acc = (uint32_t)asgst__hs_field(k, asgst__vm.k_access, asgst__vm.k_access_w);
  if (asgst__vm.k_modifier >= 0) {
    uint32_t mod = (uint32_t)asgst__hs_field(k, asgst__vm.k_modifier, 4);
    return (jint)(mod | (acc & ACC_SUPER));
  }
  uintptr_t mirror = asgst__vm.mirror_modifiers > 0 ? mirror_of(k) : 0;
  if (mirror) return (jint)(asgst__hs_field(mirror, asgst__vm.mirror_modifiers, 2) | ACC_SUPER);
  return (jint)(acc & RECOGNIZED_CLASS_MODIFIERS);
}

/* SS (under the guard). Reads the first n bytes of class k's mirror into dst; false if
 * there is no mirror or they cannot be read. */
static bool read_mirror(uintptr_t k, void *dst, size_t n) {
  uintptr_t mirror = mirror_of(k);
  return mirror && asgst__load_bytes(mirror, dst, n);
}

/* N. Finds the offset of java.lang.Class's `modifiers` field (JDK 24+, not exported): the
 * one 2-byte slot of the mirrors of a few classes with different modifiers that holds
 * what JVMTI reports for each of them (less ACC_SUPER, which JVMTI adds to every class
 * there). Leaves -1 if no single slot fits; the self-check then compares the fallback. */
void asgst__hs_learn_mirror_modifiers(jvmtiEnv *jvmti, JNIEnv *env) {
  static const char *const classes[] = {"java/lang/Thread$State", "java/util/Map$Entry",
      "java/lang/Object", "java/lang/String", "java/util/AbstractMap$SimpleEntry",
      "java/lang/Runnable", NULL};
  enum { SPAN = 256 };
  bool fits[SPAN / 2];
  memset(fits, 1, sizeof fits);
  asgst__vm.mirror_modifiers = -1;
  if (asgst__vm.k_modifier >= 0) return;
  if (asgst__guard_install() != 0) return;
  for (int i = 0; classes[i]; i++) {
    jclass c = (*env)->FindClass(env, classes[i]);
    jint mods = 0;
    volatile uintptr_t k = c ? asgst__hs_klass_of(env, c) : 0;
    static uint16_t bytes[SPAN / 2];
    volatile bool ok = k && (*jvmti)->GetClassModifiers(jvmti, c, &mods) == JVMTI_ERROR_NONE;
    if (ok) ASGST__GUARDED(ok = read_mirror(k, bytes, sizeof bytes), ok = false);
    if (c) (*env)->DeleteLocalRef(env, c);
    (*env)->ExceptionClear(env);
    if (!ok) return;
    /* The mirror holds the modifiers without ACC_SUPER, which JVMTI adds (always, on the
     * JDKs seen here, interfaces too). */
    if (!(mods & ACC_SUPER)) return;
    for (int o = 8; o < SPAN; o += 2)
      if (bytes[o / 2] != (uint16_t)(mods & ~ACC_SUPER)) fits[o / 2] = false;

  }
  long found = -1;
  for (int o = 8; o < SPAN; o += 2)
    if (fits[o / 2]) {
      if (found >= 0) return; /* ambiguous: keep the fallback */
      found = o;
    }
  asgst__vm.mirror_modifiers = found;
}

/* SS. The class's generic signature from its constant pool, 0 if none. The index sits in
 * the constant pool (17+) or in the InstanceKlass (8, 11). */
static uintptr_t generic_symbol(uintptr_t k) {
  if (asgst__vm.cp_generic_index < 0 && asgst__vm.ik_generic_index < 0) return 0;
  uintptr_t cp = 0;
  if (!asgst__load_ptr(k + (uintptr_t)asgst__vm.ik_constants, &cp)) return 0;
  uint32_t idx = asgst__vm.cp_generic_index >= 0
                     ? (uint32_t)asgst__hs_field(cp, asgst__vm.cp_generic_index, 2)
                     : (uint32_t)asgst__hs_field(k, asgst__vm.ik_generic_index, 2);
  return idx ? asgst__hs_cp_symbol(cp, idx) : 0;
}

/* JDK 8 exports no field that tells a VM-anonymous class (11 has
 * ClassLoaderData::_is_anonymous): the classes JVMTI names "<name>/<digits>" are noted at
 * registration (asgst__hs_note_anonymous) in this open-addressing set of InstanceKlass*,
 * written by N code under a lock, read by SS code without one, and left at unload
 * (asgst__hs_forget_anonymous). A full set leaves later ones unnoted (their names then
 * lack the suffix). */
#define ANON_SLOTS 16384
#define ANON_GONE ((uintptr_t)1) /* a removed entry: probes go on past it */
static _Atomic uintptr_t anon[ANON_SLOTS];
static pthread_mutex_t anon_lock = PTHREAD_MUTEX_INITIALIZER;

/* SS. The first slot to probe for k. */
static unsigned anon_home(uintptr_t k) { return (unsigned)((k >> 3) * 2654435761u) % ANON_SLOTS; }

/* N. */
uintptr_t asgst__hs_anonymous_set(void) { return (uintptr_t)anon; }

/* SS. True if k is in the set. Read through the model's address of the set with guarded
 * loads, as VM memory is: a recording then carries the pages it read, and a replay reads
 * them at the recorded address. */
static bool anon_has(uintptr_t k) {
  uintptr_t set = asgst__vm.anonymous_set, v;
  for (unsigned i = anon_home(k), n = 0; set && n < ANON_SLOTS; i = (i + 1) % ANON_SLOTS, n++) {
    if (!asgst__load_ptr(set + 8 * (uintptr_t)i, &v) || v == 0) return false;
    if (v == k) return true;
  }
  return false;
}

/* N. Adds k to the set (`on`) or removes it. A new entry takes the first removed slot of
 * its probe sequence, once the sequence has shown that k is not there yet. */
static void anon_set(uintptr_t k, bool on) {
  pthread_mutex_lock(&anon_lock);
  long reuse = -1;
  for (unsigned i = anon_home(k), n = 0; n < ANON_SLOTS; i = (i + 1) % ANON_SLOTS, n++) {
    uintptr_t v = atomic_load(&anon[i]);
    if (v == k) {
      if (!on) atomic_store(&anon[i], ANON_GONE);
      reuse = -2; /* done */
      break;
    }
    if (v == ANON_GONE && reuse == -1) reuse = i;
    if (v == 0) {
      if (reuse == -1) reuse = i;
      break;
    }
  }
  if (on && reuse >= 0) atomic_store(&anon[reuse], k);
  pthread_mutex_unlock(&anon_lock);
}

/* N. True if JVMTI's signature "L<name>/<digits>;" is the Klass name (len bytes) with a
 * hash suffix. */
static bool hash_suffixed(const char *sig, size_t len) {
  size_t n = strlen(sig), d = 1 + len + 1; /* 'L', the name, '/' */
  if (n < d + 2 || sig[0] != 'L' || sig[d - 1] != '/' || sig[n - 1] != ';') return false;
  for (size_t i = d; i < n - 1; i++)
    if (sig[i] < '0' || sig[i] > '9') return false;
  return true;
}

/* N. */
void asgst__hs_note_anonymous(jvmtiEnv *jvmti, jclass c, uintptr_t k) {
  if (!asgst__vm.anonymous_hash_names || asgst__vm.cld_mirror_holder >= 0) return;
  char *sig = NULL;
  uintptr_t name = asgst__guarded_ptr(k + (uintptr_t)asgst__vm.k_name);
  size_t len = name ? (size_t)(asgst__guarded_ptr(name + (uintptr_t)asgst__vm.sym_length) & 0xffff) : 0;
  if (name == 0 || (*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) != JVMTI_ERROR_NONE) return;
  /* Every registration decides anew: k may be an address an unloaded class had. */
  anon_set(k, hash_suffixed(sig, len));
  (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

/* N. */
void asgst__hs_forget_anonymous(uintptr_t k) {
  if (asgst__vm.anonymous_hash_names && asgst__vm.cld_mirror_holder < 0) anon_set(k, false);
}

/* SS. */
bool asgst__hs_is_anonymous(uintptr_t k) {
  uintptr_t cld = 0;
  if (!asgst__vm.anonymous_hash_names) return false;
  if (asgst__vm.cld_mirror_holder < 0) return anon_has(k);
  return asgst__vm.k_cld >= 0 && asgst__load_ptr(k + (uintptr_t)asgst__vm.k_cld, &cld) && cld != 0 &&
         asgst__hs_field(cld, asgst__vm.cld_mirror_holder, 1) != 0;
}

/* SS. JDK 8 and 11 name a VM-anonymous class (Unsafe.defineAnonymousClass: lambda forms,
 * lambdas) in JVMTI and in stack traces "<name>/<identity hash of its mirror>". The VM
 * computes that hash on first request; ASGST only reads it from the mirror's header
 * (unlocked, not biased, hash set) and leaves the bare name when the hash is not there
 * yet. Only a complete copy gets the suffix. */
static void anonymous_class_form(uintptr_t k, char *name, jint *len, jint cap) {
  uintptr_t mirror = 0, mark = 0;
  if (name == NULL || *len >= cap || !asgst__hs_is_anonymous(k) || (mirror = mirror_of(k)) == 0 ||
      !asgst__load_ptr(mirror, &mark) || (mark & 7) != 1)
    return;
  uint32_t hash = (uint32_t)((mark >> 8) & 0x7fffffff);
  if (hash == 0) return;
  char digits[12];
  int n = 0;
  for (uint32_t h = hash; h; h /= 10) digits[n++] = (char)('0' + h % 10);
  if (*len + 1 + n >= cap) return;
  name[(*len)++] = '/';
  while (n) name[(*len)++] = digits[--n];
  name[*len] = '\0';
}

/* SS. A hidden class's name is "<name>+0x<hex>" in the VM (the suffix is an address);
 * JVMTI GetClassSignature prints the suffix after a '.' (Class.getName after a '/'), so
 * ASGST reports the JVMTI form. Only a complete (not truncated) copy is rewritten. */
static void hidden_class_form(char *name, jint len, jint cap) {
  if (name == NULL || len >= cap) return;
  jint i = len;
  while (i > 0 && ((name[i - 1] >= '0' && name[i - 1] <= '9') || (name[i - 1] >= 'a' && name[i - 1] <= 'f')))
    i--;
  if (i == len || len - i > 16 || i < 4 || name[i - 1] != 'x' || name[i - 2] != '0' || name[i - 3] != '+')
    return;
  name[i - 3] = '.';
}

/* SS. */
void asgst__hs_class_info(ASGST_Class k, ASGST_ClassInfo *info) {
  uintptr_t kp = (uintptr_t)k;
  uintptr_t name = 0;
  if ((kp & 7) || !asgst__load_ptr(kp + (uintptr_t)asgst__vm.k_name, &name)) name = 0;
  jint cap = info->class_name_length;
  asgst__hs_copy_symbol(name, info->class_name, &info->class_name_length);
  hidden_class_form(info->class_name, info->class_name_length, cap);
  if (name) anonymous_class_form(kp, info->class_name, &info->class_name_length, cap);
  uintptr_t gen = name ? generic_symbol(kp) : 0;
  asgst__hs_copy_symbol(gen, info->generic_class_name, &info->generic_class_name_length);
  info->modifiers = name ? class_modifiers(kp) : 0;
  info->idnum = name ? asgst__hs_class_idnum(k) : 0;
}
