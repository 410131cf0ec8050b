/*
 * my_agent.c - the README's agent: a JVMTI agent that samples CPU time with SIGPROF until
 * one walk holds Java frames, and prints that walk when the JVM exits. Built as the README
 * shows (pkg-config or CMake, against an installed asgst); tests/conformance/test_install.sh
 * builds and runs it from the README's lines, with JAVA_HOME unset.
 */
#define _GNU_SOURCE /* siginfo_t and sa_sigaction under -std=c11 */
#include <asgst.h>
#include <jvmti.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/time.h>

static ASGST_Frame frames[64];
static int depth;
static atomic_int state; /* 0 free, 1 a handler is walking, 2 frames kept */

/* SS. In the handler: no malloc, no printf. */
static void on_trace(ASGST_Iterator *it, void *arg) {
  (void)arg;
  ASGST_Frame f;
  for (depth = 0; depth < 64 && ASGST_NextFrame(it, &f) == 1;) frames[depth++] = f;
}

/* SS. One walk at a time; the first with Java frames is kept. */
static void on_sigprof(int sig, siginfo_t *info, void *ucontext) {
  (void)sig, (void)info;
  int idle = 0;
  if (!atomic_compare_exchange_strong(&state, &idle, 1)) return;
  int kind = ASGST_RunWithIterator(ucontext, 0, on_trace, NULL);
  atomic_store(&state, kind == ASGST_JAVA_TRACE && depth > 0 ? 2 : 0);
}

/* N. The library is bound (0) or refused: start sampling, or say why not. */
static void on_bound(int status, void *arg) {
  (void)arg;
  if (status != 0) { fprintf(stderr, "asgst: %s\n", ASGST_InitializeError()); return; }
  struct sigaction sa = {.sa_sigaction = on_sigprof, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval every_ms = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_PROF, &every_ms, NULL);
}

/* N. Stops sampling and prints the kept walk: class, method, bci, tier. */
static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env) {
  (void)jvmti, (void)env;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  int n = atomic_load(&state) == 2 ? depth : 0;
  printf("my_agent: %d frames\n", n);
  for (int i = 0; i < n; i++) {
    char name[128], cls[256];
    ASGST_MethodInfo m = {.method_name = name, .method_name_length = sizeof name};
    ASGST_GetMethodInfo(frames[i].method, &m);
    ASGST_ClassInfo c = {.class_name = cls, .class_name_length = sizeof cls};
    ASGST_GetClassInfo(m.klass, &c);
    printf("  %s.%s bci %d tier %d\n", cls, name, frames[i].bci, frames[i].comp_level);
  }
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)options, (void)reserved;
  if (ASGST_Initialize(vm, 0) != 0) { fprintf(stderr, "asgst: %s\n", ASGST_InitializeError()); return JNI_ERR; }
  ASGST_SetInitializeCallback(on_bound, NULL);
  jvmtiEnv *jvmti;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb = {.VMDeath = on_vm_death};
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  return JNI_OK;
}
