/* test_hs_vm_model.c - the HotSpot model (impl/hotspot/model/vm_model.c) over recorded vmStructs
 * tables, without a JVM. Each file in tests/data/vmstructs (written by the
 * vmstructs_dump test agent from a real JVM) is turned back into the tables a libjvm
 * exports: this program defines gHotSpotVMStructs and friends itself, so the library's
 * own loader (vmstructs.c) finds them. The model must accept each recorded JDK and derive
 * the facts it knows for that version; a layout change in a new update shows up here. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "asgst.h"
#include "impl/hotspot/model/vm_model.h"
#include "impl/hotspot/model/vmstructs.h"
#include "impl/test_build.h" /* asgst__vm_hide_for_test */

/* The interpreter and call stub slots that vmStructs does not export: the recorded dumps
 * are x86_64 JVMs', whose slots an x86_64 build takes; an arm64 build takes arm64's frame
 * layout whatever JVM the dump came from (impl/hotspot/model/vm_model.c, derive()). */
#if defined(__aarch64__)
#define X86_DUMP_SLOT(x86_64, arm64) (arm64)
#else
#define X86_DUMP_SLOT(x86_64, arm64) (x86_64)
#endif

#define MAX_ENTRIES 4096

/* The entry layouts are ours; the exported offsets below describe them to the loader. */
typedef struct { const char *type, *field, *type_string; int32_t is_static; uint64_t offset; void *address; } struct_entry;
typedef struct { const char *name; uint64_t size; } type_entry;
typedef struct { const char *name; int32_t value; } int_entry;
typedef struct { const char *name; int64_t value; } long_entry;

static struct_entry structs[MAX_ENTRIES];
static type_entry types[MAX_ENTRIES];
static int_entry ints[MAX_ENTRIES];
static long_entry longs[MAX_ENTRIES];

struct_entry *gHotSpotVMStructs = structs;
type_entry *gHotSpotVMTypes = types;
int_entry *gHotSpotVMIntConstants = ints;
long_entry *gHotSpotVMLongConstants = longs;
uint64_t gHotSpotVMStructEntryArrayStride = sizeof(struct_entry);
uint64_t gHotSpotVMStructEntryTypeNameOffset = offsetof(struct_entry, type);
uint64_t gHotSpotVMStructEntryFieldNameOffset = offsetof(struct_entry, field);
uint64_t gHotSpotVMStructEntryTypeStringOffset = offsetof(struct_entry, type_string);
uint64_t gHotSpotVMStructEntryIsStaticOffset = offsetof(struct_entry, is_static);
uint64_t gHotSpotVMStructEntryOffsetOffset = offsetof(struct_entry, offset);
uint64_t gHotSpotVMStructEntryAddressOffset = offsetof(struct_entry, address);
uint64_t gHotSpotVMTypeEntryArrayStride = sizeof(type_entry);
uint64_t gHotSpotVMTypeEntryTypeNameOffset = offsetof(type_entry, name);
uint64_t gHotSpotVMTypeEntrySizeOffset = offsetof(type_entry, size);
uint64_t gHotSpotVMIntConstantEntryArrayStride = sizeof(int_entry);
uint64_t gHotSpotVMIntConstantEntryNameOffset = offsetof(int_entry, name);
uint64_t gHotSpotVMIntConstantEntryValueOffset = offsetof(int_entry, value);
uint64_t gHotSpotVMLongConstantEntryArrayStride = sizeof(long_entry);
uint64_t gHotSpotVMLongConstantEntryNameOffset = offsetof(long_entry, name);
uint64_t gHotSpotVMLongConstantEntryValueOffset = offsetof(long_entry, value);

static int version;           /* what Abstract_VM_Version::_vm_major_version points at */
static uint64_t static_dummy; /* every other static field */
static char *text;            /* the loaded file, cut into the names above */

/* Splits "Type::field" at the last "::" in place. */
static void split_name(char *name, const char **type, const char **field) {
  char *sep = NULL;
  for (char *p = strstr(name, "::"); p; p = strstr(p + 2, "::")) sep = p;
  *sep = '\0';
  *type = name;
  *field = sep + 2;
}

/* Parses one line into the tables; counts in n[4]. */
static void parse_line(char *line, int *n) {
  char *save, *kind = strtok_r(line, " ", &save), *name = strtok_r(NULL, " ", &save);
  if (!kind || !name) return;
  char *rest = save;
  if (strcmp(kind, "STRUCT") == 0) {
    struct_entry *e = &structs[n[0]++];
    split_name(name, &e->type, &e->field);
    char *t = strstr(rest, "type=");
    e->type_string = t ? t + 5 : "?";
    e->is_static = strncmp(rest, "static", 6) == 0;
    if (!e->is_static) e->offset = strtoull(strstr(rest, "offset=") + 7, NULL, 10);
    bool major = strcmp(e->type, "Abstract_VM_Version") == 0 && strcmp(e->field, "_vm_major_version") == 0;
    e->address = e->is_static ? (major ? (void *)&version : (void *)&static_dummy) : NULL;
    if (t) t[-1] = '\0';
  } else if (strcmp(kind, "TYPE") == 0) {
    types[n[1]].name = name;
    types[n[1]++].size = strtoull(strstr(rest, "size=") + 5, NULL, 10);
  } else if (strcmp(kind, "INT") == 0) {
    ints[n[2]].name = name;
    ints[n[2]++].value = (int32_t)strtol(rest + 2, NULL, 10);
  } else if (strcmp(kind, "LONG") == 0) {
    longs[n[3]].name = name;
    longs[n[3]++].value = strtoll(rest + 2, NULL, 10);
  }
}

/* Loads a recorded dump into the exported tables (the same storage every time, so the
 * loader's view, taken once, stays valid) and sets the version it came from. */
static void load_dump(const char *file, int jdk) {
  char path[1024];
  snprintf(path, sizeof path, "%s/vmstructs/%s", ASGST_TEST_DATA, file);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  free(text);
  text = calloc(1, 1 << 20);
  size_t len = fread(text, 1, (1 << 20) - 1, f);
  fclose(f);
  assert_true(len > 1000);
  memset(structs, 0, sizeof structs), memset(types, 0, sizeof types);
  memset(ints, 0, sizeof ints), memset(longs, 0, sizeof longs);
  int n[4] = {0};
  char *save;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    parse_line(line, n);
  assert_true(n[0] < MAX_ENTRIES && n[1] < MAX_ENTRIES && n[2] < MAX_ENTRIES);
  version = jdk;
  char err[256];
  assert_int_equal(asgst__vms_load(err, sizeof err), 0);
}

/* Builds the model; returns init's result and leaves its message in err. */
static int build(char *err, size_t len) {
  err[0] = '\0';
  return asgst__vm_model_init(0, 0, err, len);
}

static void jdk17(void **state) {
  (void)state;
  char err[1024];
  load_dump("jdk17.0.15-debian.txt", 17);
  assert_int_equal(build(err, sizeof err), 0);
  const asgst__vm_model *v = &asgst__vm;
  assert_int_equal(v->code, ASGST__CODE_POINTERS);
  assert_int_equal(v->stream_excess, 0);          /* Pack200-style streams */
  assert_int_equal(v->heapblock_size, 16);
  assert_int_equal(v->cb_frame_complete_w, 4);
  assert_int_equal(v->nm_comp_level_w, 4);
  assert_int_equal(v->cm_flags_w, 2);
  assert_int_equal(v->cb_code_begin, 32);
  assert_int_equal(v->nm_method, 112);             /* CompiledMethod::_method */
  /* Rows of 17/21 and of 25 share these destinations; a row of the other version must
   * not reset what an earlier row found (it did: prologue and deopt frames failed). */
  assert_int_equal(v->nm_entry, 216);              /* nmethod::_entry_point */
  assert_int_equal(v->nm_verified_entry, 224);     /* nmethod::_verified_entry_point */
  assert_int_equal(v->nm_deopt_handler, 128);      /* CompiledMethod::_deopt_handler_begin */
  assert_int_equal(v->nm_deopt_mh_handler, 136);
  assert_int_equal(v->interp_sender_sp_slot, -1);
  assert_int_equal(v->entry_wrapper_slot, X86_DUMP_SLOT(-6, -8));
  assert_string_equal(asgst__vm_features_off(), "");
}

/* JDK 8's VM calls itself HotSpot 25; its one code heap tells it apart. Code and debug
 * information at offsets from the blob, entry points as addresses, the interpreter slots
 * and thread termination not exported. */
static void jdk8(void **state) {
  (void)state;
  char err[1024];
  load_dump("jdk8.0.504-debian.txt", 25);
  assert_int_equal(build(err, sizeof err), 0);
  const asgst__vm_model *v = &asgst__vm;
  assert_int_equal(v->jdk, 8);
  assert_int_equal(v->code, ASGST__CODE_BLOB_OFFSETS);
  assert_int_equal(v->stream_excess, 0);
  assert_true(v->codecache_heap != 0 && v->codecache_heaps == 0);
  assert_int_equal(v->heapblock_size, 16);
  assert_int_equal(v->cb_code_offset, 32);
  assert_int_equal(v->cb_code_begin, -1);
  assert_int_equal(v->nm_method, 64);              /* nmethod::_method */
  assert_int_equal(v->nm_entry, 120);              /* nmethod::_entry_point */
  assert_int_equal(v->nm_deopt_handler, 148);      /* nmethod::_deoptimize_offset */
  assert_int_equal(v->nm_deopt_mh_handler, 152);
  assert_int_equal(v->nm_scopes_data_offset, 176);
  assert_int_equal(v->interp_sender_sp_slot, -1);
  assert_int_equal(v->interp_bcp_slot, X86_DUMP_SLOT(-7, -9));
  assert_int_equal(v->entry_wrapper_slot, X86_DUMP_SLOT(-6, -8));
  assert_int_equal(v->jt_terminated, -1);
  assert_int_equal(v->st_in_java, 8);
  assert_true(v->flags_addr != 0 && v->flag_sizeof == 32); /* Flag, not JVMFlag */
  assert_false(v->mirror_handle);
  /* Before the VM initializes its globals (an agent's Agent_OnLoad) it reads 0. */
  version = 0;
  assert_int_equal(build(err, sizeof err), 0);
  assert_int_equal(asgst__vm.jdk, 8);
  assert_string_equal(asgst__vm_features_off(), "");
}

/* 21 keeps 17's code layout but codes its streams as UNSIGNED5 and its tier in a byte. */
static void jdk21(void **state) {
  (void)state;
  char err[1024];
  load_dump("jdk21.0.13-debian.txt", 21);
  assert_int_equal(build(err, sizeof err), 0);
  const asgst__vm_model *v = &asgst__vm;
  assert_int_equal(v->code, ASGST__CODE_POINTERS);
  assert_int_equal(v->stream_excess, 1);
  assert_int_equal(v->heapblock_size, 16);
  assert_int_equal(v->cb_frame_complete_w, 4);
  assert_int_equal(v->nm_comp_level_w, 1);
  assert_int_equal(v->cm_flags_w, 4);
  assert_true(v->cb_code_begin > 0 && v->nm_scopes_data_begin > 0);
  assert_true(v->nm_entry > 0 && v->nm_verified_entry > 0 && v->nm_deopt_handler > 0 && v->nm_deopt_mh_handler > 0);
}

static void jdk25(void **state) {
  (void)state;
  char err[1024];
  load_dump("jdk25.0.3-temurin.txt", 25);
  assert_int_equal(build(err, sizeof err), 0);
  const asgst__vm_model *v = &asgst__vm;
  assert_int_equal(v->code, ASGST__CODE_OFFSETS);
  assert_int_equal(v->stream_excess, 1);          /* UNSIGNED5 */
  assert_int_equal(v->heapblock_size, 8);
  assert_int_equal(v->cb_frame_complete_w, 2);    /* int16_t */
  assert_int_equal(v->nm_comp_level_w, 1);
  assert_int_equal(v->cm_flags_w, 4);             /* ConstMethodFlags */
  assert_int_equal(v->cb_code_offset, 36);
  assert_int_equal(v->nm_immutable_data, 96);
  assert_int_equal(v->nm_method, 80);             /* nmethod::_method */
  assert_int_equal(v->cb_code_begin, -1);         /* not looked up on 25 */
  assert_true(v->nm_entry > 0 && v->nm_verified_entry > 0 && v->nm_deopt_handler > 0);
  print_message("# features off on 25: %s\n", asgst__vm_features_off());
}

/* Every recorded dump builds a model (a dump added for a new JDK is checked at once). */
static void every_recorded_dump(void **state) {
  (void)state;
  char path[1024], err[1024];
  snprintf(path, sizeof path, "%s/vmstructs", ASGST_TEST_DATA);
  DIR *d = opendir(path);
  assert_non_null(d);
  int seen = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    int jdk;
    if (sscanf(e->d_name, "jdk%d.", &jdk) != 1) continue;
    load_dump(e->d_name, jdk);
    int rc = build(err, sizeof err);
    print_message("# %s: %s\n", e->d_name, rc == 0 ? "model built" : err);
    assert_int_equal(rc, 0);
    seen++;
  }
  closedir(d);
  assert_true(seen >= 2);
}

/* A required name the VM does not export refuses the VM, naming it; an optional one
 * switches its feature off and says so; an unsupported version is refused by number. */
static void missing_names_and_versions(void **state) {
  (void)state;
  char err[1024];
  load_dump("jdk17.0.15-debian.txt", 17);
  asgst__vm_hide_for_test("Method::_constMethod,Symbol::_length");
  assert_int_equal(build(err, sizeof err), -1);
  assert_non_null(strstr(err, "Method::_constMethod"));
  assert_non_null(strstr(err, "Symbol::_length"));
  asgst__vm_hide_for_test("JVMFlag::flags");
  assert_int_equal(build(err, sizeof err), 0);
  assert_non_null(strstr(asgst__vm_features_off(), "DebugNonSafepoints"));
  asgst__vm_hide_for_test(NULL);
  version = 22;
  assert_int_equal(build(err, sizeof err), -1);
  assert_non_null(strstr(err, "JDK 22"));
  /* A newer JDK than the newest tested: refused by default, saying how to opt in; with
   * the opt-in accepted when every required row resolves, and reported as untested. */
  load_dump("jdk27.0.1-debian.txt", 28);
  assert_int_equal(build(err, sizeof err), -1);
  assert_non_null(strstr(err, "ASGST_INIT_UNTESTED_JDK"));
  err[0] = '\0';
  assert_int_equal(asgst__vm_model_init(0, ASGST_INIT_UNTESTED_JDK, err, sizeof err), 0);
  assert_non_null(strstr(asgst__vm_features_off(), "untested JDK 28"));
  /* The JVM's own specification version must agree with the tables. */
  load_dump("jdk27.0.1-debian.txt", 27);
  assert_int_equal(asgst__vm_model_init(26, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "java.vm.specification.version"));
  /* An older JDK is refused even with the opt-in. */
  load_dump("jdk17.0.15-debian.txt", 16);
  assert_int_equal(asgst__vm_model_init(0, ASGST_INIT_UNTESTED_JDK, err, sizeof err), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jdk8),
      cmocka_unit_test(jdk17),
      cmocka_unit_test(jdk21),
      cmocka_unit_test(jdk25),
      cmocka_unit_test(every_recorded_dump),
      cmocka_unit_test(missing_names_and_versions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
