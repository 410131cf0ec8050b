/*
 * cfi_tail.c - walking and remembering a thread's bottom C frames (cfi_tail.h). All SS.
 */
#include "impl/native/cfi_tail.h"

#include "impl/native/cfi_inline.h"

struct asgst_cfi_tail_slot asgst__cfi_tails[ASGST_CFI_TAIL_SLOTS];

/* SS. True if rule makes its frame the thread's outermost (asgst__cfi_apply's test). */
static bool outermost(const struct asgst_cfi_rule *rule) {
  return (rule->cfa_reg == ASGST_CFA_SP || rule->cfa_reg == ASGST_CFA_FP) &&
         rule->ra_rule == ASGST_REG_UNDEF;
}

/* SS. One plain step from (sp, fp) by rule into *st: 1, or 0 if it is not one, -1 if a
 * read failed. The tests are c_quick_run's, so that a tail holds what that loop would
 * have walked. */
static int plain_step(const struct asgst_cfi_rule *rule, uintptr_t sp, uintptr_t fp, uintptr_t limit,
                       asgst_cfi_read_fn read, void *ctx, struct asgst_cfi_tail_step *st) {
  uintptr_t cfa;
  if (rule->plain == ASGST_CFI_PLAIN_SP) {
    cfa = sp + (intptr_t)rule->cfa_off;
  } else {
    if (rule->plain != ASGST_CFI_PLAIN_FP) return 0;
    cfa = fp + (intptr_t)rule->cfa_off;
    if (cfa <= sp || (cfa & 7)) return 0;
  }
  if (cfa >= limit) return 0;
  st->sp = cfa;
  st->ra_at = cfa + (intptr_t)rule->ra_off;
  if (!read(ctx, st->ra_at, &st->ra)) return -1;
  st->fp_at = 0;
  st->fp = fp;
  if (rule->fp_rule == ASGST_REG_AT_CFA) {
    st->fp_at = cfa + (intptr_t)rule->fp_off;
    if (!read(ctx, st->fp_at, &st->fp)) return -1;
  } else if (rule->fp_rule == ASGST_REG_UNDEF) {
    st->fp = 0;
  }
  return 1;
}

/* SS. Walks the tail of first into step[]: its steps, or ASGST_CFI_TAIL_WALK; *failed_read
 * set where a read failed (a stack that may be changing: not remembered as WALK). */
static long walk_tail(const struct asgst_cfi_frame *first, const struct asgst_cfi_rule *rule,
                      uintptr_t limit, asgst_cfi_read_fn read, void *ctx,
                      struct asgst_cfi_tail_step *step, bool *failed_read) {
  uintptr_t pc = first->pc, sp = first->sp, fp = first->fp;
  const struct asgst_cfi_object *near = NULL;
  *failed_read = false;
  for (long n = 0; n <= ASGST_CFI_TAIL_MAX; n++) {
    if (outermost(rule)) return n;
    if (n == ASGST_CFI_TAIL_MAX) break;
    struct asgst_cfi_tail_step *st = &step[n];
    int r = plain_step(rule, sp, fp, limit, read, ctx, st);
    if (r <= 0) {
      *failed_read = r < 0;
      break;
    }
    uintptr_t npc = asgst__strip_pc(st->ra);
    rule = npc == pc ? rule : asgst__cfi_find(npc, true, &near);
    if (!rule) break;
    pc = npc, sp = st->sp, fp = st->fp;
  }
  return ASGST_CFI_TAIL_WALK;
}

/* SS. Stores a tail in its slot, unless another writer holds it. */
static void remember(const struct asgst_cfi_frame *first, uintptr_t limit, unsigned long gen, long n,
                     const struct asgst_cfi_tail_step *step) {
  struct asgst_cfi_tail_slot *t = asgst__cfi_tail_slot(first->sp);
  unsigned long seq = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
  if ((seq & 1) || !__atomic_compare_exchange_n(&t->seq, &seq, seq + 1, false, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED))
    return;
  /* The odd count before any word below (readers check it after theirs). */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&t->gen, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&t->pc, first->pc, __ATOMIC_RELAXED);
  __atomic_store_n(&t->sp, first->sp, __ATOMIC_RELAXED);
  __atomic_store_n(&t->fp, first->fp, __ATOMIC_RELAXED);
  __atomic_store_n(&t->limit, limit, __ATOMIC_RELAXED);
  __atomic_store_n(&t->n, n, __ATOMIC_RELAXED);
  for (long i = 0; i < n; i++) {
    struct asgst_cfi_tail_step *d = &t->step[i];
    __atomic_store_n(&d->ra_at, step[i].ra_at, __ATOMIC_RELAXED);
    __atomic_store_n(&d->ra, step[i].ra, __ATOMIC_RELAXED);
    __atomic_store_n(&d->fp_at, step[i].fp_at, __ATOMIC_RELAXED);
    __atomic_store_n(&d->fp, step[i].fp, __ATOMIC_RELAXED);
    __atomic_store_n(&d->sp, step[i].sp, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&t->seq, seq + 2, __ATOMIC_RELEASE);
}

/* SS. */
long asgst__cfi_tail_record(const struct asgst_cfi_frame *first, const struct asgst_cfi_rule *rule,
                            uintptr_t limit, asgst_cfi_read_fn read, void *ctx,
                            struct asgst_cfi_tail_frame *out) {
  const struct asgst_cfi_snapshot *snap = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  if (!snap || !rule) return ASGST_CFI_TAIL_WALK;
  /* Every read is made before the slot is taken: a fault cannot leave it held. */
  struct asgst_cfi_tail_step step[ASGST_CFI_TAIL_MAX];
  bool failed_read;
  long n = walk_tail(first, rule, limit, read, ctx, step, &failed_read);
  /* Its rules are snap's only if no publication came in between (the lookups above read
   * the snapshot current at each). */
  if (!failed_read && __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE) == snap)
    remember(first, limit, snap->generation, n, step);
  for (long i = 0; i < n; i++) {
    out[i].pc = asgst__strip_pc(step[i].ra);
    out[i].sp = step[i].sp;
    out[i].fp = step[i].fp;
  }
  return n;
}
