/*
 * elf_symbols.h - names of C frames from the ELF symbol tables of the loaded libraries and
 * of their separate debug files (elf_symbols.c), for symbols.c.
 */
#ifndef ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H
#define ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H

#include <stddef.h>

/* N. The name of the C frame at pc into buf: the (demangled) function containing it, else
 * "library+0xoffset", else "[0x...]" for a pc in no library (JIT code, stubs). Callers
 * serialize (symbols.c holds its lock). */
void prof_c_name(void *pc, char *buf, size_t len);

#endif /* ASGSTPROF_SYMBOLS_ELF_SYMBOLS_H */
