/*
 * elf_symbols.c - names of C frames from the ELF symbol tables of the loaded libraries.
 * dladdr only sees the dynamic (exported) symbols and answers with the nearest one below
 * the pc, which names the wrong function for every internal one (most of libjvm). Here a
 * library's .symtab (its full table; .dynsym if stripped) is read once from its file, its
 * functions sorted by address, and a pc is named by the function that contains it. C++
 * names are demangled with libstdc++'s __cxa_demangle (linked into the agent: Temurin's
 * libjvm carries its own static copy and exports none). Used at dump time only (N).
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_symbols.h"

typedef struct {
  uintptr_t start, size; /* relative to the library's load address (ET_DYN) or absolute */
  uint32_t name;         /* offset in the string table */
} func;

typedef struct lib {
  char *path;
  uintptr_t bias;        /* added to symbol values: the load base for ET_DYN, 0 for ET_EXEC */
  func *f;
  size_t n;
  const char *strtab;    /* inside the file's mapping, kept for the process's life */
  size_t strsz;
  struct lib *next;
} lib;

static lib *libs;

/* libstdc++'s demangler (the agent links libstdc++ for it; its C++ ABI entry point). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* N. */
static int by_start(const void *a, const void *b) {
  uintptr_t x = ((const func *)a)->start, y = ((const func *)b)->start;
  return x < y ? -1 : x > y;
}

/* N. Copies the function symbols of table sh (with its string table) out of the file. */
static void read_table(lib *l, const uint8_t *m, size_t size, const Elf64_Shdr *sh,
                       const Elf64_Shdr *str) {
  if (sh->sh_offset + sh->sh_size > size || str->sh_offset + str->sh_size > size) return;
  const Elf64_Sym *s = (const void *)(m + sh->sh_offset);
  size_t n = sh->sh_size / sizeof *s;
  l->f = calloc(n + 1, sizeof *l->f);
  for (size_t i = 0; i < n; i++)
    if (ELF64_ST_TYPE(s[i].st_info) == STT_FUNC && s[i].st_value && s[i].st_name < str->sh_size)
      l->f[l->n++] = (func){s[i].st_value, s[i].st_size, s[i].st_name};
  qsort(l->f, l->n, sizeof *l->f, by_start);
  l->strtab = (const char *)(m + str->sh_offset);
  l->strsz = str->sh_size;
}

/* N. Maps the file and finds .symtab (or .dynsym); false if it is not a usable ELF file. */
static bool load(lib *l) {
  int fd = open(l->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    if (fd >= 0) close(fd);
    return false;
  }
  size_t size = (size_t)st.st_size;
  const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return false;
  const Elf64_Ehdr *eh = (const void *)m;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size) {
    munmap((void *)m, size);
    return false;
  }
  if (eh->e_type == ET_EXEC) l->bias = 0;
  const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
  const Elf64_Shdr *pick = NULL;
  for (int i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !pick)) pick = &sh[i];
  if (pick && pick->sh_link < eh->e_shnum) read_table(l, m, size, pick, &sh[pick->sh_link]);
  return true; /* the mapping stays: names point into it */
}

/* N. The library at path (loaded on first use), NULL if unreadable. */
static lib *library(const char *path, uintptr_t base) {
  for (lib *l = libs; l; l = l->next)
    if (strcmp(l->path, path) == 0) return l->f ? l : NULL;
  lib *l = calloc(1, sizeof *l);
  l->path = strdup(path);
  l->bias = base;
  l->next = libs;
  libs = l;
  return load(l) && l->f ? l : NULL;
}

/* N. Demangles a C++ name into buf if libstdc++'s demangler is in the process, without
 * its parameter list. */
static void demangle(const char *name, char *buf, size_t len) {
  int status = -1;
  char *d = strncmp(name, "_Z", 2) == 0 ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
  snprintf(buf, len, "%s", d && status == 0 ? d : name);
  free(d);
  /* The parameter list makes names long and splits one function's samples by overload
   * only rarely: cut it ("JavaCalls::call_helper"), except inside "operator()". */
  char *paren = strchr(buf, '(');
  if (paren && paren > buf && !(paren - buf >= 8 && strncmp(paren - 8, "operator", 8) == 0))
    *paren = 0;
}

/* N. Names pc from its library's symbol table; false if no function contains it. */
bool prof_elf_name(void *pc, char *buf, size_t len) {
  Dl_info di;
  if (!dladdr(pc, &di) || !di.dli_fname || !di.dli_fname[0]) return false;
  lib *l = library(di.dli_fname, (uintptr_t)di.dli_fbase);
  if (!l) return false;
  uintptr_t off = (uintptr_t)pc - l->bias;
  size_t lo = 0, hi = l->n;
  while (lo < hi) { /* the last function starting at or below off */
    size_t mid = (lo + hi) / 2;
    if (l->f[mid].start <= off) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return false;
  const func *f = &l->f[lo - 1];
  if (f->size && off >= f->start + f->size) return false;
  demangle(l->strtab + f->name, buf, len);
  return true;
}
