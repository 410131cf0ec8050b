/*
 * trace_store.h - the call-trace store: each distinct sample key (frames, event, walk
 * result, and the thread when asked) kept once with a count, so memory grows with the
 * distinct keys of a run, not with its samples. Filled by signal handlers and walkers at
 * once; read at dump time through the same callback as the sample buffer's records
 * (records.h). core/sample_buffer.c holds one store per period.
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_TRACE_STORE_H
#define ASGSTPROF_CORE_TRACE_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/records.h"

typedef struct {
  _Atomic uint64_t count;
  uint64_t hash;
  uint32_t frame;      /* its first frame's index in the arena */
  uint16_t event, nframes;
  int32_t tid;         /* 0 unless keyed by thread (by_thread or keep_tid) */
  int32_t walk_result;
  uint8_t state;       /* enum prof_tstate: part of the key */
} prof_trace;

typedef struct {
  _Atomic uint32_t *slots; /* open addressing by hash: a trace's index + 1, 0 if free */
  prof_trace *traces;      /* in order of creation (dense, so touched pages grow with use) */
  prof_frame *arena;       /* the traces' frames, bump-allocated */
  size_t nslots, max_traces, max_frames;
  _Atomic size_t ntraces;  /* traces taken (may run past max_traces: the excess failed) */
  _Atomic size_t nframes;  /* arena frames taken (likewise) */
} prof_trace_store;

/* What a store holds, for the summary. */
typedef struct {
  size_t traces, max_traces;
  size_t arena_bytes, max_arena_bytes;
} prof_trace_figures;

/* N. Reserves address space for max_traces keys (a power of two) and arena_bytes of
 * frames; pages are touched only when used. 0 or -1. */
int prof_trace_store_map(prof_trace_store *s, size_t max_traces, size_t arena_bytes);
/* SS. Counts the sample of h (event, nframes, tid, walk_result) and frames: h->count more
 * (0 read as 1) for its key, which is made if new. by_thread or h->keep_tid: h->tid is part of
 * the key (else kept as 0).
 * False if the key is new and the store is full: the sample is lost, nothing is
 * overwritten. */
bool prof_trace_store_add(prof_trace_store *s, const prof_record *h, const prof_frame *frames,
                          bool by_thread);
/* SS. As prof_trace_store_add, and says which key: its id (index + 1, stable until the
 * store is emptied), 0 if the key is new and the store is full. */
uint32_t prof_trace_store_intern(prof_trace_store *s, const prof_record *h,
                                 const prof_frame *frames, bool by_thread);
/* N. The frames of key id (a published one, from prof_trace_store_intern) and their
 * count; NULL (0 frames) if id is not a key of the store. */
const prof_frame *prof_trace_store_get(const prof_trace_store *s, uint32_t id, int *nframes);
/* N. Calls fn for every key with a record made for it: count set, time, seq, walk and lag
 * times 0, no fd info. */
void prof_trace_store_each(const prof_trace_store *s, prof_sample_fn fn, void *arg);
/* N. Forgets every key and gives the pages back (only while nothing adds). */
void prof_trace_store_empty(prof_trace_store *s);
/* N. */
void prof_trace_store_figures(const prof_trace_store *s, prof_trace_figures *f);

#endif /* ASGSTPROF_CORE_TRACE_STORE_H */
