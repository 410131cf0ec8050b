/*
 * cfi_snapshot.h - the published tables: one allocation holding the objects (sorted by
 * address, not overlapping), the dictionary of distinct rules, and every object's rows
 * as two parallel arrays (pcs, rule indexes). Built by cfi_build.c, read by cfi_step.c
 * through one atomic pointer.
 */
#ifndef ASGST_NATIVE_CFI_SNAPSHOT_H
#define ASGST_NATIVE_CFI_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi.h"

/* One loaded object's table: rows cover [lo, hi) (run-time addresses); row i starts at
 * base + pcs[i] and follows the snapshot's rule rule_of[i]. */
struct asgst_cfi_object {
  uintptr_t base, lo, hi;
  const uint32_t *pcs;
  const uint16_t *rule_of;
  size_t nrows;
};

/* Rule index 0 is the gap between functions. */
enum { ASGST_CFI_GAP_RULE = 0, ASGST_CFI_MAX_RULES = 65536 };

struct asgst_cfi_snapshot {
  size_t bytes, nobjects, nrows, nrules;
  struct asgst_cfi_snapshot *next_retired;
  struct asgst_cfi_object *objects;
  const struct asgst_cfi_rule *rules;
};

/* The published snapshot (NULL before the first build). Read with __atomic_load_n
 * (acquire); written only by asgst__cfi_publish. */
extern struct asgst_cfi_snapshot *asgst__cfi_current;

/* N. Publishes s (which may be NULL) and retires the snapshot it replaces. Serialized by
 * the caller. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s);

/* SS. The rule at pc in s, NULL if no object covers pc or pc is in a gap. */
const struct asgst_cfi_rule *asgst__cfi_snapshot_rule(const struct asgst_cfi_snapshot *s,
                                                      uintptr_t pc);

#endif
