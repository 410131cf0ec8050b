/*
 * internal.h - what the synthetic VM's files share.
 *
 * Tables a walker reads (blobs, scope entries) are fixed-capacity arrays of pointers that
 * only grow: an entry is fully built before the count that makes it visible is published
 * with a release store, and walkers read the count with an acquire load. Nothing a walker
 * can reach is freed before the VM is destroyed.
 */
#ifndef ASGST_SYNTHETIC_INTERNAL_H
#define ASGST_SYNTHETIC_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "asgst_synthetic.h"
#include "../services.h"

/* Magic numbers at the start of methods and classes: an accessor given a stale or random
 * handle checks them with a safe load before trusting anything else. */
#define ASGST__SYNTH_METHOD_LIVE 0x4d455448u  /* "METH" */
#define ASGST__SYNTH_CLASS_LIVE 0x4b4c4153u   /* "KLAS" */
#define ASGST__SYNTH_DEAD 0x44454144u         /* "DEAD": unloaded or redefined away */

#define ASGST__SYNTH_MAX_BLOBS 1024
#define ASGST__SYNTH_MAX_SCOPE_ENTRIES 256

/* Offsets (in words from fp) of an interpreted frame's Method* and bci. */
#define ASGST__SYNTH_INTERP_METHOD_SLOT (-1)
#define ASGST__SYNTH_INTERP_BCI_SLOT (-2)

/* A growable array of pointers (builder side only). */
typedef struct {
  void **items;
  int n, cap;
} asgst__synth_list;

typedef struct asgst__synth_class asgst__synth_class;

typedef struct {
  _Atomic uint32_t magic;
  asgst__synth_class *klass;
  char *name, *signature, *generic;
  size_t name_len, signature_len, generic_len;
  jint modifiers;
  jint idnum;
  ASGST_MethodLineNumberEntry *lines;
  int nlines;
} asgst__synth_method;

struct asgst__synth_class {
  _Atomic uint32_t magic;
  char *name, *generic;
  size_t name_len, generic_len;
  jint modifiers;
  jlong idnum;
  asgst__synth_list methods; /* the current asgst__synth_method*s (builder side only) */
};

enum asgst__synth_blob_kind {
  ASGST__SYNTH_INTERPRETER = 1,
  ASGST__SYNTH_COMPILED,
  ASGST__SYNTH_NATIVE,
  ASGST__SYNTH_STUB
};

/* The scopes of one pc offset of a compiled blob, innermost first. */
typedef struct {
  size_t pc_offset;
  int n;
  ASGST_SynthScope scopes[];
} asgst__synth_scopes;

struct ASGST_SynthBlob {
  enum asgst__synth_blob_kind kind;
  uintptr_t start, end; /* [start, end) */
  size_t map_size;
  int tier;
  ASGST_Method method; /* root method (compiled) or the native method (wrapper) */
  asgst__synth_scopes *scopes[ASGST__SYNTH_MAX_SCOPE_ENTRIES];
  _Atomic int nscopes;
};

struct ASGST_SynthVM {
  ASGST_SynthBlob *blobs[ASGST__SYNTH_MAX_BLOBS];
  _Atomic int nblobs;
  ASGST_SynthBlob *interpreter;
  asgst__synth_list classes;
  asgst__synth_list methods; /* every method ever made, the dead ones included */
};

struct ASGST_SynthStack {
  ASGST_SynthVM *vm;
  uintptr_t map, map_size; /* the whole mapping, guard pages included */
  uintptr_t lo, hi;        /* usable region */
  uintptr_t next_sp;       /* the sp the next pushed frame's caller had */
  asgst__regs *frames;
  int nframes, cap;
};

/* The active synthetic VM, NULL if none (acquire load; SS). */
ASGST_SynthVM *asgst__synth_active(void);

/* SS. The blob of vm containing pc, NULL if none. */
const ASGST_SynthBlob *asgst__synth_find_blob(const ASGST_SynthVM *vm, uintptr_t pc);
/* SS. The scope entry for a pc offset of a compiled blob (greatest offset <= off), NULL
 * if none. */
const asgst__synth_scopes *asgst__synth_find_scopes(const ASGST_SynthBlob *b, size_t off);
/* N. Frees a blob's mapping and tables. */
void asgst__synth_free_blob(ASGST_SynthBlob *b);
/* N. Appends p to l; 0 or -1 (out of memory). */
int asgst__synth_list_add(asgst__synth_list *l, void *p);

/* SS. The method/class if the handle's magic says it is live (read with safe loads; must
 * run inside a guarded region), else NULL. */
const asgst__synth_method *asgst__synth_live_method(ASGST_Method m);
const asgst__synth_class *asgst__synth_live_class(ASGST_Class k);

/* The backend table (backend.c) and its metadata callbacks (metadata.c). */
extern const asgst__backend asgst__synthetic_backend;
void asgst__synth_method_info(ASGST_Method m, ASGST_MethodInfo *info);        /* SS */
void asgst__synth_class_info(ASGST_Class k, ASGST_ClassInfo *info);           /* SS */
ASGST_Class asgst__synth_method_class(ASGST_Method m);                        /* SS */
jint asgst__synth_method_idnum(ASGST_Method m);                               /* SS */
jlong asgst__synth_class_idnum(ASGST_Class k);                                /* SS */
int asgst__synth_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e,
                            int length);                                      /* SS */

#endif
