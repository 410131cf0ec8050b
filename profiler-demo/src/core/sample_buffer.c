/*
 * sample_buffer.c - the lock-free sample buffer: one large anonymous mapping that signal
 * handlers append variable-size records to with an atomic fetch-add. Pages are touched
 * only when used (MAP_NORESERVE), so a big reservation costs nothing until samples come.
 * A record's size field is stored last (release) and marks it complete.
 *
 * Periods (loop=): there are two such buffers. Handlers append to the current one; a
 * rotation makes the other current, waits until no append to the old one is in flight,
 * and lets the dump read the old one alone; after the dump its pages are given back. So
 * each period's records are in one buffer, no record is in two periods, and resident
 * memory is at most two periods' records however long the run.
 *
 * Streamed outputs (a .jfr without loop=) rotate likewise every few seconds: once the
 * ended buffer is written as a chunk, prof_buffer_fold turns its records into counts of
 * the current buffer's store and its pages are given back, so memory is the distinct
 * stacks and one chunk's records, not the run's.
 *
 * Each buffer has its period's call-trace store (trace_store.c) and walk and lag time
 * histograms beside it, entered through the same in-flight counter: a rotation switches
 * and waits for all three at once, and the dump empties them together.
 */
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/records.h"
#include "core/trace_store.h"

/* Room of each period's call-trace store: keys and their frames' bytes (address space,
 * touched as used: a run of a few thousand keys touches a few MB). */
#define STORE_TRACES ((size_t)256 << 10)
#define STORE_ARENA_BYTES ((size_t)64 << 20)

typedef struct {
  uint8_t *base;
  size_t capacity;
  _Atomic size_t tail;
  _Atomic int appending; /* appends and counts in flight */
  prof_trace_store store;
  prof_hist walk_ns, lag_ns; /* of the period's samples, records and counted alike */
} buffer;

static buffer bufs[2];
static _Atomic int current;  /* the buffer handlers append to */
static _Atomic int reading;  /* the buffer prof_buffer_each reads: current, or during a
                                rotation's dump the ended period's */

/* N. Maps bytes of address space for b, trying smaller sizes under strict overcommit. */
static int map_buffer(buffer *b, size_t bytes) {
  void *p = MAP_FAILED;
  for (; p == MAP_FAILED && bytes >= ((size_t)16 << 20); bytes /= 2)
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
             -1, 0);
  if (p == MAP_FAILED) return -1;
  b->base = p;
  b->capacity = bytes * 2; /* undo the last halving */
  return 0;
}

/* N. Maps b's record space and its store. */
static int map_period(buffer *b, size_t bytes) {
  if (!b->base && map_buffer(b, bytes) != 0) return -1;
  return prof_trace_store_map(&b->store, STORE_TRACES, STORE_ARENA_BYTES);
}

/* N. */
int prof_buffer_init(size_t bytes) {
  return map_period(&bufs[0], bytes);
}

/* N. Drops b's records, traces and times: the pages come back zero-filled, every size
 * field reads 0 again. */
static void empty(buffer *b) {
  size_t used = atomic_load(&b->tail);
  if (used > b->capacity) used = b->capacity;
  if (used) madvise(b->base, (used + 4095) & ~(size_t)4095, MADV_DONTNEED);
  atomic_store(&b->tail, 0);
  prof_trace_store_empty(&b->store);
  prof_hist_reset(&b->walk_ns);
  prof_hist_reset(&b->lag_ns);
}

/* N. Only called while no handler is sampling. */
void prof_buffer_reset(void) {
  empty(&bufs[0]);
  if (bufs[1].base) empty(&bufs[1]);
  atomic_store(&current, 0);
  atomic_store(&reading, 0);
}

/* SS. Announces an append to the current buffer and returns it. The announcement is
 * made before the buffer is read again (both sequentially consistent), so a rotation that
 * switched buffers in between is seen here (then retried on the new one), or sees this
 * append in flight and waits for it. */
static buffer *enter(void) {
  for (;;) {
    int c = atomic_load(&current);
    atomic_fetch_add(&bufs[c].appending, 1);
    if (atomic_load(&current) == c) return &bufs[c];
    atomic_fetch_sub(&bufs[c].appending, 1);
  }
}

/* SS. Adds a kept sample's walk and lag times to its period's. */
static void add_times(buffer *b, const prof_record *hdr) {
  prof_hist_add(&b->walk_ns, hdr->walk_ns);
  prof_hist_add(&b->lag_ns, hdr->lag_ns);
}

/* SS. Appends to the current buffer; false if it is full. */
static bool append(const prof_record *hdr, const prof_frame *frames, const prof_fdinfo *fdi,
                   bool times) {
  size_t fsize = (size_t)hdr->nframes * sizeof(prof_frame);
  size_t size = sizeof(prof_record) + fsize + (fdi ? sizeof(prof_fdinfo) : 0);
  size = (size + 7) & ~(size_t)7;
  if (!bufs[0].base) return false;
  buffer *b = enter();
  size_t pos = atomic_fetch_add_explicit(&b->tail, size, memory_order_relaxed);
  bool fits = pos + size <= b->capacity;
  if (fits) {
    prof_record *r = (prof_record *)(b->base + pos);
    r->event = hdr->event;
    r->nframes = hdr->nframes;
    r->tid = hdr->tid;
    r->walk_result = hdr->walk_result;
    r->state = hdr->state;
    r->walk_ns = hdr->walk_ns;
    r->has_fdinfo = fdi != NULL;
    r->streamed = hdr->streamed;
    r->keep_tid = hdr->keep_tid;
    r->seq = hdr->seq;
    r->lag_ns = hdr->lag_ns;
    r->time_ns = hdr->time_ns;
    r->count = hdr->count ? hdr->count : 1;
    memcpy(r + 1, frames, fsize);
    if (fdi) memcpy((uint8_t *)(r + 1) + fsize, fdi, sizeof *fdi);
    atomic_store_explicit(&r->size, (uint32_t)size, memory_order_release);
    if (times) add_times(b, hdr);
  }
  atomic_fetch_sub(&b->appending, 1);
  return fits;
}

/* SS. */
bool prof_buffer_append(const prof_record *hdr, const prof_frame *frames,
                        const prof_fdinfo *fdi) {
  return append(hdr, frames, fdi, true);
}

/* SS. */
bool prof_buffer_count(const prof_record *hdr, const prof_frame *frames, bool by_thread) {
  if (!bufs[0].base) return false;
  buffer *b = enter();
  bool kept = prof_trace_store_add(&b->store, hdr, frames, by_thread);
  if (kept) add_times(b, hdr);
  atomic_fetch_sub(&b->appending, 1);
  return kept;
}

/* N. */
int prof_buffer_rotate(void) {
  int old = atomic_load(&current), next = 1 - old;
  if (map_period(&bufs[next], bufs[0].capacity) != 0) return -1;
  atomic_store(&reading, old);
  atomic_store(&current, next);
  struct timespec ms = {0, 1000000};
  while (atomic_load(&bufs[old].appending)) nanosleep(&ms, NULL);
  return 0;
}

/* N. */
void prof_buffer_rotated(void) {
  int old = atomic_load(&reading);
  atomic_store(&reading, atomic_load(&current));
  if (old != atomic_load(&current)) empty(&bufs[old]);
}

/* N. One sample of the ended period into the current one (prof_buffer_fold). */
static void fold_one(const prof_record *r, const prof_frame *frames, const prof_fdinfo *fdi,
                     void *arg) {
  bool by_thread = *(const bool *)arg;
  if (fdi) {
    prof_record h = *r;
    h.streamed = 1;
    append(&h, frames, fdi, false);
    return;
  }
  buffer *b = enter();
  prof_trace_store_add(&b->store, r, frames, by_thread);
  atomic_fetch_sub(&b->appending, 1);
}

/* N. */
void prof_buffer_fold(bool by_thread) {
  int old = atomic_load(&reading), now = atomic_load(&current);
  if (old == now) return;
  prof_samples_each(fold_one, &by_thread);
  prof_hist_merge(&bufs[now].walk_ns, &bufs[old].walk_ns);
  prof_hist_merge(&bufs[now].lag_ns, &bufs[old].lag_ns);
}

/* N. */
size_t prof_buffer_used(void) {
  size_t used = atomic_load(&bufs[atomic_load(&current)].tail);
  return used;
}

/* N. */
void prof_buffer_each(prof_sample_fn fn, void *arg) {
  const buffer *b = &bufs[atomic_load(&reading)];
  if (!b->base) return;
  size_t end = atomic_load(&((buffer *)b)->tail);
  if (end > b->capacity) end = b->capacity;
  size_t pos = 0;
  while (pos + sizeof(prof_record) <= end) {
    const prof_record *r = (const prof_record *)(b->base + pos);
    uint32_t size = atomic_load_explicit(&((prof_record *)r)->size, memory_order_acquire);
    if (size == 0) break; /* still being written by a handler (dump while running) */
    const prof_frame *frames = (const prof_frame *)(r + 1);
    const prof_fdinfo *fdi =
        r->has_fdinfo ? (const prof_fdinfo *)(frames + r->nframes) : NULL;
    fn(r, frames, fdi, arg);
    pos += size;
  }
}

/* N. */
void prof_samples_each(prof_sample_fn fn, void *arg) {
  prof_buffer_each(fn, arg);
  prof_trace_store_each(&bufs[atomic_load(&reading)].store, fn, arg);
}

/* N. */
void prof_buffer_figures(prof_period_figures *f) {
  const buffer *b = &bufs[atomic_load(&reading)];
  prof_trace_figures t = {0};
  prof_trace_store_figures(&b->store, &t);
  f->traces = t.traces, f->max_traces = t.max_traces;
  f->arena_bytes = t.arena_bytes, f->max_arena_bytes = t.max_arena_bytes;
  f->walk_ns = &b->walk_ns;
  f->lag_ns = &b->lag_ns;
}
