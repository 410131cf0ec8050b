/*
 * cfi_epoch.h - when a retired snapshot or table may be freed: reader sections counted
 * per slot and per epoch parity (SS on the reading side, N on the freeing side).
 *
 * A reader (a walk: ASGST's batch of frames, the queue's top-frame search) brackets every
 * use of the published tables with asgst__cfi_enter / asgst__cfi_exit. Enter adds one to
 * a counter, exit takes it away: no allocation, no lock, no loop, so a section may open in
 * a signal handler, and nest (a signal interrupting a walk on the same thread walks in a
 * section of its own, counted on top of the outer one; counters do not care about order).
 * A thread picks its slot from the address of a thread-local byte (one cache line per slot,
 * so threads rarely share a line), and its counter from the parity of the global epoch;
 * the token enter returns names the counter, so exit decrements the same one even if the
 * epoch moved meanwhile. Threads that happen to share a slot share its counters: still
 * correct, a counter is a count of sections, not an owner.
 *
 * The freeing side (cfi_snapshot.c, asgst__cfi_reclaim: the asgst-cfi thread, never a
 * handler) tags what it retires with the epoch of its retirement, and advances the epoch
 * from e to e + 1 only when it sees every slot's counter of parity (e + 1) & 1 at zero.
 * Something retired at epoch e is freed once the epoch reaches e + 2.
 *
 * Why that is safe. Retiring X happens after X was unpublished (the exchange of
 * asgst__cfi_current, cfi_snapshot.c). The two advances after it (e to e + 1, e + 1 to
 * e + 2) each saw one parity's counters all at zero, so between them they looked at the
 * counter of every parity of every slot, after the unpublication, behind a full fence.
 * A reader R holding a pointer into X got it from a load of asgst__cfi_current that
 * returned X (or from memory reached through X), so that load came before the
 * unpublication in the order of that variable. R incremented its counter c before that
 * load, with a full fence between (enter). Two threads each store then load behind a full
 * fence (R: c then current; the freer: current then c): at least one sees the other's
 * store. R saw the old pointer, so the freer's look at c (after its own exchange) sees R's
 * increment, unless R had already decremented, which it does (exit, release) only after its
 * last read of X. So no advance sees c at zero while R may still read X, and X is freed
 * only after R is done. Pointers into the tables never outlive a section: the walker drops
 * the object and rule it keeps between frames when a new batch (a new section) starts.
 *
 * Progress. Once the epoch moved to e + 1, new sections count in the other parity, so the
 * counters of parity e & 1 only fall (but for a thread that read the epoch just before the
 * move), and the next advance comes once the sections open at the move have ended:
 * microseconds for walks. A section that never ends (a handler that blocks inside a walk,
 * or leaves it by longjmp) holds back freeing, not correctness: memory then waits.
 */
#ifndef ASGST_NATIVE_CFI_EPOCH_H
#define ASGST_NATIVE_CFI_EPOCH_H

#include <stdbool.h>
#include <stdint.h>

#include "impl/arch/arch.h"

enum { ASGST_CFI_SLOTS = 64 };

/* One cache line: the counters of both parities of one slot. */
struct asgst_cfi_slot {
  unsigned long n[2];
} __attribute__((aligned(64)));

extern struct asgst_cfi_slot asgst__cfi_slots[ASGST_CFI_SLOTS];
/* The epoch; readers use its parity. Written by asgst__cfi_try_advance only. */
extern unsigned long asgst__cfi_epoch;
/* A byte per thread whose address picks the thread's slot (initial-exec: no lazy TLS). */
extern __thread char asgst__cfi_slot_anchor __attribute__((tls_model("initial-exec")));

/* SS. Opens a reader section; returns the token for asgst__cfi_exit. */
static inline unsigned asgst__cfi_enter(void) {
  uintptr_t a = (uintptr_t)&asgst__cfi_slot_anchor;
  unsigned slot = (unsigned)(((uint64_t)a * 0x9E3779B97F4A7C15ull) >> 58); /* 64 slots */
  unsigned parity = (unsigned)(__atomic_load_n(&asgst__cfi_epoch, __ATOMIC_RELAXED) & 1);
  __atomic_fetch_add(&asgst__cfi_slots[slot].n[parity], 1, __ATOMIC_SEQ_CST);
  /* The increment must be visible before the section's loads of the published pointer
   * (see the proof above): a fence, unless the atomic add is one already (x86_64's locked
   * add; ASGST__RMW_IS_FENCE, impl/arch/<arch>/regs.h). */
  if (!ASGST__RMW_IS_FENCE) __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return slot * 2 + parity;
}

/* SS. Closes the section of token: every read of the tables in it comes before. */
static inline void asgst__cfi_exit(unsigned token) {
  __atomic_fetch_sub(&asgst__cfi_slots[token / 2].n[token & 1], 1, __ATOMIC_RELEASE);
}

/* A walk opens its section lazily, at its first use of the tables, so that walks that
 * never use them (Java frames only) pay nothing: *section holds the token + 1, 0 while
 * none is open, or ASGST_CFI_COVERED where the caller holds a section around the walk. */
enum { ASGST_CFI_COVERED = 0xffffffffu };

/* SS. Opens a section in *section unless one is open. */
static inline void asgst__cfi_section_open(uint32_t *section) {
  if (__builtin_expect(*section == 0, 0)) *section = asgst__cfi_enter() + 1;
}

/* SS. Closes the section *section opened, if any. */
static inline void asgst__cfi_section_close(uint32_t *section) {
  uint32_t s = *section;
  if (s != 0 && s != ASGST_CFI_COVERED) asgst__cfi_exit(s - 1);
  *section = 0;
}

/* N. Advances the epoch once if no section of the older parity is open: true if it did.
 * Serialized by the caller (cfi_snapshot.c's retired lock). */
bool asgst__cfi_try_advance(void);

#endif
