/* agent_setup.c - see agent_setup.h. */
#include "agent_setup.h"

#include "asgst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* N. */
int agent_setup(JavaVM *vm, jvmtiEnv **jvmti, const jvmtiEventCallbacks *cb, const jvmtiEvent *events,
                int n) {
  return agent_setup_caps(vm, jvmti, NULL, cb, events, n);
}

/* N. */
int agent_setup_caps(JavaVM *vm, jvmtiEnv **jvmti, const jvmtiCapabilities *caps, const jvmtiEventCallbacks *cb,
                     const jvmtiEvent *events, int n) {
  if ((*vm)->GetEnv(vm, (void **)jvmti, JVMTI_VERSION_1_2) != JNI_OK) return -1;
  if (caps && (**jvmti)->AddCapabilities(*jvmti, caps) != JVMTI_ERROR_NONE) return -1;
  if ((**jvmti)->SetEventCallbacks(*jvmti, cb, (jint)sizeof *cb) != JVMTI_ERROR_NONE) return -1;
  for (int i = 0; i < n; i++)
    if ((**jvmti)->SetEventNotificationMode(*jvmti, JVMTI_ENABLE, events[i], NULL) != JVMTI_ERROR_NONE)
      return -1;
  return 0;
}

/* N. */
void agent_handle_signal(int sig, void (*fn)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

/* N. */
bool agent_tids_add(atomic_int *tids, int n) {
  int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < n; i++) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&tids[i], &expect, tid)) return true;
  }
  return false;
}

/* N. */
void agent_tids_remove(atomic_int *tids, int n) {
  int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < n; i++) {
    int expect = tid;
    if (atomic_compare_exchange_strong(&tids[i], &expect, 0)) return;
  }
}

/* N. */
bool agent_under_qemu(void) {
  const char *v = getenv("ASGST_TEST_QEMU");
  return v && strcmp(v, "1") == 0;
}

/* N. */
int agent_init_flags(void) {
  const char *v = getenv("ASGST_TEST_UNTESTED_JDK");
  const char *rt = getenv("ASGST_TEST_REALTIME_QUEUES");
  return (v && strcmp(v, "1") == 0 ? ASGST_INIT_UNTESTED_JDK : 0) |
         (rt && strcmp(rt, "1") == 0 ? ASGST_INIT_REALTIME_QUEUES : 0);
}

/* N. */
bool agent_start_thread(jvmtiEnv *jvmti, JNIEnv *env, jvmtiStartFunction fn) {
  jclass cls = (*env)->FindClass(env, "java/lang/Thread");
  jmethodID init = cls ? (*env)->GetMethodID(env, cls, "<init>", "()V") : NULL;
  jobject thr = init ? (*env)->NewObject(env, cls, init) : NULL;
  return thr != NULL && (*jvmti)->RunAgentThread(jvmti, thr, fn, NULL, JVMTI_THREAD_NORM_PRIORITY) == JVMTI_ERROR_NONE;
}

/* N. */
int agent_initialize_live(JavaVM *vm, int32_t flags) {
  int rc = ASGST_Initialize(vm, flags);
  if (rc != 0) return rc;
  for (int i = 0; i < 30000 && (rc = ASGST_InitializeStatus()) == ASGST_INIT_PENDING; i++) usleep(1000);
  return rc;
}

/* N. */
bool agent_initialize_and_start(JavaVM *vm, jvmtiEnv *jvmti, JNIEnv *env, jvmtiStartFunction fn,
                                const char *prefix) {
  int rc = agent_initialize_live(vm, agent_init_flags());
  if (rc != 0) {
    printf("%s not ok - ASGST_Initialize: %s (%s)\n", prefix, ASGST_ErrorName(rc), ASGST_InitializeError());
    return false;
  }
  if (agent_start_thread(jvmti, env, fn)) return true;
  printf("%s not ok - cannot start the agent thread\n", prefix);
  return false;
}

/* N. */
void agent_stop_and_wait(atomic_int *quit, atomic_int *finished, int ms) {
  atomic_store(quit, 1);
  for (int i = 0; i < ms / 10 && !atomic_load(finished); i++) usleep(10000);
}

/* N. */
long agent_option(const char *options, const char *name, long fallback) {
  size_t len = strlen(name);
  for (const char *p = options; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, name, len) == 0 && p[len] == '=') return atol(p + len + 1);
  return fallback;
}

/* N. */
bool agent_tids_signal_next(atomic_int *tids, int n, int *next, int sig) {
  for (int k = 0; k < n; k++) {
    int i = (*next + k) % n;
    int tid = atomic_load(&tids[i]);
    if (tid == 0) continue;
    *next = i + 1;
    return syscall(SYS_tgkill, getpid(), tid, sig) == 0;
  }
  return false;
}
