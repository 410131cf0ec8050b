/*
 * elf_symbols.h - names of C frames from the ELF symbol tables of the loaded libraries
 * (elf_symbols.c), for symbols.c.
 */
#ifndef ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H
#define ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

/* N. The (demangled) function containing pc from its library's ELF symbol table;
 * false if none. */
bool prof_elf_name(void *pc, char *buf, size_t len);

#endif /* ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H */
