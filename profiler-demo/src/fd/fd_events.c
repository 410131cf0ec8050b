/*
 * fd_events.c - from the signal handlers to the live fd table: each traced fd call's
 * creating stack is interned in the fd stack store (a call-trace store of the whole run:
 * the periods' stores are emptied at every loop=, an fd may stay open across many), and
 * the call (its fd info, thread, stack id) goes into a fixed ring that the table's drain
 * (fd_table.c) empties every few milliseconds. Nothing grows with the number of calls: the
 * ring is fixed, the store grows with distinct stacks only.
 *
 * The ring is a bounded multi-producer queue (each cell carries the turn it is ready
 * for): a handler claims a cell with a compare-and-swap of the head and publishes it with
 * a release store of the cell's turn; it never waits for another handler. A full ring
 * fails the push (counted as lost by the caller). One consumer: the table, under its lock.
 */
#include <string.h>
#include <sys/mman.h>

#include "asgst.h"
#include "core/trace_store.h"
#include "fd/fd.h"

/* Cells in the ring (a power of two): at 60,000 calls a second (a loop opening and closing
 * a file) 270 ms of calls, against a drain every 5 ms. 472 bytes each: 7.4 MB, touched in
 * the first ring's worth of calls. */
#define RING_CELLS ((size_t)16 << 10)
/* The fd stack store: distinct stacks (a power of two) and their frames' bytes, address
 * space touched as used. */
#define FD_STACKS ((size_t)16 << 10)
#define STACK_ARENA_BYTES ((size_t)16 << 20)

typedef struct {
  _Atomic uint64_t turn; /* stored less the cell's index, so zero-filled pages are ready */
  prof_fd_event ev;
} ring_cell;

static ring_cell *ring;
static _Atomic uint64_t head;  /* next turn to claim */
static uint64_t tail;          /* next turn to read (the consumer's) */
static prof_trace_store stacks;
static _Atomic uint64_t stacks_full; /* calls kept without their stack (store full) */

/* N. */
int prof_fd_events_map(void) {
  if (!ring) {
    void *p = mmap(NULL, RING_CELLS * sizeof(ring_cell), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    ring = p;
  }
  return prof_trace_store_map(&stacks, FD_STACKS, STACK_ARENA_BYTES);
}

/* N. Only while no handler is sampling. */
void prof_fd_events_reset(void) {
  if (ring) madvise(ring, RING_CELLS * sizeof(ring_cell), MADV_DONTNEED);
  atomic_store(&head, 0);
  tail = 0;
  prof_trace_store_empty(&stacks);
  atomic_store(&stacks_full, 0);
}

/* SS. The turn cell i is ready for (see ring_cell.turn). */
static uint64_t turn_of(size_t i) {
  return atomic_load_explicit(&ring[i].turn, memory_order_acquire) + i;
}

/* SS. The frames as the fd report keys them: a method's tier and inlining, and a VM
 * blob's pc, are left out, so one line of code is one stack however it was compiled. */
static int normalize(const prof_frame *in, int n, prof_frame *out) {
  for (int i = 0; i < n; i++) {
    out[i] = in[i];
    out[i].comp_level = 0;
    out[i].pad = 0;
    if (out[i].type == ASGST_FRAME_JAVA_INLINED) out[i].type = ASGST_FRAME_JAVA;
    if (out[i].type == ASGST_FRAME_NON_JAVA && out[i].bci > 0) out[i].method = NULL;
  }
  return n;
}

/* SS. */
bool prof_fd_note(const prof_record *h, const prof_frame *frames, const prof_fdinfo *fi) {
  if (!ring) return false;
  prof_frame norm[PROF_MAX_FRAMES];
  prof_record key;
  memset(&key, 0, sizeof key);
  key.event = h->event;
  key.walk_result = h->walk_result;
  key.nframes = (uint16_t)normalize(frames, h->nframes, norm);
  uint32_t stack = prof_trace_store_intern(&stacks, &key, norm, false);
  if (!stack) atomic_fetch_add_explicit(&stacks_full, 1, memory_order_relaxed);
  uint64_t pos = atomic_load_explicit(&head, memory_order_relaxed);
  ring_cell *c;
  for (;;) {
    c = &ring[pos & (RING_CELLS - 1)];
    int64_t d = (int64_t)(turn_of(pos & (RING_CELLS - 1)) - pos);
    if (d < 0) return false; /* the cell still holds a call a lap behind: full */
    if (d > 0) {             /* another handler claimed it: look again */
      pos = atomic_load_explicit(&head, memory_order_relaxed);
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(&head, &pos, pos + 1, memory_order_relaxed,
                                              memory_order_relaxed))
      break;
  }
  c->ev.event = h->event;
  c->ev.tid = h->tid;
  c->ev.walk_result = h->walk_result;
  c->ev.seq = h->seq;
  c->ev.stack = stack;
  c->ev.fi = *fi;
  atomic_store_explicit(&c->turn, pos + 1 - (pos & (RING_CELLS - 1)), memory_order_release);
  return true;
}

/* N. */
bool prof_fd_events_pop(prof_fd_event *out) {
  if (!ring) return false;
  size_t i = tail & (RING_CELLS - 1);
  if (turn_of(i) != tail + 1) return false; /* empty, or its handler is still writing */
  *out = ring[i].ev;
  atomic_store_explicit(&ring[i].turn, tail + RING_CELLS - i, memory_order_release);
  tail++;
  return true;
}

/* N. */
const prof_frame *prof_fd_stack(uint32_t id, int *nframes) {
  return prof_trace_store_get(&stacks, id, nframes);
}

/* N. */
void prof_fd_events_figures(prof_fd_figures *f) {
  prof_trace_figures t;
  prof_trace_store_figures(&stacks, &t);
  f->stacks = t.traces, f->max_stacks = t.max_traces;
  f->stacks_full = atomic_load(&stacks_full);
  f->ring_cells = RING_CELLS;
}
