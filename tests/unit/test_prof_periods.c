/* test_prof_periods.c - the demo profiler's loop= periods and pprof encoding, without a
 * JVM: appends racing with rotations of the sample buffer land in exactly one period each
 * (none lost, none twice), the buffer's memory is given back after each period, and the
 * protobuf varints and fields are the wire format's. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profiler-demo/src/core/sample_buffer.c"
#include "profiler-demo/src/core/time_hist.c"
#include "profiler-demo/src/core/trace_store.c"
#include "profiler-demo/src/output/proto_encode.c"

#define WRITERS 4
#define PER_WRITER 4000000 /* at most; the writers stop when the periods are done */
#define PERIODS 100

static _Atomic int go, stop;
static uint64_t appended[WRITERS];

/* Appends records until told to stop, each carrying its writer and number in seq. */
static void *writer(void *arg) {
  int w = (int)(intptr_t)arg;
  prof_frame f[3];
  memset(f, 0, sizeof f);
  while (!atomic_load(&go)) {
  }
  uint64_t i = 0;
  for (; i < PER_WRITER && !atomic_load(&stop); i++) {
    prof_record h = {.event = 0, .nframes = (uint16_t)(i % 4), .seq = (uint64_t)w << 32 | i};
    while (!prof_buffer_append(&h, f, NULL)) {
    }
    if (i % 1000 == 999) { /* a pause now and then, so many periods end while appending */
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
  appended[w] = i;
  return NULL;
}

static uint8_t *seen; /* one byte per record: how many periods had it */

static void count(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi, void *arg) {
  (void)f, (void)fdi;
  seen[(r->seq >> 32) * PER_WRITER + (r->seq & 0xffffffff)]++;
  (*(uint64_t *)arg)++;
}

static void every_record_in_exactly_one_period(void **state) {
  (void)state;
  assert_int_equal(prof_buffer_init((size_t)64 << 20), 0);
  prof_buffer_reset();
  seen = calloc((size_t)WRITERS * PER_WRITER, 1);
  pthread_t t[WRITERS];
  for (int i = 0; i < WRITERS; i++) pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i);
  atomic_store(&go, 1);
  uint64_t total = 0;
  int periods = 0;
  /* Periods end while the writers append. */
  for (; periods < PERIODS; periods++) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
    assert_int_equal(prof_buffer_rotate(), 0);
    prof_buffer_each(count, &total);
    prof_buffer_rotated();
  }
  atomic_store(&stop, 1);
  uint64_t all = 0;
  for (int i = 0; i < WRITERS; i++) pthread_join(t[i], NULL), all += appended[i];
  printf("# %d periods ended while %d threads appended %llu records\n", periods, WRITERS,
         (unsigned long long)all);
  for (int i = 0; i < WRITERS; i++) assert_true(appended[i] < PER_WRITER); /* still going */
  assert_int_equal(prof_buffer_rotate(), 0); /* the last period */
  prof_buffer_each(count, &total);
  prof_buffer_rotated();
  assert_int_equal(total, all);
  for (int w = 0; w < WRITERS; w++)
    for (uint64_t i = 0; i < PER_WRITER; i++)
      assert_int_equal(seen[w * PER_WRITER + i], i < appended[w]);
  /* Both buffers are empty now: their records were given back. */
  assert_int_equal(atomic_load(&bufs[0].tail) + atomic_load(&bufs[1].tail), 0);
  free(seen);
}

/* What a streamed chunk leaves: the samples it wrote as counts (and records with fd info
 * again, marked streamed), none of its records' bytes. */
typedef struct {
  uint64_t samples, records, streamed, fd_records;
} fold_tally;

static void tally(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi, void *arg) {
  (void)f;
  fold_tally *t = arg;
  t->samples += r->count;
  t->records += r->time_ns != 0;
  t->streamed += r->streamed;
  t->fd_records += fdi != NULL;
}

static void fold_keeps_every_sample_as_counts(void **state) {
  (void)state;
  assert_int_equal(prof_buffer_init((size_t)64 << 20), 0);
  prof_buffer_reset();
  prof_frame f[3];
  memset(f, 0, sizeof f);
  prof_fdinfo fdi;
  memset(&fdi, 0, sizeof fdi);
  /* 1000 samples of 10 stacks (3 samples each folded by walk=queue: count 3), 5 with fds. */
  for (int i = 0; i < 1000; i++) {
    f[0].bci = i % 10;
    prof_record h = {.nframes = 3, .time_ns = 1000 + (uint64_t)i, .count = 3};
    assert_true(prof_buffer_append(&h, f, i < 5 ? &fdi : NULL));
  }
  assert_int_equal(prof_buffer_rotate(), 0);
  fold_tally before = {0};
  prof_samples_each(tally, &before);
  assert_int_equal(before.samples, 3000);
  assert_int_equal(before.records, 1000);
  prof_buffer_fold(false);
  prof_buffer_rotated();
  /* A new sample after the chunk, then the next chunk's view. */
  prof_record h = {.nframes = 3, .time_ns = 5000, .count = 1};
  assert_true(prof_buffer_append(&h, f, NULL));
  fold_tally after = {0};
  prof_samples_each(tally, &after);
  assert_int_equal(after.samples, 3001);
  assert_int_equal(after.streamed, 5);   /* the fd records, marked */
  assert_int_equal(after.fd_records, 5);
  assert_int_equal(after.records, 6);    /* them and the new one; the rest are counts */
  prof_period_figures pf;
  prof_buffer_figures(&pf);
  assert_int_equal(pf.traces, 10);
  /* The chunk's buffer gave its records back. */
  assert_int_equal(atomic_load(&bufs[1 - atomic_load(&current)].tail), 0);
}

static void varints_and_fields(void **state) {
  (void)state;
  pb_buf b = {0};
  pb_raw_varint(&b, 0);
  pb_raw_varint(&b, 127);
  pb_raw_varint(&b, 300);
  pb_raw_varint(&b, UINT64_MAX);
  static const uint8_t want[] = {0x00, 0x7f, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  pb_clear(&b);
  pb_buf inner = {0};
  pb_varint(&inner, 1, 150);           /* 08 96 01 */
  pb_string(&b, 6, "ab");              /* 32 02 61 62 */
  pb_message(&b, 2, &inner);           /* 12 03 08 96 01 */
  static const uint8_t want2[] = {0x32, 0x02, 'a', 'b', 0x12, 0x03, 0x08, 0x96, 0x01};
  assert_int_equal(b.len, sizeof want2);
  assert_memory_equal(b.data, want2, sizeof want2);
  assert_false(b.failed);
  pb_free(&inner);
  pb_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_record_in_exactly_one_period),
      cmocka_unit_test(fold_keeps_every_sample_as_counts),
      cmocka_unit_test(varints_and_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
