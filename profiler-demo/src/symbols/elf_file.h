/*
 * elf_file.h - one ELF64 file mapped read-only, and the parts of it the C-frame names need
 * (elf_file.c): sections by type and name, the build-id note, the .gnu_debuglink and the
 * first loadable segment. Every offset read from the file is checked against its size, so
 * a truncated or foreign file gives "not found", never a fault. All N.
 */
#ifndef ASGSTPROF_SYMBOLS_ELF_FILE_H
#define ASGSTPROF_SYMBOLS_ELF_FILE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *map;    /* the whole file */
  size_t size;
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh;  /* eh->e_shnum section headers, inside the map */
} prof_elf;

/* N. Maps the file at path; false (e untouched) if it is not a readable ELF64 file. */
bool prof_elf_open(prof_elf *e, const char *path);
/* N. Unmaps it; pointers into it die. */
void prof_elf_close(prof_elf *e);
/* N. The first section of this type (SHT_SYMTAB...), and of this name unless name is NULL. */
const Elf64_Shdr *prof_elf_section(const prof_elf *e, uint32_t type, const char *name);
/* N. A section's bytes, NULL if it has none in the file (SHT_NOBITS) or lies outside it. */
const uint8_t *prof_elf_data(const prof_elf *e, const Elf64_Shdr *s);
/* N. The section s links to (a symbol table's string table), NULL if none. */
const Elf64_Shdr *prof_elf_link(const prof_elf *e, const Elf64_Shdr *s);
/* N. The GNU build id (NT_GNU_BUILD_ID note): its length, 0 if the file has none. */
size_t prof_elf_build_id(const prof_elf *e, const uint8_t **id);
/* N. The file name in .gnu_debuglink and the CRC-32 it carries, NULL if none. */
const char *prof_elf_debuglink(const prof_elf *e, uint32_t *crc);
/* N. p_vaddr of the first PT_LOAD segment (the address symbol values count from). */
bool prof_elf_first_load(const prof_elf *e, uint64_t *vaddr);

#endif /* ASGSTPROF_SYMBOLS_ELF_FILE_H */
