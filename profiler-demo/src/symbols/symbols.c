/*
 * symbols.c - frame names, resolved after the fact (at dump) with the ASGST accessors from
 * the recorded ASGST_Method handles; C frames from the libraries' ELF symbol tables and
 * their debug files (elf_symbols.c); kernel frames from /proc/kallsyms (kallsyms.c). Each
 * (method, colour) pair is interned once, so a dump costs one accessor call per distinct
 * method; the pcs of one kernel function are one frame.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asgst.h"
#include "core/blob_names.h"
#include "symbols/elf_symbols.h"
#include "symbols/symbols.h"

typedef struct {
  void *key;
  int type;
  int id;
} slot;

static slot *table;
static int tcap, tcount;
static char **names;
static uint8_t *types;
static int nsyms, symcap;
/* The table is shared by the dump, asgst-attach's fd query and the fds_interval thread,
 * which may run at the same time; every entry point takes this lock. */
static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. */
void prof_sym_reset(void) {
  pthread_mutex_lock(&sym_lock);
  for (int i = 0; i < nsyms; i++) free(names[i]);
  free(names), free(types), free(table);
  names = NULL, types = NULL, table = NULL;
  nsyms = symcap = tcap = tcount = 0;
  pthread_mutex_unlock(&sym_lock);
}

/* N. Appends a symbol and returns its id. */
static int add_symbol(char *name, enum prof_ftype type) {
  if (nsyms == symcap) {
    symcap = symcap ? symcap * 2 : 1024;
    names = realloc(names, (size_t)symcap * sizeof *names);
    types = realloc(types, (size_t)symcap);
  }
  names[nsyms] = name;
  types[nsyms] = (uint8_t)type;
  return nsyms++;
}

/* N. The colour class of a frame. */
static enum prof_ftype ftype_of(const prof_frame *f) {
  switch (f->type) {
    case ASGST_FRAME_JAVA_INLINED: return FT_INLINED;
    case ASGST_FRAME_JAVA_NATIVE: return FT_NATIVE;
    case ASGST_FRAME_NON_JAVA: return FT_C;
    case PROF_FRAME_KERNEL: return FT_KERNEL;
    default: return f->comp_level >= 4 ? FT_C2 : f->comp_level >= 1 ? FT_C1 : FT_INTERP;
  }
}

/* N. "pkg.Class.method" from the ASGST accessors. */
static char *java_name(ASGST_Method m) {
  char mname[256], cname[512];
  ASGST_MethodInfo mi;
  memset(&mi, 0, sizeof mi);
  mi.method_name = mname;
  mi.method_name_length = sizeof mname;
  ASGST_GetMethodInfo(m, &mi);
  ASGST_ClassInfo ci;
  memset(&ci, 0, sizeof ci);
  ci.class_name = cname;
  ci.class_name_length = sizeof cname;
  if (mi.klass) ASGST_GetClassInfo(mi.klass, &ci);
  if (mi.method_name_length <= 0 || mi.method_name == NULL) {
    char buf[64];
    snprintf(buf, sizeof buf, "[unknown method %p]", (void *)m);
    return strdup(buf);
  }
  const char *cn = ci.class_name && ci.class_name_length > 0 ? cname : "[unknown class]";
  if (cn[0] == 'L' && cn[strlen(cn) - 1] == ';') cn++, cname[strlen(cname) - 1] = 0;
  size_t len = strlen(cn) + strlen(mname) + 2;
  char *s = malloc(len);
  snprintf(s, len, "%s.%s", cn, mname);
  for (char *p = s; *p; p++)
    if (*p == '/') *p = '.';
  return s;
}

/* N. A C frame's name (elf_symbols.c). */
static char *c_name(void *pc) {
  char buf[1024];
  prof_c_name(pc, buf, sizeof buf);
  return strdup(buf);
}

/* N. A kernel frame's name, marked as async-profiler marks them: "vfs_write_[k]". */
static char *kernel_name(void *pc) {
  char buf[300];
  prof_kallsyms_name((uint64_t)(uintptr_t)pc, buf, sizeof buf);
  return strdup(buf);
}

/* N. A C frame in VM code: its blob's name as taken at sample time. */
static char *vm_code_name(int id) {
  char buf[PROF_BLOB_NAME_CAP + 8];
  const char *name = prof_blob_name(id);
  snprintf(buf, sizeof buf, "[stub] %s", name ? name : "?");
  return strdup(buf);
}

/* N. Finds or adds (key, type) in the open-addressing table. */
static slot *lookup(void *key, int type) {
  if (tcount * 2 >= tcap) {
    int ncap = tcap ? tcap * 2 : 4096;
    slot *nt = calloc((size_t)ncap, sizeof *nt);
    for (int i = 0; i < tcap; i++) {
      if (table[i].id == 0) continue;
      size_t h = ((uintptr_t)table[i].key * 31 + (size_t)table[i].type) * 0x9E3779B97F4A7C15ull;
      int j = (int)(h >> 40) & (ncap - 1);
      while (nt[j].id) j = (j + 1) & (ncap - 1);
      nt[j] = table[i];
    }
    free(table);
    table = nt;
    tcap = ncap;
  }
  size_t h = ((uintptr_t)key * 31 + (size_t)type) * 0x9E3779B97F4A7C15ull;
  int j = (int)(h >> 40) & (tcap - 1);
  while (table[j].id && !(table[j].key == key && table[j].type == type)) j = (j + 1) & (tcap - 1);
  return &table[j];
}

/* The table's type for C function names, keyed by their hash (c_symbol). */
#define NAME_KEYED (-1)

/* N. The symbol of a C function by its name: the pcs of one function are one frame, so the
 * tree and the collapsed lines merge them. Keyed by the name's 64-bit FNV-1a hash (two names
 * of one hash are not expected). Takes name. Lock held. */
static int c_symbol(char *name) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = name; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
  void *key = (void *)(uintptr_t)(h | 1); /* never NULL */
  slot *s = lookup(key, NAME_KEYED);
  if (s->id) {
    free(name);
    return s->id - 1;
  }
  s->key = key;
  s->type = NAME_KEYED;
  s->id = add_symbol(name, FT_C) + 1;
  tcount++;
  return s->id - 1;
}

/* N. */
int prof_sym_frame(const prof_frame *f) {
  enum prof_ftype t = ftype_of(f);
  /* A frame in VM code is keyed by its blob name's id (a small number no pc has), so the
   * pcs of one blob are one frame. */
  int blob = t == FT_C && f->bci > 0 ? f->bci : 0;
  void *key = blob ? (void *)(uintptr_t)blob : f->method;
  if (t == FT_KERNEL) key = (void *)(uintptr_t)prof_kallsyms_start((uint64_t)(uintptr_t)f->method);
  pthread_mutex_lock(&sym_lock);
  slot *s = lookup(key, (int)t);
  if (!s->id && t == FT_C && !blob) {
    int id = c_symbol(c_name(f->method));
    s = lookup(key, (int)t); /* c_symbol may have grown the table */
    s->key = key;
    s->type = (int)t;
    s->id = id + 1;
    tcount++;
  } else if (!s->id) {
    char *name = blob ? vm_code_name(blob)
                 : t == FT_C ? c_name(f->method)
                 : t == FT_KERNEL ? kernel_name(f->method) : java_name((ASGST_Method)f->method);
    s->key = key;
    s->type = (int)t;
    s->id = add_symbol(name, t) + 1; /* stored + 1: 0 marks an empty slot */
    tcount++;
  }
  int id = s->id - 1;
  pthread_mutex_unlock(&sym_lock);
  return id;
}

/* N. */
int prof_sym_named(const char *name, enum prof_ftype type) {
  pthread_mutex_lock(&sym_lock);
  int id = -1;
  for (int i = 0; i < nsyms && id < 0; i++)
    if (types[i] == type && strcmp(names[i], name) == 0) id = i;
  if (id < 0) id = add_symbol(strdup(name), type);
  pthread_mutex_unlock(&sym_lock);
  return id;
}

/* N. The strings themselves stay put until a reset; only the arrays move. */
const char *prof_sym_name(int id) {
  pthread_mutex_lock(&sym_lock);
  const char *n = names[id];
  pthread_mutex_unlock(&sym_lock);
  return n;
}

/* N. */
enum prof_ftype prof_sym_type(int id) {
  pthread_mutex_lock(&sym_lock);
  enum prof_ftype t = (enum prof_ftype)types[id];
  pthread_mutex_unlock(&sym_lock);
  return t;
}

int prof_sym_count(void) { return nsyms; } /* N */
