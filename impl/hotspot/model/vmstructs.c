/*
 * vmstructs.c - lookups in HotSpot's exported vmStructs tables (see vmstructs.h).
 *
 * The entry layouts themselves are described by exported offset/stride variables
 * (gHotSpotVMStructEntryTypeNameOffset, ...), so nothing about the table format is
 * hardcoded here.
 */
#include "vmstructs.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *table_symbol;
  const char *const *offset_symbols; /* name, then up to 3 more field offset symbols */
  const char *stride_symbol;
  uintptr_t base;
  uint64_t stride;
  uint64_t off[5];
} table;

static const char *structs_syms[] = {
    "gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
    "gHotSpotVMStructEntryTypeStringOffset", "gHotSpotVMStructEntryIsStaticOffset",
    "gHotSpotVMStructEntryOffsetOffset", NULL};
static const char *struct_addr_sym = "gHotSpotVMStructEntryAddressOffset";
static const char *types_syms[] = {"gHotSpotVMTypeEntryTypeNameOffset",
                                   "gHotSpotVMTypeEntrySizeOffset", NULL};
static const char *int_syms[] = {"gHotSpotVMIntConstantEntryNameOffset",
                                 "gHotSpotVMIntConstantEntryValueOffset", NULL};
static const char *long_syms[] = {"gHotSpotVMLongConstantEntryNameOffset",
                                  "gHotSpotVMLongConstantEntryValueOffset", NULL};

static table structs = {"gHotSpotVMStructs", structs_syms, "gHotSpotVMStructEntryArrayStride", 0, 0, {0}};
static table types = {"gHotSpotVMTypes", types_syms, "gHotSpotVMTypeEntryArrayStride", 0, 0, {0}};
static table ints = {"gHotSpotVMIntConstants", int_syms, "gHotSpotVMIntConstantEntryArrayStride", 0, 0, {0}};
static table longs = {"gHotSpotVMLongConstants", long_syms, "gHotSpotVMLongConstantEntryArrayStride", 0, 0, {0}};
static uint64_t struct_addr_off;
static void *libjvm;
static bool loaded;

/* N. dl_iterate_phdr callback: remember the path of the loaded libjvm.so. */
static int find_libjvm(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char *slash = strrchr(info->dlpi_name, '/');
  if (slash && strcmp(slash + 1, "libjvm.so") == 0) {
    snprintf((char *)data, 4096, "%s", info->dlpi_name);
    return 1;
  }
  return 0;
}

/* N. A symbol of libjvm: the global namespace first (the java launcher loads libjvm with
 * RTLD_GLOBAL), then libjvm itself when it was loaded privately (JNI_CreateJavaVM hosts). */
static void *jvm_symbol(const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  if (p) return p;
  if (libjvm == NULL) {
    char path[4096] = "";
    dl_iterate_phdr(find_libjvm, path);
    if (path[0]) libjvm = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  }
  return libjvm ? dlsym(libjvm, name) : NULL;
}

/* N. */
static int load_table(table *t, char *err, size_t errlen) {
  void **base = jvm_symbol(t->table_symbol);
  uint64_t *stride = jvm_symbol(t->stride_symbol);
  if (base == NULL || *base == NULL || stride == NULL) {
    snprintf(err, errlen, "libjvm does not export %s", t->table_symbol);
    return -1;
  }
  t->base = (uintptr_t)*base;
  t->stride = *stride;
  for (int i = 0; t->offset_symbols[i]; i++) {
    uint64_t *o = jvm_symbol(t->offset_symbols[i]);
    if (o == NULL) {
      snprintf(err, errlen, "libjvm does not export %s", t->offset_symbols[i]);
      return -1;
    }
    t->off[i] = *o;
  }
  return 0;
}

/* N. */
int asgst__vms_load(char *err, size_t errlen) {
  if (loaded) return 0;
  if (load_table(&structs, err, errlen) || load_table(&types, err, errlen) ||
      load_table(&ints, err, errlen) || load_table(&longs, err, errlen))
    return -1;
  uint64_t *a = jvm_symbol(struct_addr_sym);
  if (a == NULL) {
    snprintf(err, errlen, "libjvm does not export %s", struct_addr_sym);
    return -1;
  }
  struct_addr_off = *a;
  loaded = true;
  return 0;
}

/* N. Points table t at an array of entries of `stride` bytes with fields at `offs`. */
static void point(table *t, const void *base, uint64_t stride, const uint64_t *offs, int n) {
  t->base = (uintptr_t)base;
  t->stride = stride;
  for (int i = 0; i < n; i++) t->off[i] = offs[i];
}

/* N. */
void asgst__vms_use(const asgst__vms_struct *s, const asgst__vms_type *t,
                    const asgst__vms_int_const *i, const asgst__vms_long_const *l) {
  static const uint64_t so[] = {offsetof(asgst__vms_struct, type), offsetof(asgst__vms_struct, field),
                                offsetof(asgst__vms_struct, type_string),
                                offsetof(asgst__vms_struct, is_static), offsetof(asgst__vms_struct, offset)};
  static const uint64_t to[] = {offsetof(asgst__vms_type, name), offsetof(asgst__vms_type, size)};
  static const uint64_t io[] = {offsetof(asgst__vms_int_const, name), offsetof(asgst__vms_int_const, value)};
  static const uint64_t lo[] = {offsetof(asgst__vms_long_const, name), offsetof(asgst__vms_long_const, value)};
  point(&structs, s, sizeof *s, so, 5);
  point(&types, t, sizeof *t, to, 2);
  point(&ints, i, sizeof *i, io, 2);
  point(&longs, l, sizeof *l, lo, 2);
  struct_addr_off = offsetof(asgst__vms_struct, address);
  loaded = true;
}

/* N. */
void asgst__vms_unload(void) { loaded = false; }

#define FIELD(t, i, n, type) (*(type *)((t)->base + (i) * (t)->stride + (t)->off[n]))

/* N. Index of the struct entry type::field, -1 if absent. The table ends with an entry
 * whose type name is NULL. */
static long struct_index(const char *type, const char *field) {
  if (!loaded) return -1;
  for (long i = 0;; i++) {
    const char *tn = FIELD(&structs, i, 0, const char *);
    if (tn == NULL) return -1;
    const char *fn = FIELD(&structs, i, 1, const char *);
    if (fn && strcmp(tn, type) == 0 && strcmp(fn, field) == 0) return i;
  }
}

/* N. */
long asgst__vms_offset(const char *type, const char *field) {
  long i = struct_index(type, field);
  if (i < 0 || FIELD(&structs, i, 3, int32_t)) return -1;
  return (long)FIELD(&structs, i, 4, uint64_t);
}

/* N. */
uintptr_t asgst__vms_static(const char *type, const char *field) {
  long i = struct_index(type, field);
  if (i < 0 || !FIELD(&structs, i, 3, int32_t)) return 0;
  return (uintptr_t)(*(void **)(structs.base + i * structs.stride + struct_addr_off));
}

/* N. */
const char *asgst__vms_field_type(const char *type, const char *field) {
  long i = struct_index(type, field);
  return i < 0 ? NULL : FIELD(&structs, i, 2, const char *);
}

/* N. */
long asgst__vms_type_size(const char *type) {
  if (!loaded) return -1;
  for (long i = 0;; i++) {
    const char *tn = FIELD(&types, i, 0, const char *);
    if (tn == NULL) return -1;
    if (strcmp(tn, type) == 0) return (long)FIELD(&types, i, 1, uint64_t);
  }
}

/* N. */
static bool constant(table *t, const char *name, int64_t *out, bool is_long) {
  if (!loaded) return false;
  for (long i = 0;; i++) {
    const char *n = FIELD(t, i, 0, const char *);
    if (n == NULL) return false;
    if (strcmp(n, name) == 0) {
      *out = is_long ? FIELD(t, i, 1, int64_t) : FIELD(t, i, 1, int32_t);
      return true;
    }
  }
}

/* N. */
bool asgst__vms_int(const char *name, int32_t *out) {
  int64_t v;
  if (!constant(&ints, name, &v, false)) return false;
  *out = (int32_t)v;
  return true;
}

/* N. */
int asgst__vms_field_size(const char *type, const char *field) {
  const char *t = asgst__vms_field_type(type, field);
  if (t == NULL) return -1;
  if (strchr(t, '*')) return 8;
  /* A known VM type (u2, CompLevel, ...) has its size in the types table. */
  char base[128];
  snprintf(base, sizeof base, "%s", t);
  char *sp = strstr(base, " const");
  if (sp) *sp = '\0';
  sp = strstr(base, " volatile");
  if (sp) *sp = '\0';
  long s = asgst__vms_type_size(base);
  return s > 0 && s <= 8 ? (int)s : -1;
}
