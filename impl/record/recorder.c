/*
 * recorder.c - the page snapshot of a recording walk and the writer of the recording
 * (format.h).
 *
 * While a recording runs, every guarded load of the recording thread comes here first:
 * asgst__record_begin registers read_snapshot as that thread's logger (impl/safe_read.h).
 * The first load from a page copies the whole page into the snapshot, and that load and
 * every later one from the page read the snapshot, not the live page. So the walk and
 * the metadata reads of its frames see exactly the bytes the recording holds, even where
 * the VM changes memory meanwhile: a garbage collection can move a class's mirror and
 * update the handle that points to it while the sampled thread sits in its signal
 * handler (it is in native or blocked code, so safepoints go on without it). Copying the
 * pages after the walk, as this file once did, then saved a handle that pointed to a page
 * the walk never read, and the replay differed.
 *
 * Only the thread that called asgst__record_begin is logged (the read layer keeps the
 * logger per thread); other threads' loads during a recording read live memory and are
 * not logged. One recording at a time per process.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "../guard.h"
#include "../safe_read.h"
#include "record.h"

#define PAGE ASGST__REC_PAGE
#define SNAP_CAP 8192                 /* distinct pages a recording can hold (32 MiB) */
#define HASH_BITS 14                  /* 2 * SNAP_CAP slots: probing ends at a free one */
#define HASH_SIZE (1u << HASH_BITS)
#define GEN_SHIFT 36                  /* page numbers of 47-bit addresses fit below it */
#define BOUNCE_CAP 65536              /* a load straddling pages is assembled here */

/* The snapshot. Written only by the recording thread between begin and end. */
static struct {
  uint64_t pages[SNAP_CAP]; /* page number held by each slot, in first-read order */
  bool absent[SNAP_CAP];    /* the page faulted when first read: it is not in bytes */
  unsigned n;
  bool overflow;            /* more than SNAP_CAP pages read: the recording fails */
  uint8_t *bytes;           /* SNAP_CAP pages, mapped at the first recording */
  uint64_t keys[HASH_SIZE]; /* gen << GEN_SHIFT | page; an older gen is a free entry */
  uint32_t slot_of[HASH_SIZE];
  uint64_t gen;
  uint32_t order[SNAP_CAP]; /* slots sorted by page, for the writer */
  uint8_t bounce[BOUNCE_CAP];
} snap;
static atomic_flag busy = ATOMIC_FLAG_INIT;

/* SS. Copies page p into dst with plain loads (not the hooked ones); false if it faults.
 * libc's memcpy faults with a pc outside the library: the page is announced to the guard
 * as the range being copied, so that its fault is the guard's (guard.h). */
static bool copy_page(uint64_t p, uint8_t *dst) {
  volatile bool ok = false;
  uintptr_t at = (uintptr_t)(p * PAGE);
  /* A fault: the handler ended the announcement. */
  ASGST__GUARDED({
    asgst__guard_copying(at, at + PAGE);
    memcpy(dst, (const void *)at, PAGE);
    asgst__guard_copying(0, 0);
    ok = true;
  }, ok = false);
  return ok;
}

/* SS. The snapshot of page p, taken now if this is its first read; NULL if the page
 * faults (it is then recorded as absent) or the snapshot is full. */
static const uint8_t *snapshot_of(uint64_t p) {
  uint64_t key = snap.gen << GEN_SHIFT | p;
  uint32_t h = (uint32_t)((p * 0x9E3779B97F4A7C15u) >> (64 - HASH_BITS));
  for (; snap.keys[h] >> GEN_SHIFT == snap.gen; h = (h + 1) & (HASH_SIZE - 1)) {
    if (snap.keys[h] != key) continue;
    uint32_t s = snap.slot_of[h];
    return snap.absent[s] ? NULL : snap.bytes + (size_t)s * PAGE;
  }
  if (snap.n >= SNAP_CAP) {
    snap.overflow = true;
    return NULL;
  }
  uint32_t s = snap.n++;
  snap.keys[h] = key;
  snap.slot_of[h] = s;
  snap.pages[s] = p;
  snap.absent[s] = !copy_page(p, snap.bytes + (size_t)s * PAGE);
  return snap.absent[s] ? NULL : snap.bytes + (size_t)s * PAGE;
}

/* SS. The logger of the recording thread (asgst__read_logger): where its load of [a, a+n)
 * reads instead, the snapshot of its page(s), taken now if not yet; a itself when a page
 * faults (the load then faults as it will in the replay). */
static uintptr_t read_snapshot(uintptr_t a, size_t n) {
  uint64_t first = a / PAGE, last = (a + n - 1) / PAGE;
  const uint8_t *c = snapshot_of(first);
  /* Absent page: the live load faults as it will in the replay. */
  if (c == NULL) return a;
  if (first == last) return (uintptr_t)c + a % PAGE;
  /* A load across pages: take every page, then join the bytes (the pages' copies are
   * not next to each other). */
  if (n > BOUNCE_CAP) return a;
  size_t done = 0;
  for (uint64_t p = first; p <= last; p++) {
    const uint8_t *cp = p == first ? c : snapshot_of(p);
    if (cp == NULL) return a;
    size_t from = p == first ? a % PAGE : 0;
    size_t k = PAGE - from < n - done ? PAGE - from : n - done;
    memcpy(snap.bounce + done, cp + from, k);
    done += k;
  }
  return (uintptr_t)snap.bounce;
}

/* SS. The first recording maps the snapshot's pages (mmap is a plain system call; no
 * allocator lock is involved); later ones reuse them. */
bool asgst__record_begin(void) {
  if (atomic_flag_test_and_set(&busy)) return false;
  if (snap.bytes == NULL) {
    void *m = mmap(NULL, (size_t)SNAP_CAP * PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      atomic_flag_clear(&busy);
      return false;
    }
    snap.bytes = m;
  }
  snap.n = 0;
  snap.overflow = false;
  /* A new generation empties the hash table without clearing it. */
  if (++snap.gen >= (uint64_t)1 << (64 - GEN_SHIFT)) {
    memset(snap.keys, 0, sizeof snap.keys);
    snap.gen = 1;
  }
  asgst__read_log(read_snapshot);
  return true;
}

/* SS. Sorts snap.order[0..n) by page number (shell sort: no recursion, no allocation). */
static void sort_by_page(unsigned n) {
  static const unsigned gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
  for (unsigned i = 0; i < n; i++) snap.order[i] = i;
  for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
    for (unsigned i = gaps[g]; i < n; i++) {
      uint32_t v = snap.order[i];
      unsigned j = i;
      for (; j >= gaps[g] && snap.pages[snap.order[j - gaps[g]]] > snap.pages[v]; j -= gaps[g])
        snap.order[j] = snap.order[j - gaps[g]];
      snap.order[j] = v;
    }
  }
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

/* SS. Writes the absent pages' addresses and then the snapshot's pages, both sorted by
 * address, at the end of w. Returns false when the buffer is too small. */
static bool put_pages(writer *w, asgst__rec_header *h) {
  unsigned n = snap.n, absent = 0;
  sort_by_page(n);
  for (unsigned i = 0; i < n; i++) {
    uint64_t addr = snap.pages[snap.order[i]] * PAGE;
    if (snap.absent[snap.order[i]]) {
      if (!put(w, &addr, sizeof addr)) return false;
      absent++;
    }
  }
  for (unsigned i = 0; i < n; i++) {
    uint32_t s = snap.order[i];
    uint64_t addr = snap.pages[s] * PAGE;
    if (snap.absent[s]) continue;
    if (sizeof(asgst__rec_page) > w->cap - w->used) return false;
    asgst__rec_page *pg = (asgst__rec_page *)(void *)(w->buf + w->used);
    pg->addr = addr;
    memcpy(pg->bytes, snap.bytes + (size_t)s * PAGE, PAGE);
    w->used += sizeof(asgst__rec_page);
  }
  h->nabsent = absent;
  h->npages = n - absent;
  return true;
}

/* SS. */
int64_t asgst__record_end(const asgst__record_walk *r, void *buf, size_t cap) {
  asgst__read_log(NULL);
  int64_t rc = ASGST_INVALID_ARGUMENT;
  asgst__rec_header h;
  memset(&h, 0, sizeof h);
  writer w = {buf, 0, cap};
  if (snap.overflow || buf == NULL) goto out;
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
      !put(&w, r->strings, r->strings_len) || !put_pages(&w, &h))
    goto out;
  h.total_size = w.used;
  memcpy(buf, &h, sizeof h);
  rc = (int64_t)w.used;
out:
  atomic_flag_clear(&busy);
  return rc;
}
