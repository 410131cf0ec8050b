/*
 * vm_read.c - reads of VM fields, constant pool slots, symbols and a class's method array
 * (vm_read.h). Every function here is SS and reads only through safe_read.h; callers hold
 * the crash guard.
 */
#include "vm_read.h"

#include "vm_model.h"
#include "../../backend.h"

/* SS. */
uint64_t asgst__hs_field(uintptr_t a, long off, int size) {
  uint64_t v = 0;
  if (off < 0 || !asgst__load_sized(a + (uintptr_t)off, (size_t)size, &v)) return 0;
  return v;
}

/* SS. */
uintptr_t asgst__hs_cp_symbol(uintptr_t cp, uint32_t index) {
  int32_t len = (int32_t)asgst__hs_field(cp, asgst__vm.cp_length, 4);
  if (index == 0 || (int64_t)index >= len) return 0;
  uintptr_t sym = asgst__hs_ptr_field(cp, asgst__vm.cp_sizeof + (long)index * 8);
  /* A slot may carry a tag in its lowest bit (a pseudo-string); Symbols are aligned. */
  return sym & ~(uintptr_t)1;
}

/* SS. */
bool asgst__hs_copy_symbol(uintptr_t sym, char *dst, jint *cap) {
  if (cap == NULL) return sym != 0;
  uint16_t len = 0;
  if (sym == 0 || !asgst__load_u16(sym + (uintptr_t)asgst__vm.sym_length, &len)) {
    asgst__copy_string(dst, cap, "", 0);
    return false;
  }
  if (dst != NULL && *cap > 0) {
    size_t n = len < (size_t)(*cap - 1) ? len : (size_t)(*cap - 1);
    if (!asgst__load_bytes(sym + (uintptr_t)asgst__vm.sym_body, dst, n)) n = 0, len = 0;
    dst[n] = '\0';
  }
  *cap = len;
  return true;
}

/* SS. */
uintptr_t asgst__hs_class_methods(uintptr_t k, int *n) {
  *n = 0;
  uintptr_t arr = asgst__hs_ptr_field(k, asgst__vm.ik_methods);
  if (arr == 0) return 0;
  int32_t len = (int32_t)asgst__hs_field(arr, asgst__vm.array_length, 4);
  if (len <= 0 || len > 65535) return 0;
  *n = len;
  return arr + (uintptr_t)asgst__vm.array_data;
}
