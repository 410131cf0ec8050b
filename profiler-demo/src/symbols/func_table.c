/*
 * func_table.c - the functions of one library, sorted by address with their names in one
 * pool. Symbols are first gathered as candidates pointing into the mapped files (the
 * library's .dynsym and .symtab, or its debug file's .symtab), then one name is chosen per
 * address and only those names are copied, so the files can be unmapped. All N.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/func_table.h"

struct prof_func_cand {
  uint64_t start, size;
  const char *name; /* in a mapped string table */
  uint32_t order;   /* when it was read: the first read wins a tie */
  uint8_t rank;     /* from the binding: global 2, weak 1, local 0 */
};

/* N. An alias's binding rank: the exported name is the one people know (malloc, not
 * __libc_malloc's local twin). */
static uint8_t rank_of(unsigned char info) {
  unsigned b = ELF64_ST_BIND(info);
  return b == STB_GLOBAL ? 2 : b == STB_WEAK || b == STB_GNU_UNIQUE ? 1 : 0;
}

/* N. */
static void push(prof_func_table *t, const prof_func_cand *c) {
  if (t->ncand == t->candcap) {
    size_t cap = t->candcap ? t->candcap * 2 : 4096;
    prof_func_cand *nc = realloc(t->cand, cap * sizeof *nc);
    if (!nc) return;
    t->cand = nc, t->candcap = cap;
  }
  t->cand[t->ncand] = *c;
  t->cand[t->ncand].order = (uint32_t)t->ncand;
  t->ncand++;
}

/* N. */
void prof_func_add(prof_func_table *t, const prof_elf *e, const Elf64_Shdr *sym, int64_t shift) {
  const Elf64_Shdr *str = prof_elf_link(e, sym);
  const uint8_t *syms = prof_elf_data(e, sym), *names = prof_elf_data(e, str);
  if (!syms || !names) return;
  const Elf64_Sym *s = (const void *)syms;
  for (size_t i = 0, n = sym->sh_size / sizeof *s; i < n; i++) {
    unsigned type = ELF64_ST_TYPE(s[i].st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF ||
        !s[i].st_value || s[i].st_name >= str->sh_size)
      continue;
    const char *name = (const char *)names + s[i].st_name;
    size_t room = str->sh_size - s[i].st_name;
    if (!name[0] || strnlen(name, room) == room) continue; /* empty, or not NUL-terminated */
    push(t, &(prof_func_cand){s[i].st_value + (uint64_t)shift, s[i].st_size, name, 0,
                              rank_of(s[i].st_info)});
  }
}

/* N. */
static size_t underscores(const char *s) {
  size_t n = 0;
  while (s[n] == '_') n++;
  return n;
}

/* N. By start; at one start, the preferred name first. */
static int by_start_then_preference(const void *a, const void *b) {
  const prof_func_cand *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->rank != y->rank) return x->rank > y->rank ? -1 : 1;
  size_t ux = underscores(x->name), uy = underscores(y->name);
  if (ux != uy) return ux < uy ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* N. A group of candidates at one start becomes one function: the first's name, the
 * largest size (an alias without a size must not shorten the function). */
void prof_func_finish(prof_func_table *t) {
  qsort(t->cand, t->ncand, sizeof *t->cand, by_start_then_preference);
  size_t pool = 0, kept = 0;
  for (size_t i = 0; i < t->ncand; i++)
    if (i == 0 || t->cand[i].start != t->cand[i - 1].start) {
      pool += strlen(t->cand[i].name) + 1;
      kept++;
    }
  t->f = malloc(kept * sizeof *t->f + 1);
  t->pool = malloc(pool + 1);
  if (!t->f || !t->pool || pool > UINT32_MAX) { /* names past 4 GB cannot be offsets */
    free(t->f), free(t->pool);
    t->f = NULL, t->pool = NULL, kept = 0;
  }
  size_t at = 0;
  t->n = 0;
  for (size_t i = 0; i < t->ncand && kept; i++) {
    const prof_func_cand *c = &t->cand[i];
    uint32_t size = c->size > UINT32_MAX ? UINT32_MAX : (uint32_t)c->size;
    if (t->n && t->f[t->n - 1].start == c->start) {
      if (size > t->f[t->n - 1].size) t->f[t->n - 1].size = size;
      continue;
    }
    size_t len = strlen(c->name) + 1;
    memcpy(t->pool + at, c->name, len);
    t->f[t->n++] = (prof_func){c->start, size, (uint32_t)at};
    at += len;
  }
  free(t->cand);
  t->cand = NULL, t->ncand = t->candcap = 0;
}

/* N. */
const char *prof_func_find(const prof_func_table *t, uint64_t addr) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) { /* the last function starting at or below addr */
    size_t mid = (lo + hi) / 2;
    if (t->f[mid].start <= addr) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return NULL;
  const prof_func *f = &t->f[lo - 1];
  if (f->size && addr - f->start >= f->size) return NULL;
  return t->pool + f->name;
}
