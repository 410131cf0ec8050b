/*
 * test_record_snapshot.c - the page snapshot of a recording walk (impl/record/recorder.c):
 * the recording thread reads each page as it was at its first read, however the memory
 * changes afterwards, and the recording holds exactly those bytes; other threads read live
 * memory; a load across two pages joins the two snapshots; a faulting page is recorded as
 * absent; facts other walks learned are read again by the recording thread only.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "impl/guard.h"
#include "impl/record/record.h"
#include "impl/safe_read.h"

enum { PAGE = ASGST__REC_PAGE, PAGES = 3 };

/* PAGES pages of words holding their own index, then a PROT_NONE page. */
static uint64_t *make_memory(void) {
  uint8_t *m = mmap(NULL, (PAGES + 1) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(mprotect(m + PAGES * PAGE, PAGE, PROT_NONE), 0);
  uint64_t *w = (uint64_t *)m;
  for (size_t i = 0; i < PAGES * PAGE / 8; i++) w[i] = i;
  return w;
}

static uint64_t load(const void *p) { return asgst__guarded_ptr((uintptr_t)p); }

static void *relearn_elsewhere(void *p) {
  (void)p;
  static bool v;
  v = asgst__relearn();
  return &v;
}

static void *load_elsewhere(void *p) {
  static uint64_t v;
  v = load(p);
  return &v;
}

/* The recorded page at addr in a finished recording, NULL if absent. */
static const uint8_t *recorded_page(const uint8_t *rec, uintptr_t addr) {
  const asgst__rec_header *h = (const asgst__rec_header *)(const void *)rec;
  const uint8_t *p = rec + asgst__rec_pad8(sizeof *h) + asgst__rec_pad8(h->layout_len) +
                     asgst__rec_pad8((uint64_t)h->nframes * sizeof(asgst__rec_frame)) +
                     asgst__rec_pad8(h->strings_len) + (uint64_t)h->nabsent * 8;
  const asgst__rec_page *pages = (const asgst__rec_page *)(const void *)p;
  for (uint32_t i = 0; i < h->npages; i++)
    if (pages[i].addr == addr) return pages[i].bytes;
  return NULL;
}

static void reads_pages_as_first_seen_and_records_those_bytes(void **state) {
  (void)state;
  asgst__guard_install();
  uint64_t *m = make_memory();
  assert_false(asgst__relearn());
  assert_true(asgst__record_begin());
  assert_false(asgst__record_begin()); /* one recording at a time */
  /* Learned VM facts are read again by the recording thread only. */
  assert_true(asgst__relearn());
  bool *elsewhere;
  pthread_t rt;
  pthread_create(&rt, NULL, relearn_elsewhere, NULL);
  pthread_join(rt, (void **)&elsewhere);
  assert_false(*elsewhere);
  assert_int_equal(load(&m[10]), 10);
  m[11] = 1111; /* the VM moves something after the walk read the page */
  assert_int_equal(load(&m[11]), 11);
  uint64_t *other;
  pthread_t th;
  pthread_create(&th, NULL, load_elsewhere, &m[11]);
  pthread_join(th, (void **)&other);
  assert_int_equal(*other, 1111); /* other threads read live memory */
  /* Across the first two pages: 4 bytes of each page's snapshot. */
  uintptr_t across = (uintptr_t)m + PAGE - 4;
  uint64_t v = 0;
  m[PAGE / 8] = 0xAAAAAAAAAAAAAAAAu; /* before its first read: part of the snapshot */
  ASGST__GUARDED(asgst__load_bytes(across, &v, 8), fail_msg("a load across two readable pages faulted"));
  assert_int_equal(v, (uint64_t)(PAGE / 8 - 1) >> 32 | 0xAAAAAAAAull << 32);
  assert_int_equal(load(&m[PAGES * PAGE / 8]), 0); /* the PROT_NONE page faults */
  asgst__record_walk r = {0};
  size_t cap = 64 * PAGE;
  uint8_t *buf = malloc(cap);
  int64_t size = asgst__record_end(&r, buf, cap);
  assert_true(size > 0);
  const asgst__rec_header *h = (const asgst__rec_header *)(const void *)buf;
  assert_int_equal(h->npages, 2);
  assert_int_equal(h->nabsent, 1);
  const uint8_t *p0 = recorded_page(buf, (uintptr_t)m);
  assert_non_null(p0);
  assert_int_equal(((const uint64_t *)(const void *)p0)[11], 11); /* as the walk saw it */
  assert_non_null(recorded_page(buf, (uintptr_t)m + PAGE));
  assert_null(recorded_page(buf, (uintptr_t)m + 2 * PAGE)); /* never read */
  assert_int_equal(load(&m[11]), 1111); /* recording over: live again */
  assert_false(asgst__relearn());
  assert_true(asgst__record_begin()); /* the next recording starts empty */
  assert_int_equal(load(&m[11]), 1111);
  assert_int_equal(asgst__record_end(&r, buf, cap) > 0, 1);
  assert_int_equal(((const asgst__rec_header *)(const void *)buf)->npages, 1);
  free(buf);
  munmap(m, (PAGES + 1) * PAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reads_pages_as_first_seen_and_records_those_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
