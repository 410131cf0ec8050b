/*
 * cfi_snapshot.h - the published tables: the objects that have rows, sorted by address
 * and not overlapping, each with its table (cfi_table.h), and every table the snapshot
 * holds (those without rows too, so a rebuild does not parse them again). Built by
 * cfi_build.c, searched by cfi_step.c through one atomic pointer.
 *
 * Lifetime. A snapshot is immutable; a rebuild publishes a new one and retires the old
 * one. Tables are shared: a rebuild takes over the tables of the objects still loaded
 * and retires only those of objects that went away. A walk may still be inside a retired
 * snapshot, or a table it held, so retired snapshots and tables are tagged with the epoch
 * of their retirement and freed by asgst__cfi_reclaim once no reader section can still
 * hold them (cfi_epoch.h), or by asgst__cfi_release_retired at a quiescent point (see
 * cfi.h); a table still published is never freed (only asgst__cfi_shutdown retires all
 * of them).
 */
#ifndef ASGST_NATIVE_CFI_SNAPSHOT_H
#define ASGST_NATIVE_CFI_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_table.h"

/* One object with rows, as searched: its table's [lo, hi) and what a cache hit needs
 * copied beside the pointer, so the search over objects reads one array and a hit does
 * not read the table's header. */
struct asgst_cfi_object {
  uintptr_t lo, hi, base;
  uint64_t *hits;
  const struct asgst_cfi_rule *rules;
  struct asgst_cfi_table *table;
  uint32_t hit_shift;
};

/* One executable segment of a loaded object (rows or not). */
struct asgst_cfi_code {
  uintptr_t lo, hi;
};

struct asgst_cfi_snapshot {
  size_t bytes, nobjects, ntables, ncode; /* bytes: this allocation, not its tables */
  struct asgst_cfi_snapshot *next_retired;
  unsigned long retired_at; /* the epoch (cfi_epoch.h) when it was retired */
  unsigned long generation; /* its publication's number (1, 2, ...), set as it is published */
  struct asgst_cfi_object *objects;
  struct asgst_cfi_table **tables;
  /* Every loaded object's executable segments, sorted: whether a pc is in code at all
   * (a return address in none is a walk that lost its way; see asgst__cfi_outside_code). */
  struct asgst_cfi_code *code;
};

/* The published snapshot (NULL before the first build). Read with __atomic_load_n
 * (acquire); written only by asgst__cfi_publish. */
extern struct asgst_cfi_snapshot *asgst__cfi_current;

/* N. Publishes s (which may be NULL), retires the snapshot it replaces and the tables of
 * that snapshot that s does not hold. Serialized by the caller. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s);

#endif
