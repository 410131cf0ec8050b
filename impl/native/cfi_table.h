/*
 * cfi_table.h - one loaded object's call frame table: its rows (a 32-bit pc offset and a
 * 16-bit rule index each, searched by pc alone), its own dictionary of distinct rules,
 * and a small cache of the pcs last looked up. One allocation, immutable once built but
 * for the cache; searched by cfi_step.c. Snapshots (cfi_snapshot.h) share it for as long
 * as its object stays loaded, so a library load parses only the new object.
 *
 * The cache: two-way pairs of words (16-byte aligned, so a pair is in one cache line) of
 * (pc offset << 32 | rule index + 1), 0 empty, the newer first (cfi_inline.h). A word
 * holds its own key, so a handler reads and writes it with plain atomic 64-bit accesses:
 * a racing writer can only replace one right answer with another, never tear one.
 */
#ifndef ASGST_NATIVE_CFI_TABLE_H
#define ASGST_NATIVE_CFI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_rows.h"

/* What makes an object the same across rebuilds: where it is loaded, its program headers
 * (where the loader mapped them), its name and its file (device and inode; 0 where it has
 * none, as the vDSO). A library unloaded and another loaded at its place differs in file
 * or headers. */
struct asgst_cfi_identity {
  uintptr_t base;
  const void *phdr;
  unsigned long long dev, ino;
  const char *name;
};

/* Rule index 0 of every table is the gap between functions. */
enum { ASGST_CFI_GAP_RULE = 0, ASGST_CFI_MAX_RULES = 65536 };

struct asgst_cfi_table {
  struct asgst_cfi_identity id; /* id.name points into the allocation */
  uintptr_t lo, hi;             /* run-time addresses the rows cover; lo == hi: no rows */
  size_t nrows, nrules, bytes;  /* nrules counts the gap rule */
  const uint32_t *pcs;          /* row i starts at id.base + pcs[i] */
  const uint16_t *rule_of;      /* and follows rules[rule_of[i]] */
  const struct asgst_cfi_rule *rules;
  uint64_t *hits;               /* the cache: 1 << (32 - hit_shift) words */
  uint32_t hit_shift;
  /* Written by the builder only (build lock): the publication it was last part of, 0
   * before its first; and its place on the retired list, with when it got there. */
  unsigned long generation;
  struct asgst_cfi_table *next_retired;
  unsigned long retired_at; /* the epoch (cfi_epoch.h) when it was retired */
};

/* N. A table of rv's rows (finished: sorted and compacted) for the object id; NULL if out
 * of memory or (never seen) more distinct rules than an index holds. rv is not freed. */
struct asgst_cfi_table *asgst__cfi_table_new(const struct asgst_cfi_identity *id,
                                             const struct asgst_cfi_rowvec *rv);

/* N. True if t was built for the object id. */
bool asgst__cfi_table_is(const struct asgst_cfi_table *t, const struct asgst_cfi_identity *id);

#endif
