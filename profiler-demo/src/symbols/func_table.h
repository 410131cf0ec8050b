/*
 * func_table.h - the functions of one library (func_table.c): a sorted array of (start,
 * size, name) with the names in one string pool, built from the ELF symbol tables of the
 * library and of its debug file, then looked up by offset. Its memory is what the kept
 * functions need (16 bytes each and their names), not the files it was read from.
 * All N; one table is used by one thread at a time.
 */
#ifndef ASGSTPROF_SYMBOLS_FUNC_TABLE_H
#define ASGSTPROF_SYMBOLS_FUNC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/elf_file.h"

typedef struct {
  uint64_t start;  /* symbol value, in the library's own addresses */
  uint32_t size;   /* 0: unknown, the function reaches the next one */
  uint32_t name;   /* offset in the pool */
} prof_func;

typedef struct prof_func_cand prof_func_cand; /* a symbol read, not yet chosen */

typedef struct {
  prof_func *f;
  size_t n;
  char *pool;
  prof_func_cand *cand; /* while building only */
  size_t ncand, candcap;
} prof_func_table;

/* N. Adds the functions (STT_FUNC, STT_GNU_IFUNC) of symbol table sym of e, their values
 * moved by shift; e must stay mapped until prof_func_finish. */
void prof_func_add(prof_func_table *t, const prof_elf *e, const Elf64_Shdr *sym, int64_t shift);
/* N. Sorts, keeps one name per start address (global before weak before local, then the
 * fewest leading underscores, then the first read) and copies the kept names. */
void prof_func_finish(prof_func_table *t);
/* N. The name of the function containing addr, NULL if none: below the first one, or past
 * the end of the one before it. */
const char *prof_func_find(const prof_func_table *t, uint64_t addr);

#endif /* ASGSTPROF_SYMBOLS_FUNC_TABLE_H */
