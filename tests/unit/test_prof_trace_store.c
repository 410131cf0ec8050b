/* test_prof_trace_store.c - the demo profiler's call-trace store, without a JVM: a key
 * (frames, event, walk result, thread state, thread when asked) is kept once and counted;
 * a full store loses new keys (the caller counts them) and overwrites nothing; threads
 * counting the same and different keys at once lose no count; a period's store is read
 * through prof_samples_each with its counts and emptied after the period's dump, and
 * counts that race with period ends land in exactly one period. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler-demo/src/core/sample_buffer.c"
#include "profiler-demo/src/core/time_hist.c"
#include "profiler-demo/src/core/trace_store.c"

/* A stack of n frames, its methods made from seed. */
static void stack_of(prof_frame *f, int n, uintptr_t seed) {
  memset(f, 0, (size_t)n * sizeof *f);
  for (int i = 0; i < n; i++) {
    f[i].method = (void *)(0x10000 + seed * 0x100 + (uintptr_t)i * 8);
    f[i].bci = i;
    f[i].type = 1;
  }
}

static prof_record key(uint16_t event, uint16_t nframes, int32_t tid, int32_t result) {
  prof_record h;
  memset(&h, 0, sizeof h);
  h.event = event, h.nframes = nframes, h.tid = tid, h.walk_result = result;
  return h;
}

typedef struct {
  uint64_t keys, samples, max_count;
  int32_t tid_seen;
} totals;

static void sum(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi, void *arg) {
  (void)fdi;
  totals *t = arg;
  assert_non_null(f);
  t->keys++;
  t->samples += r->count;
  if (r->count > t->max_count) t->max_count = r->count;
  t->tid_seen = r->tid;
}

/* Adds each key's count to arg[its state]. */
static void count_states(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi,
                         void *arg) {
  (void)f, (void)fdi;
  if (r->state < 8) ((uint64_t *)arg)[r->state] += r->count;
}

static totals totals_of(const prof_trace_store *s) {
  totals t = {0};
  prof_trace_store_each(s, sum, &t);
  return t;
}

/* A store of its own for a test (its mappings are left to the process's end). */
static prof_trace_store *new_store(size_t traces, size_t arena) {
  prof_trace_store *s = calloc(1, sizeof *s);
  assert_int_equal(prof_trace_store_map(s, traces, arena), 0);
  return s;
}

static void same_stack_twice_is_one_key(void **state) {
  (void)state;
  prof_trace_store *s = new_store(1024, 1 << 20);
  prof_frame f[5];
  stack_of(f, 5, 1);
  prof_record h = key(0, 5, 42, 1);
  assert_true(prof_trace_store_add(s, &h, f, false));
  assert_true(prof_trace_store_add(s, &h, f, false));
  totals t = totals_of(s);
  assert_int_equal(t.keys, 1);
  assert_int_equal(t.samples, 2);
  /* One frame different (its bci): another key. */
  f[4].bci = 99;
  assert_true(prof_trace_store_add(s, &h, f, false));
  t = totals_of(s);
  assert_int_equal(t.keys, 2);
  assert_int_equal(t.max_count, 2);
  free(s);
}

/* A walk that stands for several samples (walk=queue's folds) counts its weight; a
 * header without a weight (count 0) counts one. */
static void a_weighted_walk_counts_its_weight(void **state) {
  (void)state;
  prof_frame f[4];
  stack_of(f, 4, 3);
  prof_record h = key(0, 4, 7, 1);
  prof_trace_store *s = new_store(1024, 1 << 20);
  /* A new key made with 5, the same key +5, then +1 for no weight. */
  static const uint64_t weights[] = {5, 5, 0};
  for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
    h.count = weights[i];
    assert_true(prof_trace_store_add(s, &h, f, false));
  }
  totals t = totals_of(s);
  assert_int_equal(t.keys, 1);
  assert_int_equal(t.samples, 11);
  free(s);
}

static void event_and_result_are_part_of_the_key(void **state) {
  (void)state;
  prof_trace_store *s = new_store(1024, 1 << 20);
  prof_frame f[3];
  stack_of(f, 3, 2);
  prof_record a = key(0, 3, 1, 1), b = key(1, 3, 1, 1), c = key(0, 3, 1, -5),
              d = key(0, 2, 1, 1);
  assert_true(prof_trace_store_add(s, &a, f, false));
  assert_true(prof_trace_store_add(s, &b, f, false));
  assert_true(prof_trace_store_add(s, &c, f, false));
  assert_true(prof_trace_store_add(s, &d, f, false)); /* a prefix of the same frames */
  assert_true(prof_trace_store_add(s, &a, f, false));
  totals t = totals_of(s);
  assert_int_equal(t.keys, 4);
  assert_int_equal(t.samples, 5);
  assert_int_equal(t.max_count, 2);
  free(s);
}

/* The thread's state is part of the key and comes back with its count: the same stack
 * sampled sleeping and running is two keys (the states option and JFR tell them apart). */
static void thread_state_is_part_of_the_key(void **state) {
  (void)state;
  prof_trace_store *s = new_store(1024, 1 << 20);
  prof_frame f[3];
  stack_of(f, 3, 4);
  prof_record run = key(0, 3, 1, 1), sleep = key(0, 3, 1, 1);
  run.state = 1, sleep.state = 6;
  assert_true(prof_trace_store_add(s, &run, f, false));
  assert_true(prof_trace_store_add(s, &sleep, f, false));
  assert_true(prof_trace_store_add(s, &sleep, f, false));
  uint64_t by_state[8] = {0};
  prof_trace_store_each(s, count_states, by_state);
  assert_int_equal(by_state[1], 1);
  assert_int_equal(by_state[6], 2);
  assert_int_equal(totals_of(s).keys, 2);
  free(s);
}

static void thread_is_keyed_only_when_asked(void **state) {
  (void)state;
  prof_trace_store *off = new_store(1024, 1 << 20), *on = new_store(1024, 1 << 20);
  prof_frame f[4];
  stack_of(f, 4, 3);
  for (int32_t tid = 100; tid < 103; tid++) {
    prof_record h = key(0, 4, tid, 1);
    assert_true(prof_trace_store_add(off, &h, f, false));
    assert_true(prof_trace_store_add(on, &h, f, true));
  }
  totals t = totals_of(off);
  assert_int_equal(t.keys, 1);
  assert_int_equal(t.samples, 3);
  assert_int_equal(t.tid_seen, 0); /* not keyed: no thread is told */
  t = totals_of(on);
  assert_int_equal(t.keys, 3);
  assert_int_equal(t.samples, 3);
  assert_true(t.tid_seen >= 100 && t.tid_seen < 103);
  free(off), free(on);
}

static void a_full_store_loses_new_keys_only(void **state) {
  (void)state;
  /* Room for 4 keys. */
  prof_trace_store *s = new_store(4, 1 << 20);
  prof_frame f[6];
  for (int i = 0; i < 4; i++) {
    stack_of(f, 6, 10 + (uintptr_t)i);
    prof_record h = key(0, 6, 0, 1);
    assert_true(prof_trace_store_add(s, &h, f, false));
  }
  stack_of(f, 6, 99);
  prof_record h = key(0, 6, 0, 1);
  assert_false(prof_trace_store_add(s, &h, f, false));
  assert_false(prof_trace_store_add(s, &h, f, false));
  /* The old keys are still there, and still counted. */
  stack_of(f, 6, 12);
  assert_true(prof_trace_store_add(s, &h, f, false));
  totals t = totals_of(s);
  assert_int_equal(t.keys, 4);
  assert_int_equal(t.samples, 5);
  prof_trace_figures fig;
  prof_trace_store_figures(s, &fig);
  assert_int_equal(fig.traces, 4);
  assert_int_equal(fig.arena_bytes, 4 * 6 * sizeof(prof_frame));

  /* Arena full: room for 10 frames, a 6-frame key fits, the next does not. */
  prof_trace_store *small = new_store(1024, 10 * sizeof(prof_frame));
  stack_of(f, 6, 1);
  assert_true(prof_trace_store_add(small, &h, f, false));
  stack_of(f, 6, 2);
  assert_false(prof_trace_store_add(small, &h, f, false));
  stack_of(f, 6, 1);
  assert_true(prof_trace_store_add(small, &h, f, false));
  t = totals_of(small);
  assert_int_equal(t.keys, 1);
  assert_int_equal(t.samples, 2);
  free(s), free(small);
}

#define THREADS 4
#define PER_THREAD 300000
#define SHARED 50 /* keys every thread counts */
#define OWN 50    /* keys of one thread alone */

static prof_trace_store *shared_store;
static _Atomic int go;
static uint64_t lost[THREADS];

/* Starts THREADS threads of fn (argument: their number), all let go at once. */
static void start_all(pthread_t *t, void *(*fn)(void *)) {
  atomic_store(&go, 0);
  memset(lost, 0, sizeof lost);
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i);
  atomic_store(&go, 1);
}

/* Spins until start_all lets the threads go. */
static void wait_for_go(void) {
  while (!atomic_load(&go)) {
  }
}

/* Counts PER_THREAD samples: shared and own keys in turn, from the same first slots. */
static void *counter(void *arg) {
  int w = (int)(intptr_t)arg;
  prof_frame f[8];
  wait_for_go();
  for (int i = 0; i < PER_THREAD; i++) {
    bool own = i % 2;
    uintptr_t seed = own ? 1000 + (uintptr_t)w * OWN + (uintptr_t)(i / 2 % OWN)
                         : (uintptr_t)(i / 2 % SHARED);
    stack_of(f, 8, seed);
    prof_record h = key(0, 8, 0, 1);
    if (!prof_trace_store_add(shared_store, &h, f, false)) lost[w]++;
  }
  return NULL;
}

static void concurrent_counts_add_up(void **state) {
  (void)state;
  shared_store = new_store(1024, 1 << 20);
  pthread_t t[THREADS];
  start_all(t, counter);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  totals tt = totals_of(shared_store);
  printf("# %d threads counted %d samples each: %llu keys, %llu samples\n", THREADS,
         PER_THREAD, (unsigned long long)tt.keys, (unsigned long long)tt.samples);
  for (int i = 0; i < THREADS; i++) assert_int_equal(lost[i], 0);
  assert_int_equal(tt.samples, (uint64_t)THREADS * PER_THREAD);
  /* Racing publications of one new key leave it once. */
  assert_int_equal(tt.keys, SHARED + THREADS * OWN);
  free(shared_store);
}

static void periods_read_and_empty_the_store(void **state) {
  (void)state;
  assert_int_equal(prof_buffer_init((size_t)16 << 20), 0);
  prof_buffer_reset();
  prof_frame f[3];
  stack_of(f, 3, 7);
  prof_record h = key(0, 3, 5, 1);
  h.walk_ns = 1000, h.lag_ns = 2000;
  for (int i = 0; i < 10; i++) assert_true(prof_buffer_count(&h, f, false));
  assert_true(prof_buffer_append(&h, f, NULL)); /* a record of its own beside them */
  assert_int_equal(prof_buffer_rotate(), 0);
  assert_true(prof_buffer_count(&h, f, false)); /* the next period's */
  totals t = {0};
  prof_samples_each(sum, &t);
  assert_int_equal(t.keys, 2);     /* the record, the key */
  assert_int_equal(t.samples, 11); /* the next period's sample is not read */
  prof_period_figures pf;
  prof_buffer_figures(&pf);
  assert_int_equal(pf.traces, 1);
  assert_int_equal(prof_hist_total(pf.walk_ns), 11);
  /* 1000 ns is in a bucket 16 ns wide: read back as its middle, within 1%. */
  uint32_t med = prof_hist_rank(pf.walk_ns, 1, 2);
  assert_true(med >= 1000 && med < 1016);
  prof_buffer_rotated();
  /* The ended period's store is empty; the current one has its sample. */
  assert_int_equal(atomic_load(&bufs[0].store.ntraces), 0);
  assert_int_equal(prof_hist_total(&bufs[0].walk_ns), 0);
  t = (totals){0};
  prof_samples_each(sum, &t);
  assert_int_equal(t.samples, 1);
  prof_buffer_reset();
  t = (totals){0};
  prof_samples_each(sum, &t);
  assert_int_equal(t.samples, 0);
}

/* Ends a period: its samples are read into all, then dropped. */
static void end_period(totals *all) {
  assert_int_equal(prof_buffer_rotate(), 0);
  prof_samples_each(sum, all);
  prof_buffer_rotated();
}

static _Atomic int stop_counting;
static uint64_t counted[THREADS];

/* Counts samples of 20 keys in the current period until told to stop. */
static void *period_counter(void *arg) {
  int w = (int)(intptr_t)arg;
  prof_frame f[4];
  wait_for_go();
  uint64_t i = 0;
  for (; !atomic_load(&stop_counting); i++) {
    stack_of(f, 4, (uintptr_t)(i % 20));
    prof_record h = key(0, 4, 0, 1);
    if (!prof_buffer_count(&h, f, false)) lost[w]++;
    if (i % 1000 == 999) { /* a pause now and then, so periods end while counting */
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
  counted[w] = i;
  return NULL;
}

static void counts_racing_rotations_land_in_one_period(void **state) {
  (void)state;
  assert_int_equal(prof_buffer_init((size_t)16 << 20), 0);
  prof_buffer_reset();
  pthread_t t[THREADS];
  start_all(t, period_counter);
  totals all = {0};
  for (int p = 0; p < 50; p++) {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    end_period(&all);
  }
  atomic_store(&stop_counting, 1);
  uint64_t want = 0;
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL), want += counted[i] - lost[i];
  end_period(&all); /* the last one */
  printf("# 50 periods ended while %d threads counted %llu samples: %llu read\n", THREADS,
         (unsigned long long)want, (unsigned long long)all.samples);
  for (int i = 0; i < THREADS; i++) assert_int_equal(lost[i], 0);
  assert_int_equal(all.samples, want);
  /* Both periods' stores are empty again. */
  assert_int_equal(atomic_load(&bufs[0].store.ntraces) + atomic_load(&bufs[1].store.ntraces), 0);
}

static void histogram_quantiles_are_close(void **state) {
  (void)state;
  prof_hist *h = calloc(1, sizeof *h);
  for (uint32_t v = 1; v <= 100000; v++) prof_hist_add(h, v * 10);
  assert_int_equal(prof_hist_total(h), 100000);
  assert_int_equal(prof_hist_max(h), 1000000);
  uint32_t med = prof_hist_rank(h, 1, 2), p90 = prof_hist_rank(h, 9, 10);
  printf("# median %u (500000), p90 %u (900000)\n", med, p90);
  assert_true(med > 500000 * 0.98 && med < 500000 * 1.02);
  assert_true(p90 > 900000 * 0.98 && p90 < 900000 * 1.02);
  prof_hist_add(h, 7);
  prof_hist_reset(h);
  assert_int_equal(prof_hist_rank(h, 1, 2), 0);
  free(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_stack_twice_is_one_key),
      cmocka_unit_test(a_weighted_walk_counts_its_weight),
      cmocka_unit_test(event_and_result_are_part_of_the_key),
      cmocka_unit_test(thread_state_is_part_of_the_key),
      cmocka_unit_test(thread_is_keyed_only_when_asked),
      cmocka_unit_test(a_full_store_loses_new_keys_only),
      cmocka_unit_test(concurrent_counts_add_up),
      cmocka_unit_test(periods_read_and_empty_the_store),
      cmocka_unit_test(counts_racing_rotations_land_in_one_period),
      cmocka_unit_test(histogram_quantiles_are_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
