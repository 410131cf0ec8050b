/*
 * elf_section.c - finding a section by name in an ELF file's section headers (see
 * elf_section.h).
 */
#include "impl/native/elf_section.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SECTION = 256 << 20 }; /* a larger "section" is a corrupt header */

/* N. Fills buf with exactly len bytes of the file from off. */
static bool read_exactly(int fd, void *buf, size_t len, uint64_t off) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
    if (n <= 0) return false;
    done += (size_t)n;
  }
  return true;
}

/* N. A new buffer holding len bytes of the file from off (NULL on failure). */
static void *copy_out(int fd, uint64_t off, uint64_t len) {
  if (len == 0 || len > MAX_SECTION) return NULL;
  void *buf = malloc(len);
  if (buf && !read_exactly(fd, buf, len, off)) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* N. Whether the string at offset `at` of the name table (len bytes, perhaps not ending
 * in a NUL) is `name`. */
static bool name_is(const char *names, size_t len, uint64_t at, const char *name) {
  size_t want = strlen(name) + 1;
  return at < len && len - at >= want && memcmp(names + at, name, want) == 0;
}

/* N. The header of the section called `name`, searched in the file's headers. */
static bool find_header(int fd, const Elf64_Ehdr *eh, const char *name, Elf64_Shdr *out) {
  Elf64_Shdr *sh = copy_out(fd, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh);
  if (!sh) return false;
  bool found = false;
  char *names = eh->e_shstrndx < eh->e_shnum
                    ? copy_out(fd, sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size)
                    : NULL;
  size_t names_len = names ? sh[eh->e_shstrndx].sh_size : 0;
  for (unsigned i = 0; names && i < eh->e_shnum && !found; i++) {
    found = sh[i].sh_type != SHT_NOBITS && name_is(names, names_len, sh[i].sh_name, name);
    if (found) *out = sh[i];
  }
  free(names);
  free(sh);
  return found;
}

/* N. */
void *asgst__elf_section_copy(const char *path, const char *name, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  Elf64_Ehdr eh;
  Elf64_Shdr sh;
  void *copy = NULL;
  if (read_exactly(fd, &eh, sizeof eh, 0) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) &&
      find_header(fd, &eh, name, &sh)) {
    copy = copy_out(fd, sh.sh_offset, sh.sh_size);
    *size = copy ? sh.sh_size : 0;
  }
  close(fd);
  return copy;
}
