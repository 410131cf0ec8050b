/*
 * elf_file.c - one ELF64 file mapped read-only, and the parts of it the C-frame names need:
 * sections, the build-id note, the .gnu_debuglink and the first PT_LOAD. The file is
 * untrusted input (any library the JVM maps, any file under the debug directories): every
 * offset and size it gives is checked against the mapping before use. All N.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_file.h"

/* N. True if [off, off + len) lies inside a file of size bytes (no overflow). */
static bool inside(size_t size, uint64_t off, uint64_t len) {
  return off <= size && len <= size - off;
}

/* N. */
static bool valid_header(const uint8_t *m, size_t size) {
  const Elf64_Ehdr *eh = (const void *)m;
  return size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
         eh->e_ident[EI_CLASS] == ELFCLASS64 &&
         (eh->e_shnum == 0 || eh->e_shentsize == sizeof(Elf64_Shdr)) &&
         inside(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
}

/* N. */
bool prof_elf_open(prof_elf *e, const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return false;
  if (!valid_header(m, (size_t)st.st_size)) {
    munmap(m, (size_t)st.st_size);
    return false;
  }
  e->map = m;
  e->size = (size_t)st.st_size;
  e->eh = m;
  e->sh = (const void *)(e->map + e->eh->e_shoff);
  return true;
}

/* N. */
void prof_elf_close(prof_elf *e) {
  if (e->map) munmap((void *)e->map, e->size);
  memset(e, 0, sizeof *e);
}

/* N. */
const uint8_t *prof_elf_data(const prof_elf *e, const Elf64_Shdr *s) {
  if (!s || s->sh_type == SHT_NOBITS || !inside(e->size, s->sh_offset, s->sh_size)) return NULL;
  return e->map + s->sh_offset;
}

/* N. */
const Elf64_Shdr *prof_elf_link(const prof_elf *e, const Elf64_Shdr *s) {
  return s && s->sh_link > 0 && s->sh_link < e->eh->e_shnum ? &e->sh[s->sh_link] : NULL;
}

/* N. True if section s is called name (its name lies NUL-terminated inside .shstrtab). */
static bool named(const prof_elf *e, const Elf64_Shdr *s, const char *name) {
  if (e->eh->e_shstrndx >= e->eh->e_shnum) return false;
  const Elf64_Shdr *names = &e->sh[e->eh->e_shstrndx];
  const uint8_t *str = prof_elf_data(e, names);
  size_t want = strlen(name) + 1;
  return str && s->sh_name < names->sh_size && want <= names->sh_size - s->sh_name &&
         memcmp(str + s->sh_name, name, want) == 0;
}

/* N. */
const Elf64_Shdr *prof_elf_section(const prof_elf *e, uint32_t type, const char *name) {
  for (unsigned i = 0; i < e->eh->e_shnum; i++)
    if (e->sh[i].sh_type == type && (!name || named(e, &e->sh[i], name))) return &e->sh[i];
  return NULL;
}

/* N. Finds the GNU build-id among the notes of one SHT_NOTE section: each note is a
 * header, its name ("GNU" with its NUL) and its descriptor, both padded to 4 bytes. */
static size_t build_id_in(const uint8_t *p, uint64_t len, const uint8_t **id) {
  uint64_t at = 0;
  while (len - at >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr n;
    memcpy(&n, p + at, sizeof n);
    uint64_t name = at + sizeof n, desc = name + ((n.n_namesz + 3ull) & ~3ull);
    if (desc > len || n.n_descsz > len - desc) return 0;
    if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
        n.n_descsz > 0) {
      *id = p + desc;
      return n.n_descsz;
    }
    at = desc + ((n.n_descsz + 3ull) & ~3ull);
    if (at > len) return 0;
  }
  return 0;
}

/* N. */
size_t prof_elf_build_id(const prof_elf *e, const uint8_t **id) {
  for (unsigned i = 0; i < e->eh->e_shnum; i++) {
    const uint8_t *p = e->sh[i].sh_type == SHT_NOTE ? prof_elf_data(e, &e->sh[i]) : NULL;
    size_t n = p ? build_id_in(p, e->sh[i].sh_size, id) : 0;
    if (n) return n;
  }
  return 0;
}

/* N. The section holds the file name, NUL, padding to 4 bytes, then the CRC-32 (in the
 * file's byte order, which on the only architectures read here is the machine's). */
const char *prof_elf_debuglink(const prof_elf *e, uint32_t *crc) {
  const Elf64_Shdr *s = prof_elf_section(e, SHT_PROGBITS, ".gnu_debuglink");
  const uint8_t *p = prof_elf_data(e, s);
  if (!p) return NULL;
  size_t len = strnlen((const char *)p, s->sh_size);
  size_t at = (len + 1 + 3) & ~(size_t)3;
  if (len == 0 || at > s->sh_size || s->sh_size - at < sizeof *crc) return NULL;
  memcpy(crc, p + at, sizeof *crc);
  return (const char *)p;
}

/* N. */
bool prof_elf_first_load(const prof_elf *e, uint64_t *vaddr) {
  const Elf64_Ehdr *eh = e->eh;
  if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
      !inside(e->size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
    return false;
  const Elf64_Phdr *ph = (const void *)(e->map + eh->e_phoff);
  for (unsigned i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD) {
      *vaddr = ph[i].p_vaddr;
      return true;
    }
  return false;
}
