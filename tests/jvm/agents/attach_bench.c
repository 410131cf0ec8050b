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
/* How long after ASGST_Initialize's answer a walk of this thread still said
 * ASGST_INIT_PENDING (the classes loaded before the binding being listed:
 * impl/hotspot/classes/class_backlog.c), -1 if a walk failed otherwise. */
static jlong pending_ns = -1;

/* SS. */
static void nothing(ASGST_Iterator *it, void *arg) { (void)it, (void)arg; }

/* N. Walks this thread until the walk works (0.05 ms apart); the time it took. */
static jlong time_to_first_walk(void) {
  jlong t0 = now_ns();
  int kind;
  struct timespec nap = {0, 50000};
  while ((kind = ASGST_RunWithIterator(NULL, 0, nothing, NULL)) == ASGST_INIT_PENDING &&
         now_ns() - t0 < 10000000000LL)
    nanosleep(&nap, NULL);
  return kind > 0 ? now_ns() - t0 : -1;
}

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
  else pending_ns = time_to_first_walk();
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

/* N. How long walks still said ASGST_INIT_PENDING after the answer, -1 if unknown. */
JNIEXPORT jlong JNICALL Java_AttachBench_pendingNanos(JNIEnv *env, jclass c) {
  (void)env, (void)c;
  return pending_ns;
}
