/* elf_maps.c - the executable ELF mappings of the process, for the unwind agent's signal
 * handler (elf_maps.h). */
#include "unwind_agent/elf_maps.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MAX_RANGES 1024

typedef struct {
  uintptr_t lo, hi;
  int lib;
} range;

typedef struct {
  int n;
  range r[MAX_RANGES]; /* sorted by lo: /proc/self/maps lists them in address order */
} table;

/* Two tables: the handler reads the published one while the refresh fills the other. A
 * handler still reading a table two refreshes later would see it change under it; the
 * refreshes are hundreds of milliseconds apart and a lookup takes nanoseconds. */
static table tables[2];
static atomic_int published = -1;

/* N. The LIB_* of a mapped file's path (or "[vdso]"). */
static int lib_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strncmp(base, "libjvm.so", 9) == 0) return LIB_JVM;
  if (strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0) return LIB_C;
  if (strncmp(base, "libnofp.so", 10) == 0) return LIB_NOFP;
  if (strcmp(path, "[vdso]") == 0) return LIB_VDSO;
  return LIB_OTHER;
}

/* N. */
void elf_maps_refresh(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) return;
  int spare = atomic_load(&published) == 0 ? 1 : 0;
  table *t = &tables[spare];
  t->n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f) && t->n < MAX_RANGES) {
    unsigned long lo, hi;
    char perms[8];
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &path_at) < 3 || path_at == 0) continue;
    char *path = line + path_at;
    path[strcspn(path, "\n")] = 0;
    if (perms[2] != 'x' || (path[0] != '/' && strcmp(path, "[vdso]") != 0)) continue;
    t->r[t->n++] = (range){lo, hi, lib_of(path)};
  }
  fclose(f);
  atomic_store_explicit(&published, spare, memory_order_release);
}

/* SS. A binary search of the published table. */
int elf_maps_lib(uintptr_t pc) {
  int which = atomic_load_explicit(&published, memory_order_acquire);
  if (which < 0) return -1;
  const table *t = &tables[which];
  int lo = 0, hi = t->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (pc < t->r[mid].lo) hi = mid - 1;
    else if (pc >= t->r[mid].hi) lo = mid + 1;
    else return t->r[mid].lib;
  }
  return -1;
}

/* N. */
const char *elf_maps_lib_name(int lib) {
  static const char *const names[LIB_COUNT] = {"libjvm", "libc", "libnofp", "vdso", "other"};
  return lib >= 0 && lib < LIB_COUNT ? names[lib] : "?";
}
