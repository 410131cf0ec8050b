/*
 * cfi_step.c - the signal handler's side of the tables as functions (cfi.h): looking up
 * a pc's row and stepping one C frame to its caller with it, or where it has no usable
 * row through a signal frame (sigframe.h) or, interrupted there, a PLT entry
 * (asgst__cfi_plt_step). The work is in cfi_inline.h. Async-signal-safe: one atomic load
 * of the published snapshot, a search of its objects and of one table (often answered by
 * the table's cache), reads only through the caller's callback.
 */
/* No SLP vectorization: it packs the caller's registers into 16-byte stores that the
 * caller then reads back 8 bytes at a time, behind the chain of the stack reads. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "impl/arch/arch.h"
#include "impl/arch/plt_entry.h"
#include "impl/native/cfi.h"
#include "impl/native/cfi_inline.h"
#include "impl/native/sigframe.h"

/* SS. */
const struct asgst_cfi_rule *asgst__cfi_lookup_near(uintptr_t pc, bool pc_is_return_address,
                                                    const struct asgst_cfi_object **near) {
  return asgst__cfi_find(pc, pc_is_return_address, near);
}

/* SS. */
const struct asgst_cfi_rule *asgst__cfi_lookup(uintptr_t pc, bool pc_is_return_address) {
  const struct asgst_cfi_object *near = NULL;
  return asgst__cfi_find(pc, pc_is_return_address, &near);
}

/* SS. */
int asgst__cfi_step(struct asgst_cfi_frame *frame, bool pc_is_return_address,
                    asgst_cfi_read_fn read, void *ctx) {
  int r = asgst__cfi_apply(asgst__cfi_lookup(frame->pc, pc_is_return_address), frame, read, ctx);
  if (r == ASGST_CFI_NO_RULE) r = asgst__sigframe_step(frame, !pc_is_return_address, read, ctx);
  return r == ASGST_CFI_NO_RULE ? asgst__cfi_plt_step(frame, !pc_is_return_address, read, ctx) : r;
}

/* SS. */
int asgst__cfi_step_with(const struct asgst_cfi_rule *rule, struct asgst_cfi_frame *frame,
                         asgst_cfi_read_fn read, void *ctx) {
  return asgst__cfi_apply(rule, frame, read, ctx);
}

/* SS. A binary search of the published snapshot's executable segments: 1 if pc lies in
 * one, 0 if in none, -1 if no tables are published yet. */
static int in_code(uintptr_t pc) {
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  if (!s) return -1;
  size_t lo = 0, hi = s->ncode;
  while (lo < hi) { /* the first segment ending above pc */
    size_t mid = lo + (hi - lo) / 2;
    if (s->code[mid].hi <= pc) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->ncode && s->code[lo].lo <= pc;
}

/* SS. */
bool asgst__cfi_outside_code(uintptr_t pc) { return in_code(pc) == 0; }

/* SS. */
bool asgst__cfi_inside_code(uintptr_t pc) { return in_code(pc) == 1; }

/* SS. See cfi.h. */
int asgst__cfi_plt_step(struct asgst_cfi_frame *frame, bool top, asgst_cfi_read_fn read,
                        void *ctx) {
  uintptr_t lr = asgst__strip_pc(frame->lr);
  if (!top || lr == 0 || in_code(frame->pc) != 1 || in_code(lr) != 1 ||
      !asgst__plt_entry_at(frame->pc, read, ctx))
    return ASGST_CFI_NO_RULE;
  frame->pc = lr;
  frame->lr = 0;
  return ASGST_CFI_STEPPED;
}
