/*
 * cfi_snapshot.c - publishing, retiring and searching snapshots of the tables (see
 * cfi_snapshot.h and cfi.h for the lifetime rule).
 */
#include "impl/native/cfi_snapshot.h"

#include <pthread.h>
#include <stdlib.h>

struct asgst_cfi_snapshot *asgst__cfi_current;

/* Snapshots replaced but perhaps still read by a walk in progress; guarded by
 * retired_lock (never taken by readers). */
static struct asgst_cfi_snapshot *retired;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s) {
  struct asgst_cfi_snapshot *old = __atomic_exchange_n(&asgst__cfi_current, s, __ATOMIC_ACQ_REL);
  if (!old) return;
  pthread_mutex_lock(&retired_lock);
  old->next_retired = retired;
  __atomic_store_n(&retired, old, __ATOMIC_RELEASE); /* asgst__cfi_report reads it unlocked */
  pthread_mutex_unlock(&retired_lock);
}

/* N. */
void asgst__cfi_release_retired(void) {
  pthread_mutex_lock(&retired_lock);
  struct asgst_cfi_snapshot *s = __atomic_exchange_n(&retired, NULL, __ATOMIC_ACQ_REL);
  pthread_mutex_unlock(&retired_lock);
  while (s) {
    struct asgst_cfi_snapshot *next = s->next_retired;
    free(s);
    s = next;
  }
}

/* N. */
void asgst__cfi_shutdown(void) {
  asgst__cfi_publish(NULL);
  asgst__cfi_release_retired();
}

/* SS. Reads the retired list without its lock: the sum may miss a snapshot retired at
 * this very moment, which a report may. */
void asgst__cfi_report(struct asgst_cfi_report *out) {
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  *out = (struct asgst_cfi_report){0};
  if (s) {
    out->bytes = s->bytes;
    out->objects = s->nobjects;
    out->rows = s->nrows;
    out->rules = s->nrules;
  }
  for (const struct asgst_cfi_snapshot *r = __atomic_load_n(&retired, __ATOMIC_ACQUIRE); r;
       r = r->next_retired)
    out->retired_bytes += r->bytes;
}

/* SS. The object covering pc, NULL if none. */
static const struct asgst_cfi_object *object_of(const struct asgst_cfi_snapshot *s,
                                                uintptr_t pc) {
  size_t lo = 0, hi = s->nobjects;
  while (lo < hi) { /* first object whose hi is above pc */
    size_t mid = lo + (hi - lo) / 2;
    if (s->objects[mid].hi <= pc) lo = mid + 1;
    else hi = mid;
  }
  if (lo == s->nobjects || pc < s->objects[lo].lo) return NULL;
  return &s->objects[lo];
}

/* SS. */
const struct asgst_cfi_rule *asgst__cfi_snapshot_rule(const struct asgst_cfi_snapshot *s,
                                                      uintptr_t pc) {
  const struct asgst_cfi_object *o = object_of(s, pc);
  if (!o) return NULL;
  uint32_t off = (uint32_t)(pc - o->base);
  size_t lo = 0, hi = o->nrows;
  while (lo < hi) { /* first row starting above off */
    size_t mid = lo + (hi - lo) / 2;
    if (o->pcs[mid] <= off) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0 || o->rule_of[lo - 1] == ASGST_CFI_GAP_RULE) return NULL;
  return &s->rules[o->rule_of[lo - 1]];
}
