/*
 * native_spin.c - a JNI library for test_all_threads.sh: JitGcBusy.startNative(ms) starts a
 * thread the JVM knows nothing of (pthread_create from native code, never attached) that
 * spins in spin_work for ms milliseconds of wall time and ends. The profiler can only find
 * it by looking at the process's threads. It names itself "native-spin-1" only after
 * NAME_AFTER_MS of its spin: until then it has its maker's name, as the JVM's lazily
 * started GC workers and compiler threads have until they name themselves, so the
 * profiler's first look at it sees the wrong name and must look again.
 */
#include <jni.h>
#include <pthread.h>
#include <time.h>

#define NAME_AFTER_MS 50

static volatile unsigned long sink;

/* N. CLOCK_MONOTONIC in ms. */
static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* N. The work the samples should name: not inlined, so it has a frame of its own. */
__attribute__((noinline)) void spin_work(long until) {
  unsigned long x = 1;
  while (now_ms() < until)
    for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  sink = x;
}

/* N. */
static void *spin(void *arg) {
  long ms = (long)(size_t)arg;
  spin_work(now_ms() + NAME_AFTER_MS);
  pthread_setname_np(pthread_self(), "native-spin-1");
  spin_work(now_ms() + ms - NAME_AFTER_MS);
  return NULL;
}

/* N. */
JNIEXPORT void JNICALL Java_JitGcBusy_startNative(JNIEnv *env, jclass c, jint ms) {
  (void)env, (void)c;
  pthread_t t;
  if (pthread_create(&t, NULL, spin, (void *)(size_t)ms) != 0) return;
  pthread_detach(t);
}
