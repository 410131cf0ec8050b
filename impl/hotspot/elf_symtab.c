/*
 * elf_symtab.c - see elf_symtab.h. Plain pread() of the section headers and of the
 * symbol and string tables; nothing is mapped or kept.
 */
#include "elf_symtab.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
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

/* N. Reads len bytes at off into a new buffer (NULL on failure). */
static void *read_at(int fd, uint64_t off, uint64_t len) {
  if (len == 0 || len > (1u << 30)) return NULL;
  char *b = malloc(len);
  if (b && pread(fd, b, len, (off_t)off) != (ssize_t)len) {
    free(b);
    b = NULL;
  }
  return b;
}

/* N. Value of `name` in the symbol table `symtab` (with its string table), 0 if absent. */
static uint64_t find_in(int fd, const Elf64_Shdr *symtab, const Elf64_Shdr *strtab, const char *name) {
  Elf64_Sym *syms = read_at(fd, symtab->sh_offset, symtab->sh_size);
  char *strs = read_at(fd, strtab->sh_offset, strtab->sh_size);
  uint64_t value = 0;
  size_t n = syms ? symtab->sh_size / sizeof *syms : 0;
  for (size_t i = 0; strs && i < n && value == 0; i++)
    if (syms[i].st_name < strtab->sh_size && strcmp(strs + syms[i].st_name, name) == 0)
      value = syms[i].st_value;
  free(syms);
  free(strs);
  return value;
}

/* N. */
uintptr_t asgst__elf_libjvm_symbol(const char *name) {
  jvm_file f = {"", 0};
  dl_iterate_phdr(find_jvm, &f);
  int fd = f.path[0] ? open(f.path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return 0;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  uint64_t value = 0;
  if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_shentsize == sizeof(Elf64_Shdr))
    sh = read_at(fd, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof *sh);
  for (int i = 0; sh && i < eh.e_shnum && value == 0; i++)
    if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < eh.e_shnum)
      value = find_in(fd, &sh[i], &sh[sh[i].sh_link], name);
  free(sh);
  close(fd);
  return value ? f.base + (uintptr_t)value : 0;
}
