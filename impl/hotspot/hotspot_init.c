/*
 * hotspot_init.c - binds the library to a running HotSpot JVM (ASGST_Initialize).
 *
 * Steps: read the vmStructs tables, check that every field the metadata code and the
 * walker need exists (all missing names go into one message), create the library's own
 * JVMTI environment (never touching the caller's callbacks), then - once the VM is live
 * and a JNIEnv is at hand - find the current-thread key, register the loaded classes,
 * switch DebugNonSafepoints on, install the crash guard and make the backend active.
 * From Agent_OnLoad the live part waits for the VMInit event of our own environment;
 * until then walks return ASGST_INIT_PENDING, ASGST_InitializeStatus says so, and the
 * caller's ASGST_SetInitializeCallback callback learns the outcome at VMInit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hotspot_backend.h"
#include "classes/classes.h"
#include "threads/threads.h"
#include "model/bound_vm.h"
#include "model/vmstructs.h"
#include "walking/walker.h"
#include "walking/framecache.h"
#include "model/vm_model.h"
#include "model/init_timing.h"

#include "../services.h"
#include "../guard.h"
#include "../safe_read.h"
#include "../test_build.h"
#include "../native/cfi.h"

enum { UNBOUND, PENDING, READY };
static int state = UNBOUND;
/* The last binding's refusal (an error code), 0 if none since. */
static int refused;
static char error[1024];
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
/* The caller's wish to learn a pending binding's outcome (ASGST_SetInitializeCallback). */
static ASGST_InitializeCallback outcome_cb;
/* ASGST_INIT_KEEP_VM_FLAGS: DebugNonSafepoints is left as it is. */
static bool keep_vm_flags;
static void *outcome_arg;

/* N. */
const char *asgst__bind_error(void) { return error; }

/* N. Called with init_lock held. */
static int status_locked(void) {
  /* Bound, but walks wait for the class listing of a live-phase binding (class_backlog.c). */
  if (state == READY) return asgst__hs_backlog_listed() ? 0 : ASGST_INIT_PENDING;
  if (state == PENDING) return ASGST_INIT_PENDING;
  return refused ? refused : ASGST_NOT_INITIALIZED;
}

/* N. */
int asgst__bind_status(void) {
  pthread_mutex_lock(&init_lock);
  int s = status_locked();
  pthread_mutex_unlock(&init_lock);
  return s;
}

/* N. */
void asgst__bind_on_outcome(ASGST_InitializeCallback cb, void *arg) {
  pthread_mutex_lock(&init_lock);
  int s = status_locked();
  bool now = cb != NULL && s != ASGST_INIT_PENDING;
  outcome_cb = now ? NULL : cb;
  outcome_arg = now ? NULL : arg;
  pthread_mutex_unlock(&init_lock);
  /* Outside the lock: the callback may call the API (ASGST_Initialize included). */
  if (now) cb(s, arg);
}

static void start_cfi_build(void); /* below, with the thread it starts */

/* N. Called by the class listing's thread once walks work (the classes are listed): runs
 * the caller's pending ASGST_SetInitializeCallback callback of a live-phase binding. The
 * listing thread announced `listed` before this call, so a binding waiting for it under
 * init_lock has gone on and let go of the lock. */
static void bind_listed(void) {
  ASGST_InitializeCallback cb = NULL;
  void *arg = NULL;
  pthread_mutex_lock(&init_lock);
  if (outcome_cb != NULL && status_locked() == 0) {
    cb = outcome_cb, arg = outcome_arg;
    outcome_cb = NULL;
  }
  pthread_mutex_unlock(&init_lock);
  /* After the lock: a binding that waited for the listing has answered by now. */
  start_cfi_build();
  if (cb) cb(0, arg);
}

/* N. Sets the state and what walks answer meanwhile. Called with init_lock held. */
static void set_state(int s) {
  state = s;
  asgst__set_unbound_error(s == PENDING ? ASGST_INIT_PENDING : ASGST_NOT_INITIALIZED);
}

/* N. */
const char *asgst__bind_features_off(void) { return state == READY ? asgst__vm_features_off() : ""; }

/* N. Sets a boolean VM flag through the exported JVMFlag table. */
int asgst__hs_set_bool_flag(const char *name, bool value) {
  const asgst__vm_model *model = &asgst__vm;
  if (model->flags_addr == 0 || model->num_flags_addr == 0 || model->flag_name < 0 || model->flag_addr < 0 ||
      model->flag_sizeof <= 0)
    return -1;
  uintptr_t table = *(const uintptr_t *)model->flags_addr;
  size_t n = *(const size_t *)model->num_flags_addr;
  for (size_t i = 0; table && i < n; i++) {
    uintptr_t f = table + i * (size_t)model->flag_sizeof;
    const char *fname = *(const char *const *)(f + (uintptr_t)model->flag_name);
    if (fname && strcmp(fname, name) == 0) {
      bool *addr = *(bool *const *)(f + (uintptr_t)model->flag_addr);
      if (addr == NULL) return -1;
      *addr = value;
      return 0;
    }
  }
  return -1;
}

/* N. The JVM's java.vm.specification.version as a feature version ("1.8" is 8, "11" is
 * 11), 0 if it cannot be read. A short-lived JVMTI environment of its own: the system
 * properties are readable from the OnLoad phase on. */
static int spec_version(JavaVM *vm) {
  jvmtiEnv *jvmti = NULL;
  char *value = NULL;
  int v = 0;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) return 0;
  if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &value) ==
          JVMTI_ERROR_NONE && value) {
    v = atoi(strncmp(value, "1.", 2) == 0 ? value + 2 : value);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)value);
  }
  (*jvmti)->DisposeEnvironment(jvmti);
  return v;
}

/* N. Checks the VM: its tables, and the model of its version built from them. In the
 * test build (impl/test_build.h), the test agents' "unsupported" modes hide names through
 * ASGST_TEST_HIDE_FIELD, read here once per initialization (never on a walk). */
static int check_vm(JavaVM *vm, int32_t flags) {
  if (asgst__vms_load(error, sizeof error) != 0) return ASGST_UNSUPPORTED_VM;
  asgst__init_timing_mark("vmstructs");
#if ASGST__TEST_BUILD
  asgst__vm_hide_for_test(getenv("ASGST_TEST_HIDE_FIELD"));
#endif
  int spec = spec_version(vm);
  asgst__init_timing_mark("spec version");
  int rc = asgst__vm_model_init(spec, flags, error, sizeof error) == 0 ? 0 : ASGST_UNSUPPORTED_VM;
  asgst__init_timing_mark("model");
  return rc;
}

/* N. Asks for one capability; optional ones may be refused. */
static bool add_capability(jvmtiEnv *jvmti, void (*set)(jvmtiCapabilities *)) {
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  set(&caps);
  return (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE;
}
static void cap_tag(jvmtiCapabilities *c) { c->can_tag_objects = 1; }
static void cap_free(jvmtiCapabilities *c) { c->can_generate_object_free_events = 1; }
static void cap_gc(jvmtiCapabilities *c) { c->can_generate_garbage_collection_events = 1; }
static void cap_retransform(jvmtiCapabilities *c) { c->can_retransform_classes = 1; }
static void cap_lines(jvmtiCapabilities *c) { c->can_get_line_numbers = 1; }
static void cap_suspend(jvmtiCapabilities *c) { c->can_suspend = 1; }

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread t);

/* Set once the first build of the C frame tables (start_cfi_build) has finished. Until
 * then events leave the tables alone: the first build reads every loaded object, far
 * longer than the binding's own work, and is the asgst-cfi thread's. A class that the
 * binding itself loads (FindClass in the self-check and its neighbours) is prepared on the
 * binding thread, and its event would build the tables there, inside ASGST_Initialize
 * (docs/budgets.md, "Where ASGST_Initialize's time goes"); an event waiting for the
 * background build would stall an application thread as long. */
static bool cfi_first_done;

/* N. asgst__cfi_refresh from an event, once the first build is done. */
static void refresh_cfi_from_event(void) {
  if (__atomic_load_n(&cfi_first_done, __ATOMIC_ACQUIRE)) asgst__cfi_refresh();
}

/* N. Our callbacks on our own environment. A thread start also rebuilds the C frame
 * tables if a library was loaded since they were built (a JNI library is typically
 * loaded, then used by a new thread): asgst__cfi_refresh is a single dl_iterate_phdr
 * entry when nothing changed, and thread starts are rare enough to check each. */
static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread t) {
  (void)jvmti, (void)env, (void)t;
  asgst__hs_thread_started();
  refresh_cfi_from_event();
}

/* N. Class preparation, the library's most frequent ordinary event: registers the class
 * and, at most every CFI_CHECK_NS, rebuilds the C frame tables if libraries were loaded
 * (System.loadLibrary runs in a class's code, often with no thread start after it). */
#define CFI_CHECK_NS 100000000LL
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread t, jclass k) {
  static long long last_check;
  asgst__hs_on_class_prepare(jvmti, env, t, k);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  long long now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
  long long last = __atomic_load_n(&last_check, __ATOMIC_RELAXED);
  if (now - last < CFI_CHECK_NS ||
      !__atomic_compare_exchange_n(&last_check, &last, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return;
  refresh_cfi_from_event();
}

/* N. A thread that ends processes what its queues still hold, on itself (this callback is
 * a safe point of it), rather than leaving it to the processing thread, which can no
 * longer suspend it once it is gone. */
static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread t) {
  (void)jvmti, (void)env, (void)t;
  asgst__process_own_queues();
}

/* N. The library's own JVMTI environment with the events the class registry needs. */
static int create_env(JavaVM *vm) {
  jvmtiEnv *jvmti = NULL;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) {
    snprintf(error, sizeof error, "cannot create a JVMTI environment (GetEnv JVMTI_VERSION_1_2)");
    return ASGST_UNSUPPORTED_VM;
  }
  if (!add_capability(jvmti, cap_tag) || !add_capability(jvmti, cap_free) ||
      !add_capability(jvmti, cap_gc)) {
    snprintf(error, sizeof error, "JVMTI refused can_tag_objects/can_generate_object_free_events/"
             "can_generate_garbage_collection_events");
    (*jvmti)->DisposeEnvironment(jvmti);
    return ASGST_UNSUPPORTED_VM;
  }
  /* Optional: makes our ClassFileLoadHook see retransformations too. */
  add_capability(jvmti, cap_retransform);
  /* For the self-check's line number tables (self_check.c); always offered by HotSpot. */
  add_capability(jvmti, cap_lines);
  /* For processing safepoint queues (queue_thread.c); without it queues cannot be
   * registered. */
  asgst__hs_can_suspend = add_capability(jvmti, cap_suspend);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  cb.ClassPrepare = on_class_prepare;
  cb.ObjectFree = asgst__hs_on_object_free;
  cb.GarbageCollectionStart = asgst__hs_on_gc_start;
  cb.ClassFileLoadHook = asgst__hs_on_class_file_load;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof cb);
  asgst__hs_vm = vm;
  asgst__hs_jvmti = jvmti;
  return 0;
}

/* N. The first build of the C frame tables (asgst__cfi_refresh). */
static void first_cfi_build(void) {
  asgst__cfi_refresh();
  __atomic_store_n(&cfi_first_done, true, __ATOMIC_RELEASE);
  /* An object loaded while the build ran, whose events came before the flag, is not in
   * the tables (cfi_refresh.c counts loads before it builds): built now, at the cost of one
   * dl_iterate_phdr entry if there was none. */
  asgst__cfi_refresh();
}

/* How often the asgst-cfi thread looks for loads and unloads and frees what walks can no
 * longer read: a look is one dl_iterate_phdr entry when nothing changed. */
#define CFI_POLL_NS 100000000L

/* N. The frame cache's first touches (asgst__hs_fc_prefault) and the model's late lookups
 * (asgst__vm_late_lookups): milliseconds that cannot refuse a VM, so not on the binding's
 * answer path; then first_cfi_build on a thread of its own, which then stays: every
 * CFI_POLL_NS it
 * rebuilds the tables if objects were loaded or unloaded (a library loaded and used by a
 * thread that neither starts nor loads classes would otherwise stay unknown), and frees
 * the retired snapshots and tables that no walk can still read (asgst__cfi_reclaim, which
 * never waits for a walk: what one still holds goes at a later round). */
static void *build_cfi(void *arg) {
  (void)arg;
  /* Named like every thread of the library (asgst-...), so profilers can leave it out. */
  pthread_setname_np(pthread_self(), "asgst-cfi");
  asgst__hs_fc_prefault();
  asgst__vm_late_lookups();
  first_cfi_build();
  for (;;) {
    struct timespec ts = {0, CFI_POLL_NS};
    nanosleep(&ts, NULL);
    asgst__cfi_poll();
  }
  return NULL;
}

/* N. Starts the first build of the C frame tables for walks with
 * ASGST_INCLUDE_NON_JAVA_FRAMES, once the model is proven, outside any signal handler.
 * Off the binding thread: reading every loaded object's .eh_frame takes longer than the
 * rest of the binding and would break ASGST_Initialize's budget (docs/budgets.md). Until the
 * tables are published (or if memory runs out), C frames are stepped by frame pointer
 * alone. A rebuild after a library load keeps the tables of the objects still loaded and
 * parses only the new one; replaced snapshots (a small array each) and the tables of
 * unloaded libraries are freed by the same thread once no walk can read them (epochs,
 * impl/native/cfi_epoch.h); asgst__cfi_report counts what waits. */
static void start_cfi_build(void) {
  /* Once a process: a binding after ASGST_Shutdown finds the thread still polling. Called
   * by the class worker, or by the binding when the listing ran on its own thread. */
  static bool started;
  if (__atomic_exchange_n(&started, true, __ATOMIC_ACQ_REL)) return;
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &attr, build_cfi, NULL) != 0) { /* here, then */
    asgst__hs_fc_prefault();
    asgst__vm_late_lookups();
    first_cfi_build();
  }
  pthread_attr_destroy(&attr);
}

/* N. The part that needs a live VM and a JNIEnv. Called with init_lock held. */
static int finish(JNIEnv *env, bool at_vm_init) {
  jvmtiEnv *jvmti = asgst__hs_jvmti;
#if ASGST__TEST_BUILD
  /* tests/jvm/test_init.sh: a refusal that only the live part finds (as the self-check's). */
  if (getenv("ASGST_TEST_REFUSE_LIVE")) {
    snprintf(error, sizeof error, "refused by the test build at the live check (ASGST_TEST_REFUSE_LIVE)");
    return ASGST_UNSUPPORTED_VM;
  }
#endif
  asgst__vm.mirror_klass_offset = *(const int *)asgst__vm.mirror_klass_offset_addr;
  if (asgst__vm.mirror_klass_offset <= 0) {
    snprintf(error, sizeof error, "java_lang_Class::_klass_offset is not set");
    return ASGST_UNSUPPORTED_VM;
  }
  if (asgst__hs_threads_init(env, error, sizeof error) != 0) return ASGST_UNSUPPORTED_VM;
  if (asgst__vm.jdk == 8) asgst__vm.anonymous_set = asgst__hs_anonymous_set();
  asgst__init_timing_mark("threads");
  static const jvmtiEvent events[] = {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                                      JVMTI_EVENT_CLASS_PREPARE,
                                      JVMTI_EVENT_OBJECT_FREE, JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                      JVMTI_EVENT_CLASS_FILE_LOAD_HOOK};
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL);
  asgst__init_timing_mark("events on");
  /* The classes loaded before the events were on are listed and registered by the backlog
   * thread started last; one prepared in between is caught by either path (registration
   * is idempotent through the class tag). */
  if (asgst__hs_classes_init(env, error, sizeof error) != 0) return ASGST_UNSUPPORTED_VM;
  /* Precise inlined frames need debug info at every pc, not only at safepoints. The flag
   * only affects methods compiled after it is set (earlier code keeps safepoint-only
   * PcDescs). async-profiler sets the same flag the same way when it starts. Without the
   * exported flag table the walk still works, with coarser bcis in compiled frames. */
  if (!keep_vm_flags) asgst__hs_set_bool_flag("DebugNonSafepoints", true);
  asgst__init_timing_mark("vm flag");
  asgst__hs_learn_mirror_modifiers(jvmti, env);
  asgst__init_timing_mark("mirror modifiers");
  asgst__hs_thread_status_init(env);
  asgst__init_timing_mark("thread status");
  if (asgst__hs_self_check(jvmti, env, error, sizeof error) != 0) return ASGST_UNSUPPORTED_VM;
  asgst__init_timing_mark("self-check");
  /* Where a queue owner's poll word is (queues work without it, only later). */
  asgst__hs_poll_discover();
  asgst__init_timing_mark("poll discover");
  /* JVMTI's SuspendThread is a safepoint of the whole VM there (a handshake from 17 on):
   * the owner runs on for milliseconds first, so a documented share of elements is stale
   * (test_queues.sh holds 8 and 11 to it; docs/queues.md, "JDK 8 and 11"). */
  if (asgst__vm.jdk <= 11)
    asgst__vm_feature_off("stopping one queue owner alone (JDK 8 and 11 suspend through a "
                          "safepoint of the whole VM: 10-17% of queue elements come back stale)");
  /* For recordings (ASGST_RecordWalk); without it only recording is unavailable. */
  asgst__vm_model_export();
  asgst__init_timing_mark("model export");
  if (asgst__guard_install() != 0) {
    snprintf(error, sizeof error, "cannot install the crash guard's signal handlers");
    return ASGST_UNSUPPORTED_VM;
  }
  asgst__init_timing_mark("guard");
  /* Nothing can refuse from here on. The classes loaded so far are listed by a thread of
   * the library (class_backlog.c: listing them grows with their number); until they are,
   * the active table starts no walk, so no class the listing could miss reaches the
   * profiler. The binding waits for the listing, in the live phase for at most
   * ASGST__LISTING_WAIT_MS; at VMInit (only the JDK's startup classes) without a limit, so
   * that walks work from the caller's outcome callback on. */
  const asgst__backend *listing = asgst__hs_listing_backend();
  asgst__set_backend(listing);
  error[0] = '\0';
  refused = 0;
  set_state(READY);
  /* The asgst-cfi thread (start_cfi_build: the C frame tables' first build, tens of ms of
   * CPU, the frame cache's first touches and the model's late lookups, none of which can
   * refuse) is started by the class worker once the classes are listed (bind_listed):
   * started here, it competed for a CPU with the listing the answer waits for and with
   * the binding itself, and on a 2-core machine beside one busy process the answer of 26
   * and 27 took 10-13 ms for 3.5 ms of CPU. Here only when the listing ran here. */
  if (!asgst__hs_backlog_start(jvmti, env, listing, &asgst__hotspot_backend, bind_listed,
                               at_vm_init ? -1 : ASGST__LISTING_WAIT_MS))
    start_cfi_build();
  return 0;
}

/* N. VMInit of our own environment (Agent_OnLoad case). */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread t) {
  (void)t;
  ASGST_InitializeCallback cb = NULL;
  void *arg = NULL;
  int status = 0;
  pthread_mutex_lock(&init_lock);
  if (state == PENDING && jvmti == asgst__hs_jvmti) {
    asgst__init_timing_start("VMInit");
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_VM_INIT, NULL);
    int rc = finish(env, true);
    asgst__init_timing_report();
    if (rc != 0) {
      asgst__hs_backlog_stop(); /* a guard: finish() starts it only once nothing refuses */
      refused = rc;
      set_state(UNBOUND);
    }
    status = status_locked();
    cb = outcome_cb, arg = outcome_arg;
    outcome_cb = NULL;
  }
  pthread_mutex_unlock(&init_lock);
  if (cb) cb(status, arg);
}

/* N. */
int asgst__bind_jvm(JavaVM *vm, int32_t flags) {
  pthread_mutex_lock(&init_lock);
  int rc = 0;
  if (state == READY || state == PENDING) goto out;
  asgst__init_timing_start("ASGST_Initialize");
  error[0] = '\0';
  asgst__hs_realtime_queues = (flags & ASGST_INIT_REALTIME_QUEUES) != 0;
  keep_vm_flags = (flags & ASGST_INIT_KEEP_VM_FLAGS) != 0;
  if ((rc = check_vm(vm, flags)) != 0 || (rc = create_env(vm)) != 0) goto out;
  asgst__init_timing_mark("jvmti env");
  jvmtiPhase phase = JVMTI_PHASE_LIVE;
  (*asgst__hs_jvmti)->GetPhase(asgst__hs_jvmti, &phase);
  JNIEnv *env = NULL;
  if (phase == JVMTI_PHASE_LIVE &&
      (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK && env != NULL) {
    rc = finish(env, false);
  } else if (phase == JVMTI_PHASE_ONLOAD || phase == JVMTI_PHASE_PRIMORDIAL ||
             phase == JVMTI_PHASE_START) {
    set_state(PENDING);
    snprintf(error, sizeof error, "pending: binding completes at the VMInit event");
    (*asgst__hs_jvmti)->SetEventNotificationMode(asgst__hs_jvmti, JVMTI_ENABLE,
                                                 JVMTI_EVENT_VM_INIT, NULL);
  } else {
    snprintf(error, sizeof error, "ASGST_Initialize needs a thread attached to the JVM");
    rc = ASGST_UNSUPPORTED_VM;
  }
  if (rc != 0) {
    /* finish() starts the class backlog worker only once nothing can refuse; stopping it
     * first stays as a guard (the worker uses the environment: found by the fuzzer when
     * it started earlier, a refused JDK 25 crashed it on the NULL env). */
    asgst__hs_backlog_stop();
    (*asgst__hs_jvmti)->DisposeEnvironment(asgst__hs_jvmti);
    asgst__hs_jvmti = NULL;
    asgst__hs_classes_reset();
  }
  refused = rc;
  asgst__init_timing_mark("end");
out:
  asgst__init_timing_report();
  pthread_mutex_unlock(&init_lock);
  return rc;
}

/* N. */
void asgst__unbind_jvm(void) {
  pthread_mutex_lock(&init_lock);
  asgst__set_backend(NULL);
  asgst__hs_backlog_stop();
  if (asgst__hs_jvmti) (*asgst__hs_jvmti)->DisposeEnvironment(asgst__hs_jvmti);
  asgst__hs_jvmti = NULL;
  asgst__hs_classes_reset();
  refused = 0;
  set_state(UNBOUND);
  pthread_mutex_unlock(&init_lock);
}
