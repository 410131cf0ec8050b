/*
 * cfi_build.c - building the tables of all loaded objects into one snapshot (N, never in
 * a signal handler). dl_iterate_phdr lists the objects; one whose table the published
 * snapshot already holds (the same identity, cfi_table.h) keeps it, any other is parsed:
 * its .eh_frame_hdr, found through PT_GNU_EH_FRAME, lists its FDEs (an object without it
 * is looked up in its file's .debug_frame), their rows are sorted, compacted and made a
 * table. The new snapshot (the objects sorted by address) is then published. So a
 * library load costs the parsing of that library, not of libjvm and libc again.
 * dl_iterate_phdr holds the loader's lock meanwhile: a dlopen in another thread waits
 * (tens of milliseconds for a first build with libjvm).
 */
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_rows.h"
#include "impl/native/cfi_snapshot.h"
#include "impl/native/debug_frame.h"
#include "impl/native/eh_frame.h"

struct build {
  const struct asgst_cfi_snapshot *prev; /* the published one, whose tables may be kept */
  struct asgst_cfi_table **v;
  size_t n, cap;
  struct asgst_cfi_code *code; /* executable segments of every object */
  size_t ncode, code_cap;
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

/* N. Room for one more table. */
static bool reserve(struct build *b) {
  if (b->n < b->cap) return true;
  size_t cap = b->cap ? 2 * b->cap : 64;
  struct asgst_cfi_table **v = realloc(b->v, cap * sizeof *v);
  if (!v) return false;
  b->v = v;
  b->cap = cap;
  return true;
}

/* N. Adds the object's executable segments to b->code; false if out of memory. */
static bool add_code(struct build *b, const struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0) continue;
    if (b->ncode == b->code_cap) {
      size_t cap = b->code_cap ? 2 * b->code_cap : 128;
      struct asgst_cfi_code *v = realloc(b->code, cap * sizeof *v);
      if (!v) return false;
      b->code = v;
      b->code_cap = cap;
    }
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    b->code[b->ncode++] = (struct asgst_cfi_code){lo, lo + ph->p_memsz};
  }
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

/* N. The file of an object (the main program's has no name in the list: it is
 * /proc/self/exe). */
static const char *path_of(const struct dl_phdr_info *info) {
  return info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
}

/* N. The object's identity; its file's device and inode stay 0 where it has no file. */
static struct asgst_cfi_identity identity_of(const struct dl_phdr_info *info) {
  struct asgst_cfi_identity id = {info->dlpi_addr, info->dlpi_phdr, 0, 0, info->dlpi_name};
  struct stat st;
  if (stat(path_of(info), &st) == 0) id.dev = st.st_dev, id.ino = st.st_ino;
  return id;
}

/* N. The published table of the object id, NULL if none. */
static struct asgst_cfi_table *published_table(const struct build *b,
                                               const struct asgst_cfi_identity *id) {
  for (size_t i = 0; b->prev && i < b->prev->ntables; i++)
    if (asgst__cfi_table_is(b->prev->tables[i], id)) return b->prev->tables[i];
  return NULL;
}

/* N. A new table of the object: its rows from .eh_frame, or where that gives none (an
 * object built without it) from .debug_frame. NULL if out of memory. */
static struct asgst_cfi_table *parse(const struct dl_phdr_info *info,
                                     const struct asgst_cfi_identity *id) {
  struct asgst_cfi_rowvec rv = {0};
  eh_frame_rows(info, &rv);
  if (rv.n == 0) asgst__cfi_debug_frame_rows(path_of(info), &rv);
  asgst__rowvec_finish(&rv);
  struct asgst_cfi_table *t = rv.oom ? NULL : asgst__cfi_table_new(id, &rv);
  asgst__rowvec_free(&rv);
  return t;
}

/* N. dl_iterate_phdr's callback: the object's table, kept or new. */
static int on_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct build *b = data;
  struct asgst_cfi_identity id = identity_of(info);
  struct asgst_cfi_table *t = published_table(b, &id);
  if (!t) t = parse(info, &id);
  if (!t || !reserve(b) || !add_code(b, info)) {
    if (t && t->generation == 0) free(t);
    b->oom = true;
    return 1;
  }
  b->v[b->n++] = t;
  return 0;
}

/* N. */
static int by_address(const void *a, const void *b) {
  const struct asgst_cfi_table *x = *(struct asgst_cfi_table *const *)a;
  const struct asgst_cfi_table *y = *(struct asgst_cfi_table *const *)b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* N. */
static int code_by_address(const void *a, const void *b) {
  const struct asgst_cfi_code *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* N. One allocation: header, objects with rows, every table, the code segments. An
 * object overlapping the one before it (which loaded objects never do) is not searched,
 * so the search stays sound. NULL if out of memory. */
static struct asgst_cfi_snapshot *assemble(struct build *b) {
  qsort(b->v, b->n, sizeof *b->v, by_address);
  if (b->ncode) qsort(b->code, b->ncode, sizeof *b->code, code_by_address);
  size_t bytes = sizeof(struct asgst_cfi_snapshot) + b->n * sizeof(struct asgst_cfi_object) +
                 b->n * sizeof(struct asgst_cfi_table *) + b->ncode * sizeof(struct asgst_cfi_code);
  struct asgst_cfi_snapshot *s = calloc(1, bytes);
  if (!s) return NULL;
  s->bytes = bytes;
  s->objects = (struct asgst_cfi_object *)(s + 1);
  s->tables = (struct asgst_cfi_table **)(s->objects + b->n);
  memcpy(s->tables, b->v, b->n * sizeof *b->v);
  s->ntables = b->n;
  s->code = (struct asgst_cfi_code *)(s->tables + b->n);
  if (b->ncode) memcpy(s->code, b->code, b->ncode * sizeof *b->code);
  s->ncode = b->ncode;
  for (size_t i = 0; i < b->n; i++) {
    struct asgst_cfi_table *t = b->v[i];
    if (t->nrows == 0 || (s->nobjects > 0 && t->lo < s->objects[s->nobjects - 1].hi)) continue;
    s->objects[s->nobjects++] =
        (struct asgst_cfi_object){t->lo, t->hi, t->id.base, t->hits, t->rules, t, t->hit_shift};
  }
  return s;
}

/* N. */
int asgst__cfi_build(void) {
  pthread_mutex_lock(&build_lock);
  struct build b = {.prev = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE)};
  dl_iterate_phdr(on_object, &b);
  struct asgst_cfi_snapshot *s = b.oom ? NULL : assemble(&b);
  if (s) {
    asgst__cfi_publish(s);
  } else {
    for (size_t i = 0; i < b.n; i++) /* the new tables: published ones stay */
      if (b.v[i]->generation == 0) free(b.v[i]);
  }
  free(b.v);
  free(b.code);
  pthread_mutex_unlock(&build_lock);
  return s ? 0 : -1;
}
