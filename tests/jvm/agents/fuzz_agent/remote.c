/*
 * remote.c - the out-of-thread part of the fuzzer: one thread calling
 * ASGST_RunWithIteratorOnThread on random registered Java threads while the SIGPROF
 * walks go on, and now and then on itself, on a thread that just ended, on a non-Java
 * thread (the sampler) or on a tid that does not exist, with random timeouts (a 1 us
 * timeout exercises the give-up path while the target answers late).
 * fuzz_copy_percent (half by default) of the walks are experimental stack-copy walks (ASGST_COPY_STACK: the target runs
 * on while its copied stack is walked); half of those also take the blocking walk of the
 * same moment (ASGST__OPT_COPY_CHECK) and count how many frames the copy walk got wrong,
 * walking the copy fuzz_copy_delay_us after the target's release.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz_agent.h"
#include "impl/test_build.h" /* ASGST__OPT_COPY_CHECK */
_Static_assert(ASGST__OPT_COPY_CHECK != 0, "the agent links the test build (impl/test_build.h)");

int fuzz_copy_percent = 50, fuzz_copy_delay_us = 0;

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

#define KEEP 256

/* A checked stack-copy walk: the blocking walk's frames, then the copy walk's. */
typedef struct {
  fuzz_walk w; /* the copy walk, checked by fuzz_drain */
  int pass, nb, bcode;
  ASGST_Frame blocking[KEEP], copy[KEEP];
} copy_check;

/* N. Pass 0 (the held target): keeps the frames; pass 1 (the copy): fuzz_drain. */
static void check_drain(ASGST_Iterator *it, void *arg) {
  copy_check *c = arg;
  if (c->pass++ > 0) {
    if (fuzz_copy_delay_us > 0) {
      /* A walker that gets to the copy late: the target has run on meanwhile. Rewinding
       * walks the whole copy again from its top, after the pause. */
      struct timespec d = {fuzz_copy_delay_us / 1000000, (fuzz_copy_delay_us % 1000000) * 1000L};
      nanosleep(&d, NULL);
      ASGST_RewindIterator(it);
    }
    fuzz_drain(it, &c->w);
    return;
  }
  ASGST_Frame f;
  for (c->nb = 0; (c->bcode = ASGST_NextFrame(it, &f)) == 1; c->nb++)
    if (c->nb < KEEP) c->blocking[c->nb] = f;
}

/* N. Counts how far the copy walk strayed from the blocking one. */
static void compare_copy(const copy_check *c) {
  int n = c->nb < c->w.frames ? c->nb : c->w.frames, wrong = 0;
  for (int i = 0; i < n && i < KEEP; i++)
    if (c->blocking[i].method != c->copy[i].method || c->blocking[i].bci != c->copy[i].bci) wrong++;
  wrong += c->nb > c->w.frames ? c->nb - c->w.frames : c->w.frames - c->nb;
  atomic_fetch_add(&fuzz_n.copy_checked, 1);
  atomic_fetch_add(&fuzz_n.copy_frames, (unsigned long)c->nb);
  if (wrong == 0 && c->bcode == c->w.code) atomic_fetch_add(&fuzz_n.copy_identical, 1);
  if (wrong) atomic_fetch_add(&fuzz_n.copy_with_wrong, 1);
  atomic_fetch_add(&fuzz_n.copy_wrong_frames, (unsigned long)wrong);
}

/* N. One out-of-thread walk of tid with options opt, of the kind the dice choose. */
static void walk_one(int64_t tid, int32_t opt) {
  static copy_check c;
  bool copy = (int)fuzz_below(100) < fuzz_copy_percent, check = copy && fuzz_below(2) == 0;
  fuzz_walk w = {copy ? CTX_COPY : CTX_REMOTE, 0, 0, fuzz_below(8) == 0, opt, NULL, 0, 0};
  if (copy) opt |= ASGST_COPY_STACK;
  int kind;
  if (check) {
    c.w = w;
    c.w.keep = c.copy;
    c.w.keep_cap = KEEP;
    c.pass = 0;
    kind = ASGST_RunWithIteratorOnThread(tid, opt | ASGST__OPT_COPY_CHECK, pick_timeout(),
                                         check_drain, &c);
    w = c.w;
    if (c.pass == 2) compare_copy(&c);
  } else {
    kind = ASGST_RunWithIteratorOnThread(tid, opt, pick_timeout(), fuzz_drain, &w);
  }
  if (tid > INT32_MAX && kind > 0) fuzz_violated(V_KIND, kind); /* walked another thread */
  /* A walk that never ran its handler (bad tid, no answer) left w.code at 0. */
  if (kind <= 0) w.code = kind;
  fuzz_count(&w, kind);
}

/* N. */
static void *remote_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, (long)period_us * 1000};
  while (atomic_load(&remote_on)) {
    walk_one(pick(), (int32_t)fuzz_below(4));
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
