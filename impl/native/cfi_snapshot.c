/*
 * cfi_snapshot.c - publishing, retiring and freeing snapshots of the tables (see
 * cfi_snapshot.h for the lifetime rule, cfi_epoch.h for when a retired one may go).
 */
#include "impl/native/cfi_snapshot.h"

#include <pthread.h>
#include <stdlib.h>

#include "impl/native/cfi_epoch.h"

struct asgst_cfi_snapshot *asgst__cfi_current;

/* Snapshots replaced and tables of objects gone, perhaps still read by a walk in
 * progress, newest first; guarded by retired_lock (never taken by readers). */
static struct asgst_cfi_snapshot *retired;
static struct asgst_cfi_table *retired_tables;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
/* Publications so far (serialized by the callers of asgst__cfi_publish). */
static unsigned long generation;
/* What the report tells of retired memory, kept as counts so that it never reads the
 * lists, which asgst__cfi_reclaim frees from concurrently. Written under retired_lock. */
static size_t retired_bytes, snapshots_retired, snapshots_freed, tables_retired, tables_freed;

/* N. Adds to a counter of the report (retired_lock held; the report reads unlocked). */
static void count(size_t *c, size_t add) {
  __atomic_store_n(c, *c + add, __ATOMIC_RELAXED);
}

/* N. Puts the tables of old that the publication gen does not hold on the retired list
 * (retired_lock held). */
static void retire_tables(const struct asgst_cfi_snapshot *old, unsigned long gen,
                          unsigned long epoch) {
  for (size_t i = 0; i < old->ntables; i++) {
    struct asgst_cfi_table *t = old->tables[i];
    if (t->generation == gen) continue;
    t->retired_at = epoch;
    t->next_retired = retired_tables;
    retired_tables = t;
    count(&tables_retired, 1);
    count(&retired_bytes, t->bytes);
  }
}

/* N. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s) {
  unsigned long gen = ++generation;
  for (size_t i = 0; s && i < s->ntables; i++) s->tables[i]->generation = gen;
  if (s) s->generation = gen;
  /* Sequentially consistent: the unpublication must come before the epoch read below
   * and the counters' loads of every later reclaim (cfi_epoch.h). */
  struct asgst_cfi_snapshot *old = __atomic_exchange_n(&asgst__cfi_current, s, __ATOMIC_SEQ_CST);
  if (!old) return;
  pthread_mutex_lock(&retired_lock);
  /* Read after the exchange: a reader section that can hold old is open in an epoch at
   * most this one, and the two advances that free old both come after the exchange. */
  unsigned long epoch = __atomic_load_n(&asgst__cfi_epoch, __ATOMIC_SEQ_CST);
  retire_tables(old, gen, epoch);
  old->retired_at = epoch;
  old->next_retired = retired;
  retired = old;
  count(&snapshots_retired, 1);
  count(&retired_bytes, old->bytes);
  pthread_mutex_unlock(&retired_lock);
}

/* N. Frees the retired snapshots that no reader can hold at this epoch (retired two
 * advances ago or earlier), or all of them; retired_lock held. */
static void free_snapshots(unsigned long epoch, bool all) {
  struct asgst_cfi_snapshot **at = &retired;
  while (*at) {
    struct asgst_cfi_snapshot *s = *at;
    if (all || s->retired_at + 2 <= epoch) {
      *at = s->next_retired;
      count(&retired_bytes, -s->bytes);
      count(&snapshots_freed, 1);
      free(s);
    } else {
      at = &s->next_retired;
    }
  }
}

/* N. As free_snapshots, for the tables. */
static void free_tables(unsigned long epoch, bool all) {
  struct asgst_cfi_table **at = &retired_tables;
  while (*at) {
    struct asgst_cfi_table *t = *at;
    if (all || t->retired_at + 2 <= epoch) {
      *at = t->next_retired;
      count(&retired_bytes, -t->bytes);
      count(&tables_freed, 1);
      free(t);
    } else {
      at = &t->next_retired;
    }
  }
}

/* N. Never waits: what readers may still hold stays for a later call. Two advances at
 * most: enough to free everything retired before the call when no section is open. */
size_t asgst__cfi_reclaim(void) {
  pthread_mutex_lock(&retired_lock);
  size_t before = snapshots_freed + tables_freed;
  if (retired || retired_tables) {
    for (int i = 0; i < 2 && asgst__cfi_try_advance(); i++) {
    }
    unsigned long epoch = __atomic_load_n(&asgst__cfi_epoch, __ATOMIC_RELAXED);
    free_snapshots(epoch, false);
    free_tables(epoch, false);
  }
  size_t freed = snapshots_freed + tables_freed - before;
  pthread_mutex_unlock(&retired_lock);
  return freed;
}

/* N. */
void asgst__cfi_release_retired(void) {
  pthread_mutex_lock(&retired_lock);
  free_snapshots(0, true);
  free_tables(0, true);
  pthread_mutex_unlock(&retired_lock);
}

/* N. */
void asgst__cfi_shutdown(void) {
  asgst__cfi_publish(NULL);
  asgst__cfi_release_retired();
}

/* SS. The published snapshot is read as a walk reads it, in a reader section; the retired
 * figures are counters (a report racing a retirement may see one of them a step behind). */
void asgst__cfi_report(struct asgst_cfi_report *out) {
  *out = (struct asgst_cfi_report){0};
  unsigned token = asgst__cfi_enter();
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
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
  asgst__cfi_exit(token);
  out->retired_bytes = __atomic_load_n(&retired_bytes, __ATOMIC_RELAXED);
  out->snapshots_retired = __atomic_load_n(&snapshots_retired, __ATOMIC_RELAXED);
  out->snapshots_freed = __atomic_load_n(&snapshots_freed, __ATOMIC_RELAXED);
  out->tables_retired = __atomic_load_n(&tables_retired, __ATOMIC_RELAXED);
  out->tables_freed = __atomic_load_n(&tables_freed, __ATOMIC_RELAXED);
}
