/*
 * cfi_step.c - the signal handler's side of the tables: looking up a pc's row and
 * stepping one C frame to its caller with it. Async-signal-safe: one atomic load of the
 * published snapshot, two binary searches, reads only through the caller's callback.
 */
#include "impl/native/cfi.h"
#include "impl/native/cfi_snapshot.h"

/* SS. */
const struct asgst_cfi_rule *asgst__cfi_lookup(uintptr_t pc, bool pc_is_return_address) {
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  if (!s) return NULL;
  /* A return address may lie past the end of its function (a call to a noreturn
   * function as the last instruction): the call itself is one byte before it. */
  return asgst__cfi_snapshot_rule(s, pc_is_return_address ? pc - 1 : pc);
}

/* SS. */
int asgst__cfi_step(struct asgst_cfi_frame *frame, bool pc_is_return_address,
                    asgst_cfi_read_fn read, void *ctx) {
  const struct asgst_cfi_rule *rule = asgst__cfi_lookup(frame->pc, pc_is_return_address);
  if (!rule || (rule->cfa_reg != ASGST_CFA_SP && rule->cfa_reg != ASGST_CFA_FP))
    return ASGST_CFI_NO_RULE;
  if (rule->ra_rule == ASGST_REG_UNDEF) return ASGST_CFI_OUTERMOST;
  /* "Same value" return addresses (arm64 leaf functions keep it in the link register)
   * need a register the frame does not carry yet. */
  if (rule->ra_rule != ASGST_REG_AT_CFA || rule->fp_rule == ASGST_REG_OTHER)
    return ASGST_CFI_NO_RULE;
  uintptr_t cfa = (rule->cfa_reg == ASGST_CFA_SP ? frame->sp : frame->fp) + (intptr_t)rule->cfa_off;
  /* The caller's frame lies above this one (the CFA equals sp only at an arm64 entry): a
   * CFA below sp comes from a corrupt frame pointer, and would let a walk go round. */
  if (cfa < frame->sp) return ASGST_CFI_BAD_READ;
  uintptr_t ra, fp = frame->fp;
  if (!read(ctx, cfa + (intptr_t)rule->ra_off, &ra)) return ASGST_CFI_BAD_READ;
  if (rule->fp_rule == ASGST_REG_AT_CFA && !read(ctx, cfa + (intptr_t)rule->fp_off, &fp))
    return ASGST_CFI_BAD_READ;
  if (rule->fp_rule == ASGST_REG_UNDEF) fp = 0;
  /* On both x86_64 and arm64 the caller's stack pointer is the CFA. */
  *frame = (struct asgst_cfi_frame){.pc = ra, .sp = cfa, .fp = fp};
  return ASGST_CFI_STEPPED;
}
