/* function_range.h - where a function of the test program lies, from its ELF symbol, so a
 * walk's pcs can be told apart by function. Needs _GNU_SOURCE (dladdr1). */
#ifndef ASGST_TEST_FUNCTION_RANGE_H
#define ASGST_TEST_FUNCTION_RANGE_H

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

typedef struct {
  uintptr_t start, end;
} range;

/* N. The bytes of function fn ({0, 0} when its symbol is not found). */
static inline range function_range(void *fn) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  range r = {0, 0};
  if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym) {
    r.start = (uintptr_t)info.dli_saddr;
    r.end = r.start + sym->st_size;
  }
  return r;
}

#endif
