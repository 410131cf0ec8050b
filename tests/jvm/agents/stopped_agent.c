/*
 * stopped_agent.c - JVMTI test agent: ASGST and AsyncGetCallTrace against the VM's own
 * answer, JVMTI GetStackTrace, at stopped points.
 *
 * An agent thread repeatedly suspends one of the workload's threads (JVMTI SuspendThread:
 * a thread running Java code stops at its next safepoint poll or handshake check, a
 * blocked or native one where it is), sends it SIGPROF, whose handler walks the thread's
 * own stack on the same ucontext with ASGST and with ASGCT, then asks GetStackTrace for
 * the same suspended thread and resumes it. The three traces describe one stopped state
 * and are compared frame by frame on method (jmethodIDs turned into Method* by
 * asgct_oracle_method, so every side compares as Method*) and bci (JVMTI's location).
 *
 * Targets: threads whose name starts with "work-" (tests/jvm/java/walk/Workload.java).
 * Options: secs=N (how long to sample; default 8), pause_us=N (between stops; default 500).
 * Prints "STOPPED samples=N asgst_ok=N asgct_ok=N asgst_eq=N asgct_eq=N both_ok=N
 * differ=N jvmti_sides_asgst=N jvmti_sides_asgct=N no_answer=N placeholder=N" (see
 * same() for the placeholder), then EXAMPLE lines: the first differing frame of a few
 * traces that differ from GetStackTrace's.
 */
#include <errno.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "common/asgct_oracle.h"

#define MAXF 256
#define MAX_TARGETS 64
#define MAX_EXAMPLES 3


/* One frame as all three sides are compared: Method* and bci (-1 for a native method). */
typedef struct {
  uintptr_t method;
  int bci;
} frame;

typedef struct {
  jthread thread; /* global reference */
  pid_t tid;
} target;

/* The one stop in flight: written by the agent thread, then by the stopped thread's
 * handler, read back by the agent thread after `done`. */
static struct {
  _Atomic pid_t tid;
  atomic_int done;
  int a_n, a_rc, g_n;
  frame a[MAXF], g[MAXF];
  ASGCT_CallFrame gct[MAXF];
} stop;

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static asgct_fn asgct;
static int secs = 8, pause_us = 500;
static __thread JNIEnv *tl_env __attribute__((tls_model("initial-exec")));
static target targets[MAX_TARGETS];
static int ntargets;
static pthread_mutex_t targets_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int quit, finished;

/* Counts (agent thread only). */
static long samples, placeholder, asgst_ok, asgct_ok, asgst_eq, asgct_eq, both_ok, differ, sides_asgst,
    sides_asgct, no_answer;
static int asgst_examples, asgct_examples;

/* SS. ASGST iterator handler: the Java frames of the walk. */
static void collect(ASGST_Iterator *it, void *arg) {
  (void)arg;
  ASGST_Frame f;
  int r;
  stop.a_n = 0;
  while ((r = ASGST_NextFrame(it, &f)) == 1 && stop.a_n < MAXF) {
    frame *o = &stop.a[stop.a_n++];
    o->method = (uintptr_t)f.method;
    o->bci = f.type == ASGST_FRAME_JAVA_NATIVE ? -1 : f.bci;
  }
  stop.a_rc = r < 0 ? r : 0;
}

/* SS. SIGPROF: both walks of the stopped thread, on its own ucontext. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  if (atomic_load(&stop.tid) == (pid_t)syscall(SYS_gettid) && !atomic_load(&stop.done)) {
    int kind = ASGST_RunWithIterator(uc, 0, collect, NULL);
    if (kind <= 0) stop.a_rc = kind;
    ASGCT_CallTrace t = {tl_env, 0, stop.gct};
    asgct(&t, MAXF, uc);
    stop.g_n = t.num_frames;
    for (int i = 0; i < stop.g_n && i < MAXF; i++) {
      jmethodID id = stop.gct[i].method_id;
      stop.g[i].method = asgct_oracle_method(id);
      stop.g[i].bci = stop.gct[i].lineno == -3 ? -1 : stop.gct[i].lineno;
    }
    atomic_store_explicit(&stop.done, 1, memory_order_release);
  }
  errno = saved;
}

/* N. Frame for frame equal. With `placeholder`, ASGST's -1 (no debug information at the
 * pc) equals JVMTI's 0 for the same method: where a compiled frame's pc has no PcDesc the
 * VM itself reports bci 0 as a stand-in (vframeStream's fill_from_compiled_native_frame),
 * and *used tells that this rule was needed. */
static bool same(const frame *x, int nx, const frame *y, int ny, bool placeholder, bool *used) {
  if (nx != ny) return false;
  for (int i = 0; i < nx; i++) {
    if (x[i].method != y[i].method) return false;
    if (x[i].bci == y[i].bci) continue;
    if (!placeholder || x[i].bci != -1 || y[i].bci != 0) return false;
    *used = true;
  }
  return true;
}

/* N. "Class.method@bci" of a Method*, from ASGST's method and class info. */
static void describe(const frame *f, char *out, size_t len) {
  char name[96] = "", cls[160] = "";
  ASGST_MethodInfo mi = {0};
  mi.method_name = name, mi.method_name_length = sizeof name;
  ASGST_GetMethodInfo((ASGST_Method)f->method, &mi);
  ASGST_ClassInfo ci = {0};
  ci.class_name = cls, ci.class_name_length = sizeof cls;
  if (mi.klass) ASGST_GetClassInfo(mi.klass, &ci);
  snprintf(out, len, "%s.%s@%d", cls, name, f->bci);
}

/* N. Prints the first frame where `x` (called what) differs from JVMTI's trace. */
static void example(const char *what, int *count, const frame *x, int nx, const frame *j, int nj) {
  if (*count >= MAX_EXAMPLES) return;
  ++*count;
  int k = 0;
  while (k < nx && k < nj && x[k].method == j[k].method && x[k].bci == j[k].bci) k++;
  char a[280] = "-", b[280] = "-";
  if (k < nx) describe(&x[k], a, sizeof a);
  if (k < nj) describe(&j[k], b, sizeof b);
  printf("EXAMPLE %s differs from GetStackTrace at frame %d of %d/%d: %s vs %s\n", what, k, nx,
         nj, a, b);
}

/* N. One stop of thread t: suspend, walk in its handler, GetStackTrace, resume. */
static void stop_once(const target *t) {
  if ((*jvmti)->SuspendThread(jvmti, t->thread) != JVMTI_ERROR_NONE) return;
  atomic_store(&stop.done, 0);
  atomic_store(&stop.tid, t->tid);
  bool answered = false;
  if (syscall(SYS_tgkill, getpid(), t->tid, SIGPROF) == 0) {
    for (int i = 0; i < 20000 && !answered; i++) { /* up to 1 s */
      answered = atomic_load_explicit(&stop.done, memory_order_acquire);
      if (!answered) usleep(50);
    }
  }
  atomic_store(&stop.tid, 0);
  jvmtiFrameInfo fi[MAXF];
  jint nj = 0;
  jvmtiError err = answered ? (*jvmti)->GetStackTrace(jvmti, t->thread, 0, MAXF, fi, &nj)
                            : JVMTI_ERROR_INTERNAL;
  (*jvmti)->ResumeThread(jvmti, t->thread);
  if (!answered) no_answer++;
  if (err != JVMTI_ERROR_NONE || nj <= 0) return; /* not stopped in Java code: nothing to compare */
  frame j[MAXF];
  for (int i = 0; i < nj; i++) {
    j[i].method = asgct_oracle_method(fi[i].method);
    j[i].bci = (int)fi[i].location;
  }
  samples++;
  bool a_ok = stop.a_rc == 0 && stop.a_n > 0, g_ok = stop.g_n > 0, ph = false, unused = false;
  bool a_eq = a_ok && same(stop.a, stop.a_n, j, nj, true, &ph);
  bool g_eq = g_ok && same(stop.g, stop.g_n, j, nj, false, &unused);
  asgst_ok += a_ok, asgct_ok += g_ok, asgst_eq += a_eq, asgct_eq += g_eq, placeholder += a_eq && ph;
  if (a_ok && g_ok) {
    both_ok++;
    if (!same(stop.a, stop.a_n, stop.g, stop.g_n, false, &unused) && !(a_eq && g_eq)) {
      differ++;
      sides_asgst += a_eq, sides_asgct += g_eq;
      if (!g_eq) example("ASGCT", &asgct_examples, stop.g, stop.g_n, j, nj);
    }
  }
  if (a_ok && !a_eq) example("ASGST", &asgst_examples, stop.a, stop.a_n, j, nj);
}

/* N. The agent thread: stops the targets in turn for `secs` seconds, then reports. */
static void JNICALL stopper(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j, (void)env, (void)arg;
  struct timespec t0, now, pause = {0, pause_us * 1000L};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int round = 0; !atomic_load(&quit); round++) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - t0.tv_sec >= secs) break;
    pthread_mutex_lock(&targets_lock);
    target t = {0};
    if (ntargets > 0) t = targets[round % ntargets];
    pthread_mutex_unlock(&targets_lock);
    if (t.thread) stop_once(&t);
    nanosleep(&pause, NULL);
  }
  printf("STOPPED samples=%ld asgst_ok=%ld asgct_ok=%ld asgst_eq=%ld asgct_eq=%ld both_ok=%ld "
         "differ=%ld jvmti_sides_asgst=%ld jvmti_sides_asgct=%ld no_answer=%ld placeholder=%ld\n",
         samples, asgst_ok, asgct_ok, asgst_eq, asgct_eq, both_ok, differ, sides_asgst,
         sides_asgct, no_answer, placeholder);
  fflush(stdout);
  atomic_store(&finished, 1);
}

/* N. Records the workload's threads (the callback runs on the new thread). */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  tl_env = env;
  jvmtiThreadInfo info;
  if ((*j)->GetThreadInfo(j, t, &info) != JVMTI_ERROR_NONE) return;
  bool work = info.name && strncmp(info.name, "work-", 5) == 0;
  (*j)->Deallocate(j, (unsigned char *)info.name);
  if (!work) return;
  pthread_mutex_lock(&targets_lock);
  if (ntargets < MAX_TARGETS) {
    targets[ntargets].thread = (*env)->NewGlobalRef(env, t);
    targets[ntargets].tid = (pid_t)syscall(SYS_gettid);
    ntargets++;
  }
  pthread_mutex_unlock(&targets_lock);
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)t;
  int rc = agent_initialize_live(jvm, 0);
  if (rc != 0) {
    printf("STOPPED not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  asgct_oracle_prepare_loaded(j);
  if (!agent_start_thread(j, env, stopper)) printf("STOPPED not ok - cannot start the agent thread\n");
}

/* N. Waits (briefly) for the agent thread's report; no target stays suspended after it. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  agent_stop_and_wait(&quit, &finished, 2000);
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  secs = (int)agent_option(options, "secs", secs);
  pause_us = (int)agent_option(options, "pause_us", pause_us);
  asgct = asgct_oracle_lookup();
  if (asgct == NULL || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
    printf("STOPPED not ok - AsyncGetCallTrace or JVMTI missing\n");
    return JNI_ERR;
  }
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_suspend = 1;
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
    printf("STOPPED not ok - can_suspend not available\n");
    return JNI_ERR;
  }
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  asgct_oracle_callbacks(&cb);
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START};
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL);
  asgct_oracle_enable(jvmti);
  agent_handle_signal(SIGPROF, on_signal);
  return JNI_OK;
}
