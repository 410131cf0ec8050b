/*
 * framecache.h - a process-wide cache of decoded compiled frames (framecache.c).
 */
#ifndef ASGST_HOTSPOT_FRAMECACHE_H
#define ASGST_HOTSPOT_FRAMECACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "asgst.h"
#include "../../backend.h"
#include "../../safe_read.h"
#include "../model/vm_model.h"

/* A decoded compiled frame at a return address (framecache.c). */
#define ASGST__FC_MAX 4 /* logical frames an entry holds */
typedef struct {
  uintptr_t blob;
  uint32_t compile_id;
  int32_t level;
  uint32_t frame_size; /* words */
  int n;
  uintptr_t method[ASGST__FC_MAX];
  int32_t bci[ASGST__FC_MAX];
} asgst__hs_fc_entry;

#define ASGST__FC_SIZE 4096 /* entries, a power of two */
#define ASGST__FC_WORDS 8    /* one cache line */

/* The table (framecache.c says what an entry holds and how it is kept consistent). */
extern _Atomic uint64_t asgst__hs_fc_cache[ASGST__FC_SIZE][ASGST__FC_WORDS];

/* SS. Check word over the first seven. A torn row mixes the words of two different
 * entries, which a plain XOR catches; it costs a few independent instructions (a serial
 * multiply chain here cost more than the decoding it saves). */
static inline uint64_t asgst__hs_fc_check(const uint64_t *w) {
  return (0x6a09e667f3bcc909ull ^ w[0] ^ w[1] ^ w[2] ^ w[3] ^ w[4] ^ w[5] ^ w[6]) | 1;
}

/* Marks the key of a top frame's entry (pcs are below 2^47). */
#define ASGST__FC_TOP_TAG (1ull << 63)

/* SS. The row of a key; a top frame's entry goes elsewhere than the return address's. */
static inline _Atomic uint64_t *asgst__hs_fc_row(uint64_t key) {
  uint64_t pc = key & ~ASGST__FC_TOP_TAG, salt = key & ASGST__FC_TOP_TAG ? 0x5a5 : 0;
  return asgst__hs_fc_cache[((pc >> 2) ^ (pc >> 14) ^ salt) & (ASGST__FC_SIZE - 1)];
}

/* SS. */
static inline uint64_t asgst__hs_fc_key(uintptr_t pc, bool top) { return (uint64_t)pc | (top ? ASGST__FC_TOP_TAG : 0); }

/* Entry words: 0 key (pc, | ASGST__FC_TOP_TAG for a top frame), 1 blob, 2 compile id | frame size << 32 (16 bits) | level << 48 |
 * n << 56, 3..6 frames as Method* | (bci + 1) << 48 (Method* < 2^47, bci < 65535),
 * 7 check. */

/* SS. The cached decoding of the compiled frame at r, if still valid: r->pc is a return
 * address, or with `top` the pc of an interrupted top frame (decoded with the PcDesc after
 * it, and complete there). Writes its logical frames to out (innermost first, at most
 * room), its blob and frame size, and returns their number; 0 on a miss, -1 if they do not
 * fit in room. *checked is the nmethod the walk has already proven current (updated).
 * Inline: once per cached frame, and a call with eight arguments cost more than the
 * lookup's own loads (their spills and reloads around the call). */
static inline __attribute__((always_inline)) int asgst__hs_fc_frames(
    const asgst__regs *r, bool top, ASGST_Frame *out, int room, uintptr_t *blob, uint32_t *fsize,
    uintptr_t *checked, uintptr_t stack_base) {
  uint64_t key = asgst__hs_fc_key(r->pc, top);
  _Atomic uint64_t *row_ = asgst__hs_fc_row(key);
  uint64_t w[ASGST__FC_WORDS];
  /* Unrolled, so that the words stay in registers (a loop went through a stack copy). */
#pragma GCC unroll 8
  for (int i = 0; i < ASGST__FC_WORDS; i++) w[i] = atomic_load_explicit(&row_[i], memory_order_relaxed);
  if (w[0] != key || w[ASGST__FC_WORDS - 1] != asgst__hs_fc_check(w)) return 0;
  int n = (int)(w[2] >> 56);
  if (n < 1 || n > ASGST__FC_MAX) return 0;
  if (n > room) return -1;
  /* The sender's return address is on the (warm) stack: start loading the row its lookup
   * will read, so that its miss overlaps the compile id check's below instead of
   * following it (two dependent misses per cached frame were most of a deep cold walk). */
  uintptr_t ssp = r->sp + 8 * (uintptr_t)((w[2] >> 32) & 0xffff), ra;
  if (stack_base && ssp > r->sp && ssp <= stack_base && asgst__load_ret(ssp - 8, &ra))
    __builtin_prefetch((const void *)asgst__hs_fc_row(asgst__hs_fc_key(ra, false)));
  /* Is the nmethod still the one decoded? Checked once per walk and nmethod (*checked is
   * the last one proven): a walk is microseconds long, and the load is a cache miss per
   * frame otherwise. */
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


/* SS. Starts loading the entry of an interrupted top frame at pc (no fault possible). */
void asgst__hs_fc_prefetch(uintptr_t pc);
/* SS. Remembers a decoding (n logical frames, 1..ASGST__FC_MAX) of the frame at a return
 * address, or with `top` of a complete top frame at an interrupted pc. */
void asgst__hs_fc_put(uintptr_t pc, bool top, const asgst__hs_fc_entry *e);

/* N. Maps every page of the frame cache (on the asgst-cfi thread as soon as the first
 * binding starts it, so that walks after the first milliseconds take no page fault of a
 * first touch; one that comes earlier takes a minor fault, as it would without this). */
void asgst__hs_fc_prefault(void);

#endif
