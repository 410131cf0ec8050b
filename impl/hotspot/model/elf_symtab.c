/*
 * elf_symtab.c - see elf_symtab.h. The file is mapped read-only for the lookup and
 * unmapped after it; nothing is kept.
 *
 * libjvm's .symtab is large (docs/budgets.md has its size). Comparing the name of every
 * symbol touches every page of both tables, and copying them first (pread into malloc'd
 * buffers) was a visible share of ASGST_Initialize. So the name, with its terminating
 * NUL, is first searched in the string table as bytes (memmem: one sequential pass), and
 * then only the symbol whose st_name is that offset is looked for (an integer compare per
 * symbol). A string table may share tails between names ("_ZN3FooE" can sit at the end of
 * "_ZN3BarFooE"), so every occurrence is tried, not only one that starts after a NUL.
 */
#include "elf_symtab.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  char path[4096];
  uintptr_t base; /* load bias */
} jvm_file;

/* N. dl_iterate_phdr callback: path and load bias of libjvm.so. */
static int find_jvm(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  jvm_file *f = data;
  const char *slash = strrchr(info->dlpi_name, '/');
  if (!slash || strcmp(slash + 1, "libjvm.so") != 0) return 0;
  size_t n = strlen(info->dlpi_name);
  if (n >= sizeof f->path) return 0;
  memcpy(f->path, info->dlpi_name, n + 1);
  f->base = info->dlpi_addr;
  return 1;
}

/* N. True if [off, off + len) lies inside a file of `size` bytes. */
static bool inside(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

/* N. The symbol whose name starts at string table offset `at`, 0 if none. */
static uint64_t symbol_at(const Elf64_Sym *syms, size_t n, uint64_t at) {
  for (size_t i = 0; i < n; i++)
    if (syms[i].st_name == at && syms[i].st_value != 0) return syms[i].st_value;
  return 0;
}

/* N. Value of `name` in one symbol table of the mapped file (with its string table). */
static uint64_t find_in(const char *file, uint64_t size, const Elf64_Shdr *symtab,
                        const Elf64_Shdr *strtab, const char *name) {
  if (!inside(symtab->sh_offset, symtab->sh_size, size) ||
      !inside(strtab->sh_offset, strtab->sh_size, size) || symtab->sh_offset % 8 != 0)
    return 0;
  const Elf64_Sym *syms = (const Elf64_Sym *)(file + symtab->sh_offset);
  size_t n = symtab->sh_size / sizeof *syms;
  const char *strs = file + strtab->sh_offset, *end = strs + strtab->sh_size;
  size_t len = strlen(name) + 1; /* with its NUL: a whole name, or a name's tail */
  uint64_t value = 0;
  for (const char *p = strs; value == 0 && p < end; p++) {
    p = memmem(p, (size_t)(end - p), name, len);
    if (p == NULL) break;
    value = symbol_at(syms, n, (uint64_t)(p - strs));
  }
  return value;
}

/* N. */
uint64_t asgst__elf_file_symbol(const char *path, const char *name) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return 0;
  const char *file = map;
  uint64_t size = (uint64_t)st.st_size, value = 0;
  const Elf64_Ehdr *eh = map;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff % 8 == 0 &&
      inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size)) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum && value == 0; i++)
      if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < eh->e_shnum)
        value = find_in(file, size, &sh[i], &sh[sh[i].sh_link], name);
  }
  munmap(map, (size_t)st.st_size);
  return value;
}

/* N. Whether the ELF file open at fd has a section of type SHT_SYMTAB. */
static bool has_symtab(int fd) {
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return false;
  Elf64_Shdr sh;
  for (int i = 0; i < eh.e_shnum; i++)
    if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * sizeof sh)) == (ssize_t)sizeof sh &&
        sh.sh_type == SHT_SYMTAB)
      return true;
  return false;
}

/* N. The loaded libjvm.so's path and load bias; false if none is loaded. */
static bool loaded_jvm(jvm_file *f) {
  f->path[0] = '\0';
  f->base = 0;
  dl_iterate_phdr(find_jvm, f);
  return f->path[0] != '\0';
}

/* N. */
bool asgst__elf_libjvm_has_symtab(void) {
  jvm_file f;
  int fd = loaded_jvm(&f) ? open(f.path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return false;
  bool yes = has_symtab(fd);
  close(fd);
  return yes;
}

/* N. */
uintptr_t asgst__elf_libjvm_symbol(const char *name) {
  jvm_file f;
  uint64_t value = loaded_jvm(&f) ? asgst__elf_file_symbol(f.path, name) : 0;
  return value ? f.base + (uintptr_t)value : 0;
}
