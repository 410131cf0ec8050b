/*
 * cfi_inline.h - the handler's side of the tables as inline functions: finding a pc's
 * rule (the walk's last object first, then the table's cache, then its rows) and
 * stepping a frame with a rule. cfi_step.c wraps them as the functions of cfi.h; the
 * HotSpot walker's C step includes them itself, so that a C frame costs no calls and
 * its stack reads are the walker's own inline loads. All SS.
 */
#ifndef ASGST_NATIVE_CFI_INLINE_H
#define ASGST_NATIVE_CFI_INLINE_H

#include "impl/arch/arch.h"
#include "impl/native/cfi.h"
#include "impl/native/cfi_snapshot.h"

/* SS. The object covering pc, NULL if none: a branchless search for the last object
 * starting at or below pc (the branches of a plain binary search mispredict about half
 * the time). */
static inline const struct asgst_cfi_object *asgst__cfi_object_of(const struct asgst_cfi_snapshot *s,
                                                                  uintptr_t pc) {
  const struct asgst_cfi_object *base = s->objects;
  size_t n = s->nobjects;
  if (n == 0) return NULL;
  while (n > 1) { /* invariant: the object sought, if any, is in [base, base + n) */
    size_t half = n / 2;
    base = base[half].lo <= pc ? base + half : base;
    n -= half;
  }
  return pc >= base->lo && pc < base->hi ? base : NULL;
}

/* SS. The index of the row holding pc offset off, branchless as above; the first row
 * when off precedes all. */
static inline size_t asgst__cfi_row_of(const struct asgst_cfi_table *t, uint32_t off) {
  const uint32_t *base = t->pcs;
  size_t n = t->nrows;
  while (n > 1) { /* invariant: the row sought is in [base, base + n) */
    size_t half = n / 2;
    base = base[half] <= off ? base + half : base;
    n -= half;
  }
  return (size_t)(base - t->pcs);
}

/* SS. The rule at pc in o (pc in [o->lo, o->hi)), NULL in a gap: from the cache (see
 * cfi_table.h), else searched and put there. Two-way: a pc missed goes into its pair's
 * first word and the word it replaces into the second, so two pcs of one pair that a walk
 * meets every time both stay (direct-mapped, two such pcs missed on every walk: a search
 * over cold rows each, most of a C frame walk's time in the bench). */
static inline const struct asgst_cfi_rule *asgst__cfi_object_rule(const struct asgst_cfi_object *o,
                                                                  uintptr_t pc) {
  uint32_t off = (uint32_t)(pc - o->base);
  uint64_t *pair = &o->hits[((off * 2654435761u) >> o->hit_shift) & ~(size_t)1];
  uint64_t first = __atomic_load_n(&pair[0], __ATOMIC_RELAXED);
  uint32_t idx;
  if (__builtin_expect(first >> 32 == off && (uint32_t)first != 0, 1)) {
    idx = (uint32_t)first - 1;
  } else {
    uint64_t second = __atomic_load_n(&pair[1], __ATOMIC_RELAXED);
    if (second >> 32 == off && (uint32_t)second != 0) {
      idx = (uint32_t)second - 1;
    } else {
      const struct asgst_cfi_table *t = o->table;
      size_t r = asgst__cfi_row_of(t, off);
      idx = t->pcs[r] <= off ? t->rule_of[r] : ASGST_CFI_GAP_RULE;
      __atomic_store_n(&pair[1], first, __ATOMIC_RELAXED);
      __atomic_store_n(&pair[0], (uint64_t)off << 32 | (idx + 1), __ATOMIC_RELAXED);
    }
  }
  return idx == ASGST_CFI_GAP_RULE ? NULL : &o->rules[idx];
}

/* SS. asgst__cfi_lookup_near (cfi.h). Always inlined: GCC otherwise keeps it a call in
 * the walker's C step. */
static inline __attribute__((always_inline)) const struct asgst_cfi_rule *
asgst__cfi_find(uintptr_t pc, bool pc_is_return_address, const struct asgst_cfi_object **near) {
  /* A return address may lie past the end of its function (a call to a noreturn
   * function as the last instruction): the call itself is one byte before it. */
  if (pc_is_return_address) pc--;
  const struct asgst_cfi_object *o = *near;
  if (!o || pc < o->lo || pc >= o->hi) {
    const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
    if (!s || !(o = asgst__cfi_object_of(s, pc))) return NULL;
    *near = o;
  }
  return asgst__cfi_object_rule(o, pc);
}

/* SS. asgst__cfi_step_with (cfi.h); with a constant `read` the reads inline. */
static inline int asgst__cfi_apply(const struct asgst_cfi_rule *rule, struct asgst_cfi_frame *frame,
                                   asgst_cfi_read_fn read, void *ctx) {
  if (!rule || (rule->cfa_reg != ASGST_CFA_SP && rule->cfa_reg != ASGST_CFA_FP))
    return ASGST_CFI_NO_RULE;
  if (rule->ra_rule == ASGST_REG_UNDEF) return ASGST_CFI_OUTERMOST;
  /* A "same value" return address is still in the link register (arm64: a leaf
   * function, or one interrupted before it saved x30), known in the interrupted frame. */
  bool in_lr = rule->ra_rule == ASGST_REG_SAME && frame->lr != 0;
  if ((rule->ra_rule != ASGST_REG_AT_CFA && !in_lr) || rule->fp_rule == ASGST_REG_OTHER)
    return ASGST_CFI_NO_RULE;
  uintptr_t cfa = (rule->cfa_reg == ASGST_CFA_SP ? frame->sp : frame->fp) + (intptr_t)rule->cfa_off;
  /* The caller's frame lies above this one (the CFA equals sp only at an arm64 entry): a
   * CFA below sp comes from a corrupt frame pointer, and would let a walk go round. */
  if (cfa < frame->sp) return ASGST_CFI_BAD_READ;
  uintptr_t ra = frame->lr, fp = frame->fp;
  if (!in_lr && !read(ctx, cfa + (intptr_t)rule->ra_off, &ra)) return ASGST_CFI_BAD_READ;
  if (rule->fp_rule == ASGST_REG_AT_CFA && !read(ctx, cfa + (intptr_t)rule->fp_off, &fp))
    return ASGST_CFI_BAD_READ;
  if (rule->fp_rule == ASGST_REG_UNDEF) fp = 0;
  /* On both x86_64 and arm64 the caller's stack pointer is the CFA. Field by field: a
   * packed 16-byte store would be read back 8 bytes at a time. */
  frame->pc = asgst__strip_pc(ra);
  frame->sp = cfa;
  frame->fp = fp;
  frame->lr = 0;
  return ASGST_CFI_STEPPED;
}

#endif
