/*
 * trace_store.c - the call-trace store (trace_store.h). A key's trace is written whole
 * (fields, its first count, frames in the arena) before it is published by a compare-and-swap of
 * its index into a free slot, so a reader that sees the index sees the trace complete,
 * and no handler ever waits for another (one interrupted by a signal on its own thread
 * included). Two handlers publishing the same new key at once: the loser finds the
 * winner's trace on its way and counts there; the trace it prepared stays unpublished (a
 * few bytes, once per such race).
 */
#include <string.h>
#include <sys/mman.h>

#include "core/trace_store.h"

/* N. size bytes of lazily touched, zero-filled address space; NULL if none. */
static void *reserve_space(size_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* N. */
int prof_trace_store_map(prof_trace_store *s, size_t max_traces, size_t arena_bytes) {
  if (s->slots) return 0;
  /* Twice as many slots as keys: probe sequences stay short, and always end. */
  size_t nslots = max_traces * 2;
  void *slots = reserve_space(nslots * sizeof *s->slots);
  void *traces = reserve_space(max_traces * sizeof *s->traces);
  void *arena = reserve_space(arena_bytes);
  if (!slots || !traces || !arena) {
    if (slots) munmap(slots, nslots * sizeof *s->slots);
    if (traces) munmap(traces, max_traces * sizeof *s->traces);
    if (arena) munmap(arena, arena_bytes);
    return -1;
  }
  s->traces = traces, s->arena = arena;
  s->nslots = nslots, s->max_traces = max_traces;
  s->max_frames = arena_bytes / sizeof(prof_frame);
  atomic_store(&s->ntraces, 0);
  atomic_store(&s->nframes, 0);
  s->slots = slots;
  return 0;
}

/* SS. Mixes x into hash h (a multiply and a shift: each input bit reaches the top). */
static uint64_t mix(uint64_t h, uint64_t x) {
  h = (h ^ x) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/* SS. The hash of a key. */
static uint64_t hash_of(const prof_record *h, int32_t tid, const prof_frame *frames) {
  uint64_t v = mix(0, (uint64_t)h->event << 48 | (uint64_t)h->nframes << 32 | (uint32_t)tid);
  v = mix(v, (uint64_t)h->state << 32 | (uint32_t)h->walk_result);
  for (int i = 0; i < h->nframes; i++) {
    const prof_frame *f = &frames[i];
    v = mix(v, (uint64_t)(uintptr_t)f->method);
    v = mix(v, (uint64_t)(uint32_t)f->bci << 16 | (uint64_t)f->type << 8 | (uint8_t)f->comp_level);
  }
  return v;
}

/* SS. Same frames: method, bci, type and tier (a frame's pad is not part of it). */
static bool same_frames(const prof_frame *a, const prof_frame *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].method != b[i].method || a[i].bci != b[i].bci || a[i].type != b[i].type ||
        a[i].comp_level != b[i].comp_level)
      return false;
  return true;
}

/* SS. True if published trace t is the key. */
static bool same_key(const prof_trace_store *s, const prof_trace *t, uint64_t hash,
                     const prof_record *h, int32_t tid, const prof_frame *frames) {
  return t->hash == hash && t->event == h->event && t->nframes == h->nframes &&
         t->tid == tid && t->walk_result == h->walk_result && t->state == h->state &&
         same_frames(&s->arena[t->frame], frames, h->nframes);
}

/* SS. How many samples h stands for (records.h: 0 read as 1). */
static uint64_t weight_of(const prof_record *h) {
  return h->count ? h->count : 1;
}

/* SS. A new, unpublished trace of the key with h's weight: its index + 1, 0 if full. */
static uint32_t prepare(prof_trace_store *s, uint64_t hash, const prof_record *h, int32_t tid,
                        const prof_frame *frames) {
  size_t i = atomic_fetch_add_explicit(&s->ntraces, 1, memory_order_relaxed);
  if (i >= s->max_traces) return 0;
  size_t f = atomic_fetch_add_explicit(&s->nframes, h->nframes, memory_order_relaxed);
  if (f + h->nframes > s->max_frames) return 0;
  prof_trace *t = &s->traces[i];
  t->hash = hash;
  t->frame = (uint32_t)f;
  t->event = h->event;
  t->nframes = h->nframes;
  t->tid = tid;
  t->walk_result = h->walk_result;
  t->state = h->state;
  atomic_store_explicit(&t->count, weight_of(h), memory_order_relaxed);
  memcpy(&s->arena[f], frames, (size_t)h->nframes * sizeof *frames);
  return (uint32_t)i + 1;
}

/* SS. */
uint32_t prof_trace_store_intern(prof_trace_store *s, const prof_record *h,
                                 const prof_frame *frames, bool by_thread) {
  if (!s->slots) return 0;
  int32_t tid = by_thread || h->keep_tid ? h->tid : 0;
  uint64_t hash = hash_of(h, tid, frames);
  uint32_t mine = 0; /* the trace prepared for this key, not published yet */
  size_t mask = s->nslots - 1;
  for (size_t probe = 0, i = (size_t)hash & mask; probe < s->nslots; probe++, i = (i + 1) & mask) {
    uint32_t t = atomic_load_explicit(&s->slots[i], memory_order_acquire);
    if (t == 0) {
      if (!mine && !(mine = prepare(s, hash, h, tid, frames))) return 0;
      if (atomic_compare_exchange_strong_explicit(&s->slots[i], &t, mine, memory_order_acq_rel,
                                                  memory_order_acquire))
        return mine;
      /* Another handler published here first: t is its trace now. */
    }
    if (same_key(s, &s->traces[t - 1], hash, h, tid, frames)) {
      atomic_fetch_add_explicit(&s->traces[t - 1].count, weight_of(h), memory_order_relaxed);
      return t;
    }
  }
  return 0;
}

/* SS. */
bool prof_trace_store_add(prof_trace_store *s, const prof_record *h, const prof_frame *frames,
                          bool by_thread) {
  return prof_trace_store_intern(s, h, frames, by_thread) != 0;
}

/* N. */
const prof_frame *prof_trace_store_get(const prof_trace_store *s, uint32_t id, int *nframes) {
  *nframes = 0;
  if (!s->slots || id == 0 || id > atomic_load(&((prof_trace_store *)s)->ntraces) ||
      id > s->max_traces)
    return NULL;
  const prof_trace *t = &s->traces[id - 1];
  *nframes = t->nframes;
  return &s->arena[t->frame];
}

/* N. */
void prof_trace_store_each(const prof_trace_store *s, prof_sample_fn fn, void *arg) {
  if (!s->slots) return;
  for (size_t i = 0; i < s->nslots; i++) {
    uint32_t t = atomic_load_explicit(&s->slots[i], memory_order_acquire);
    if (!t) continue;
    prof_trace *tr = &s->traces[t - 1];
    prof_record r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.event = tr->event;
    r.nframes = tr->nframes;
    r.tid = tr->tid;
    r.keep_tid = tr->tid != 0;
    r.walk_result = tr->walk_result;
    r.state = tr->state;
    r.count = atomic_load_explicit(&tr->count, memory_order_relaxed);
    fn(&r, &s->arena[tr->frame], NULL, arg);
  }
}

/* N. Gives back the first used bytes of p (whole pages). */
static void give_back(void *p, size_t used) {
  if (used) madvise(p, (used + 4095) & ~(size_t)4095, MADV_DONTNEED);
}

/* N. */
void prof_trace_store_empty(prof_trace_store *s) {
  if (!s->slots) return;
  size_t nt = atomic_load(&s->ntraces), nf = atomic_load(&s->nframes);
  if (nt > s->max_traces) nt = s->max_traces;
  if (nf > s->max_frames) nf = s->max_frames;
  /* Slots are touched anywhere (by hash): the whole index, if any key was made. */
  give_back((void *)s->slots, nt ? s->nslots * sizeof *s->slots : 0);
  give_back(s->traces, nt * sizeof *s->traces);
  give_back(s->arena, nf * sizeof *s->arena);
  atomic_store(&s->ntraces, 0);
  atomic_store(&s->nframes, 0);
}

/* N. */
void prof_trace_store_figures(const prof_trace_store *s, prof_trace_figures *f) {
  size_t nt = atomic_load(&((prof_trace_store *)s)->ntraces);
  size_t nf = atomic_load(&((prof_trace_store *)s)->nframes);
  f->traces = nt < s->max_traces ? nt : s->max_traces;
  f->max_traces = s->max_traces;
  f->arena_bytes = (nf < s->max_frames ? nf : s->max_frames) * sizeof(prof_frame);
  f->max_arena_bytes = s->max_frames * sizeof(prof_frame);
}
