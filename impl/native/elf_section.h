/*
 * elf_section.h - one section of an ELF file on disk, for what a loaded object does not
 * map (.debug_frame). N: reads the file.
 */
#ifndef ASGST_NATIVE_ELF_SECTION_H
#define ASGST_NATIVE_ELF_SECTION_H

#include <stddef.h>

/* N. A copy of the section `name` of the 64-bit ELF file at path, to be freed by the
 * caller, with its size in *size; NULL if the file or the section cannot be read (or the
 * section occupies no file bytes). */
void *asgst__elf_section_copy(const char *path, const char *name, size_t *size);

#endif
