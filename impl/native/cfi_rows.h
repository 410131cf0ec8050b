/*
 * cfi_rows.h - the rows of one object while its table is built: appended in any order
 * by the CFA interpreter, then sorted and compacted into one row per change of rule.
 * All N (table building only).
 */
#ifndef ASGST_NATIVE_CFI_ROWS_H
#define ASGST_NATIVE_CFI_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi.h"

/* A row: the rule from pc_off (offset from the object's load base) up to the next row,
 * with its place in emission order (at one pc the later row wins). */
struct asgst_cfi_build_row {
  uint32_t pc_off, seq;
  struct asgst_cfi_rule rule;
};

struct asgst_cfi_rowvec {
  struct asgst_cfi_build_row *v;
  size_t n, cap;
  uint32_t seq;
  bool oom;
};

/* N. Appends a row (sets oom and drops it if memory runs out). */
void asgst__rowvec_push(struct asgst_cfi_rowvec *rv, uint32_t pc_off,
                        const struct asgst_cfi_rule *rule);

/* N. Sorts by pc, keeps one row per pc (a function's row over a gap marker, else the
 * later one) and drops rows whose rule equals the previous row's. */
void asgst__rowvec_finish(struct asgst_cfi_rowvec *rv);

/* N. Orders rules (any total order, for sorting and searching a dictionary). */
int asgst__cfi_rule_cmp(const struct asgst_cfi_rule *a, const struct asgst_cfi_rule *b);

/* N. */
void asgst__rowvec_free(struct asgst_cfi_rowvec *rv);

#endif
