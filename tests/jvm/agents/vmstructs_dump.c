/*
 * vmstructs_dump.c - a JVMTI agent that writes every entry of the running VM's exported
 * vmStructs tables to a text file, in the format of the files in tests/data/vmstructs (the input
 * of the no-JVM model test, test_hs_vm_model.c):
 *
 *   STRUCT Type::field offset=N type=T        STRUCT Type::field static addr=0xA type=T
 *   TYPE Name super=S size=N oop=0 int=0 unsigned=0
 *   INT NAME = V                               LONG NAME = V (0xV)
 *
 *   java -agentpath:libvmstructs_dump.so=OUT.txt -version
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>

#include <jvmti.h>

/* N. The value of an exported uint64_t describing the tables. */
static uint64_t sym64(const char *name) {
  const uint64_t *p = dlsym(RTLD_DEFAULT, name);
  return p ? *p : 0;
}

/* N. Base of an exported table (a pointer variable), NULL if absent. */
static const char *table(const char *name) {
  void *const *p = dlsym(RTLD_DEFAULT, name);
  return p ? *p : NULL;
}

#define AT(base, i, stride, off, type) (*(const type *)((base) + (i) * (stride) + (off)))

/* N. */
static void dump_structs(FILE *f) {
  const char *b = table("gHotSpotVMStructs");
  uint64_t st = sym64("gHotSpotVMStructEntryArrayStride");
  uint64_t tn = sym64("gHotSpotVMStructEntryTypeNameOffset");
  uint64_t fn = sym64("gHotSpotVMStructEntryFieldNameOffset");
  uint64_t ts = sym64("gHotSpotVMStructEntryTypeStringOffset");
  uint64_t is = sym64("gHotSpotVMStructEntryIsStaticOffset");
  uint64_t of = sym64("gHotSpotVMStructEntryOffsetOffset");
  uint64_t ad = sym64("gHotSpotVMStructEntryAddressOffset");
  for (uint64_t i = 0; b && AT(b, i, st, tn, const char *); i++) {
    const char *type = AT(b, i, st, ts, const char *);
    fprintf(f, "STRUCT %s::%s ", AT(b, i, st, tn, const char *), AT(b, i, st, fn, const char *));
    if (AT(b, i, st, is, int32_t))
      fprintf(f, "static addr=%p", AT(b, i, st, ad, void *));
    else
      fprintf(f, "offset=%" PRIu64, AT(b, i, st, of, uint64_t));
    fprintf(f, " type=%s\n", type ? type : "?");
  }
}

/* N. */
static void dump_types(FILE *f) {
  const char *b = table("gHotSpotVMTypes");
  uint64_t st = sym64("gHotSpotVMTypeEntryArrayStride");
  uint64_t tn = sym64("gHotSpotVMTypeEntryTypeNameOffset");
  uint64_t su = sym64("gHotSpotVMTypeEntrySuperclassNameOffset");
  uint64_t oo = sym64("gHotSpotVMTypeEntryIsOopTypeOffset");
  uint64_t io = sym64("gHotSpotVMTypeEntryIsIntegerTypeOffset");
  uint64_t uo = sym64("gHotSpotVMTypeEntryIsUnsignedOffset");
  uint64_t so = sym64("gHotSpotVMTypeEntrySizeOffset");
  for (uint64_t i = 0; b && AT(b, i, st, tn, const char *); i++) {
    const char *super = AT(b, i, st, su, const char *);
    fprintf(f, "TYPE %s super=%s size=%" PRIu64 " oop=%d int=%d unsigned=%d\n",
            AT(b, i, st, tn, const char *), super ? super : "-", AT(b, i, st, so, uint64_t),
            AT(b, i, st, oo, int32_t), AT(b, i, st, io, int32_t), AT(b, i, st, uo, int32_t));
  }
}

/* N. */
static void dump_constants(FILE *f) {
  const char *b = table("gHotSpotVMIntConstants");
  uint64_t st = sym64("gHotSpotVMIntConstantEntryArrayStride");
  uint64_t no = sym64("gHotSpotVMIntConstantEntryNameOffset");
  uint64_t vo = sym64("gHotSpotVMIntConstantEntryValueOffset");
  for (uint64_t i = 0; b && AT(b, i, st, no, const char *); i++)
    fprintf(f, "INT %s = %d\n", AT(b, i, st, no, const char *), AT(b, i, st, vo, int32_t));
  b = table("gHotSpotVMLongConstants");
  st = sym64("gHotSpotVMLongConstantEntryArrayStride");
  no = sym64("gHotSpotVMLongConstantEntryNameOffset");
  vo = sym64("gHotSpotVMLongConstantEntryValueOffset");
  for (uint64_t i = 0; b && AT(b, i, st, no, const char *); i++) {
    uint64_t v = AT(b, i, st, vo, uint64_t);
    fprintf(f, "LONG %s = %" PRId64 " (0x%" PRIx64 ")\n", AT(b, i, st, no, const char *),
            (int64_t)v, v);
  }
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)vm, (void)reserved;
  FILE *f = fopen(options && *options ? options : "vmstructs.txt", "w");
  if (!f) return JNI_ERR;
  dump_structs(f);
  dump_types(f);
  dump_constants(f);
  return fclose(f) == 0 ? JNI_OK : JNI_ERR;
}
