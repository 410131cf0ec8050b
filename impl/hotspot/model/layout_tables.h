/*
 * layout_tables.h - vmStructs tables built from text (layout_tables.c): a recording's
 * layout for a replay, or a recorded vmStructs dump for the model's unit test.
 */
#ifndef ASGST_HOTSPOT_LAYOUT_TABLES_H
#define ASGST_HOTSPOT_LAYOUT_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmstructs.h"

#define ASGST__LAYOUT_MAX_VALUES 16

typedef struct {
  const char *name;
  int64_t value;
} asgst__layout_named;

typedef struct {
  char *text; /* the parsed copy: every name points into it */
  asgst__vms_struct *structs;
  asgst__vms_type *types;
  asgst__vms_int_const *ints;
  asgst__vms_long_const *longs;
  int nstructs, ntypes, nints, nlongs;
  asgst__layout_named values[ASGST__LAYOUT_MAX_VALUES];
  int nvalues;
  int jdk; /* what the table's Abstract_VM_Version::_vm_major_version static points at */
} asgst__layout_tables;

/* N. Parses `len` bytes of layout text into *t (freed with asgst__layout_free). 0, or -1
 * with a reason naming the line. The version comes from a "VALUE jdk" line; a caller may
 * set t->jdk afterwards (a dump has none). */
int asgst__layout_parse(const char *text, size_t len, asgst__layout_tables *t, char *err,
                        size_t errlen);
/* N. A "VALUE name = N" of the text; false if absent. */
bool asgst__layout_value(const asgst__layout_tables *t, const char *name, int64_t *out);
/* N. Makes the vmStructs lookups (vmstructs.h) answer from *t until asgst__vms_unload. */
void asgst__layout_use(asgst__layout_tables *t);
/* N. */
void asgst__layout_free(asgst__layout_tables *t);

#endif
