/*
 * class_shadow.c - shadow copies of class metadata for the class unload handlers.
 *
 * Why: on a stock JDK 17 the handlers run from JVMTI ObjectFree of the class mirror, which
 * the ServiceThread posts after the GC safepoint that both unloaded the class and freed
 * its metadata (class_unload.c). A handler resolving the handles it is given would read
 * freed memory. So when a class that can be unloaded is registered (while it is alive),
 * everything the metadata accessors return for it is copied here, and while its handlers
 * run the accessors answer from that copy.
 *
 * Layout: one malloc'ed block per class: the header, the method records sorted by
 * Method* (binary search), the line tables as u2 pairs (the class file's LineNumberTable
 * entries are u2 start_pc / u2 line_number), then the strings. Nothing is shared between
 * blocks, so retiring a class frees exactly one block.
 *
 * Publishing and readers: the accessors are SS and may run in a signal handler on any
 * thread while a handler runs, so the lookup takes no lock and allocates nothing. A few
 * slots hold the shadows being reported (atomic pointers); asgst__hs_shadows_published
 * counts them, so outside unload reporting the accessors pay one relaxed load and one
 * not-taken branch. A reader that sees a non-zero count announces itself in `readers`
 * (seq_cst increment) before it loads a slot, and leaves after its last access to the
 * shadow. Retiring clears the slot (seq_cst store) and then frees retired shadows only if
 * `readers` is 0 (seq_cst load): a reader counted after that load loads the slot after
 * the clearing store and cannot get the retired shadow; one counted before keeps the
 * count non-zero and the shadow stays on the retired list until a later reclaim (the next
 * retire or GarbageCollectionStart). This frees shadows as early as is safe, instead of
 * a fixed delay that would only be probably safe.
 */
#include "class_shadow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metadata.h"

#include "../../guard.h"
#include "../../test_build.h"

typedef struct {
  uint32_t off, len; /* into the shadow's strings; each string is NUL-terminated */
} str_ref;

typedef struct {
  uint16_t bci, line;
} line16;

typedef struct {
  uintptr_t method; /* Method* */
  str_ref name, sig, gen;
  jint modifiers, idnum;
  uint32_t lines, nlines; /* first entry in the shadow's line array, count */
} shadow_method;

struct asgst__hs_shadow {
  uintptr_t klass;
  asgst__hs_shadow *next; /* on the retired list */
  str_ref name, gen;
  jint modifiers;
  int nmethods;
  size_t bytes;
  const line16 *lines;
  const char *chars;
  shadow_method methods[]; /* sorted by method */
};

enum { SLOTS = 8 }; /* shadows reported at the same time (ObjectFree from several threads) */

atomic_int asgst__hs_shadows_published;
static _Atomic(asgst__hs_shadow *) slots[SLOTS];
static atomic_int readers;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static asgst__hs_shadow *retired;

#if ASGST__TEST_BUILD
/* What asgst__hs_shadow_stats reports (impl/test_build.h). */
static atomic_long n_shadows, n_methods, n_bytes, n_live, n_published, n_unpublished, n_answered,
    n_discarded;
#define COUNT(counter, n) atomic_fetch_add_explicit(&(counter), (n), memory_order_relaxed)

/* N. */
asgst__hs_shadow_stats_t asgst__hs_shadow_stats(void) {
  return (asgst__hs_shadow_stats_t){atomic_load(&n_shadows), atomic_load(&n_methods),
                                    atomic_load(&n_bytes), atomic_load(&n_live),
                                    atomic_load(&n_published), atomic_load(&n_unpublished),
                                    atomic_load(&n_answered), atomic_load(&n_discarded)};
}
#else
#define COUNT(counter, n) ((void)0) /* the product counts nothing */
#endif

/* ---- taking a snapshot (N) ---- */

typedef struct {
  char *chars;
  size_t nchars, capchars;
  line16 *lines;
  size_t nlines, caplines;
  shadow_method *methods;
  int nmethods;
} builder;

/* N. Makes room for `more` elements of `size` bytes in *p; false when out of memory. */
static bool room(void **p, size_t *cap, size_t used, size_t more, size_t size) {
  if (used + more <= *cap) return true;
  size_t n = *cap ? *cap : 256;
  while (n < used + more) n *= 2;
  void *grown = realloc(*p, n * size);
  if (grown == NULL) return false;
  *p = grown;
  *cap = n;
  return true;
}

/* N. Guarded calls of the VM readers; false (or -1) when the read faulted. */
static bool read_method(ASGST_Method m, ASGST_MethodInfo *mi) {
  volatile bool ok = true;
  ASGST__GUARDED(asgst__hs_method_info(m, mi), ok = false);
  return ok;
}

static bool read_class(ASGST_Class k, ASGST_ClassInfo *ci) {
  volatile bool ok = true;
  ASGST__GUARDED(asgst__hs_class_info(k, ci), ok = false);
  return ok;
}

static int read_lines(ASGST_Method m, ASGST_MethodLineNumberEntry *e, int length) {
  volatile int n = -1;
  ASGST__GUARDED(n = asgst__hs_line_table(m, 0, e, length), n = -1);
  return n;
}

/* N. Room for strings of the given lengths (each + NUL) at the end of b->chars; their
 * offsets go to refs. NULL when out of memory or implausibly long. */
static char *reserve_strings(builder *b, const jint *len, str_ref *refs, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    if (len[i] < 0 || len[i] > 65535) return NULL;
    total += (size_t)len[i] + 1;
  }
  if (!room((void **)&b->chars, &b->capchars, b->nchars, total, 1)) return NULL;
  size_t at = b->nchars;
  for (int i = 0; i < n; i++) {
    refs[i] = (str_ref){(uint32_t)at, (uint32_t)len[i]};
    at += (size_t)len[i] + 1;
  }
  return b->chars + b->nchars;
}

/* N. Appends method m's line table; false if it cannot be read or kept in u2 pairs. */
static bool take_lines(builder *b, ASGST_Method m, shadow_method *sm) {
  int n = read_lines(m, NULL, 0);
  sm->lines = (uint32_t)b->nlines;
  sm->nlines = 0;
  if (n <= 0) return n == 0;
  ASGST_MethodLineNumberEntry *e = malloc((size_t)n * sizeof *e);
  bool ok = e && read_lines(m, e, n) == n &&
            room((void **)&b->lines, &b->caplines, b->nlines, (size_t)n, sizeof *b->lines);
  for (int i = 0; ok && i < n; i++) {
    ok = e[i].start_bci >= 0 && e[i].start_bci <= 65535 && e[i].line_number >= 0 &&
         e[i].line_number <= 65535;
    if (ok) b->lines[b->nlines + (size_t)i] = (line16){(uint16_t)e[i].start_bci, (uint16_t)e[i].line_number};
  }
  free(e);
  if (ok) b->nlines += (size_t)n, sm->nlines = (uint32_t)n;
  return ok;
}

/* N. Appends method m of class k (skipped if it cannot be read or is not k's). Reads
 * twice: first the string lengths (NULL buffers), then the strings at their exact size. */
static void take_method(builder *b, uintptr_t k, ASGST_Method m) {
  ASGST_MethodInfo mi;
  memset(&mi, 0, sizeof mi);
  if (!read_method(m, &mi) || (uintptr_t)mi.klass != k) return;
  jint len[3] = {mi.method_name_length, mi.signature_length, mi.generic_signature_length};
  shadow_method sm = {.method = (uintptr_t)m};
  str_ref refs[3];
  char *at = reserve_strings(b, len, refs, 3);
  if (at == NULL) return;
  mi.method_name = at, mi.method_name_length = len[0] + 1;
  mi.signature = at + refs[1].off - refs[0].off, mi.signature_length = len[1] + 1;
  mi.generic_signature = at + refs[2].off - refs[0].off, mi.generic_signature_length = len[2] + 1;
  if (!read_method(m, &mi) || mi.method_name_length != len[0] || mi.signature_length != len[1] ||
      mi.generic_signature_length != len[2])
    return;
  sm.name = refs[0], sm.sig = refs[1], sm.gen = refs[2];
  sm.modifiers = mi.modifiers;
  sm.idnum = mi.idnum;
  if (!take_lines(b, m, &sm)) return;
  b->nchars = refs[2].off + refs[2].len + 1;
  b->methods[b->nmethods++] = sm;
}

/* N. The class's own fields into s (strings appended to b). */
static bool take_class(builder *b, uintptr_t k, asgst__hs_shadow *s) {
  ASGST_ClassInfo ci;
  memset(&ci, 0, sizeof ci);
  if (!read_class((ASGST_Class)k, &ci) || ci.idnum == 0) return false;
  jint len[2] = {ci.class_name_length, ci.generic_class_name_length};
  str_ref refs[2];
  char *at = reserve_strings(b, len, refs, 2);
  if (at == NULL) return false;
  ci.class_name = at, ci.class_name_length = len[0] + 1;
  ci.generic_class_name = at + refs[1].off - refs[0].off, ci.generic_class_name_length = len[1] + 1;
  if (!read_class((ASGST_Class)k, &ci) || ci.class_name_length != len[0] ||
      ci.generic_class_name_length != len[1])
    return false;
  b->nchars = refs[1].off + refs[1].len + 1;
  s->name = refs[0], s->gen = refs[1];
  s->modifiers = ci.modifiers;
  return true;
}

static int by_method(const void *a, const void *b) {
  uintptr_t x = ((const shadow_method *)a)->method, y = ((const shadow_method *)b)->method;
  return x < y ? -1 : x > y;
}

/* N. One block: header, methods, lines, strings. */
static asgst__hs_shadow *pack(const builder *b, const asgst__hs_shadow *head) {
  size_t mbytes = (size_t)b->nmethods * sizeof(shadow_method);
  size_t lbytes = b->nlines * sizeof(line16);
  size_t bytes = sizeof *head + mbytes + lbytes + b->nchars;
  asgst__hs_shadow *s = malloc(bytes);
  if (s == NULL) return NULL;
  *s = *head;
  s->nmethods = b->nmethods;
  s->bytes = bytes;
  memcpy(s->methods, b->methods, mbytes);
  qsort(s->methods, (size_t)s->nmethods, sizeof *s->methods, by_method);
  line16 *lines = (line16 *)((char *)s->methods + mbytes);
  if (lbytes) memcpy(lines, b->lines, lbytes);
  char *chars = (char *)lines + lbytes;
  if (b->nchars) memcpy(chars, b->chars, b->nchars);
  s->lines = lines;
  s->chars = chars;
  return s;
}

/* N. */
asgst__hs_shadow *asgst__hs_shadow_take(uintptr_t k, const ASGST_Method *methods, int n) {
  builder b = {0};
  asgst__hs_shadow head = {.klass = k};
  asgst__hs_shadow *s = NULL;
  b.methods = malloc((size_t)(n > 0 ? n : 1) * sizeof *b.methods);
  if (b.methods != NULL && take_class(&b, k, &head)) {
    for (int i = 0; i < n; i++) take_method(&b, k, methods[i]);
    s = pack(&b, &head);
  }
  free(b.methods);
  free(b.lines);
  free(b.chars);
  if (s != NULL) {
    COUNT(n_shadows, 1);
    COUNT(n_methods, s->nmethods);
    COUNT(n_bytes, (long)s->bytes);
    COUNT(n_live, 1);
  }
  return s;
}

/* N. */
void asgst__hs_shadow_free(asgst__hs_shadow *s) {
  if (s == NULL) return;
  COUNT(n_live, -1);
  free(s);
}

/* N. */
void asgst__hs_shadow_discard(asgst__hs_shadow *s) {
  if (s == NULL) return;
  COUNT(n_discarded, 1);
  asgst__hs_shadow_free(s);
}

/* ---- publishing and retiring (N) ---- */

/* N. */
bool asgst__hs_shadow_publish(asgst__hs_shadow *s) {
  for (int i = 0; s != NULL && i < SLOTS; i++) {
    asgst__hs_shadow *expected = NULL;
    if (atomic_compare_exchange_strong(&slots[i], &expected, s)) {
      atomic_fetch_add(&asgst__hs_shadows_published, 1);
      COUNT(n_published, 1);
      return true;
    }
  }
  if (s != NULL) COUNT(n_unpublished, 1);
  return false;
}

/* N (retired_lock held). Frees the retired list if no reader is inside a lookup; see the
 * header comment for why a zero count proves no reader holds a retired shadow. */
static void reclaim_locked(void) {
  if (retired == NULL || atomic_load(&readers) != 0) return;
  while (retired != NULL) {
    asgst__hs_shadow *next = retired->next;
    asgst__hs_shadow_free(retired);
    retired = next;
  }
}

/* N. */
void asgst__hs_shadow_retire(asgst__hs_shadow *s) {
  if (s == NULL) return;
  for (int i = 0; i < SLOTS; i++) {
    asgst__hs_shadow *expected = s;
    if (atomic_compare_exchange_strong(&slots[i], &expected, NULL))
      atomic_fetch_sub(&asgst__hs_shadows_published, 1);
  }
  pthread_mutex_lock(&retired_lock);
  s->next = retired;
  retired = s;
  reclaim_locked();
  pthread_mutex_unlock(&retired_lock);
}

/* N. */
void asgst__hs_shadow_reclaim(void) {
  pthread_mutex_lock(&retired_lock);
  reclaim_locked();
  pthread_mutex_unlock(&retired_lock);
}

/* ---- lookups (SS) ---- */

/* SS. The record of Method* m in s, NULL if absent. */
static const shadow_method *find_method(const asgst__hs_shadow *s, uintptr_t m) {
  int lo = 0, hi = s->nmethods - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    uintptr_t at = s->methods[mid].method;
    if (at == m) return &s->methods[mid];
    if (at < m) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

typedef void answer_fn(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx);

/* SS (under the guard, counted in `readers`). Calls answer with the first published shadow
 * of `key` (lookup() says which); false if none. */
static bool answer_from_slots(uintptr_t key, bool is_method, answer_fn *answer, void *ctx) {
  for (int i = 0; i < SLOTS; i++) {
    const asgst__hs_shadow *s = atomic_load(&slots[i]);
    if (s == NULL) continue;
    const shadow_method *sm = is_method ? find_method(s, key) : NULL;
    if (is_method ? sm == NULL : s->klass != key) continue;
    answer(s, sm, ctx);
    return true;
  }
  return false;
}

/* SS. Finds the published shadow of a method (is_method) or class `key` and calls
 * answer with it while counted in `readers`. The answer writes into the caller's
 * buffers, so it runs under a guard of its own: a fault there must not leave `readers`
 * raised (that would stop every later reclaim); it is handed on to the caller's guard. */
static bool lookup(uintptr_t key, bool is_method, answer_fn *answer, void *ctx) {
  volatile bool found = false, faulted = false;
  atomic_fetch_add(&readers, 1);
  ASGST__GUARDED(found = answer_from_slots(key, is_method, answer, ctx), faulted = true);
  atomic_fetch_sub(&readers, 1);
  if (faulted && asgst__guard_top != NULL) siglongjmp(*asgst__guard_top, 1);
  if (found) COUNT(n_answered, 1);
  return found;
}

static void copy(const asgst__hs_shadow *s, str_ref r, char *dst, jint *cap) {
  asgst__copy_string(dst, cap, s->chars + r.off, r.len);
}

static void answer_method_info(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx) {
  ASGST_MethodInfo *info = ctx;
  copy(s, sm->name, info->method_name, &info->method_name_length);
  copy(s, sm->sig, info->signature, &info->signature_length);
  copy(s, sm->gen, info->generic_signature, &info->generic_signature_length);
  info->modifiers = sm->modifiers;
  info->idnum = sm->idnum;
  info->klass = (ASGST_Class)s->klass;
  info->class_idnum = asgst__hs_class_idnum((ASGST_Class)s->klass);
}

static void answer_class_info(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx) {
  (void)sm;
  ASGST_ClassInfo *info = ctx;
  copy(s, s->name, info->class_name, &info->class_name_length);
  copy(s, s->gen, info->generic_class_name, &info->generic_class_name_length);
  info->modifiers = s->modifiers;
  info->idnum = asgst__hs_class_idnum((ASGST_Class)s->klass);
}

static void answer_class(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx) {
  (void)sm;
  *(ASGST_Class *)ctx = (ASGST_Class)s->klass;
}

static void answer_idnum(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx) {
  (void)s;
  *(jint *)ctx = sm->idnum;
}

typedef struct {
  int offset, length, total;
  ASGST_MethodLineNumberEntry *e;
} line_query;

static void answer_lines(const asgst__hs_shadow *s, const shadow_method *sm, void *ctx) {
  line_query *q = ctx;
  q->total = (int)sm->nlines;
  for (int i = q->offset; q->e != NULL && i < q->total && i - q->offset < q->length; i++) {
    line16 l = s->lines[sm->lines + (uint32_t)i];
    q->e[i - q->offset] = (ASGST_MethodLineNumberEntry){l.bci, l.line};
  }
}

/* SS. */
bool asgst__hs_shadow_method_info(ASGST_Method m, ASGST_MethodInfo *info) {
  return lookup((uintptr_t)m, true, answer_method_info, info);
}

/* SS. */
bool asgst__hs_shadow_class_info(ASGST_Class k, ASGST_ClassInfo *info) {
  return lookup((uintptr_t)k, false, answer_class_info, info);
}

/* SS. */
bool asgst__hs_shadow_method_class(ASGST_Method m, ASGST_Class *out) {
  return lookup((uintptr_t)m, true, answer_class, out);
}

/* SS. */
bool asgst__hs_shadow_method_idnum(ASGST_Method m, jint *out) {
  return lookup((uintptr_t)m, true, answer_idnum, out);
}

/* SS. */
bool asgst__hs_shadow_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e,
                                 int length, int *total) {
  line_query q = {offset, length, 0, e};
  if (!lookup((uintptr_t)m, true, answer_lines, &q)) return false;
  *total = q.total;
  return true;
}
