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

/* N. Nanoseconds of the given clock. */
static jlong clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* N. Monotonic nanoseconds. */
static jlong now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* The calling thread's CPU time in the last ASGST_Initialize: on a busy machine the wall
 * time also holds the waits for the scheduler, this one only the binding's own work (the
 * library's background threads are not in it, as they are not before the answer). */
static jlong init_cpu_ns = -1;

/* N. The time ASGST_Initialize took, -1 if it failed (the reason on stderr). */
JNIEXPORT jlong JNICALL Java_AttachBench_initializeNanos(JNIEnv *env, jclass c) {
  (void)c;
  JavaVM *vm = NULL;
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) return -1;
  int flags = agent_init_flags();
  jlong c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns();
  int rc = ASGST_Initialize(vm, flags);
  jlong t = now_ns() - t0;
  init_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
  if (rc != 0) fprintf(stderr, "ASGST_Initialize: %d %s\n", rc, ASGST_InitializeError());
  return rc == 0 ? t : -1;
}

/* N. The binding thread's CPU time in initializeNanos's ASGST_Initialize, -1 if none. */
JNIEXPORT jlong JNICALL Java_AttachBench_initializeCpuNanos(JNIEnv *env, jclass c) {
  (void)env, (void)c;
  return init_cpu_ns;
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
