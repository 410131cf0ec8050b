/*
 * symbols.h - names of recorded frames, resolved after the fact (symbols.c: Java frames
 * through the ASGST accessors; elf_symbols.c: C frames from ELF symbol tables; kallsyms.c:
 * kernel frames from /proc/kallsyms), interned
 * as small ids that the outputs and the fd report write. All N.
 * symbols.c uses elf_symbols.c (elf_symbols.h), never the other way round.
 */
#ifndef ASGSTPROF_SYMBOLS_SYMBOLS_H
#define ASGSTPROF_SYMBOLS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/records.h"

/* Colour classes of frames in the outputs. */
enum prof_ftype { FT_INTERP, FT_C1, FT_C2, FT_INLINED, FT_NATIVE, FT_C, FT_THREAD, FT_KERNEL,
                  FT_NTYPES };

/* N. Interned frame id for a recorded frame (name resolved once per method). */
int prof_sym_frame(const prof_frame *f);
/* N. Interned frame id for a synthetic frame ("[thread]", "[error]"). */
int prof_sym_named(const char *name, enum prof_ftype type);
const char *prof_sym_name(int id);        /* N */
enum prof_ftype prof_sym_type(int id);    /* N */
int prof_sym_count(void);                 /* N */
void prof_sym_reset(void);                /* N */

/* N. Reads the kernel's text symbols from /proc/kallsyms, once per process (later calls
 * return at once; kallsyms.c). NULL, or why kernel frames cannot be named. */
const char *prof_kallsyms_load(void);
/* N. The start of the kernel function holding addr (addr itself if none is known): the
 * pcs of one function are one frame. */
uint64_t prof_kallsyms_start(uint64_t addr);
/* N. A kernel address's name with the kernel frame's mark: "vfs_write_[k]". */
void prof_kallsyms_name(uint64_t addr, char *buf, size_t len);

#endif /* ASGSTPROF_SYMBOLS_SYMBOLS_H */
