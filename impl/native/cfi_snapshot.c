/*
 * cfi_snapshot.c - publishing, retiring and searching snapshots of the tables (see
 * cfi_snapshot.h for the lifetime rule).
 */
#include "impl/native/cfi_snapshot.h"

#include <pthread.h>
#include <stdlib.h>

struct asgst_cfi_snapshot *asgst__cfi_current;

/* Snapshots replaced and tables of objects gone, perhaps still read by a walk in
 * progress; guarded by retired_lock (never taken by readers). */
static struct asgst_cfi_snapshot *retired;
static struct asgst_cfi_table *retired_tables;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
/* Publications so far (serialized by the callers of asgst__cfi_publish). */
static unsigned long generation;

/* N. Puts the tables of old that the publication gen does not hold on the retired list
 * (retired_lock held). */
static void retire_tables(const struct asgst_cfi_snapshot *old, unsigned long gen) {
  for (size_t i = 0; i < old->ntables; i++) {
    struct asgst_cfi_table *t = old->tables[i];
    if (t->generation == gen) continue;
    t->next_retired = retired_tables;
    __atomic_store_n(&retired_tables, t, __ATOMIC_RELEASE); /* asgst__cfi_report reads it unlocked */
  }
}

/* N. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s) {
  unsigned long gen = ++generation;
  for (size_t i = 0; s && i < s->ntables; i++) s->tables[i]->generation = gen;
  struct asgst_cfi_snapshot *old = __atomic_exchange_n(&asgst__cfi_current, s, __ATOMIC_ACQ_REL);
  if (!old) return;
  pthread_mutex_lock(&retired_lock);
  retire_tables(old, gen);
  old->next_retired = retired;
  __atomic_store_n(&retired, old, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&retired_lock);
}

/* N. */
void asgst__cfi_release_retired(void) {
  pthread_mutex_lock(&retired_lock);
  struct asgst_cfi_snapshot *s = __atomic_exchange_n(&retired, NULL, __ATOMIC_ACQ_REL);
  struct asgst_cfi_table *t = __atomic_exchange_n(&retired_tables, NULL, __ATOMIC_ACQ_REL);
  pthread_mutex_unlock(&retired_lock);
  while (s) {
    struct asgst_cfi_snapshot *next = s->next_retired;
    free(s);
    s = next;
  }
  while (t) {
    struct asgst_cfi_table *next = t->next_retired;
    free(t);
    t = next;
  }
}

/* N. */
void asgst__cfi_shutdown(void) {
  asgst__cfi_publish(NULL);
  asgst__cfi_release_retired();
}

/* SS. Reads the retired lists without their lock: the sum may miss a snapshot retired at
 * this very moment, which a report may. */
void asgst__cfi_report(struct asgst_cfi_report *out) {
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  *out = (struct asgst_cfi_report){0};
  if (s) {
    out->bytes = s->bytes;
    out->objects = s->nobjects;
    for (size_t i = 0; i < s->ntables; i++) {
      const struct asgst_cfi_table *t = s->tables[i];
      out->bytes += t->bytes;
      out->rows += t->nrows;
      out->rules += t->nrows ? t->nrules : 0;
    }
  }
  for (const struct asgst_cfi_snapshot *r = __atomic_load_n(&retired, __ATOMIC_ACQUIRE); r;
       r = r->next_retired)
    out->retired_bytes += r->bytes;
  for (const struct asgst_cfi_table *t = __atomic_load_n(&retired_tables, __ATOMIC_ACQUIRE); t;
       t = t->next_retired)
    out->retired_bytes += t->bytes;
}
