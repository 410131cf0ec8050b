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

#include "../safe_read.h"
#include "framecache.h"
#include "vm_model.h"

#define FC_SIZE 4096 /* entries, a power of two */
#define FC_WORDS 8    /* one cache line */

static _Atomic uint64_t cache[FC_SIZE][FC_WORDS] __attribute__((aligned(64)));

/* SS. Check word over the first seven. A torn row mixes the words of two different
 * entries, which a plain XOR catches; it costs a few independent instructions (a serial
 * multiply chain here cost more than the decoding it saves). */
static inline uint64_t check(const uint64_t *w) {
  return (0x6a09e667f3bcc909ull ^ w[0] ^ w[1] ^ w[2] ^ w[3] ^ w[4] ^ w[5] ^ w[6]) | 1;
}

/* Marks the key of a top frame's entry (pcs are below 2^47). */
#define TOP_TAG (1ull << 63)

/* SS. The row of a key; a top frame's entry goes elsewhere than the return address's. */
static inline _Atomic uint64_t *row(uint64_t key) {
  uint64_t pc = key & ~TOP_TAG, salt = key & TOP_TAG ? 0x5a5 : 0;
  return cache[((pc >> 2) ^ (pc >> 14) ^ salt) & (FC_SIZE - 1)];
}

/* SS. */
static inline uint64_t key_of(uintptr_t pc, bool top) { return (uint64_t)pc | (top ? TOP_TAG : 0); }

/* Entry words: 0 key (pc, | TOP_TAG for a top frame), 1 blob, 2 compile id | frame size << 32 (16 bits) | level << 48 |
 * n << 56, 3..6 frames as Method* | (bci + 1) << 48 (Method* < 2^47, bci < 65535),
 * 7 check. */

/* SS. */
ASGST__HOT int asgst__hs_fc_frames(const asgst__regs *r, bool top, ASGST_Frame *out, int room,
                        uintptr_t *blob, uint32_t *fsize, uintptr_t *checked, uintptr_t stack_base) {
  uint64_t key = key_of(r->pc, top);
  _Atomic uint64_t *row_ = row(key);
  uint64_t w[FC_WORDS];
  /* Unrolled, so that the words stay in registers (a loop went through a stack copy). */
#pragma GCC unroll 8
  for (int i = 0; i < FC_WORDS; i++) w[i] = atomic_load_explicit(&row_[i], memory_order_relaxed);
  if (w[0] != key || w[FC_WORDS - 1] != check(w)) return 0;
  int n = (int)(w[2] >> 56);
  if (n < 1 || n > ASGST__FC_MAX) return 0;
  if (n > room) return -1;
  /* The sender's return address is on the (warm) stack: start loading the row its lookup
   * will read, so that its miss overlaps the compile id check's below instead of
   * following it (two dependent misses per cached frame were most of a deep cold walk). */
  uintptr_t ssp = r->sp + 8 * (uintptr_t)((w[2] >> 32) & 0xffff), ra;
  if (stack_base && ssp > r->sp && ssp <= stack_base && asgst__load_ret(ssp - 8, &ra))
    __builtin_prefetch((const void *)row(key_of(ra, false)));
  /* Is the nmethod still the one decoded? Checked once per walk and nmethod (*checked is
   * the last one proven): a walk is microseconds long, and the load is a cache miss per
   * frame otherwise (most of a cached frame's cost in the javac benchmark's profile). */
  if ((uintptr_t)w[1] != *checked) {
    uint32_t id;
    if (!asgst__vm_nm_compile_id((uintptr_t)w[1], &id) || id != (uint32_t)w[2]) return 0;
    *checked = (uintptr_t)w[1];
  }
  int level = (int)(w[2] >> 48) & 0xff;
  for (int i = 0; i < n; i++) {
    ASGST_Frame *f = &out[i];
    f->type = i == n - 1 ? ASGST_FRAME_JAVA : ASGST_FRAME_JAVA_INLINED;
    f->comp_level = level;
    f->bci = (int32_t)(w[3 + i] >> 48) - 1;
    f->method = (ASGST_Method)(uintptr_t)(w[3 + i] & ((1ull << 48) - 1));
    f->pc = (void *)r->pc;
    f->sp = (void *)r->sp;
    f->fp = (void *)r->fp;
  }
  *blob = (uintptr_t)w[1];
  *fsize = (uint32_t)(w[2] >> 32) & 0xffff;
  return n;
}

/* SS. A prefetch never faults, whatever the address. */
ASGST__HOT void asgst__hs_fc_prefetch(uintptr_t pc) {
  __builtin_prefetch((const void *)row(key_of(pc, true)));
}

/* SS. */
void asgst__hs_fc_put(uintptr_t pc, bool top, const asgst__hs_fc_entry *e) {
  if (e->n < 1 || e->n > ASGST__FC_MAX || e->frame_size > 0xffff || e->level < 0 || e->level > 0xff)
    return;
  uint64_t w[FC_WORDS];
  w[0] = key_of(pc, top);
  w[1] = e->blob;
  w[2] = e->compile_id | (uint64_t)e->frame_size << 32 | (uint64_t)e->level << 48 | (uint64_t)e->n << 56;
  for (int i = 0; i < 4; i++) {
    w[3 + i] = 0;
    if (i >= e->n) continue;
    if (e->method[i] >> 48 || e->bci[i] < -1 || e->bci[i] >= 0xfffe) return;
    w[3 + i] = e->method[i] | (uint64_t)(e->bci[i] + 1) << 48;
  }
  w[FC_WORDS - 1] = check(w);
  _Atomic uint64_t *r = row(w[0]);
  /* Invalidate first so that a reader never pairs the new key with old words. */
  atomic_store_explicit(&r[FC_WORDS - 1], 0, memory_order_relaxed);
  for (int i = 0; i < FC_WORDS; i++) atomic_store_explicit(&r[i], w[i], memory_order_relaxed);
}

/* N. Touches every page of the cache once, at initialization. The table is zero-filled
 * static memory whose pages the kernel maps on first touch: a read maps the shared zero
 * page and the first write faults again to copy it. A page fault costs more than a whole
 * walk, and the javac benchmark's slowest walks were the first through each page of the
 * table (its tail was mostly page faults). One store per page invalidates one row (a
 * cache, nothing lost). */
void asgst__hs_fc_prefault(void) {
  const size_t rows_per_page = 4096 / sizeof cache[0];
  for (size_t i = 0; i < FC_SIZE; i += rows_per_page)
    atomic_store_explicit(&cache[i][FC_WORDS - 1], 0, memory_order_relaxed);
}
