/*
 * vmstructs.h - reads the tables a stock HotSpot exports for serviceability agents
 * (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants, gHotSpotVMLongConstants):
 * field offsets, static field addresses, type sizes and constants, looked up by name.
 *
 * Lookups are linear scans over a few thousand entries: N code, done once at
 * ASGST_Initialize; the results are cached in plain variables by the code that needs them.
 */
#ifndef ASGST_HOTSPOT_VMSTRUCTS_H
#define ASGST_HOTSPOT_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* N. Finds libjvm's tables in this process. 0 or -1 (with a reason in err). */
int asgst__vms_load(char *err, size_t errlen);
/* Tables given by the library itself (a replay, a unit test) in place of libjvm's, in the
 * same shape as the exported ones; each array ends with an entry whose name is NULL. */
typedef struct {
  const char *type, *field, *type_string;
  int32_t is_static;
  uint64_t offset;
  void *address;
} asgst__vms_struct;
typedef struct { const char *name; uint64_t size; } asgst__vms_type;
typedef struct { const char *name; int32_t value; } asgst__vms_int_const;
typedef struct { const char *name; int64_t value; } asgst__vms_long_const;

/* N. Uses the given tables instead of libjvm's until asgst__vms_unload (they must stay
 * valid until then). */
void asgst__vms_use(const asgst__vms_struct *s, const asgst__vms_type *t,
                    const asgst__vms_int_const *i, const asgst__vms_long_const *l);
/* N. Forgets the tables: the next asgst__vms_load looks for libjvm's again. */
void asgst__vms_unload(void);

/* N. Offset of a non-static field, -1 if the VM does not export it. */
long asgst__vms_offset(const char *type, const char *field);
/* N. Address of a static field, 0 if not exported. */
uintptr_t asgst__vms_static(const char *type, const char *field);
/* N. The declared C++ type of a field ("Method*", "u2", ...), NULL if not exported. */
const char *asgst__vms_field_type(const char *type, const char *field);
/* N. sizeof(type), -1 if not exported. */
long asgst__vms_type_size(const char *type);
/* N. An integer constant; false if not exported. */
bool asgst__vms_int(const char *name, int32_t *out);

/* N. Size in bytes of a field: 8 for pointers, else the size the types table gives for
 * its declared type (u2, CompLevel, ...); -1 if unknown. */
int asgst__vms_field_size(const char *type, const char *field);

#endif
