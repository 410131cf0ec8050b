/*
 * thread_status.c - java.lang.Thread's threadStatus, read from a signal handler.
 *
 * The VM keeps the JVMTI-style state of every platform thread in its java.lang.Thread
 * object: an int field `threadStatus` (JDK 8 to 18), or the same field of the object
 * `Thread.holder` (a Thread.FieldHolder, JDK 19 on). The VM writes it when a thread
 * starts to sleep, park, wait in Object.wait or block on a monitor entry, with the
 * timed/untimed distinction; JavaThread::_thread_state alone only says "blocked".
 *
 * Neither field is in vmStructs: their offsets are learned once, with JNI and the VM's
 * Unsafe, at bind time. The sampled read then follows JavaThread::_threadObj (an oop up to
 * JDK 15, an OopHandle after) and, on 19+, the (possibly compressed) `holder` reference,
 * with guarded loads. A value that is not one the VM writes (a moved object, a collector
 * whose references are not plain addresses) reads as unknown: the caller then falls back
 * to what _thread_state tells.
 */
#include <jni.h>
#include <stdint.h>

#include "threads.h"
#include "../model/vm_model.h"

#include "../../safe_read.h"

/* Learned once (N) and read (SS) afterwards; -1 when not known. */
static long status_offset = -1;   /* threadStatus in Thread (8-18) or in Thread.FieldHolder */
static long holder_offset = -1;   /* Thread.holder (19+), -1 when the status is in Thread */
static int compressed_refs = -1;  /* 1: references in objects are 32-bit narrow oops */

/* JVMTI state values java.lang.Thread's status takes while a thread is alive. */
enum {
  S_RUNNABLE = 0x5,
  S_SLEEPING = 0xe1,
  S_OBJECT_WAIT = 0x191,
  S_OBJECT_WAIT_TIMED = 0x1a1,
  S_PARKED = 0x291,
  S_PARKED_TIMED = 0x2a1,
  S_BLOCKED = 0x401,
};

/* N. Clears a pending exception; true if there was one. */
static bool cleared(JNIEnv *env) {
  if (!(*env)->ExceptionCheck(env)) return false;
  (*env)->ExceptionClear(env);
  return true;
}

/* N. The VM's Unsafe instance and its class (jdk.internal.misc on 9+, where JNI needs
 * no export; sun.misc on 8). NULL if neither. JDK 8 is not asked for the first: a class
 * JNI cannot find is searched for on the whole class path and comes back as an exception
 * with its stack trace, a millisecond of the binding. */
static jobject find_unsafe(JNIEnv *env, jclass *cls_out) {
  static const char *const names[][2] = {
      {"jdk/internal/misc/Unsafe", "Ljdk/internal/misc/Unsafe;"},
      {"sun/misc/Unsafe", "Lsun/misc/Unsafe;"},
  };
  for (int i = asgst__vm.jdk == 8 ? 1 : 0; i < 2; i++) {
    jclass cls = (*env)->FindClass(env, names[i][0]);
    if (cls == NULL) {
      cleared(env);
      continue;
    }
    jfieldID f = (*env)->GetStaticFieldID(env, cls, "theUnsafe", names[i][1]);
    jobject u = f ? (*env)->GetStaticObjectField(env, cls, f) : NULL;
    if (!cleared(env) && u != NULL) {
      *cls_out = cls;
      return u;
    }
    (*env)->DeleteLocalRef(env, cls);
  }
  return NULL;
}

/* N. Unsafe.objectFieldOffset of cls.name (signature sig), -1 if absent. */
static long offset_of(JNIEnv *env, jobject unsafe, jmethodID ofs, jclass cls, const char *name,
                      const char *sig) {
  jfieldID f = (*env)->GetFieldID(env, cls, name, sig);
  if (f == NULL) return cleared(env), -1;
  jobject rf = (*env)->ToReflectedField(env, cls, f, JNI_FALSE);
  jlong off = rf ? (*env)->CallLongMethod(env, unsafe, ofs, rf) : -1;
  if (cleared(env)) off = -1;
  if (rf) (*env)->DeleteLocalRef(env, rf);
  return off > 0 && off < 4096 ? (long)off : -1;
}

/* N. 1 if an Object[] element (so a reference field) is 4 bytes, 0 if 8, -1 unknown. */
static int narrow_refs(JNIEnv *env, jobject unsafe, jclass ucls) {
  jmethodID scale = (*env)->GetMethodID(env, ucls, "arrayIndexScale", "(Ljava/lang/Class;)I");
  jclass arr = (*env)->FindClass(env, "[Ljava/lang/Object;");
  jint s = scale && arr ? (*env)->CallIntMethod(env, unsafe, scale, arr) : 0;
  if (cleared(env)) s = 0;
  if (arr) (*env)->DeleteLocalRef(env, arr);
  return s == 4 ? 1 : s == 8 ? 0 : -1;
}

/* N. Learns where the status lives; leaves it unknown (-1) on any doubt. */
void asgst__hs_thread_status_init(JNIEnv *env) {
  jclass ucls = NULL;
  jobject unsafe = find_unsafe(env, &ucls);
  if (unsafe == NULL) {
    asgst__vm_feature_off("sleeping, parked and timed thread states (no Unsafe to find "
                          "java.lang.Thread's threadStatus)");
    return;
  }
  jmethodID ofs = (*env)->GetMethodID(env, ucls, "objectFieldOffset",
                                      "(Ljava/lang/reflect/Field;)J");
  jclass thread = (*env)->FindClass(env, "java/lang/Thread");
  if (ofs && thread) {
    long direct = offset_of(env, unsafe, ofs, thread, "threadStatus", "I");
    if (direct > 0) {
      status_offset = direct;
    } else {
      jclass fh = (*env)->FindClass(env, "java/lang/Thread$FieldHolder");
      if (fh == NULL) cleared(env);
      long h = fh ? offset_of(env, unsafe, ofs, thread, "holder",
                              "Ljava/lang/Thread$FieldHolder;")
                  : -1;
      long s = fh ? offset_of(env, unsafe, ofs, fh, "threadStatus", "I") : -1;
      int narrow = narrow_refs(env, unsafe, ucls);
      bool decodable =
          narrow == 0 || (asgst__vm.narrow_oop_base_addr && asgst__vm.narrow_oop_shift_addr);
      if (h > 0 && s > 0 && narrow >= 0 && decodable)
        compressed_refs = narrow, holder_offset = h, status_offset = s;
      if (fh) (*env)->DeleteLocalRef(env, fh);
    }
  }
  cleared(env);
  /* Said as vm_model.c's missing rows are (ASGST_InitializeError, the notes). */
  if (status_offset < 0)
    asgst__vm_feature_off("sleeping, parked and timed thread states (java.lang.Thread's "
                          "threadStatus not found with JNI)");
  if (thread) (*env)->DeleteLocalRef(env, thread);
  (*env)->DeleteLocalRef(env, unsafe);
  (*env)->DeleteLocalRef(env, ucls);
}

/* SS. The object a reference field at a holds (decoding a narrow oop), 0 if unreadable. */
static uintptr_t load_ref(uintptr_t a) {
  if (compressed_refs == 0) {
    uintptr_t p = 0;
    return asgst__load_ptr(a, &p) ? p : 0;
  }
  uint32_t narrow = 0, shift = 0;
  uintptr_t base = 0;
  if (!asgst__load_u32(a, &narrow) || narrow == 0) return 0;
  if (!asgst__load_ptr(asgst__vm.narrow_oop_base_addr, &base) ||
      !asgst__load_u32(asgst__vm.narrow_oop_shift_addr, &shift) || shift > 8)
    return 0;
  return base + ((uintptr_t)narrow << shift);
}

/* SS. True for the values the VM writes into a live thread's status. */
static bool plausible(uint32_t s) {
  switch (s) {
    case S_RUNNABLE: case S_SLEEPING: case S_OBJECT_WAIT: case S_OBJECT_WAIT_TIMED:
    case S_PARKED: case S_PARKED_TIMED: case S_BLOCKED: return true;
    default: return false;
  }
}

/* SS (call under a guard). The threadStatus of JavaThread jt's java.lang.Thread, -1 if not
 * known. */
int asgst__hs_thread_status(uintptr_t jt) {
  if (status_offset < 0 || asgst__vm.jt_thread_obj < 0) return -1;
  uintptr_t obj = 0;
  if (!asgst__load_ptr(jt + (uintptr_t)asgst__vm.jt_thread_obj, &obj) || obj == 0) return -1;
  /* From 16 on the field is an OopHandle: the address of a slot that holds the oop. */
  if (asgst__vm.jdk >= 16 && (!asgst__load_ptr(obj, &obj) || obj == 0)) return -1;
  if (holder_offset >= 0 && (obj = load_ref(obj + (uintptr_t)holder_offset)) == 0) return -1;
  uint32_t s = 0;
  if (!asgst__load_u32(obj + (uintptr_t)status_offset, &s) || !plausible(s)) return -1;
  return (int)s;
}
