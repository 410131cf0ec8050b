/*
 * probe_agent.c - a JVMTI agent that measures how well AsyncGetCallTrace works on an arm64
 * JVM (run under qemu-user here): SIGPROF every millisecond of process CPU time
 * (ITIMER_PROF), AsyncGetCallTrace in the handler for the interrupted Java thread, and at VM
 * death one line on stderr with the counts of each outcome. No library code: a baseline for
 * the arm64 port. Options: -agentpath:probe_agent.so[=INTERVAL_US] (default 1000).
 *
 * Built and run by tests/aarch64/probe.sh; by hand:
 *   aarch64-linux-gnu-gcc --sysroot=ROOT -shared -fPIC -O2 -Wall -Wextra \
 *     -I$JH/include -I$JH/include/linux tests/aarch64/probe_agent.c -o probe_agent.so
 */
#include <dlfcn.h>
#include <jvmti.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* HotSpot's AsyncGetCallTrace (exported by libjvm, declared nowhere). */
typedef struct {
  jint bci;
  jmethodID method_id;
} CallFrame;
typedef struct {
  JNIEnv *env;
  jint num_frames;
  CallFrame *frames;
} CallTrace;
typedef void (*asgct_fn)(CallTrace *, jint, void *);

enum { MAX_FRAMES = 128, N_ERRORS = 12 }; /* outcomes 0 .. -11 */

static asgct_fn asgct;
static atomic_long signals;           /* SIGPROFs seen, any thread */
static atomic_long not_java;          /* on a thread with no JNIEnv (GC, compiler, VM) */
static atomic_long successes;         /* num_frames > 0 */
static atomic_long depth_sum;         /* frames of the successes */
static atomic_long errors[N_ERRORS];  /* num_frames <= 0, by -num_frames */
/* The JNIEnv of the current Java thread, set at its start (initial-exec: no lazy TLS). */
static __thread JNIEnv *thread_env __attribute__((tls_model("initial-exec")));

/* SS. The SIGPROF handler: one AsyncGetCallTrace of the interrupted thread. */
static void on_sigprof(int sig, siginfo_t *info, void *ucontext) {
  (void)sig;
  (void)info;
  CallFrame frames[MAX_FRAMES];
  CallTrace trace = {thread_env, 0, frames};
  atomic_fetch_add_explicit(&signals, 1, memory_order_relaxed);
  if (!trace.env || !asgct) {
    atomic_fetch_add_explicit(&not_java, 1, memory_order_relaxed);
    return;
  }
  asgct(&trace, MAX_FRAMES, ucontext);
  if (trace.num_frames > 0) {
    atomic_fetch_add_explicit(&successes, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&depth_sum, trace.num_frames, memory_order_relaxed);
  } else if (-trace.num_frames < N_ERRORS) {
    atomic_fetch_add_explicit(&errors[-trace.num_frames], 1, memory_order_relaxed);
  }
}

/* N. Remembers the JNIEnv of each Java thread for the handler. */
static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
  (void)jvmti;
  (void)thread;
  thread_env = env;
}

/* N. Forgets the thread's JNIEnv before the VM tears the thread down. */
static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
  (void)jvmti;
  (void)env;
  (void)thread;
  thread_env = NULL;
}

static long interval_us = 1000;

/* N. Nothing to do, but AsyncGetCallTrace answers -1 (no class load) unless this event
 * is enabled. */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass) {
  (void)jvmti;
  (void)env;
  (void)thread;
  (void)klass;
}

/* N. Creates the jmethodIDs of each prepared class, which AsyncGetCallTrace reports. */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass) {
  (void)env;
  (void)thread;
  jint n;
  jmethodID *methods;
  if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &methods) == JVMTI_ERROR_NONE)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
}

/* N. At VM init: the main thread's JNIEnv, the handler and the timer. */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
  on_thread_start(jvmti, env, thread);
  /* A zeroed sa_mask is the empty set: no other signal is blocked in the handler. */
  struct sigaction sa = {.sa_sigaction = on_sigprof, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval it = {{0, interval_us}, {0, interval_us}};
  setitimer(ITIMER_PROF, &it, NULL);
}

/* N. At VM death: stops the timer and prints the counts. */
static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env) {
  (void)jvmti;
  (void)env;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  long ok = atomic_load(&successes), java = ok, i;
  for (i = 0; i < N_ERRORS; i++) java += atomic_load(&errors[i]);
  fprintf(stderr, "probe: signals=%ld not_java=%ld java=%ld ok=%ld (%.1f%%) mean_depth=%.1f",
          atomic_load(&signals), atomic_load(&not_java), java, ok,
          java ? 100.0 * (double)ok / (double)java : 0.0,
          ok ? (double)atomic_load(&depth_sum) / (double)ok : 0.0);
  for (i = 0; i < N_ERRORS; i++)
    if (atomic_load(&errors[i])) fprintf(stderr, " err%ld=%ld", -i, atomic_load(&errors[i]));
  fputc('\n', stderr);
}

/* N. Agent entry: capabilities (class load events, which AsyncGetCallTrace needs to
 * resolve methods) and callbacks. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvmtiEnv *jvmti;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  if (options && *options) interval_us = atol(options);
  asgct = (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
  if (!asgct) fprintf(stderr, "probe: no AsyncGetCallTrace in the VM\n");
  jvmtiCapabilities caps = {.can_generate_all_class_hook_events = 1};
  (*jvmti)->AddCapabilities(jvmti, &caps);
  jvmtiEventCallbacks cb = {.VMInit = on_vm_init, .VMDeath = on_vm_death,
                            .ThreadStart = on_thread_start, .ThreadEnd = on_thread_end,
                            .ClassLoad = on_class_load, .ClassPrepare = on_class_prepare};
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  for (jvmtiEvent e = JVMTI_MIN_EVENT_TYPE_VAL; e <= JVMTI_MAX_EVENT_TYPE_VAL; e++)
    if (e == JVMTI_EVENT_VM_INIT || e == JVMTI_EVENT_VM_DEATH || e == JVMTI_EVENT_THREAD_START ||
        e == JVMTI_EVENT_THREAD_END || e == JVMTI_EVENT_CLASS_LOAD || e == JVMTI_EVENT_CLASS_PREPARE)
      (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, e, NULL);
  return JNI_OK;
}
