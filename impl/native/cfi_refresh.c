/*
 * cfi_refresh.c - rebuilding the tables only when objects were loaded or unloaded since
 * the last build. dl_iterate_phdr counts loads and unloads (dlpi_adds, dlpi_subs) in
 * every entry it reports, so reading them from its first entry tells a change without
 * walking the list: cheap enough for frequent ordinary events (class preparation).
 */
#include <link.h>
#include <pthread.h>
#include <stdint.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_snapshot.h"

/* The counters the published tables were built after; 0 before the first build (the
 * executable and its libraries count as loads, so a live process never reads 0). */
static unsigned long long built_adds, built_subs;
/* Checks run unlocked; a change takes this lock, so concurrent events build once. */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

struct counts {
  unsigned long long adds, subs;
};

/* N. dl_iterate_phdr callback: takes the counters from the first entry and stops. */
static int read_counts(struct dl_phdr_info *info, size_t size, void *arg) {
  struct counts *c = arg;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
  }
  return 1;
}

/* N. True if tables are published and were built with these counters. */
static bool up_to_date(const struct counts *c) {
  return c->adds != 0 && __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE) && __atomic_load_n(&built_adds, __ATOMIC_ACQUIRE) == c->adds &&
         __atomic_load_n(&built_subs, __ATOMIC_ACQUIRE) == c->subs;
}

/* N. */
int asgst__cfi_refresh(void) {
  struct counts c = {0, 0};
  dl_iterate_phdr(read_counts, &c);
  if (up_to_date(&c)) return 0;
  pthread_mutex_lock(&refresh_lock);
  int rc = 0;
  /* Counted before the build: an object loaded while it runs makes the next refresh
   * build again, never leaves it out unnoticed. */
  dl_iterate_phdr(read_counts, &c);
  if (!up_to_date(&c)) {
    rc = asgst__cfi_build() == 0 ? 1 : -1;
    if (rc == 1) {
      __atomic_store_n(&built_adds, c.adds, __ATOMIC_RELEASE);
      __atomic_store_n(&built_subs, c.subs, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&refresh_lock);
  return rc;
}

/* N. */
int asgst__cfi_poll(void) {
  int rc = asgst__cfi_refresh();
  asgst__cfi_reclaim();
  return rc;
}
