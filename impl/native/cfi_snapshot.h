/*
 * cfi_snapshot.h - the published tables: one allocation holding the objects (sorted by
 * address, not overlapping) and all their rows. Built by cfi_build.c, read by
 * cfi_step.c through one atomic pointer.
 */
#ifndef ASGST_NATIVE_CFI_SNAPSHOT_H
#define ASGST_NATIVE_CFI_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi.h"

/* One loaded object's table: rows cover [lo, hi) (run-time addresses), pcs relative
 * to base. */
struct asgst_cfi_object {
  uintptr_t base, lo, hi;
  const struct asgst_cfi_row *rows;
  size_t nrows;
};

struct asgst_cfi_snapshot {
  size_t bytes, nobjects, nrows;
  struct asgst_cfi_snapshot *next_retired;
  struct asgst_cfi_object *objects;
};

/* The published snapshot (NULL before the first build). Read with __atomic_load_n
 * (acquire); written only by asgst__cfi_publish. */
extern struct asgst_cfi_snapshot *asgst__cfi_current;

/* N. Publishes s (which may be NULL) and retires the snapshot it replaces. Serialized by
 * the caller. */
void asgst__cfi_publish(struct asgst_cfi_snapshot *s);

/* SS. The row of the object covering pc in s, NULL if none (or a gap). */
const struct asgst_cfi_row *asgst__cfi_snapshot_row(const struct asgst_cfi_snapshot *s,
                                                    uintptr_t pc);

#endif
