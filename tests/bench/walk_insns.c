/*
 * walk_insns.c - build/tests/bench/walk-insns: a deterministic walk for instruction counts.
 *
 *   walk-insns RECORDING [WALKS [replayable]]
 *   walk-insns RECORDING WALKS c DEPTH
 *
 * Maps a recorded walk (tests/data/replay) back at its addresses and walks it WALKS times
 * (default 1000) with the HotSpot walker, as a profiler's handler would: every frame taken
 * with ASGST_NextFrame. Unlike a replay (ASGST_ReplayWalk) the walks use the frame cache,
 * as live walks do: one walk first fills it, then the counted walks run in walks(), which
 * `valgrind --tool=callgrind --toggle-collect=walks` counts alone (tests/bench/walk_insns.sh
 * divides by WALKS). "replayable" walks as a replay does (no frame cache). The recorded
 * frames are checked against the walk's, so a figure is never of a walk gone wrong.
 * "c DEPTH" walks C frames instead: this program's own stack, DEPTH frames of a C
 * recursion deep, by the call frame tables (impl/native, built for this process) with
 * ASGST_INCLUDE_NON_JAVA_FRAMES, the HotSpot walker bound to the recording's VM (whose
 * code heaps none of these pcs is in).
 * There is no hardware counter on every machine; instruction counts are the same
 * everywhere.
 * With WALK_INSNS_COLD=1 in the environment every counted walk starts with cold caches, as
 * a walk in a signal handler between stretches of the profiled program does: before each,
 * evict() (outside the counted function) reads a buffer larger than the last-level cache
 * the script simulates and runs code larger than the instruction cache, so callgrind's
 * cache simulation (--cache-sim=yes) counts the lines one walk touches as its misses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "api/internal.h"
#include "impl/native/cfi.h"
#include "impl/record/record.h"

static asgst__replay rp;
static asgst__thread cthread; /* this thread, for the C walks */
static int32_t options;
static int composition[3]; /* frames of the walk: compiled, interpreted, C */

/* N. The handler: takes every frame; *arg gets their number. */
static void take_all(ASGST_Iterator *it, void *arg) {
  ASGST_Frame f;
  int n = 0;
  while (ASGST_NextFrame(it, &f) == 1) n++;
  *(int *)arg = n;
}

/* N. The counted walks (callgrind --toggle-collect=walks). */
__attribute__((noinline)) static int walks(int k) {
  int sum = 0;
  for (int i = 0; i < k; i++) {
    int n = 0;
    asgst__run_with_iterator(rp.be, &rp.thread, &rp.top, options, take_all, &n);
    sum += n;
  }
  return sum;
}

/* Bytes evict() reads: more than walk_insns.sh's simulated last-level cache (8 MiB). */
#define EVICT_BYTES (32u << 20)

/* N. Evicts the caches: one load per line of a buffer larger than the simulated LL, and
 * 64 KiB of straight-line code (twice the simulated L1 instruction cache). */
__attribute__((noinline)) static void evict(void) {
  static volatile char junk[EVICT_BYTES];
  for (size_t i = 0; i < EVICT_BYTES; i += 64) (void)junk[i];
  __asm__ volatile(".rept 16384\n\tnop; nop; nop; nop\n\t.endr" ::: "memory");
}

/* N. k walks, each with cold caches (evict() before it, not counted). */
static int cold_walks(int k) {
  int sum = 0;
  for (int i = 0; i < k; i++) {
    evict();
    sum += walks(1);
  }
  return sum;
}

/* N. The handler of check(): keeps the frames (at most 1024) in *arg. */
typedef struct { ASGST_Frame f[1024]; int n; } kept;
static void keep(ASGST_Iterator *it, void *arg) {
  kept *k = arg;
  for (k->n = 0; k->n < 1024 && ASGST_NextFrame(it, &k->f[k->n]) == 1; k->n++) {}
}

/* N. Compares one walk's frames with the recorded ones; 0 if the same. */
static int check(void) {
  static kept k;
  asgst__run_with_iterator(rp.be, &rp.thread, &rp.top, options, keep, &k);
  if (k.n != (int)rp.header->nframes)
    return fprintf(stderr, "walk-insns: %d frames walked, %u recorded\n", k.n, rp.header->nframes), 1;
  for (int i = 0; i < k.n; i++) {
    const asgst__rec_frame *a = &rp.frames[i];
    const ASGST_Frame *b = &k.f[i];
    if (a->type != b->type || a->bci != b->bci || a->method != (uintptr_t)b->method ||
        a->comp_level != b->comp_level || a->sp != (uintptr_t)b->sp || a->pc != (uintptr_t)b->pc)
      return fprintf(stderr, "walk-insns: frame %d differs from the recording\n", i), 1;
  }
  int interp = 0, c = 0;
  for (int i = 0; i < k.n; i++) {
    interp += k.f[i].comp_level == 0;
    c += k.f[i].type == ASGST_FRAME_NON_JAVA;
  }
  composition[0] = k.n - interp - c, composition[1] = interp, composition[2] = c;
  return 0;
}

/* N. The thread as a walk of its C frames sees it: no VM thread, the stack's base. */
static asgst__thread c_thread(void) {
  asgst__thread t = {0};
  pthread_attr_t a;
  void *lo;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    if (pthread_attr_getstack(&a, &lo, &size) == 0) t.stack_base = (uintptr_t)lo + size, t.stack_limit = (uintptr_t)lo;
    pthread_attr_destroy(&a);
  }
  return t;
}

/* N. The counted C walks, from the frame of their caller (callgrind --toggle-collect=c_walks). */
__attribute__((noinline)) static int c_walks(int k) {
  asgst__regs top;
  ASGST__CALLER_REGS(top);
  int sum = 0;
  for (int i = 0; i < k; i++) {
    int n = 0;
    asgst__run_with_iterator(rp.be, &cthread, &top, ASGST_INCLUDE_NON_JAVA_FRAMES, take_all, &n);
    sum += n;
  }
  return sum;
}

/* N. depth frames of C recursion, then one warm-up walk and k counted ones at the bottom. */
__attribute__((noinline)) static int c_recurse(int depth, int k) {
  if (depth > 1) {
    int r = c_recurse(depth - 1, k);
    __asm__ volatile("" ::: "memory"); /* not a tail call: every level keeps its frame */
    return r;
  }
  c_walks(1);
  return c_walks(k);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: walk-insns RECORDING [WALKS [replayable]]\n");
    return 2;
  }
  int k = argc > 2 ? atoi(argv[2]) : 1000;
  FILE *fh = fopen(argv[1], "rb");
  if (!fh) return fprintf(stderr, "walk-insns: %s: %s\n", argv[1], strerror(errno)), 2;
  static char buf[8 << 20];
  size_t len = fread(buf, 1, sizeof buf, fh);
  fclose(fh);
  int rc = asgst__replay_open(buf, len, &rp);
  if (rc != 0) return fprintf(stderr, "walk-insns: %s\n", asgst__replay_error()), 3;
  options = rp.options & ~ASGST__OPT_REPLAYABLE;
  if (argc > 4 && strcmp(argv[3], "c") == 0) {
    cthread = c_thread();
    if (asgst__cfi_build() != 0) return fprintf(stderr, "walk-insns: no C frame tables\n"), 3;
    int sum = c_recurse(atoi(argv[4]), k);
    printf("frames/walk %d (C) walks %d\n", k ? sum / k : 0, k);
    return 0;
  }
  if (argc > 3 && strcmp(argv[3], "replayable") == 0) options |= ASGST__OPT_REPLAYABLE;
  if (check() != 0 || check() != 0) return 1; /* the second walk hits the frame cache */
  const char *cold = getenv("WALK_INSNS_COLD");
  int sum = cold && *cold == '1' ? cold_walks(k) : walks(k);
  printf("frames/walk %d (compiled %d interpreted %d C %d) walks %d\n", k ? sum / k : 0, composition[0],
         composition[1], composition[2], k);
  return 0;
}
