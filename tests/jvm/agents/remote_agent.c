/*
 * remote_agent.c - test agent: out-of-thread walks (ASGST_RunWithIteratorOnThread) of
 * Java threads against in-handler walks (ASGST_RunWithIterator on the thread's own signal
 * context) of the same threads, taken back to back by an agent thread.
 *
 * Threads named "rw-sleep-*" and "rw-busy-*" (RemoteWalkWorkload) are recorded at
 * ThreadStart with their OS thread ids. Per pair of walks the agent counts: identical
 * traces (method, bci, type frame by frame), identical method sequences, and differences.
 * With the option "probe" it only prints whether ASGST_Initialize succeeded.
 * Prints "RESULT <kind> pairs=N exact=N methods=N remote_ok=N local_ok=N exiting=N" at VM
 * death (exiting: pairs left out because the thread began exiting between the two walks).
 *
 * Then, per target, one experimental stack-copy walk (ASGST_COPY_STACK) with the blocking
 * walk of the same moment (ASGST__OPT_COPY_CHECK): "RESULT copy-<kind> pairs=N exact=N
 * methods=N copy_ok=N blocking_ok=N wrong_frames=N frames=N" (wrong_frames: frames of the
 * copy walk that differ from the blocking walk's at the same depth, or are missing).
 */
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "impl/test_build.h" /* ASGST__OPT_COPY_CHECK */
_Static_assert(ASGST__OPT_COPY_CHECK != 0, "the agent links the test build (impl/test_build.h)");

#define MAX_FRAMES 256
#define MAX_TARGETS 16

typedef struct {
  int n;
  int result;
  ASGST_Frame f[MAX_FRAMES];
} trace;

typedef struct {
  pid_t tid;
  int busy;
} target;

static jvmtiEnv *jvmti;
static target targets[MAX_TARGETS];
static atomic_int ntargets;
static volatile int finished;
static int local_signal;
static atomic_int local_request; /* tid asked to walk itself */
static atomic_int local_done;
static trace local_trace;
static long pairs[2], exact[2], methods[2], remote_ok[2], local_ok[2];
static long exiting[2]; /* pairs left out: the thread began exiting between the two walks */
/* Results of failed walks (remote, local), by error code 0..-31, for the report. */
static long remote_err[2][32], local_err[2][32];
/* Stack-copy walks against blocking walks of the same moment, per target kind. */
static long cpairs[2], cexact[2], cmethods[2], copy_ok[2], blocking_ok[2], wrong_frames[2], cframes[2];
static long copy_err[2][32];

/* SS. Collects Java frames of one walk. */
static void collect(ASGST_Iterator *it, void *arg) {
  trace *t = arg;
  t->n = 0;
  while (t->n < MAX_FRAMES && (t->result = ASGST_NextFrame(it, &t->f[t->n])) == 1) t->n++;
}

/* SS. The in-handler walk on the target thread. */
static void on_local_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  if (atomic_load(&local_request) != (int)syscall(SYS_gettid)) return;
  ASGST_RunWithIterator(uc, 0, collect, &local_trace);
  atomic_store(&local_request, 0);
  atomic_store(&local_done, 1);
}

static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  (void)jni;
  jvmtiThreadInfo info;
  if ((*env)->GetThreadInfo(env, thread, &info) != JVMTI_ERROR_NONE) return;
  if (strncmp(info.name, "rw-", 3) == 0) {
    int i = atomic_load(&ntargets);
    if (i < MAX_TARGETS) {
      targets[i].tid = (pid_t)syscall(SYS_gettid);
      targets[i].busy = strncmp(info.name, "rw-busy", 7) == 0;
      atomic_store(&ntargets, i + 1);
    }
  }
  (*env)->Deallocate(env, (unsigned char *)info.name);
}

static int same_methods(const trace *a, const trace *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++)
    if (a->f[i].method != b->f[i].method) return 0;
  return 1;
}

static int same_frames(const trace *a, const trace *b) {
  if (!same_methods(a, b)) return 0;
  for (int i = 0; i < a->n; i++)
    if (a->f[i].bci != b->f[i].bci || a->f[i].type != b->f[i].type) return 0;
  return 1;
}

/* N. One pair of walks of target t. */
static void compare_once(const target *t) {
  static trace remote;
  int k = t->busy;
  int kind = ASGST_RunWithIteratorOnThread(t->tid, 0, 200000, collect, &remote);
  atomic_store(&local_done, 0);
  atomic_store(&local_request, t->tid);
  syscall(SYS_tgkill, getpid(), t->tid, local_signal);
  for (int spin = 0; spin < 200000 && !atomic_load(&local_done); spin++) sched_yield();
  if (!atomic_load(&local_done)) {
    atomic_store(&local_request, 0);
    return;
  }
  int rr = kind > 0 ? remote.result : kind, lr = local_trace.result;
  if ((rr == ASGST_THREAD_EXIT) != (lr == ASGST_THREAD_EXIT)) {
    exiting[k]++; /* the workload's threads end while we sample: nothing to compare */
    return;
  }
  pairs[k]++;
  if (rr == 0 && remote.n > 0) remote_ok[k]++;
  else if (rr <= 0 && rr > -32) remote_err[k][-rr]++;
  if (lr == 0 && local_trace.n > 0) local_ok[k]++;
  else if (lr <= 0 && lr > -32) local_err[k][-lr]++;
  if (same_methods(&remote, &local_trace)) methods[k]++;
  if (same_frames(&remote, &local_trace)) exact[k]++;
}

/* The two walks of one ASGST__OPT_COPY_CHECK call: [0] blocking, [1] the copy. */
typedef struct {
  int pass;
  trace t[2];
} copy_pair;

/* N. Collects each pass into its own trace. */
static void collect_pass(ASGST_Iterator *it, void *arg) {
  copy_pair *p = arg;
  if (p->pass < 2) collect(it, &p->t[p->pass]);
  p->pass++;
}

/* Frames of b missing or different from a's at the same depth. */
static int frames_differing(const trace *a, const trace *b) {
  int d = a->n > b->n ? a->n - b->n : 0;
  for (int i = 0; i < b->n; i++)
    if (i >= a->n || a->f[i].method != b->f[i].method || a->f[i].bci != b->f[i].bci) d++;
  return d;
}

/* N. One stack-copy walk of target t with its blocking walk. */
static void copy_once(const target *t) {
  static copy_pair p;
  int k = t->busy;
  p.pass = 0;
  ASGST_RunWithIteratorOnThread(t->tid, ASGST_COPY_STACK | ASGST__OPT_COPY_CHECK, 200000,
                                collect_pass, &p);
  if (p.pass != 2 || p.t[0].result == ASGST_THREAD_EXIT) return;
  const trace *b = &p.t[0], *c = &p.t[1];
  cpairs[k]++;
  if (b->result == 0 && b->n > 0) blocking_ok[k]++;
  if (c->result == 0 && c->n > 0) copy_ok[k]++;
  else if (c->result <= 0 && c->result > -32) copy_err[k][-c->result]++;
  if (same_methods(b, c)) cmethods[k]++;
  if (same_frames(b, c)) cexact[k]++;
  wrong_frames[k] += frames_differing(b, c);
  cframes[k] += b->n;
}

static void JNICALL walker_thread(jvmtiEnv *env, JNIEnv *jni, void *arg) {
  (void)env;
  (void)jni;
  (void)arg;
  struct timespec pause = {0, 2000000}, settle = {1, 0};
  /* The workload's threads first climb their recursions (interpreted, loading classes):
   * a pair of walks then sees two different stacks. A second after the last of the four
   * has started is ample (the run lasts 6), even on a loaded machine, where the JVM's
   * start alone can take that long. */
  for (int i = 0; i < 1000 && atomic_load(&ntargets) < 4; i++) nanosleep(&pause, NULL);
  nanosleep(&settle, NULL);
  while (!finished) {
    nanosleep(&pause, NULL);
    int n = atomic_load(&ntargets);
    for (int i = 0; i < n && !finished; i++) compare_once(&targets[i]);
    for (int i = 0; i < n && !finished; i++) copy_once(&targets[i]);
  }
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  (void)thread;
  jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
  jthread t = (*jni)->NewObject(jni, cls, init, (*jni)->NewStringUTF(jni, "asgst-remote-walker"));
  (*env)->RunAgentThread(env, t, walker_thread, NULL, JVMTI_THREAD_NORM_PRIORITY);
}

static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni) {
  (void)env;
  (void)jni;
  finished = 1;
  usleep(50000);
  const char *names[2] = {"sleep", "busy"};
  for (int k = 0; k < 2; k++)
    printf("RESULT %s pairs=%ld exact=%ld methods=%ld remote_ok=%ld local_ok=%ld exiting=%ld\n",
           names[k], pairs[k], exact[k], methods[k], remote_ok[k], local_ok[k], exiting[k]);
  for (int k = 0; k < 2; k++)
    printf("RESULT copy-%s pairs=%ld exact=%ld methods=%ld copy_ok=%ld blocking_ok=%ld "
           "wrong_frames=%ld frames=%ld\n", names[k], cpairs[k], cexact[k], cmethods[k],
           copy_ok[k], blocking_ok[k], wrong_frames[k], cframes[k]);
  for (int k = 0; k < 2; k++)
    for (int e = 0; e < 32; e++) {
      if (copy_err[k][e]) printf("FAILED copy-%s %s %ld\n", names[k], ASGST_ErrorName(-e), copy_err[k][e]);
      if (remote_err[k][e]) printf("FAILED %s remote %s %ld\n", names[k], ASGST_ErrorName(-e), remote_err[k][e]);
      if (local_err[k][e]) printf("FAILED %s local %s %ld\n", names[k], ASGST_ErrorName(-e), local_err[k][e]);
    }
  fflush(stdout);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  /* "probe": only report whether the library supports this JVM, and let it run. */
  if (options && strcmp(options, "probe") == 0) {
    if (ASGST_Initialize(vm, agent_init_flags()) == 0) printf("INIT ok\n");
    else printf("INIT failed: %s\n", ASGST_InitializeError());
    fflush(stdout);
    return 0;
  }
  if (ASGST_Initialize(vm, agent_init_flags()) != 0) {
    fprintf(stderr, "remote_agent: ASGST_Initialize failed: %s\n", ASGST_InitializeError());
    return 1;
  }
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return 1;
  for (int s = SIGRTMIN + 1; s <= SIGRTMAX && !local_signal; s++) {
    struct sigaction old;
    if (sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
      local_signal = s;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_local_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(local_signal, &sa, NULL);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.ThreadStart = on_thread_start;
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  return 0;
}
