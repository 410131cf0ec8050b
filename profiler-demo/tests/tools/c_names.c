/*
 * c_names.c - names C frames the way the profiler does (src/symbols/elf_symbols.c), for
 * tests/test_debug_symbols.sh:
 *
 *   c_names LIBRARY OFFSET...   loads LIBRARY (dlopen; libc is loaded already) and prints,
 *                               one line per OFFSET (hex, from the library's load address,
 *                               i.e. a symbol value as readelf shows it), the name the
 *                               profiler gives a C frame at that address.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols/elf_symbols.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBRARY OFFSET...\n", argv[0]);
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  struct link_map *lm = NULL;
  if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
    fprintf(stderr, "c_names: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    char name[1024];
    prof_c_name((void *)(lm->l_addr + strtoull(argv[i], NULL, 16)), name, sizeof name);
    printf("%s\n", name);
  }
  return 0;
}
