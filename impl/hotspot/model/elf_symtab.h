/*
 * elf_symtab.h - addresses of libjvm's local symbols, read from the .symtab section of
 * the libjvm.so file. For the few VM facts the vmStructs tables of some JDK do not
 * export (JDK 21: ContinuationEntry::_return_pc); a stripped libjvm has no .symtab and
 * the lookup fails, which switches the dependent feature off.
 */
#ifndef ASGST_HOTSPOT_ELF_SYMTAB_H
#define ASGST_HOTSPOT_ELF_SYMTAB_H

#include <stdbool.h>
#include <stdint.h>

/* N. Link-time value (st_value) of the symbol `name` in the .symtab of the ELF file at
 * `path`, 0 if it has no .symtab or no such symbol (or is not a 64-bit ELF file). */
uint64_t asgst__elf_file_symbol(const char *path, const char *name);

/* N. Run-time address of the (mangled) symbol `name` of the loaded libjvm.so, 0 if the
 * file has no .symtab or no such symbol. Reads the file: call at initialization only. */
uintptr_t asgst__elf_libjvm_symbol(const char *name);

/* N. Whether the loaded libjvm.so's file has a .symtab: its section headers only, a few
 * kilobytes read, where a lookup reads the whole table. */
bool asgst__elf_libjvm_has_symtab(void);

#endif
