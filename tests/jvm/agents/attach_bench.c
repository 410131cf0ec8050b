/*
 * attach_bench.c - JNI side of tests/bench/java/AttachBench.java: times ASGST_Initialize
 * called in the live phase of a JVM that has already loaded many classes, as a profiler
 * attached to a running JVM calls it.
 */
#include <jni.h>
#include <stdio.h>
#include <time.h>

#include "asgst.h"
#include "common/agent_setup.h"

/* N. Monotonic nanoseconds. */
static jlong now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* N. The time ASGST_Initialize took, -1 if it failed (the reason on stderr). */
JNIEXPORT jlong JNICALL Java_AttachBench_initializeNanos(JNIEnv *env, jclass c) {
  (void)c;
  JavaVM *vm = NULL;
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) return -1;
  jlong t0 = now_ns();
  int rc = ASGST_Initialize(vm, agent_init_flags());
  jlong t = now_ns() - t0;
  if (rc != 0) fprintf(stderr, "ASGST_Initialize: %d %s\n", rc, ASGST_InitializeError());
  return rc == 0 ? t : -1;
}

/* N. How long the library's background registration of the classes loaded before the
 * binding still ran: a class the registry does not know makes ASGST_ClassToJClass wait for
 * it (class_backlog.c) before it answers NULL. */
JNIEXPORT jlong JNICALL Java_AttachBench_backlogNanos(JNIEnv *env, jclass c) {
  (void)env, (void)c;
  static char unknown; /* an address no class has */
  jlong t0 = now_ns();
  jclass none = ASGST_ClassToJClass((ASGST_Class)&unknown);
  return none == NULL ? now_ns() - t0 : -1;
}
