/*
 * class_backlog.c - lists and registers the classes that were loaded before the binding,
 * off the ASGST_Initialize path.
 *
 * Registering a class costs microseconds (JVMTI tag and status, the Method* copy, a shadow
 * of an unloadable class's metadata: class_register.c); done inline, ASGST_Initialize would
 * grow with the class count, and so would listing them (JVMTI GetLoadedClasses) and
 * pinning them (one JNI store a class) before the answer. Instead a daemon
 * thread, "asgst-classes", attached to the VM, does all of it (the binding waits only for
 * step 2, and in the live phase for a bounded time: see below):
 *  1. it lists the loaded classes. GetLoadedClasses hands back a local reference per
 *     class, and a local reference is a strong root: from that moment no listed class can
 *     be unloaded before the thread deletes its reference;
 *  2. it makes the real backend table active (until then the binding publishes a table
 *     whose walks say ASGST_INIT_PENDING and whose jclass/jmethodID conversions wait for
 *     step 1: hotspot_backend.c);
 *  3. it registers the classes one by one, deleting each reference once its class is
 *     tagged, which lets the class be unloaded again (its unload is then reported).
 * Classes prepared meanwhile register themselves through ClassPrepare (enabled before the
 * thread starts); registration is idempotent (the class tag), so the two paths may overlap.
 *
 * Why this keeps the unload handler guarantee, although classes may be listed after the
 * answer: a class loaded before the binding that unloads before step 1 never gets a
 * handler call, but no handle of it can have reached the profiler. Walks are the only way
 * a profiler learns a class or method it did not name itself, and none starts before step
 * 1; a class named by jclass or jmethodID is converted only after step 1 (a jclass pins its
 * class while the caller holds it; a jmethodID's class unloaded before step 1 leaves
 * nothing to convert). From step 1 on every such class is pinned until it is registered,
 * and a registered class's unload reaches the handlers (class_unload.c).
 *
 * Why not pin one reference per class loader before the answer instead: which loaders
 * exist is known only from the class list (JVMTI has no list of loaders), so the listing
 * would stay before the answer, and it is most of the cost; and a loader does not keep the hidden classes that
 * have a ClassLoaderData of their own (nor JDK 8's VM-anonymous ones), which would still
 * need a reference each. docs/budgets.md has the figures.
 *
 * The binding waits for step 2 before it answers, for at most ASGST__LISTING_WAIT_MS in the
 * live phase: up to some tens of thousands of classes (quiet machine) the listing is done
 * by then and walks work as soon as ASGST_Initialize has answered; beyond, or when the
 * thread waits for a CPU, the answer comes anyway, walks say ASGST_INIT_PENDING for the
 * rest of the listing, so does ASGST_InitializeStatus, and the caller's outcome callback
 * runs on this thread once the classes are listed (the binding's on_listed call). A binding at
 * VMInit waits without a limit (a few hundred classes at that point: well under a
 * millisecond), so that walks work from the binding's callback on, as
 * ASGST_SetInitializeCallback promises. What needs the whole registry waits for step 3
 * (asgst__hs_backlog_wait): converting a class to a jclass (ASGST_ClassToJClass,
 * ASGST_MethodToJMethodID) and the unbinding. Metadata and unload handlers never wait.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classes.h"
#include "../model/bound_vm.h"
#include "../model/init_timing.h"
#include "../model/vm_model.h"

#include "../../backend.h"
#include "../../test_build.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static bool running; /* the worker thread exists and has not been joined */
static bool listed;  /* step 2 is done (or the worker gave up before it) */
static bool done;    /* the worker has registered (or given up on) every listed class */
static bool stop;    /* the unbinding asks the worker to stop early */
static const asgst__backend *listing_be; /* the table active until step 2 */
static const asgst__backend *ready_be;   /* the table step 2 makes active */
static void (*on_listed)(void);          /* the binding's call once walks work */
/* For ASGST_INIT_TIMING: when the worker was created, started, attached and had listed
 * (monotonic ns) and its CPU time at the last three; written before `listed` is announced. */
static struct { long long created, started, attached, listed, cpu0, cpu_attached, cpu_listed; } times;

/* N. Nanoseconds of the given clock. */
static long long clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* N. Sets a flag under the lock and wakes the waiters. */
static void announce(bool *flag) {
  pthread_mutex_lock(&lock);
  *flag = true;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

/* N. True if the unbinding asked the worker to stop. */
static bool stop_asked(void) {
  pthread_mutex_lock(&lock);
  bool s = stop;
  pthread_mutex_unlock(&lock);
  return s;
}

#if ASGST__TEST_BUILD
/* N. The test build's ASGST_TEST_LISTING_DELAY_MS: the worker sleeps that long before it
 * lists, so that a test can unload a class inside the window (tests/jvm/test_info.sh). */
static void test_delay(void) {
  const char *v = getenv("ASGST_TEST_LISTING_DELAY_MS");
  long ms = v ? atol(v) : 0;
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  if (ms > 0) nanosleep(&ts, NULL);
}
#else
static void test_delay(void) {} /* N. The product never delays. */
#endif

/* N. Steps 1 and 2: lists the loaded classes (the local references pin them) and makes
 * the real table active. JDK 8: which classes are VM-anonymous is known only from their
 * JVMTI names; noting that before walks start puts the hash suffix on their names from
 * the first walk on. Returns the list (JVMTI memory, NULL if none). */
static jclass *list_classes(jvmtiEnv *jvmti, JNIEnv *env, jint *count) {
  jclass *classes = NULL;
  test_delay();
  /* It fails only out of memory; classes loaded before the binding then have no unload
   * handlers (before, that refused the VM: a refusal that cannot happen in practice, and
   * the listing no longer comes before the answer). */
  if ((*jvmti)->GetLoadedClasses(jvmti, count, &classes) != JVMTI_ERROR_NONE) {
    *count = 0;
    classes = NULL;
  }
  for (jint i = 0; asgst__vm.jdk == 8 && i < *count; i++) {
    uintptr_t k = asgst__hs_klass_of(env, classes[i]);
    if (k) asgst__hs_note_anonymous(jvmti, classes[i], k);
  }
  /* Fails only if the binding was undone meanwhile: then no table is made active. */
  asgst__replace_backend(listing_be, ready_be);
  times.listed = clock_ns(CLOCK_MONOTONIC);
  times.cpu_listed = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  announce(&listed);
  return classes;
}

/* N. Step 3: registers every listed class, releasing each pin once it is registered. After
 * a stop the remaining references go at the thread's detach. */
static void register_listed(jvmtiEnv *jvmti, JNIEnv *env, jclass *classes, jint count) {
  for (jint i = 0; i < count && !stop_asked(); i++) {
    asgst__hs_register_class(jvmti, env, classes[i]);
    (*env)->DeleteLocalRef(env, classes[i]);
  }
  if (classes) (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

/* N. The worker thread: attaches as a daemon (the VM does not wait for it at exit). */
static void *work(void *arg) {
  (void)arg;
  JNIEnv *env = NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "asgst-classes", NULL};
  pthread_setname_np(pthread_self(), "asgst-classes"); /* the kernel's name too */
  JavaVM *vm = asgst__hs_vm;
  jvmtiEnv *jvmti = asgst__hs_jvmti;
  times.started = clock_ns(CLOCK_MONOTONIC);
  times.cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, &args) == JNI_OK) {
    times.attached = clock_ns(CLOCK_MONOTONIC);
    times.cpu_attached = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    jint count = 0;
    jclass *classes = list_classes(jvmti, env, &count);
    on_listed();
    register_listed(jvmti, env, classes, count);
    (*vm)->DetachCurrentThread(vm);
  } else {
    /* No thread, no listing: walks are let through rather than refused for ever; classes
     * loaded before the binding then have no unload handlers (the VM is out of memory or
     * shutting down). */
    asgst__replace_backend(listing_be, ready_be);
    announce(&listed);
    on_listed();
  }
  pthread_mutex_lock(&lock);
  listed = done = true;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* N. Without a thread: all three steps here, before the answer (slow, but complete). */
static void list_here(jvmtiEnv *jvmti, JNIEnv *env) {
  jint count = 0;
  jclass *classes = list_classes(jvmti, env, &count);
  for (jint i = 0; i < count; i++) {
    asgst__hs_register_class(jvmti, env, classes[i]);
    (*env)->DeleteLocalRef(env, classes[i]);
  }
  if (classes) (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
  announce(&done);
}

/* N. Waits at most wait_ms (for ever if negative) for step 2; true if it is done. The
 * deadline is on CLOCK_REALTIME (the condition variable's clock): a clock step only
 * lengthens or shortens one short wait. */
static bool wait_listed_for(long wait_ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (wait_ms % 1000) * 1000000L;
  until.tv_sec += wait_ms / 1000 + until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&lock);
  while (running && !listed)
    if (wait_ms < 0) pthread_cond_wait(&changed, &lock);
    else if (pthread_cond_timedwait(&changed, &lock, &until) != 0) break;
  bool ok = !running || listed;
  pthread_mutex_unlock(&lock);
  return ok;
}

/* N. The worker's steps 1-2 for ASGST_INIT_TIMING, once `listed` is announced. */
static void report_times(void) {
  asgst__init_timing_other("worker thread start", times.started - times.created, 0);
  asgst__init_timing_other("worker attach", times.attached - times.started,
                           times.cpu_attached - times.cpu0);
  asgst__init_timing_other("listing", times.listed - times.attached,
                           times.cpu_listed - times.cpu_attached);
}

/* N. `listing` is active already (the binding made it so): steps 1-3 start on the worker
 * thread; returns once step 2 is done or after wait_ms (negative: no limit): true if the
 * worker runs (it calls listed_cb), false if the steps ran here. */
bool asgst__hs_backlog_start(jvmtiEnv *jvmti, JNIEnv *env, const asgst__backend *listing,
                             const asgst__backend *ready, void (*listed_cb)(void), long wait_ms) {
  pthread_mutex_lock(&lock);
  listing_be = listing;
  ready_be = ready;
  on_listed = listed_cb;
  listed = done = stop = false;
  memset(&times, 0, sizeof times);
  times.created = clock_ns(CLOCK_MONOTONIC);
  running = pthread_create(&worker, NULL, work, NULL) == 0;
  bool worker_runs = running;
  pthread_mutex_unlock(&lock);
  asgst__init_timing_mark("class worker start");
  if (!worker_runs) list_here(jvmti, env);
  bool in_time = wait_listed_for(wait_ms);
  asgst__init_timing_mark(in_time ? "class listing (waited)" : "class listing (wait ended)");
  if (in_time && worker_runs && times.listed) report_times();
  return worker_runs;
}

/* N. Blocks until step 2 is done (at once when no listing runs). */
void asgst__hs_backlog_wait_listed(void) {
  pthread_mutex_lock(&lock);
  while (running && !listed) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

/* N. */
bool asgst__hs_backlog_listed(void) {
  pthread_mutex_lock(&lock);
  bool r = !running || listed;
  pthread_mutex_unlock(&lock);
  return r;
}

/* N. Blocks until every class loaded before the binding is registered. Must not be called
 * from the worker itself (it never is: the worker makes no ASGST calls). */
void asgst__hs_backlog_wait(void) {
  pthread_mutex_lock(&lock);
  while (running && !done) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

/* N. Stops the worker early and joins it (the unbinding). */
void asgst__hs_backlog_stop(void) {
  pthread_mutex_lock(&lock);
  stop = true;
  bool join = running;
  running = false;
  pthread_cond_broadcast(&changed); /* waiters see running == false */
  pthread_mutex_unlock(&lock);
  if (join) pthread_join(worker, NULL);
}
