/*
 * test_hs_c_run.c - runs of C frames in the HotSpot walker (walker.c c_run): a C
 * recursion 200 frames deep (longer than one batch of the iterator, so a run ends at a
 * batch's limit and the next batch goes on) walked with ASGST_INCLUDE_NON_JAVA_FRAMES by
 * the C frame tables, where every sender is proven C and taken by the run, gives the
 * frames of the frame pointer chain, read here by hand (this program keeps frame
 * pointers), and the walk ends without an error. The backend is bound to a recorded VM
 * (tests/data/replay), as tests/bench/walk_insns.c does; none of these pcs is in its code
 * heaps. x86_64 only: the recording is of an x86_64 VM.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "api/internal.h"
#include "impl/native/cfi.h"
#include "impl/record/record.h"

enum { DEPTH = 200, KEEP = 512 };

static asgst__replay rp;
static asgst__thread self;
static char recording[8 << 20];

/* The frames of one walk and what the NextFrame after the last one answered. */
typedef struct {
  ASGST_Frame f[KEEP];
  int n, end;
} kept;

static kept by_tables;
/* The frame pointer chain from walk_here's frame: the return address and frame pointer
 * of each caller, innermost first. */
static uintptr_t chain_pc[DEPTH], chain_fp[DEPTH];

/* N. The handler: keeps every frame. */
static void keep(ASGST_Iterator *it, void *arg) {
  kept *k = arg;
  int r = 0;
  for (k->n = 0; k->n < KEEP && (r = ASGST_NextFrame(it, &k->f[k->n])) == 1;) k->n++;
  k->end = r;
}

/* N. Both walks from this function's caller. */
static __attribute__((noinline)) void walk_here(void) {
  asgst__regs top;
  ASGST__CALLER_REGS(top);
  asgst__run_with_iterator(rp.be, &self, &top, ASGST_INCLUDE_NON_JAVA_FRAMES, keep, &by_tables);
  const uintptr_t *fp = __builtin_frame_address(0);
  for (int i = 0; i < DEPTH; i++) {
    chain_pc[i] = fp[1];
    fp = (const uintptr_t *)fp[0];
    chain_fp[i] = (uintptr_t)fp;
  }
}

/* N. depth frames of recursion, then the walks. */
static __attribute__((noinline)) int recurse(int depth) {
  if (depth > 1) {
    int r = recurse(depth - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call: every level keeps its frame */
    return r + 1;
  }
  walk_here();
  return 1;
}

static int setup(void **state) {
  (void)state;
#if !defined(__x86_64__)
  return 0; /* the test skips itself */
#endif
  char path[512];
  snprintf(path, sizeof path, "%s/replay/jdk17-c2-inlined-1.asgstrec", ASGST_TEST_DATA);
  FILE *fh = fopen(path, "rb");
  if (!fh) return -1;
  size_t len = fread(recording, 1, sizeof recording, fh);
  fclose(fh);
  if (asgst__replay_open(recording, len, &rp) != 0) return -1;
  pthread_attr_t a;
  void *lo;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a) != 0) return -1;
  if (pthread_attr_getstack(&a, &lo, &size) == 0)
    self.stack_base = (uintptr_t)lo + size, self.stack_limit = (uintptr_t)lo;
  pthread_attr_destroy(&a);
  return asgst__cfi_build() == 0 ? 0 : -1;
}

static void run_equals_frame_pointer_walk(void **state) {
  (void)state;
#if !defined(__x86_64__)
  (void)recurse;
  skip();
#else
  assert_int_equal(recurse(DEPTH), DEPTH);
  /* walk_here's caller and the rest of the recursion: DEPTH frames, all C. */
  assert_true(by_tables.n >= DEPTH);
  assert_true(by_tables.end >= 0);
  for (int i = 0; i < DEPTH; i++) {
    const ASGST_Frame *a = &by_tables.f[i];
    assert_int_equal(a->type, ASGST_FRAME_NON_JAVA);
    assert_int_equal((uintptr_t)a->pc, chain_pc[i]);
    assert_int_equal((uintptr_t)a->fp, chain_fp[i]);
  }
  /* The recursion's frames lie above one another at one return address. */
  for (int i = 2; i < DEPTH; i++) {
    assert_ptr_equal(by_tables.f[i].pc, by_tables.f[1].pc);
    assert_true((uintptr_t)by_tables.f[i].sp > (uintptr_t)by_tables.f[i - 1].sp);
  }
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(run_equals_frame_pointer_walk, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
