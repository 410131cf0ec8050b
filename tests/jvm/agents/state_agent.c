/*
 * state_agent.c - ASGST_ThreadState against JVMTI GetThreadState (tests/jvm/test_thread_state.sh).
 *
 * The workload (profiler-demo/tests/java/ThreadStates.java) holds threads named "st-..."
 * in known states: sleeping, waiting in Object.wait (timed or not), blocked on a monitor
 * entry, parked (timed or not), running Java, in a native read. ThreadStart notes each one's
 * OS thread id and a global reference. Once all are in place, an agent thread asks, per
 * thread and round, JVMTI GetThreadState, then the library in the thread's own signal
 * handler, then JVMTI again: where both JVMTI answers agree (the thread did not move) the
 * library's answer must be the same bits, less those JVMTI has and the library never sets
 * (SUSPENDED, INTERRUPTED, VENDOR_*). Every other round asks through an out-of-thread walk
 * instead (ASGST_RunWithIteratorOnThread, ASGST_IteratorThreadState). Prints "STATE ok - ..." / "STATE not ok - ..." per
 * thread and "STATE done".
 */
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

#define MAX_TARGETS 16
#define EXPECTED 9 /* the workload's st- threads */
#define ROUNDS 20

/* The JVMTI bits the library answers with (asgst.h). */
#define COMPARED                                                                             \
  (JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_TERMINATED | JVMTI_THREAD_STATE_RUNNABLE |  \
   JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT |       \
   JVMTI_THREAD_STATE_SLEEPING | JVMTI_THREAD_STATE_WAITING |                                \
   JVMTI_THREAD_STATE_IN_OBJECT_WAIT | JVMTI_THREAD_STATE_PARKED |                           \
   JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_NATIVE)

typedef struct {
  pid_t tid;
  jthread thread; /* global reference */
  char name[48];
  _Atomic int answered; /* set by the handler */
  int state;            /* ASGST_ThreadState in the handler */
} target;

static jvmtiEnv *jvmti;
static atomic_int checked; /* the checker has printed its lines */
static target targets[MAX_TARGETS];
static atomic_int ntargets;
static int sig;

/* SS. Answers for the target thread this handler interrupts. */
static void on_signal(int s, siginfo_t *si, void *uc) {
  (void)s, (void)si, (void)uc;
  pid_t me = (pid_t)syscall(SYS_gettid);
  int n = atomic_load(&ntargets);
  for (int i = 0; i < n; i++)
    if (targets[i].tid == me) {
      targets[i].state = ASGST_ThreadState();
      atomic_store(&targets[i].answered, 1);
    }
}

static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  jvmtiThreadInfo info;
  if ((*env)->GetThreadInfo(env, thread, &info) != JVMTI_ERROR_NONE) return;
  int i = atomic_load(&ntargets);
  if (strncmp(info.name, "st-", 3) == 0 && i < MAX_TARGETS) {
    targets[i].tid = (pid_t)syscall(SYS_gettid);
    targets[i].thread = (*jni)->NewGlobalRef(jni, thread);
    snprintf(targets[i].name, sizeof targets[i].name, "%s", info.name);
    atomic_store(&ntargets, i + 1);
  }
  (*env)->Deallocate(env, (unsigned char *)info.name);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* N. The library's answer in t's handler, -1000 if it did not come within a second. */
static int ask_library(target *t) {
  atomic_store(&t->answered, 0);
  if (syscall(SYS_tgkill, getpid(), t->tid, sig) != 0) return -1000;
  for (int i = 0; i < 10000 && !atomic_load(&t->answered); i++) usleep(100);
  return atomic_load(&t->answered) ? t->state : -1000;
}

/* N (the walker's handler). The walked thread's state, as the iterator tells it. */
static void note_state(ASGST_Iterator *it, void *arg) { *(int *)arg = ASGST_IteratorThreadState(it); }

/* N. The library's answer for t through an out-of-thread walk (ASGST_IteratorThreadState). */
static int ask_remote(target *t) {
  int state = -1000;
  int r = ASGST_RunWithIteratorOnThread(t->tid, 0, 100000, note_state, &state);
  return r > 0 ? state : r;
}

/* N. ROUNDS comparisons for one thread, one TAP line; odd rounds ask through an
 * out-of-thread walk. */
static void check_target(target *t) {
  int stable = 0, same = 0, last_lib = 0, last_jvmti = 0;
  for (int r = 0; r < ROUNDS; r++) {
    jint before = 0, after = 0;
    jvmtiError e1 = (*jvmti)->GetThreadState(jvmti, t->thread, &before);
    int lib = r % 2 ? ask_remote(t) : ask_library(t);
    jvmtiError e2 = (*jvmti)->GetThreadState(jvmti, t->thread, &after);
    /* Only reads where JVMTI answered (both times) and the thread did not move count. */
    if (e1 != JVMTI_ERROR_NONE || e2 != JVMTI_ERROR_NONE || (before & COMPARED) != (after & COMPARED)) continue;
    stable++;
    last_lib = lib, last_jvmti = before & COMPARED;
    if (lib == last_jvmti) same++;
    else printf("STATE # %s: library 0x%x, JVMTI 0x%x\n", t->name, lib, last_jvmti);
    sleep_ms(5);
  }
  bool ok = stable >= ROUNDS / 2 && same * 100 >= stable * 95;
  printf("STATE %s - %s: ASGST_ThreadState (in the thread's handler) and "
         "ASGST_IteratorThreadState (walked out of thread) are JVMTI's state in %d of %d "
         "steady reads (library 0x%x, JVMTI 0x%x)\n", ok ? "ok" : "not ok", t->name, same, stable,
         last_lib, last_jvmti);
}

static void JNICALL checker(jvmtiEnv *env, JNIEnv *jni, void *arg) {
  (void)env, (void)jni, (void)arg;
  /* The workload starts each thread once the previous one is in its state. */
  for (int i = 0; i < 100 && atomic_load(&ntargets) < EXPECTED; i++) sleep_ms(50);
  sleep_ms(200);
  int n = atomic_load(&ntargets);
  printf("STATE # %d st- threads\n", n);
  for (int i = 0; i < n; i++) check_target(&targets[i]);
  printf("STATE done\n");
  fflush(stdout);
  atomic_store(&checked, 1);
}

/* N. The workload's time may run out before the checker is done on a busy machine (JVMTI
 * then answers WRONG_PHASE): the VM's end waits for it, at most 30 s. */
static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni) {
  (void)env, (void)jni;
  for (int i = 0; i < 3000 && !atomic_load(&checked); i++) sleep_ms(10);
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread t) {
  (void)t;
  if (!agent_start_thread(env, jni, checker)) printf("STATE not ok - the checker thread starts\n");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)options, (void)reserved;
  if (ASGST_Initialize(vm, agent_init_flags()) != 0) {
    printf("STATE not ok - ASGST_Initialize: %s\n", ASGST_InitializeError());
    return 1;
  }
  for (int s = SIGRTMIN + 1; s <= SIGRTMAX && !sig; s++) {
    struct sigaction old;
    if (sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
      sig = s;
  }
  agent_handle_signal(sig, on_signal);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.ThreadStart = on_thread_start;
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  jvmtiEvent events[] = {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH};
  return agent_setup(vm, &jvmti, &cb, events, 3) == 0 ? 0 : 1;
}
