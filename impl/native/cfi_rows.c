/*
 * cfi_rows.c - building one object's sorted, compacted rows (see cfi_rows.h).
 */
#include "impl/native/cfi_rows.h"

#include <stdlib.h>
#include <string.h>

/* N. */
void asgst__rowvec_push(struct asgst_cfi_rowvec *rv, const struct asgst_cfi_row *row) {
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
  rv->v[rv->n].row = *row;
  rv->v[rv->n].seq = rv->seq++;
  rv->n++;
}

/* N. Order: pc, then gap markers before function rows (an FDE's end marker must not hide
 * the next function starting there), then emission order. */
static int by_pc(const void *a, const void *b) {
  const struct asgst_cfi_build_row *x = a, *y = b;
  if (x->row.pc_off != y->row.pc_off) return x->row.pc_off < y->row.pc_off ? -1 : 1;
  int xg = x->row.cfa_reg == ASGST_CFA_GAP, yg = y->row.cfa_reg == ASGST_CFA_GAP;
  if (xg != yg) return xg ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* N. Same rule (pc aside). */
static bool same_rule(const struct asgst_cfi_row *a, const struct asgst_cfi_row *b) {
  return a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off && a->fp_rule == b->fp_rule &&
         a->fp_off == b->fp_off && a->ra_rule == b->ra_rule && a->ra_off == b->ra_off;
}

/* N. */
void asgst__rowvec_finish(struct asgst_cfi_rowvec *rv) {
  if (rv->n == 0) return;
  qsort(rv->v, rv->n, sizeof *rv->v, by_pc);
  size_t out = 0;
  for (size_t i = 0; i < rv->n; i++) {
    if (i + 1 < rv->n && rv->v[i + 1].row.pc_off == rv->v[i].row.pc_off) continue;
    if (out > 0 && same_rule(&rv->v[out - 1].row, &rv->v[i].row)) continue;
    rv->v[out++] = rv->v[i];
  }
  rv->n = out;
}

/* N. */
void asgst__rowvec_free(struct asgst_cfi_rowvec *rv) {
  free(rv->v);
  memset(rv, 0, sizeof *rv);
}
