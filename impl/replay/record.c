/*
 * record.c - the page log of a recording walk and the writer of the recording (format.h).
 *
 * While a recording runs, every guarded load (impl/safe_read.h) notes its page here. The
 * walk and the metadata reads of its frames run as usual on the live VM (without the frame
 * cache, whose hits would skip the reads a replay needs); then each logged page is copied
 * whole into the caller's buffer. Pages are copied after the walk, not as it reads them:
 * the walked thread is stopped in its signal handler all along, so its stack and the code
 * and metadata it runs do not change in between.
 *
 * One recording at a time per process (the log is global; a concurrent walk of another
 * thread during a recording only adds pages to it, which is harmless).
 */
#include <stdatomic.h>
#include <string.h>

#include "../guard.h"
#include "../safe_read.h"
#include "record.h"

#define LOG_CAP 16384 /* distinct pages a recording can hold */

void *volatile asgst__read_log;

static struct {
  uint64_t pages[LOG_CAP]; /* page numbers, in the order first read (duplicates possible) */
  atomic_uint n;
  atomic_int overflow;
} page_log;
static atomic_flag busy = ATOMIC_FLAG_INIT;

/* SS. True if page p is among the last few logged (reads come in runs on one page). */
static bool recently_logged(uint64_t p) {
  unsigned n = atomic_load_explicit(&page_log.n, memory_order_relaxed);
  if (n > LOG_CAP) n = LOG_CAP;
  for (unsigned i = n, k = 0; i > 0 && k < 8; i--, k++)
    if (page_log.pages[i - 1] == p) return true;
  return false;
}

/* SS. */
void asgst__log_read(uintptr_t a, size_t n) {
  uint64_t last = (a + n - 1) / ASGST__REC_PAGE;
  for (uint64_t p = a / ASGST__REC_PAGE; p <= last; p++) {
    if (recently_logged(p)) continue;
    unsigned i = atomic_fetch_add_explicit(&page_log.n, 1, memory_order_relaxed);
    if (i < LOG_CAP) page_log.pages[i] = p;
    else atomic_store_explicit(&page_log.overflow, 1, memory_order_relaxed);
  }
}

/* SS. */
bool asgst__record_begin(void) {
  if (atomic_flag_test_and_set(&busy)) return false;
  atomic_store(&page_log.n, 0);
  atomic_store(&page_log.overflow, 0);
  asgst__read_log = &page_log;
  return true;
}

/* SS. Sorts pages[0..n) (shell sort: no recursion, no allocation) and drops duplicates;
 * returns the new count. */
static unsigned sort_unique(uint64_t *pages, unsigned n) {
  static const unsigned gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
  for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
    for (unsigned i = gaps[g]; i < n; i++) {
      uint64_t v = pages[i];
      unsigned j = i;
      for (; j >= gaps[g] && pages[j - gaps[g]] > v; j -= gaps[g]) pages[j] = pages[j - gaps[g]];
      pages[j] = v;
    }
  }
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++)
    if (m == 0 || pages[m - 1] != pages[i]) pages[m++] = pages[i];
  return m;
}

/* SS. Copies page p into dst; false if it cannot be read (it faults). */
static bool copy_page(uint64_t p, uint8_t *dst) {
  volatile bool ok = false;
  asgst__guard g;
  ASGST__GUARD_BEGIN(g)
    ok = asgst__load_bytes((uintptr_t)(p * ASGST__REC_PAGE), dst, ASGST__REC_PAGE);
  ASGST__GUARD_FAULTED(g)
    ok = false;
  ASGST__GUARD_END(g);
  return ok;
}

/* SS. A cursor over the caller's buffer. */
typedef struct {
  uint8_t *buf;
  uint64_t used, cap;
} writer;

/* SS. Appends n bytes (or only reserves them when src is NULL) padded to 8; false when the
 * buffer is full. */
static bool put(writer *w, const void *src, uint64_t n) {
  uint64_t padded = asgst__rec_pad8(n);
  if (padded > w->cap - w->used) return false;
  if (src) memcpy(w->buf + w->used, src, n);
  memset(w->buf + w->used + n, 0, padded - n);
  w->used += padded;
  return true;
}

/* SS. Writes the pages section at the end of w and the absent pages before it: pages that
 * fault are moved to the absent list. Returns false when the buffer is too small. */
static bool put_pages(writer *w, asgst__rec_header *h, uint64_t *pages, unsigned n) {
  /* Absent pages go first in the file; find them with a trial copy into the page slots. */
  uint64_t base = w->used, slot = sizeof(asgst__rec_page);
  unsigned present = 0, absent = 0;
  for (unsigned i = 0; i < n; i++) {
    if (base + (uint64_t)(present + 1) * slot > w->cap) return false;
    asgst__rec_page *pg = (asgst__rec_page *)(void *)(w->buf + base + (uint64_t)present * slot);
    if (copy_page(pages[i], pg->bytes)) {
      pg->addr = pages[i] * ASGST__REC_PAGE;
      present++;
    } else {
      pages[absent++] = pages[i] * ASGST__REC_PAGE; /* absent < i + 1: no overlap */
    }
  }
  /* Shift the pages up to make room for the absent list in front of them. */
  uint64_t shift = (uint64_t)absent * 8;
  if (base + shift + (uint64_t)present * slot > w->cap) return false;
  memmove(w->buf + base + shift, w->buf + base, (size_t)present * slot);
  memcpy(w->buf + base, pages, (size_t)shift);
  w->used = base + shift + (uint64_t)present * slot;
  h->nabsent = absent;
  h->npages = present;
  return true;
}

/* SS. */
int64_t asgst__record_end(const asgst__record_walk *r, void *buf, size_t cap) {
  asgst__read_log = NULL;
  unsigned n = atomic_load(&page_log.n);
  int64_t rc = ASGST_INVALID_ARGUMENT;
  asgst__rec_header h;
  memset(&h, 0, sizeof h);
  writer w = {buf, 0, cap};
  if (atomic_load(&page_log.overflow) || n > LOG_CAP || buf == NULL) goto out;
  n = sort_unique(page_log.pages, n);
  memcpy(h.magic, ASGST__REC_MAGIC, 8);
  h.version = ASGST__REC_VERSION;
  h.header_size = sizeof h;
  h.options = r->options;
  h.kind = r->kind;
  h.end = r->end;
  h.nframes = (uint32_t)r->nframes;
  h.pc = r->top.pc, h.sp = r->top.sp, h.fp = r->top.fp;
  h.vm_thread = (uintptr_t)r->thread.vm_thread;
  h.stack_base = r->thread.stack_base;
  h.stack_limit = r->thread.stack_limit;
  h.layout_len = (uint32_t)r->layout_len;
  h.strings_len = (uint32_t)r->strings_len;
  if (!put(&w, NULL, sizeof h) || !put(&w, r->layout, r->layout_len) ||
      !put(&w, r->frames, (uint64_t)r->nframes * sizeof(asgst__rec_frame)) ||
      !put(&w, r->strings, r->strings_len) || !put_pages(&w, &h, page_log.pages, n))
    goto out;
  h.total_size = w.used;
  memcpy(buf, &h, sizeof h);
  rc = (int64_t)w.used;
out:
  atomic_flag_clear(&busy);
  return rc;
}
