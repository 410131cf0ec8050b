/*
 * vm_read.h - reads of VM fields and symbols through the model's offsets (vm_read.c),
 * shared by every room that reads metadata: classes, threads, queues.
 */
#ifndef ASGST_HOTSPOT_VM_READ_H
#define ASGST_HOTSPOT_VM_READ_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../safe_read.h"

/* SS. Copies Symbol `sym` into dst (capacity *cap, asgst__copy_string semantics). False if
 * the symbol cannot be read (fields then set to empty). */
bool asgst__hs_copy_symbol(uintptr_t sym, char *dst, jint *cap);
/* SS. The Symbol* in constant pool slot `index`, 0 if out of range. */
uintptr_t asgst__hs_cp_symbol(uintptr_t cp, uint32_t index);
/* SS. Reads a VM field of `size` bytes at a + off (0 on failure). */
uint64_t asgst__hs_field(uintptr_t a, long off, int size);
/* SS. Loads a pointer field; 0 when the holder or the field is not plausible. */
static inline uintptr_t asgst__hs_ptr_field(uintptr_t a, long off) {
  uintptr_t v = 0;
  if (off < 0 || !asgst__load_ptr(a + (uintptr_t)off, &v)) return 0;
  return asgst__plausible(v, 8) ? v : 0;
}
/* SS. The methods of InstanceKlass k: *n methods at the returned address (0 if none). */
uintptr_t asgst__hs_class_methods(uintptr_t k, int *n);

#endif
