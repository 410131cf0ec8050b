/*
 * kallsyms.c - names of kernel addresses from /proc/kallsyms, for the kernel frames of
 * perf samples (sampling/kernel_chain.c). Read once, at the first profiling start and
 * never in a signal handler: the kernel's text symbols (types t, T, w, W) sorted by
 * address; a name is found by binary search at dump time. The file is about 120,000
 * lines; the table keeps one address and one offset into a single name block each.
 *
 * Without the right to see kernel addresses (kptr_restrict, not root) every address reads
 * as 0: the table is then empty and says why.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

typedef struct {
  uint64_t addr;
  uint32_t name; /* offset in names */
} ksym;

static ksym *syms;
static size_t nsyms;
static char *names;
static char why[160];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* N. Orders symbols by address. */
static int by_addr(const void *a, const void *b) {
  uint64_t x = ((const ksym *)a)->addr, y = ((const ksym *)b)->addr;
  return x < y ? -1 : x > y;
}

/* N. Appends one symbol; false when out of memory. */
static bool add(uint64_t addr, const char *name, size_t *cap, size_t *ncap, size_t *nlen) {
  size_t len = strlen(name) + 1;
  if (nsyms == *cap) {
    *cap = *cap ? *cap * 2 : 65536;
    ksym *s = realloc(syms, *cap * sizeof *syms);
    if (!s) return false;
    syms = s;
  }
  if (*nlen + len > *ncap) {
    *ncap = *ncap ? *ncap * 2 : 1 << 21;
    char *n = realloc(names, *ncap);
    if (!n) return false;
    names = n;
  }
  memcpy(names + *nlen, name, len);
  syms[nsyms++] = (ksym){addr, (uint32_t)*nlen};
  *nlen += len;
  return true;
}

/* N. Reads the text symbols of f into the table. */
static void read_symbols(FILE *f) {
  size_t cap = 0, ncap = 0, nlen = 0;
  bool zero = false;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long long addr;
    char type, name[256];
    /* "ffffffff81000000 T _text" or, for a module, "... t name\t[module]" */
    if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3) continue;
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
    if (addr == 0) {
      zero = true;
      continue;
    }
    if (!add(addr, name, &cap, &ncap, &nlen)) break;
  }
  if (nsyms == 0)
    snprintf(why, sizeof why, "%s", zero ? "/proc/kallsyms hides the addresses "
                                           "(kernel.kptr_restrict; root sees them)"
                                         : "/proc/kallsyms has no text symbols");
  if (nsyms) qsort(syms, nsyms, sizeof *syms, by_addr);
}

/* N. */
static void load(void) {
  FILE *f = fopen("/proc/kallsyms", "r");
  if (!f) {
    snprintf(why, sizeof why, "/proc/kallsyms cannot be read");
    return;
  }
  read_symbols(f);
  fclose(f);
}

/* N. */
const char *prof_kallsyms_load(void) {
  pthread_once(&once, load);
  return nsyms ? NULL : why;
}

/* N. The symbol at or below addr, NULL if none (below the first). */
static const ksym *find(uint64_t addr) {
  size_t lo = 0, hi = nsyms; /* the answer is below hi */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (syms[mid].addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo ? &syms[lo - 1] : NULL;
}

/* N. */
uint64_t prof_kallsyms_start(uint64_t addr) {
  const ksym *s = nsyms ? find(addr) : NULL;
  return s ? s->addr : addr;
}

/* N. */
void prof_kallsyms_name(uint64_t addr, char *buf, size_t len) {
  const ksym *s = nsyms ? find(addr) : NULL;
  if (s) snprintf(buf, len, "%s_[k]", names + s->name);
  else snprintf(buf, len, "[kernel 0x%llx]_[k]", (unsigned long long)addr);
}
