/*
 * cfi_build.c - building the tables of all loaded objects into one snapshot (N, never in
 * a signal handler): each object's .eh_frame_hdr, found through dl_iterate_phdr's
 * PT_GNU_EH_FRAME, lists its FDEs (an object without it is looked up in its file's
 * .debug_frame); their rows are sorted and compacted, their rules
 * gathered into one dictionary, and everything copied into one allocation, which is
 * then published. dl_iterate_phdr holds the loader's lock meanwhile: a dlopen in
 * another thread waits for the build (tens of milliseconds with libjvm).
 */
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_rows.h"
#include "impl/native/cfi_snapshot.h"
#include "impl/native/debug_frame.h"
#include "impl/native/eh_frame.h"

/* One object's rows while the build runs. */
struct built {
  uintptr_t base, lo, hi;
  struct asgst_cfi_rowvec rv;
};

struct build {
  struct built *v;
  size_t n, cap, rows;
  bool oom;
};

/* Builds do not overlap; readers never take this lock. */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. The loaded segment (PT_LOAD) holding the object's vaddr, as a source for the parser. */
static bool segment_of(const struct dl_phdr_info *info, ElfW(Addr) vaddr,
                       struct asgst_cfi_source *src) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_memsz) {
      const uint8_t *lo = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
      *src = (struct asgst_cfi_source){.lo = lo, .hi = lo + ph->p_memsz, .base = info->dlpi_addr};
      return true;
    }
  }
  return false;
}

/* N. Room for one more object. */
static bool reserve(struct build *b) {
  if (b->n < b->cap) return true;
  size_t cap = b->cap ? 2 * b->cap : 64;
  struct built *v = realloc(b->v, cap * sizeof *v);
  if (!v) return false;
  b->v = v;
  b->cap = cap;
  return true;
}

/* N. The rows its .eh_frame_hdr lists, if the object maps one. */
static void eh_frame_rows(const struct dl_phdr_info *info, struct asgst_cfi_rowvec *rv) {
  const ElfW(Phdr) *hdr = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME) hdr = &info->dlpi_phdr[i];
  struct asgst_cfi_source src;
  if (hdr && segment_of(info, hdr->p_vaddr, &src))
    asgst__cfi_eh_frame_hdr_rows(&src, (const uint8_t *)(info->dlpi_addr + hdr->p_vaddr), rv);
}

/* N. The rows of the .debug_frame in the object's file (the main program's has no name
 * in the list: it is /proc/self/exe). */
static void debug_frame_rows(const struct dl_phdr_info *info, struct asgst_cfi_rowvec *rv) {
  const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
  asgst__cfi_debug_frame_rows(path, rv);
}

/* N. Adds the object's rows to the build: from .eh_frame, or where that gives none
 * (an object built without it), from .debug_frame. */
static void add_object(const struct dl_phdr_info *info, struct build *b) {
  struct asgst_cfi_rowvec rv = {0};
  eh_frame_rows(info, &rv);
  if (rv.n == 0) debug_frame_rows(info, &rv);
  asgst__rowvec_finish(&rv);
  if (rv.oom || rv.n == 0 || !reserve(b)) {
    b->oom |= rv.oom || rv.n > 0;
    asgst__rowvec_free(&rv);
    return;
  }
  /* The last row is always the end marker of the highest FDE. */
  b->v[b->n++] = (struct built){info->dlpi_addr, info->dlpi_addr + rv.v[0].pc_off,
                                info->dlpi_addr + rv.v[rv.n - 1].pc_off, rv};
  b->rows += rv.n;
}

/* N. dl_iterate_phdr's callback. */
static int on_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  add_object(info, data);
  return 0;
}

/* N. */
static int by_address(const void *a, const void *b) {
  const struct built *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* N. */
static int by_rule(const void *a, const void *b) {
  return asgst__cfi_rule_cmp(a, b);
}

/* N. The distinct rules of all rows but the gaps, sorted, in *n; NULL if out of memory. */
static struct asgst_cfi_rule *distinct_rules(const struct build *b, size_t *n) {
  struct asgst_cfi_rule *all = malloc((b->rows + 1) * sizeof *all);
  if (!all) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < b->n; i++)
    for (size_t r = 0; r < b->v[i].rv.n; r++)
      if (b->v[i].rv.v[r].rule.cfa_reg != ASGST_CFA_GAP) all[k++] = b->v[i].rv.v[r].rule;
  qsort(all, k, sizeof *all, by_rule);
  size_t out = 0;
  for (size_t i = 0; i < k; i++)
    if (out == 0 || asgst__cfi_rule_cmp(&all[out - 1], &all[i]) != 0) all[out++] = all[i];
  *n = out;
  return all;
}

/* N. The snapshot's index of a row's rule: the gap is 0, the others follow it in
 * dictionary order. */
static uint16_t index_of(const struct asgst_cfi_rule *dict, size_t n,
                         const struct asgst_cfi_rule *rule) {
  if (rule->cfa_reg == ASGST_CFA_GAP) return ASGST_CFI_GAP_RULE;
  const struct asgst_cfi_rule *found = bsearch(rule, dict, n, sizeof *dict, by_rule);
  return (uint16_t)(found - dict + 1);
}

/* N. Copies the objects' rows into the snapshot's arrays; an object overlapping the one
 * before it (which loaded objects never do) is dropped so the search stays sound. */
static void fill(struct asgst_cfi_snapshot *s, const struct build *b, uint32_t *pcs,
                 uint16_t *rule_of, const struct asgst_cfi_rule *dict, size_t ndict) {
  for (size_t i = 0; i < b->n; i++) {
    const struct built *o = &b->v[i];
    if (s->nobjects > 0 && o->lo < s->objects[s->nobjects - 1].hi) continue;
    s->objects[s->nobjects++] = (struct asgst_cfi_object){o->base, o->lo, o->hi, pcs, rule_of,
                                                          o->rv.n};
    for (size_t r = 0; r < o->rv.n; r++) {
      pcs[r] = o->rv.v[r].pc_off;
      rule_of[r] = index_of(dict, ndict, &o->rv.v[r].rule);
    }
    pcs += o->rv.n;
    rule_of += o->rv.n;
    s->nrows += o->rv.n;
  }
}

/* N. One allocation: header, objects, rules (the gap first), all pcs, all rule indexes.
 * NULL if out of memory or (never seen) more distinct rules than an index holds. */
static struct asgst_cfi_snapshot *assemble(struct build *b) {
  qsort(b->v, b->n, sizeof *b->v, by_address);
  size_t ndict;
  struct asgst_cfi_rule *dict = distinct_rules(b, &ndict);
  if (!dict || ndict + 1 > ASGST_CFI_MAX_RULES) {
    free(dict);
    return NULL;
  }
  size_t bytes = sizeof(struct asgst_cfi_snapshot) + b->n * sizeof(struct asgst_cfi_object) +
                 (ndict + 1) * sizeof(struct asgst_cfi_rule) +
                 b->rows * (sizeof(uint32_t) + sizeof(uint16_t));
  struct asgst_cfi_snapshot *s = calloc(1, bytes);
  if (s) {
    s->bytes = bytes;
    s->objects = (struct asgst_cfi_object *)(s + 1);
    struct asgst_cfi_rule *rules = (struct asgst_cfi_rule *)(s->objects + b->n);
    rules[ASGST_CFI_GAP_RULE] = (struct asgst_cfi_rule){.cfa_reg = ASGST_CFA_GAP};
    memcpy(rules + 1, dict, ndict * sizeof *dict);
    s->rules = rules;
    s->nrules = ndict + 1;
    uint32_t *pcs = (uint32_t *)(rules + ndict + 1);
    fill(s, b, pcs, (uint16_t *)(pcs + b->rows), dict, ndict);
  }
  free(dict);
  return s;
}

/* N. */
int asgst__cfi_build(void) {
  pthread_mutex_lock(&build_lock);
  struct build b = {0};
  dl_iterate_phdr(on_object, &b);
  struct asgst_cfi_snapshot *s = b.oom ? NULL : assemble(&b);
  for (size_t i = 0; i < b.n; i++) asgst__rowvec_free(&b.v[i].rv);
  free(b.v);
  if (s) asgst__cfi_publish(s);
  pthread_mutex_unlock(&build_lock);
  return s ? 0 : -1;
}
