/*
 * cfi_table.c - building one object's table and searching it (see cfi_table.h).
 */
#include "impl/native/cfi_table.h"

#include <stdlib.h>
#include <string.h>

/* The cache's size in words: about one per 16 rows (a hot path touches few functions of
 * an object), a power of two, at most 4096 (32 KiB, libjvm's). */
enum { HITS_MIN_BITS = 4, HITS_MAX_BITS = 12 };

/* N. log2 of the cache's size for n rows. */
static uint32_t hit_bits(size_t nrows) {
  uint32_t bits = HITS_MIN_BITS;
  while (bits < HITS_MAX_BITS && ((size_t)1 << (bits + 4)) < nrows) bits++;
  return bits;
}

/* N. ASGST_CFI_PLAIN_* of r (cfi.h), 0 if it is not plain. */
static uint8_t plain_kind(const struct asgst_cfi_rule *r) {
  bool fp_ok = r->fp_rule == ASGST_REG_SAME || r->fp_rule == ASGST_REG_UNDEF ||
               (r->fp_rule == ASGST_REG_AT_CFA && r->fp_off % 8 == 0);
  if (r->ra_rule != ASGST_REG_AT_CFA || r->ra_off % 8 != 0 || !fp_ok) return 0;
  if (r->cfa_reg == ASGST_CFA_SP) return r->cfa_off > 0 && r->cfa_off % 8 == 0 ? ASGST_CFI_PLAIN_SP : 0;
  return r->cfa_reg == ASGST_CFA_FP ? ASGST_CFI_PLAIN_FP : 0;
}

/* N. */
static int by_rule(const void *a, const void *b) {
  return asgst__cfi_rule_cmp(a, b);
}

/* N. The distinct rules of rv's rows but the gaps, sorted, in *n; NULL if out of memory. */
static struct asgst_cfi_rule *distinct_rules(const struct asgst_cfi_rowvec *rv, size_t *n) {
  struct asgst_cfi_rule *all = malloc((rv->n + 1) * sizeof *all);
  if (!all) return NULL;
  size_t k = 0;
  for (size_t r = 0; r < rv->n; r++)
    if (rv->v[r].rule.cfa_reg != ASGST_CFA_GAP) all[k++] = rv->v[r].rule;
  qsort(all, k, sizeof *all, by_rule);
  size_t out = 0;
  for (size_t i = 0; i < k; i++)
    if (out == 0 || asgst__cfi_rule_cmp(&all[out - 1], &all[i]) != 0) all[out++] = all[i];
  *n = out;
  return all;
}

/* N. A row's rule index: the gap is 0, the others follow it in dictionary order. */
static uint16_t index_of(const struct asgst_cfi_rule *dict, size_t n,
                         const struct asgst_cfi_rule *rule) {
  if (rule->cfa_reg == ASGST_CFA_GAP) return ASGST_CFI_GAP_RULE;
  const struct asgst_cfi_rule *found = bsearch(rule, dict, n, sizeof *dict, by_rule);
  return (uint16_t)(found - dict + 1);
}

/* N. Lays out the allocation after the header: cache words (8-aligned) first, then
 * rules, pcs, rule indexes, name; returns its size. With t NULL it only measures. */
static size_t layout(struct asgst_cfi_table *t, size_t nrows, size_t nrules, size_t hits,
                     size_t namelen) {
  size_t at = (sizeof *t + 15) & ~(size_t)15; /* a cache pair in one line (cfi_table.h) */
  size_t hits_at = at;
  at += hits * sizeof(uint64_t);
  size_t rules_at = at;
  at += nrules * sizeof(struct asgst_cfi_rule);
  size_t pcs_at = at;
  at += nrows * sizeof(uint32_t);
  size_t rule_of_at = at;
  at += nrows * sizeof(uint16_t);
  size_t name_at = at;
  at += namelen + 1;
  if (t) {
    char *p = (char *)t;
    t->hits = hits ? (uint64_t *)(p + hits_at) : NULL;
    t->rules = (const struct asgst_cfi_rule *)(p + rules_at);
    t->pcs = (const uint32_t *)(p + pcs_at);
    t->rule_of = (const uint16_t *)(p + rule_of_at);
    t->id.name = p + name_at;
  }
  return at;
}

/* N. */
struct asgst_cfi_table *asgst__cfi_table_new(const struct asgst_cfi_identity *id,
                                             const struct asgst_cfi_rowvec *rv) {
  size_t ndict = 0;
  struct asgst_cfi_rule *dict = distinct_rules(rv, &ndict);
  if (!dict || ndict + 1 > ASGST_CFI_MAX_RULES) {
    free(dict);
    return NULL;
  }
  const char *name = id->name ? id->name : "";
  uint32_t bits = rv->n ? hit_bits(rv->n) : 0;
  size_t hits = rv->n ? (size_t)1 << bits : 0;
  size_t bytes = layout(NULL, rv->n, ndict + 1, hits, strlen(name));
  struct asgst_cfi_table *t = calloc(1, bytes);
  if (t) {
    layout(t, rv->n, ndict + 1, hits, strlen(name));
    memcpy((char *)t->id.name, name, strlen(name) + 1);
    t->id = (struct asgst_cfi_identity){id->base, id->phdr, id->dev, id->ino, t->id.name};
    t->bytes = bytes;
    t->nrows = rv->n;
    t->nrules = ndict + 1;
    t->hit_shift = 32 - bits;
    struct asgst_cfi_rule *rules = (struct asgst_cfi_rule *)t->rules;
    rules[ASGST_CFI_GAP_RULE] = (struct asgst_cfi_rule){.cfa_reg = ASGST_CFA_GAP};
    memcpy(rules + 1, dict, ndict * sizeof *dict);
    for (size_t i = 1; i <= ndict; i++) rules[i].plain = plain_kind(&rules[i]);
    uint32_t *pcs = (uint32_t *)t->pcs;
    uint16_t *rule_of = (uint16_t *)t->rule_of;
    for (size_t r = 0; r < rv->n; r++) {
      pcs[r] = rv->v[r].pc_off;
      rule_of[r] = index_of(dict, ndict, &rv->v[r].rule);
    }
    /* The last row is always the end marker of the highest FDE. */
    t->lo = t->hi = id->base;
    if (rv->n) t->lo = id->base + pcs[0], t->hi = id->base + pcs[rv->n - 1];
  }
  free(dict);
  return t;
}

/* N. */
bool asgst__cfi_table_is(const struct asgst_cfi_table *t, const struct asgst_cfi_identity *id) {
  return t->id.base == id->base && t->id.phdr == id->phdr && t->id.dev == id->dev &&
         t->id.ino == id->ino && strcmp(t->id.name, id->name ? id->name : "") == 0;
}
