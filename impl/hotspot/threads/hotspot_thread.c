/*
 * hotspot_thread.c - which VM thread is running here, and in what state.
 *
 * HotSpot keeps the current Thread* in a pthread key (besides its compiler TLS, which is
 * not reachable from outside libjvm). The key is found once, at bind time, by scanning
 * the keys for the calling thread's JavaThread*, which java.lang.Thread.eetop gives.
 *
 * Not every Thread is a JavaThread (the VM thread, GC and JFR workers are not), and only
 * a JavaThread has the fields read here. The proof used: a thread is a JavaThread iff its
 * C++ vtable is one observed on a JavaThread - every thread in the VM's JavaThread list at
 * bind time (JavaThread, CompilerThread, ServiceThread, ... each has its own vtable) and
 * every thread that later posts JVMTI ThreadStart. A hidden JavaThread of a class never
 * seen before is reported as non-Java (missed, never misread).
 */
#include <pthread.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>

#include "threads.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"

#include "../../guard.h"
#include "../../safe_read.h"

#define MAX_VTABLES 32

static pthread_key_t thread_key;
static _Atomic int key_found;
static _Atomic uintptr_t vtables[MAX_VTABLES];
static _Atomic int nvtables;
static pthread_mutex_t vtables_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. Adds a JavaThread vtable to the set (lock for writers; readers are lock-free: a slot
 * is written before the count that publishes it). */
static void add_vtable(uintptr_t vt) {
  if (vt == 0) return;
  pthread_mutex_lock(&vtables_lock);
  int n = atomic_load(&nvtables);
  bool known = false;
  for (int i = 0; i < n; i++) known |= atomic_load(&vtables[i]) == vt;
  if (!known && n < MAX_VTABLES) {
    atomic_store(&vtables[n], vt);
    atomic_store(&nvtables, n + 1);
  }
  pthread_mutex_unlock(&vtables_lock);
}

/* SS. */
ASGST__HOT static bool is_java_thread_vtable(uintptr_t vt) {
  int n = atomic_load_explicit(&nvtables, memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (atomic_load_explicit(&vtables[i], memory_order_relaxed) == vt) return true;
  return false;
}


/* N. The vtables of the JavaThreads in ThreadsSMRSupport's current list (17+). */
static void collect_from_list(void) {
  uintptr_t list = 0, threads = 0;
  uint32_t len = 0;
  if (asgst__load_ptr(asgst__vm.java_thread_list, &list) && list &&
      asgst__load_u32(list + (uintptr_t)asgst__vm.tl_length, &len) &&
      asgst__load_ptr(list + (uintptr_t)asgst__vm.tl_threads, &threads)) {
    for (uint32_t i = 0; i < len && i < 100000; i++) {
      uintptr_t t = 0, vt = 0;
      if (asgst__load_ptr(threads + i * 8, &t) && asgst__load_ptr(t, &vt)) add_vtable(vt);
    }
  }
}

/* N. The same from the linked list of JavaThreads that 8 and 11 export instead. */
static void collect_from_chain(void) {
  uintptr_t t = 0, vt = 0;
  if (!asgst__load_ptr(asgst__vm.thread_list_head, &t)) return;
  for (int i = 0; t && i < 100000; i++) {
    if (asgst__load_ptr(t, &vt)) add_vtable(vt);
    if (!asgst__load_ptr(t + (uintptr_t)asgst__vm.jt_next, &t)) break;
  }
}

/* N. The vtables of every JavaThread in the VM's current thread list (read under the
 * guard: the list may be replaced, or a thread freed, while we read it). */
static void collect_vtables(void) {
  /* A fault keeps the vtables collected before it. */
  if (asgst__vm.java_thread_list) ASGST__GUARDED(collect_from_list(), );
  else if (asgst__vm.thread_list_head) ASGST__GUARDED(collect_from_chain(), );
}

/* N. The JavaThread* of the calling thread: java.lang.Thread.eetop. */
static uintptr_t current_java_thread(JNIEnv *env) {
  jclass cls = (*env)->FindClass(env, "java/lang/Thread");
  if (cls == NULL) return 0;
  jmethodID cur = (*env)->GetStaticMethodID(env, cls, "currentThread", "()Ljava/lang/Thread;");
  jfieldID eetop = (*env)->GetFieldID(env, cls, "eetop", "J");
  jobject t = cur && eetop ? (*env)->CallStaticObjectMethod(env, cls, cur) : NULL;
  uintptr_t jt = t ? (uintptr_t)(*env)->GetLongField(env, t, eetop) : 0;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (t) (*env)->DeleteLocalRef(env, t);
  (*env)->DeleteLocalRef(env, cls);
  return jt;
}

/* N. */
int asgst__hs_threads_init(JNIEnv *env, char *err, size_t errlen) {
  if (atomic_load(&key_found)) return 0;
  uintptr_t self = current_java_thread(env);
  if (self == 0) {
    snprintf(err, errlen, "cannot read java.lang.Thread.eetop of the current thread");
    return -1;
  }
  /* glibc returns NULL for keys that were never created, so a full scan is harmless. */
  for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; k++) {
    if ((uintptr_t)pthread_getspecific(k) == self) {
      thread_key = k;
      add_vtable(asgst__guarded_ptr(self));
      collect_vtables();
      atomic_store_explicit(&key_found, 1, memory_order_release);
      return 0;
    }
  }
  snprintf(err, errlen, "unsupported VM: no pthread key holds the current JavaThread");
  return -1;
}

/* N. */
void asgst__hs_thread_started(void) {
  if (!atomic_load(&key_found)) return;
  uintptr_t t = (uintptr_t)pthread_getspecific(thread_key);
  if (t != 0) add_vtable(asgst__guarded_ptr(t));
}

/* SS. The calling thread's JavaThread*, 0 for a thread that is not one. */
ASGST__HOT static uintptr_t current_java_thread_ss(void) {
  if (!atomic_load_explicit(&key_found, memory_order_acquire)) return 0;
  uintptr_t t = (uintptr_t)pthread_getspecific(thread_key), vt = 0;
  if (t == 0 || !asgst__load_ptr(t, &vt)) return 0;
  return is_java_thread_vtable(vt) ? t : 0;
}

/* What the last lookup on this thread proved: its JavaThread* (the vtable check passed)
 * and its stack bounds. initial-exec TLS, written and read by this thread only.
 * Why: a sample's thread lookup read three lines of the JavaThread (its vtable, the
 * terminated flag, the stack fields) that running Java code does not touch; on a cold
 * cache that was a tenth of a 50-frame walk. The key's value is still read every time:
 * an OS thread keeps its stack for life, and a thread that detaches and attaches again
 * gets a new JavaThread, which differs from the one proven unless it reuses its memory
 * (then it is a JavaThread of this same thread, which is all the proof said). */
static __thread struct {
  uintptr_t jt, base, limit;
} proven __attribute__((tls_model("initial-exec")));

/* SS. The slow lookup: proves the key's value a JavaThread and reads its stack bounds
 * (called under the guard). 0 if the thread is no JavaThread. */
static uintptr_t prove_thread(asgst__thread *t) {
  uintptr_t jt = current_java_thread_ss();
  if (jt == 0) return 0;
  uintptr_t base = (uintptr_t)asgst__hs_field(jt, asgst__vm.t_stack_base, 8);
  uintptr_t size = (uintptr_t)asgst__hs_field(jt, asgst__vm.t_stack_size, 8);
  if (base > size) {
    t->stack_base = base;
    t->stack_limit = base - size;
  }
  /* Recordings and copy walks must read what they describe: no shortcut for them. */
  if (!asgst__read_hooks) {
    proven.jt = 0; /* a signal landing between these stores sees no half-written entry */
    proven.base = t->stack_base;
    proven.limit = t->stack_limit;
    __atomic_store_n(&proven.jt, jt, __ATOMIC_RELAXED);
  }
  return jt;
}

/* SS. True if JavaThread jt is exiting or terminated. Never on JDK 8, which exports
 * neither JavaThread::_terminated nor its values (its offset is not derivable from the
 * tables): there an exiting thread counts as alive, and the crash guard covers reads of
 * its last moments. */
static bool terminated(uintptr_t jt) {
  if (asgst__vm.jt_terminated < 0) return false;
  return (int32_t)asgst__hs_field(jt, asgst__vm.jt_terminated, 4) != asgst__vm.not_terminated;
}

/* SS (under the caller's guard). */
ASGST__HOT int asgst__hs_current_thread_unguarded(asgst__thread *t) {
  t->vm_thread = NULL;
  t->stack_base = t->stack_limit = 0;
  uintptr_t jt = 0;
  if (atomic_load_explicit(&key_found, memory_order_acquire) && !asgst__read_hooks) {
    jt = (uintptr_t)pthread_getspecific(thread_key);
    if (jt == 0 || jt != __atomic_load_n(&proven.jt, __ATOMIC_RELAXED)) jt = 0;
    else t->stack_base = proven.base, t->stack_limit = proven.limit;
  }
  if (jt == 0) jt = prove_thread(t);
  if (jt == 0) return ASGST_NON_JAVA_TRACE;
  t->vm_thread = (void *)jt;
  return terminated(jt) ? ASGST_THREAD_EXIT : ASGST_JAVA_TRACE;
}

/* SS. */
ASGST__HOT int asgst__hs_current_thread(asgst__thread *t) {
  volatile int kind = ASGST_NON_JAVA_TRACE;
  ASGST__GUARDED(kind = asgst__hs_current_thread_unguarded(t), {
    t->vm_thread = NULL;
    t->stack_base = t->stack_limit = 0;
    kind = ASGST_NON_JAVA_TRACE;
  });
  return kind;
}

/* SS (under the guard). The state _thread_state and the monitor fields tell alone: what
 * JavaThread jt in state st is doing when its java.lang.Thread's status is not known. */
static int state_without_status(uintptr_t jt, int32_t st) {
  if (st == asgst__vm.st_in_native || st == asgst__vm.st_in_native_trans)
    return JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_IN_NATIVE;
  if (st != asgst__vm.st_blocked && st != asgst__vm.st_blocked_trans)
    return JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE;
  long pending_at = asgst__vm.jt_pending_monitor, waiting_at = asgst__vm.jt_waiting_monitor;
  if (pending_at >= 0 && asgst__hs_field(jt, pending_at, 8))
    return JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER;
  if (waiting_at >= 0 && asgst__hs_field(jt, waiting_at, 8))
    return JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_IN_OBJECT_WAIT;
  return JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING;
}

/* SS (under the guard). asgst__hs_thread_state() without its guard. */
static int thread_state_unguarded(void) {
  uintptr_t jt = current_java_thread_ss();
  if (jt == 0) return 0;
  int32_t st = (int32_t)asgst__hs_field(jt, asgst__vm.jt_state, 4);
  int status = -1;
  if (terminated(jt)) return JVMTI_THREAD_STATE_TERMINATED;
  if (st == asgst__vm.st_new) return 0;
  if ((status = asgst__hs_thread_status(jt)) < 0) return state_without_status(jt, st);
  if (st == asgst__vm.st_in_native || st == asgst__vm.st_in_native_trans)
    return status | JVMTI_THREAD_STATE_IN_NATIVE;
  return status;
}

/* SS. JVMTI thread state bits, as JVMTI's GetThreadState forms them: java.lang.Thread's
 * threadStatus (thread_status.c) says running, sleeping, parked, in Object.wait or blocked
 * on a monitor entry, each timed or not; JavaThread::_thread_state adds IN_NATIVE:
 *   running Java or in the VM      ALIVE | RUNNABLE
 *   in native (and its transition) ALIVE | RUNNABLE | IN_NATIVE
 *   blocked on a monitor entry     ALIVE | BLOCKED_ON_MONITOR_ENTER
 *   Object.wait()                  ALIVE | WAITING | WAITING_INDEFINITELY | IN_OBJECT_WAIT
 *   Object.wait(ms)                ALIVE | WAITING | WAITING_WITH_TIMEOUT | IN_OBJECT_WAIT
 *   Thread.sleep                   ALIVE | WAITING | WAITING_WITH_TIMEOUT | SLEEPING
 *   LockSupport.park               ALIVE | WAITING | WAITING_INDEFINITELY | PARKED
 *   LockSupport.parkNanos/Until    ALIVE | WAITING | WAITING_WITH_TIMEOUT | PARKED
 *   new (not yet started)          0
 *   terminated / exiting           TERMINATED
 * Without the status (not learned, or an unreadable object) the blocked kinds come from the
 * VM's monitor fields, and sleeping and parked both read ALIVE | WAITING. */
int asgst__hs_thread_state(void) {
  volatile int r = 0;
  ASGST__GUARDED(r = thread_state_unguarded(), r = 0);
  return r;
}
