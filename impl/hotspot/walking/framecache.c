/*
 * framecache.c - a process-wide cache of decoded compiled frames, keyed by return address.
 *
 * Walks meet the same return addresses again and again (recursion, hot call paths, every
 * sample of a thread). Decoding one costs a code cache lookup, a PcDesc binary search and
 * a scope stream walk over cold memory; a hit here costs one entry and one validating load.
 *
 * Top frames (interrupted anywhere, decoded with the PcDesc after the pc) have entries of
 * their own, keyed by the pc with a tag bit: samples of a hot loop land on the same few
 * pcs. Such an entry is made only where the frame is complete (past its prologue, not in
 * its epilogue), so a hit also says the sender is found by the frame size.
 *
 * Validity: an nmethod never changes its code or debug information while it exists, and
 * compile ids are unique, so (blob address, compile id) names one nmethod for good. A hit
 * is used only if the nmethod at the cached address still carries the cached compile id
 * (memory of a flushed nmethod reused for another blob fails that check).
 *
 * Concurrency: signal handlers on many threads read and write entries without locks. An
 * entry is a row of words written and read one word at a time (relaxed atomics); its last
 * word is a hash of the others, so a torn entry reads as a miss.
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include <stdatomic.h>
#include <string.h>

#include "../../safe_read.h"
#include "framecache.h"
#include "../model/vm_model.h"

/* The table and the lookup (asgst__hs_fc_frames) are in framecache.h: the lookup is inlined
 * into the walker's batch loop. */
_Atomic uint64_t asgst__hs_fc_cache[ASGST__FC_SIZE][ASGST__FC_WORDS] __attribute__((aligned(64)));

/* SS. A prefetch never faults, whatever the address. */
ASGST__HOT void asgst__hs_fc_prefetch(uintptr_t pc) {
  __builtin_prefetch((const void *)asgst__hs_fc_row(asgst__hs_fc_key(pc, true)));
}

/* SS. */
void asgst__hs_fc_put(uintptr_t pc, bool top, const asgst__hs_fc_entry *e) {
  if (e->n < 1 || e->n > ASGST__FC_MAX || e->frame_size > 0xffff || e->level < 0 || e->level > 0xff)
    return;
  uint64_t w[ASGST__FC_WORDS];
  w[0] = asgst__hs_fc_key(pc, top);
  w[1] = e->blob;
  w[2] = e->compile_id | (uint64_t)e->frame_size << 32 | (uint64_t)e->level << 48 | (uint64_t)e->n << 56;
  for (int i = 0; i < 4; i++) {
    w[3 + i] = 0;
    if (i >= e->n) continue;
    if (e->method[i] >> 48 || e->bci[i] < -1 || e->bci[i] >= 0xfffe) return;
    w[3 + i] = e->method[i] | (uint64_t)(e->bci[i] + 1) << 48;
  }
  w[ASGST__FC_WORDS - 1] = asgst__hs_fc_check(w);
  _Atomic uint64_t *r = asgst__hs_fc_row(w[0]);
  /* Invalidate first so that a reader never pairs the new key with old words. */
  atomic_store_explicit(&r[ASGST__FC_WORDS - 1], 0, memory_order_relaxed);
  for (int i = 0; i < ASGST__FC_WORDS; i++) atomic_store_explicit(&r[i], w[i], memory_order_relaxed);
}

/* N. Touches every page of the cache once, on the asgst-cfi thread, which the class
 * worker starts once the classes are listed (this cannot refuse a VM, so it is not the
 * answer's work). The table is zero-filled static memory whose pages the kernel maps on
 * first touch: a read maps the shared zero page and the first write faults again to copy
 * it. A page fault costs more than a whole walk, and the javac benchmark's slowest walks
 * were the first through each page of the table (its tail was mostly page faults). One
 * store per page invalidates one row, as a writer's first store does (a cache, nothing
 * lost; walks may already run). */
void asgst__hs_fc_prefault(void) {
  /* Not one madvise(MADV_POPULATE_WRITE): it maps the pages in a fraction of the faults'
   * time, but every walk after it was measurably slower (docs/budgets.md, "The frame
   * cache's pages"). */
  const size_t rows_per_page = 4096 / sizeof asgst__hs_fc_cache[0];
  for (size_t i = 0; i < ASGST__FC_SIZE; i += rows_per_page)
    atomic_store_explicit(&asgst__hs_fc_cache[i][ASGST__FC_WORDS - 1], 0, memory_order_relaxed);
}
