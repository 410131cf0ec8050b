/*
 * elf_symbols.c - names of C frames from the ELF symbol tables of the loaded libraries.
 * dladdr only sees the dynamic (exported) symbols and answers with the nearest one below
 * the pc, which names the wrong function for every internal one (most of libjvm, libc's
 * internals). Here each library's .dynsym and .symtab are read once from its file; a
 * stripped library (no .symtab, like Debian's libc) gets the .symtab of its separate debug
 * file instead (debug_file.c), when one is installed. Its functions go into a sorted table
 * (func_table.c) and a pc is named by the function that contains it. C++ names are
 * demangled with libstdc++'s __cxa_demangle (linked into the agent: Temurin's libjvm
 * carries its own static copy and exports none). Used at dump time only (N).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/debug_file.h"
#include "symbols/elf_symbols.h"
#include "symbols/func_table.h"

typedef struct lib {
  char *path;
  prof_func_table funcs; /* symbol values, relative to the load address l_addr */
  struct lib *next;
} lib;

static lib *libs;

/* libstdc++'s demangler (the agent links libstdc++ for it; its C++ ABI entry point). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* N. How far the debug file's symbol values lie from the library's: 0 unless a tool
 * relinked one of them (both come from one link), seen by their first PT_LOAD. */
static int64_t shift_of(const prof_elf *e, const prof_elf *dbg) {
  uint64_t at_lib, at_dbg;
  return prof_elf_first_load(e, &at_lib) && prof_elf_first_load(dbg, &at_dbg)
             ? (int64_t)(at_lib - at_dbg) : 0;
}

/* N. Reads the library's functions: .dynsym and .symtab of the file, or, if it has no
 * .symtab, .dynsym and the debug file's .symtab. The files are unmapped afterwards. */
static void read_functions(lib *l, const char *file) {
  prof_elf e, dbg;
  if (!prof_elf_open(&e, file)) return;
  const Elf64_Shdr *full = prof_elf_section(&e, SHT_SYMTAB, NULL);
  prof_func_add(&l->funcs, &e, prof_elf_section(&e, SHT_DYNSYM, NULL), 0);
  prof_func_add(&l->funcs, &e, full, 0);
  bool debug = !full && prof_debug_file_open(&e, file, &dbg);
  if (debug)
    prof_func_add(&l->funcs, &dbg, prof_elf_section(&dbg, SHT_SYMTAB, NULL), shift_of(&e, &dbg));
  prof_func_finish(&l->funcs);
  if (debug) prof_elf_close(&dbg);
  prof_elf_close(&e);
}

/* N. The library at path, its functions read on first use; NULL if it has none. */
static lib *library(const char *path, const char *file) {
  for (lib *l = libs; l; l = l->next)
    if (strcmp(l->path, path) == 0) return l->funcs.n ? l : NULL;
  lib *l = calloc(1, sizeof *l);
  if (!l || !(l->path = strdup(path))) return free(l), NULL;
  l->next = libs;
  libs = l;
  read_functions(l, file);
  return l->funcs.n ? l : NULL;
}

/* N. Demangles a C++ name into buf if libstdc++'s demangler is in the process, without
 * its parameter list. */
static void demangle(const char *name, char *buf, size_t len) {
  int status = -1;
  char *d = strncmp(name, "_Z", 2) == 0 ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
  snprintf(buf, len, "%s", d && status == 0 ? d : name);
  free(d);
  /* The parameter list makes names long and splits one function's samples by overload
   * only rarely: cut it ("JavaCalls::call_helper"), except inside "operator()". */
  char *paren = strchr(buf, '(');
  if (paren && paren > buf && !(paren - buf >= 8 && strncmp(paren - 8, "operator", 8) == 0))
    *paren = 0;
}

/* N. A pc in a library whose table was read but in none of its functions (padding, PLT,
 * code without symbols) is "library+0xoffset": dladdr's nearest exported symbol would name
 * a function that does not contain it. Only a library that could not be read at all (the
 * vDSO has no file) falls back to dladdr's name. */
void prof_c_name(void *pc, char *buf, size_t len) {
  Dl_info di;
  struct link_map *lm = NULL;
  if (!dladdr1(pc, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !di.dli_fname) {
    snprintf(buf, len, "[%p]", pc);
    return;
  }
  /* The main program's link map has no name; its file is /proc/self/exe. */
  lib *l = library(di.dli_fname, lm->l_name[0] ? lm->l_name : "/proc/self/exe");
  const char *name = l ? prof_func_find(&l->funcs, (uintptr_t)pc - lm->l_addr) : NULL;
  if (name) {
    demangle(name, buf, len);
  } else if (!l && di.dli_sname) {
    snprintf(buf, len, "%s", di.dli_sname);
  } else {
    const char *base = strrchr(di.dli_fname, '/');
    snprintf(buf, len, "%s+0x%lx", base ? base + 1 : di.dli_fname,
             (unsigned long)((char *)pc - (char *)di.dli_fbase));
  }
}
