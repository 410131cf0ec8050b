/*
 * cfi_tail.h - the C frames at the bottom of a thread's stack, remembered between walks.
 *
 * Below a Java thread's first call stub lie the same C frames on every walk of that
 * thread: the VM's thread start down to the C library's clone (or a launcher's main down
 * to _start). Walked by the tables, each costs a rule lookup (a line of its object's
 * cache, the rule's line) and a stack read, all cold, one after another: each frame's
 * address comes from the one before. In the bench they were 8 of a walk's 29 C frames
 * and about a third of its C time.
 *
 * A tail remembers them, keyed by its first frame (pc, sp, fp) and the stack's end, with
 * every stack word their steps read and where. A walk that finds its tail reads those
 * words again, all at once (their addresses are known, so the misses overlap), and takes
 * the frames if every word is what it was: a step is a function of the rule at its pc and
 * the words it reads, the rules are those of the same tables (the snapshot's generation
 * is part of the key), so the frames are the ones a fresh walk would find. Any difference
 * and the tail is walked and remembered again.
 *
 * Only tails whose every step is plain (cfi.h: the steps c_quick_run takes) and that end
 * at a frame the tables call the outermost are remembered; for others a slot remembers
 * "walk it" (a hint, checked by nothing, so never a wrong frame). The slots are a fixed
 * array in the library's data, indexed by the first frame's sp: threads whose stacks hash
 * alike take turns, each walking its tail again when it finds the other's.
 *
 * Concurrency: a slot is a sequence lock. A writer (a walk, in a signal handler or not)
 * takes it by moving its count from even to odd with one compare-and-swap, or gives up
 * storing if it cannot; it has read every stack word before, so no fault can leave a slot
 * held. A reader takes a slot's contents only if the count was even and unchanged around
 * its reads. Nothing waits. SS throughout.
 */
#ifndef ASGST_NATIVE_CFI_TAIL_H
#define ASGST_NATIVE_CFI_TAIL_H

#include <stdint.h>

#include "impl/arch/arch.h"
#include "impl/native/cfi.h"
#include "impl/native/cfi_snapshot.h"

/* The most frames a tail holds below its first (the VM's thread start is 8 to 10). */
#define ASGST_CFI_TAIL_MAX 16
/* Slots (a power of two); about 700 bytes each, touched only when used. */
#define ASGST_CFI_TAIL_SLOTS 128

/* What the functions below return instead of a count of frames. */
enum {
  ASGST_CFI_TAIL_MISS = -1, /* no tail of this first frame, or not as it was: record it */
  ASGST_CFI_TAIL_WALK = -2, /* not one to remember (or no room): the caller walks it */
};

/* One frame of a tail: where the step to it read its return address (and the fp it
 * restored, fp_at 0 if it read none), the words read, and the frame. */
struct asgst_cfi_tail_step {
  uintptr_t ra_at, ra, fp_at, fp, sp;
};

struct asgst_cfi_tail_slot {
  unsigned long seq;       /* odd while written */
  unsigned long gen;       /* the snapshot generation its rules came from */
  uintptr_t pc, sp, fp;    /* the first frame */
  uintptr_t limit;         /* the stack's end it was walked toward */
  long n;                  /* its steps, or ASGST_CFI_TAIL_WALK */
  struct asgst_cfi_tail_step step[ASGST_CFI_TAIL_MAX];
};

extern struct asgst_cfi_tail_slot asgst__cfi_tails[ASGST_CFI_TAIL_SLOTS];

/* A tail's frame as handed to the walk. */
struct asgst_cfi_tail_frame {
  uintptr_t pc, sp, fp;
};

/* SS. The slot of a tail whose first frame is at sp. */
static inline struct asgst_cfi_tail_slot *asgst__cfi_tail_slot(uintptr_t sp) {
  return &asgst__cfi_tails[((sp >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - 7)];
}
_Static_assert(ASGST_CFI_TAIL_SLOTS == 1 << 7, "asgst__cfi_tail_slot's shift");

/* SS. The senders of *first (a C frame stopped at a call, within a reader section of the
 * tables) down to the thread's outermost frame, from its remembered tail: into out[] (room
 * for ASGST_CFI_TAIL_MAX), their count returned; or ASGST_CFI_TAIL_MISS or _WALK. `read`
 * reads the stack (a constant: the reads inline). */
static inline __attribute__((always_inline)) long asgst__cfi_tail_replay(
    const struct asgst_cfi_frame *first, uintptr_t limit, asgst_cfi_read_fn read, void *ctx,
    struct asgst_cfi_tail_frame *out) {
  struct asgst_cfi_tail_slot *t = asgst__cfi_tail_slot(first->sp);
  unsigned long seq = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
  const struct asgst_cfi_snapshot *snap = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  if ((seq & 1) || !snap) return ASGST_CFI_TAIL_MISS;
  if (__atomic_load_n(&t->sp, __ATOMIC_RELAXED) != first->sp ||
      __atomic_load_n(&t->pc, __ATOMIC_RELAXED) != first->pc ||
      __atomic_load_n(&t->fp, __ATOMIC_RELAXED) != first->fp ||
      __atomic_load_n(&t->limit, __ATOMIC_RELAXED) != limit ||
      __atomic_load_n(&t->gen, __ATOMIC_RELAXED) != snap->generation)
    return ASGST_CFI_TAIL_MISS;
  long n = __atomic_load_n(&t->n, __ATOMIC_RELAXED);
  if (n < 0 || n > ASGST_CFI_TAIL_MAX) return n == ASGST_CFI_TAIL_WALK ? n : ASGST_CFI_TAIL_MISS;
  /* The slot first, into locals: its words are one writer's only if the count did not
   * move, and a torn address must not be read (it could fault, failing the walk). */
  uintptr_t at[2 * ASGST_CFI_TAIL_MAX], want[2 * ASGST_CFI_TAIL_MAX];
  for (long i = 0; i < n; i++) {
    const struct asgst_cfi_tail_step *st = &t->step[i];
    at[2 * i] = __atomic_load_n(&st->ra_at, __ATOMIC_RELAXED);
    want[2 * i] = __atomic_load_n(&st->ra, __ATOMIC_RELAXED);
    at[2 * i + 1] = __atomic_load_n(&st->fp_at, __ATOMIC_RELAXED);
    want[2 * i + 1] = __atomic_load_n(&st->fp, __ATOMIC_RELAXED);
    out[i].pc = asgst__strip_pc(want[2 * i]);
    out[i].sp = __atomic_load_n(&st->sp, __ATOMIC_RELAXED);
    out[i].fp = want[2 * i + 1];
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) != seq) return ASGST_CFI_TAIL_WALK;
  /* Then the stack: every word compared, none branched on before the last is read, so
   * the loads are independent and their misses overlap. fp_at 0: the step read no fp. */
  bool same = true;
  for (long i = 0; i < 2 * n; i++) {
    uintptr_t word = want[i];
    if (at[i]) same &= read(ctx, at[i], &word) && word == want[i];
  }
  return same ? n : ASGST_CFI_TAIL_MISS;
}

/* SS. Walks the senders of *first (rule: its rule; within a reader section of the tables)
 * toward limit as a walk's plain steps would (c_quick_run in the HotSpot walker), into
 * out[] (room for ASGST_CFI_TAIL_MAX), and remembers them as its tail: their count, or
 * ASGST_CFI_TAIL_WALK where a step is not plain, a sender has no table row, a read fails
 * or the tail is longer than ASGST_CFI_TAIL_MAX (remembered too, so that the next walk
 * does not try again; not after a failed read, which a stack changing under a walk from
 * another thread can cause). */
long asgst__cfi_tail_record(const struct asgst_cfi_frame *first, const struct asgst_cfi_rule *rule,
                            uintptr_t limit, asgst_cfi_read_fn read, void *ctx,
                            struct asgst_cfi_tail_frame *out);

#endif
