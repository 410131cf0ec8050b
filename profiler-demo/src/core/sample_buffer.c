/*
 * sample_buffer.c - the lock-free sample buffer: one large anonymous mapping that signal
 * handlers append variable-size records to with an atomic fetch-add. Pages are touched
 * only when used (MAP_NORESERVE), so a big reservation costs nothing until samples come.
 * A record's size field is stored last (release) and marks it complete.
 */
#include <string.h>
#include <sys/mman.h>

#include "core/records.h"

static uint8_t *base;
static size_t capacity;
static _Atomic size_t tail;

/* N. */
int prof_buffer_init(size_t bytes) {
  if (base) return 0;
  void *p = MAP_FAILED;
  /* Strict overcommit settings may refuse a large reservation: try smaller ones. */
  for (; p == MAP_FAILED && bytes >= ((size_t)16 << 20); bytes /= 2)
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
             -1, 0);
  if (p == MAP_FAILED) return -1;
  bytes *= 2; /* undo the last halving */
  base = p;
  capacity = bytes;
  return 0;
}

/* N. Only called while no handler is sampling. */
void prof_buffer_reset(void) {
  size_t used = atomic_load(&tail);
  if (used > capacity) used = capacity;
  /* Dropping the pages gives zero-filled ones back: every size field reads 0 again. */
  if (used) madvise(base, (used + 4095) & ~(size_t)4095, MADV_DONTNEED);
  atomic_store(&tail, 0);
}

/* SS. */
bool prof_buffer_append(const prof_record *hdr, const prof_frame *frames,
                        const prof_fdinfo *fdi) {
  size_t fsize = (size_t)hdr->nframes * sizeof(prof_frame);
  size_t size = sizeof(prof_record) + fsize + (fdi ? sizeof(prof_fdinfo) : 0);
  size = (size + 7) & ~(size_t)7;
  if (!base) return false;
  size_t pos = atomic_fetch_add_explicit(&tail, size, memory_order_relaxed);
  if (pos + size > capacity) return false;
  prof_record *r = (prof_record *)(base + pos);
  r->event = hdr->event;
  r->nframes = hdr->nframes;
  r->tid = hdr->tid;
  r->walk_result = hdr->walk_result;
  r->walk_ns = hdr->walk_ns;
  r->has_fdinfo = fdi != NULL;
  r->seq = hdr->seq;
  r->lag_ns = hdr->lag_ns;
  r->time_ns = hdr->time_ns;
  memcpy(r + 1, frames, fsize);
  if (fdi) memcpy((uint8_t *)(r + 1) + fsize, fdi, sizeof *fdi);
  atomic_store_explicit(&r->size, (uint32_t)size, memory_order_release);
  return true;
}

/* N. */
void prof_buffer_each(void (*fn)(const prof_record *r, const prof_frame *frames,
                                 const prof_fdinfo *fdi, void *arg),
                      void *arg) {
  if (!base) return;
  size_t end = atomic_load(&tail);
  if (end > capacity) end = capacity;
  size_t pos = 0;
  while (pos + sizeof(prof_record) <= end) {
    const prof_record *r = (const prof_record *)(base + pos);
    uint32_t size = atomic_load_explicit(&((prof_record *)r)->size, memory_order_acquire);
    if (size == 0) break; /* still being written by a handler (dump while running) */
    const prof_frame *frames = (const prof_frame *)(r + 1);
    const prof_fdinfo *fdi =
        r->has_fdinfo ? (const prof_fdinfo *)(frames + r->nframes) : NULL;
    fn(r, frames, fdi, arg);
    pos += size;
  }
}
