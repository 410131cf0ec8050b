/*
 * debug_file.h - the separate debug file of a stripped library (debug_file.c), where
 * distributions keep the full symbol table (Debian's *-dbg / *-dbgsym packages under
 * /usr/lib/debug). All N.
 */
#ifndef ASGSTPROF_SYMBOLS_DEBUG_FILE_H
#define ASGSTPROF_SYMBOLS_DEBUG_FILE_H

#include <stdbool.h>

#include "symbols/elf_file.h"

/* N. Opens the debug file of lib (mapped from path): by its build id first, then by its
 * .gnu_debuglink; false if none is found or none matches lib. */
bool prof_debug_file_open(const prof_elf *lib, const char *path, prof_elf *dbg);

#endif /* ASGSTPROF_SYMBOLS_DEBUG_FILE_H */
