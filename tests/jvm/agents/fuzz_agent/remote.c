/*
 * remote.c - the out-of-thread part of the fuzzer: one thread calling
 * ASGST_RunWithIteratorOnThread on random registered Java threads while the SIGPROF
 * walks go on, and now and then on itself, on a thread that just ended, on a non-Java
 * thread (the sampler) or on a tid that does not exist, with random timeouts (a 1 us
 * timeout exercises the give-up path while the target answers late).
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz_agent.h"

static pthread_t remote;
static atomic_int remote_on;
static atomic_int *targets;
static int ntargets, period_us;
static int64_t last_tid; /* a Java thread picked earlier; it may have ended since */

/* N. A tid to walk: usually a live Java thread, sometimes a bad or unusual one. */
static int64_t pick(void) {
  uint64_t r = fuzz_below(100);
  if (r < 80) {
    int i = (int)fuzz_below((uint64_t)ntargets);
    for (int k = 0; k < ntargets; k++) {
      int tid = atomic_load(&targets[(i + k) % ntargets]);
      if (tid) return last_tid = tid;
    }
  }
  if (r < 84) return last_tid;
  if (r < 88) return syscall(SYS_gettid);
  if (r < 92) return getpid(); /* the main thread: not a Java thread in a java launcher */
  if (r < 94) return (int64_t)fuzz_below(1 << 22);
  if (r < 97) return last_tid + (1LL << 32); /* not a tid, though its low half is one */
  return (int64_t)fuzz_rand() >> (fuzz_below(64));
}

/* N. Timeouts from "default" to 20 ms, with very short ones on purpose. */
static int32_t pick_timeout(void) {
  static const int32_t t[] = {0, -1, 1, 10, 100, 1000, 20000};
  return t[fuzz_below(sizeof t / sizeof t[0])];
}

/* N. */
static void *remote_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, (long)period_us * 1000};
  while (atomic_load(&remote_on)) {
    int32_t opt = (int32_t)fuzz_below(4);
    fuzz_walk w = {CTX_REMOTE, 0, 0, fuzz_below(8) == 0, opt};
    int64_t tid = pick();
    int kind = ASGST_RunWithIteratorOnThread(tid, opt, pick_timeout(), fuzz_drain, &w);
    if (tid > INT32_MAX && kind > 0) fuzz_violated(V_KIND, kind); /* walked another thread */
    /* A walk that never ran its handler (bad tid, no answer) left w.code at 0. */
    if (kind <= 0) w.code = kind;
    fuzz_count(&w, kind);
    if (fuzz_below(4) == 0) fuzz_random_info();
    if (period_us > 0) nanosleep(&iv, NULL);
  }
  return NULL;
}

/* N. */
void fuzz_remote_start(atomic_int *tids, int ntids, int period) {
  targets = tids;
  ntargets = ntids;
  period_us = period;
  atomic_store(&remote_on, 1);
  pthread_create(&remote, NULL, remote_main, NULL);
}

/* N. */
void fuzz_remote_stop(void) {
  if (atomic_exchange(&remote_on, 0)) pthread_join(remote, NULL);
}
