/*
 * cfi_rows.c - building one object's sorted, compacted rows (see cfi_rows.h).
 */
#include "impl/native/cfi_rows.h"

#include <stdlib.h>
#include <string.h>

/* N. */
void asgst__rowvec_push(struct asgst_cfi_rowvec *rv, uint32_t pc_off,
                        const struct asgst_cfi_rule *rule) {
  if (rv->n == rv->cap) {
    size_t cap = rv->cap ? rv->cap * 2 : 256;
    void *v = realloc(rv->v, cap * sizeof *rv->v);
    if (!v) {
      rv->oom = true;
      return;
    }
    rv->v = v;
    rv->cap = cap;
  }
  rv->v[rv->n++] = (struct asgst_cfi_build_row){pc_off, rv->seq++, *rule};
}

/* N. Order: pc, then gap markers before function rows (an FDE's end marker must not hide
 * the next function starting there), then emission order. */
static int by_pc(const void *a, const void *b) {
  const struct asgst_cfi_build_row *x = a, *y = b;
  if (x->pc_off != y->pc_off) return x->pc_off < y->pc_off ? -1 : 1;
  int xg = x->rule.cfa_reg == ASGST_CFA_GAP, yg = y->rule.cfa_reg == ASGST_CFA_GAP;
  if (xg != yg) return xg ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every byte of a rule is a field (pad is always 0), so bytes compare as rules do. */
_Static_assert(sizeof(struct asgst_cfi_rule) == 12, "asgst_cfi_rule has hidden padding");

/* N. */
int asgst__cfi_rule_cmp(const struct asgst_cfi_rule *a, const struct asgst_cfi_rule *b) {
  return memcmp(a, b, sizeof *a);
}

/* N. */
void asgst__rowvec_finish(struct asgst_cfi_rowvec *rv) {
  if (rv->n == 0) return;
  /* Rows from .eh_frame_hdr's table come in order already: then sorting is one pass. */
  size_t i = 1;
  while (i < rv->n && by_pc(&rv->v[i - 1], &rv->v[i]) < 0) i++;
  if (i < rv->n) qsort(rv->v, rv->n, sizeof *rv->v, by_pc);
  size_t out = 0;
  for (size_t i = 0; i < rv->n; i++) {
    if (i + 1 < rv->n && rv->v[i + 1].pc_off == rv->v[i].pc_off) continue;
    if (out > 0 && asgst__cfi_rule_cmp(&rv->v[out - 1].rule, &rv->v[i].rule) == 0) continue;
    rv->v[out++] = rv->v[i];
  }
  rv->n = out;
}

/* N. */
void asgst__rowvec_free(struct asgst_cfi_rowvec *rv) {
  free(rv->v);
  memset(rv, 0, sizeof *rv);
}
