/*
 * vm.c - the synthetic VM object: creation, activation, classes and methods, unloading
 * and redefinition.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../guard.h"

static _Atomic(ASGST_SynthVM *) active_vm;

/* SS. */
ASGST_SynthVM *asgst__synth_active(void) {
  return atomic_load_explicit(&active_vm, memory_order_acquire);
}

/* N. */
int asgst__synth_list_add(asgst__synth_list *l, void *p) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    void **grown = realloc(l->items, (size_t)cap * sizeof *grown);
    if (grown == NULL) return -1;
    l->items = grown;
    l->cap = cap;
  }
  l->items[l->n++] = p;
  return 0;
}

/* N. A NUL-terminated copy of s ("" for NULL) and its length. */
static char *dup_string(const char *s, size_t *len) {
  if (s == NULL) s = "";
  *len = strlen(s);
  char *d = malloc(*len + 1);
  if (d) memcpy(d, s, *len + 1);
  return d;
}

/* N. Defined in blobs.c; not in internal.h because only creation needs it. */
ASGST_SynthBlob *asgst__synth_new_blob(ASGST_SynthVM *vm, enum asgst__synth_blob_kind kind,
                                       size_t size);

/* N. */
ASGST_SynthVM *ASGST_SynthCreateVM(void) {
  ASGST_SynthVM *vm = calloc(1, sizeof *vm);
  if (vm == NULL) return NULL;
  vm->interpreter = asgst__synth_new_blob(vm, ASGST__SYNTH_INTERPRETER, 4096);
  if (vm->interpreter == NULL) {
    free(vm);
    return NULL;
  }
  return vm;
}

/* N. */
int ASGST_SynthActivate(ASGST_SynthVM *vm) {
  if (vm == NULL) return ASGST_INVALID_ARGUMENT;
  if (asgst__guard_install() != 0) return ASGST_UNSUPPORTED;
  atomic_store_explicit(&active_vm, vm, memory_order_release);
  asgst__set_backend(&asgst__synthetic_backend);
  return 0;
}

/* N. */
static void free_method(asgst__synth_method *m) {
  free(m->name);
  free(m->signature);
  free(m->generic);
  free(m->lines);
  free(m);
}

/* N. */
void ASGST_SynthDestroyVM(ASGST_SynthVM *vm) {
  if (vm == NULL) return;
  ASGST_SynthVM *expected = vm;
  if (atomic_compare_exchange_strong(&active_vm, &expected, NULL) &&
      asgst__active_backend() == &asgst__synthetic_backend)
    asgst__set_backend(NULL);
  int nblobs = atomic_load(&vm->nblobs);
  for (int i = 0; i < nblobs; i++) asgst__synth_free_blob(vm->blobs[i]);
  for (int i = 0; i < vm->methods.n; i++) free_method(vm->methods.items[i]);
  for (int i = 0; i < vm->classes.n; i++) {
    asgst__synth_class *k = vm->classes.items[i];
    free(k->name);
    free(k->generic);
    free(k->methods.items);
    free(k);
  }
  free(vm->methods.items);
  free(vm->classes.items);
  free(vm);
}

/* N. */
ASGST_Class ASGST_SynthDeclareClass(ASGST_SynthVM *vm, const char *name,
                                    const char *generic_name, jint modifiers, jlong idnum) {
  if (vm == NULL || name == NULL) return NULL;
  asgst__synth_class *k = calloc(1, sizeof *k);
  if (k == NULL) return NULL;
  k->name = dup_string(name, &k->name_len);
  k->generic = generic_name ? dup_string(generic_name, &k->generic_len) : NULL;
  k->modifiers = modifiers;
  k->idnum = idnum;
  if (k->name == NULL || (generic_name && k->generic == NULL) ||
      asgst__synth_list_add(&vm->classes, k) != 0) {
    free(k->name);
    free(k->generic);
    free(k);
    return NULL;
  }
  atomic_store_explicit(&k->magic, ASGST__SYNTH_CLASS_LIVE, memory_order_release);
  return (ASGST_Class)k;
}

/* N. Builds a method of k from its parts (strings and lines are copied). */
static asgst__synth_method *new_method(ASGST_SynthVM *vm, asgst__synth_class *k,
                                       const char *name, const char *sig, const char *generic,
                                       jint modifiers, jint idnum,
                                       const ASGST_MethodLineNumberEntry *lines, int nlines) {
  asgst__synth_method *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  m->klass = k;
  m->name = dup_string(name, &m->name_len);
  m->signature = dup_string(sig, &m->signature_len);
  m->generic = generic ? dup_string(generic, &m->generic_len) : NULL;
  m->modifiers = modifiers;
  m->idnum = idnum;
  if (lines && nlines > 0) {
    m->lines = malloc((size_t)nlines * sizeof *m->lines);
    if (m->lines) memcpy(m->lines, lines, (size_t)nlines * sizeof *m->lines);
    m->nlines = m->lines ? nlines : 0;
  }
  bool ok = m->name && m->signature && (!generic || m->generic) &&
            (nlines <= 0 || !lines || m->lines);
  if (!ok || asgst__synth_list_add(&vm->methods, m) != 0) {
    free_method(m);
    return NULL;
  }
  if (asgst__synth_list_add(&k->methods, m) != 0) {
    /* Stays in vm->methods (freed with the VM) but is not one of k's methods. */
    return NULL;
  }
  atomic_store_explicit(&m->magic, ASGST__SYNTH_METHOD_LIVE, memory_order_release);
  return m;
}

/* N. */
ASGST_Method ASGST_SynthDeclareMethod(ASGST_SynthVM *vm, ASGST_Class klass, const char *name,
                                      const char *signature, const char *generic_signature,
                                      jint modifiers, jint idnum,
                                      const ASGST_MethodLineNumberEntry *lines, int nlines) {
  asgst__synth_class *k = (asgst__synth_class *)klass;
  if (vm == NULL || k == NULL || name == NULL || signature == NULL ||
      atomic_load(&k->magic) != ASGST__SYNTH_CLASS_LIVE)
    return NULL;
  return (ASGST_Method)new_method(vm, k, name, signature, generic_signature, modifiers, idnum,
                                  lines, nlines);
}

/* N. Notifies the unload handlers of k's current methods, then marks those methods dead. */
static int retire_methods(asgst__synth_class *k, bool redefined) {
  int n = k->methods.n;
  asgst__synth_method **ms = (asgst__synth_method **)k->methods.items;
  ASGST_Method *handles = malloc((size_t)(n ? n : 1) * sizeof *handles);
  if (handles == NULL) return ASGST_INVALID_ARGUMENT;
  for (int i = 0; i < n; i++) handles[i] = (ASGST_Method)ms[i];
  asgst__notify_class_unload((ASGST_Class)k, handles, n, redefined);
  for (int i = 0; i < n; i++)
    atomic_store_explicit(&ms[i]->magic, ASGST__SYNTH_DEAD, memory_order_release);
  free(handles);
  return n;
}

/* N. */
int ASGST_SynthUnloadClass(ASGST_SynthVM *vm, ASGST_Class klass) {
  asgst__synth_class *k = (asgst__synth_class *)klass;
  if (vm == NULL || k == NULL || atomic_load(&k->magic) != ASGST__SYNTH_CLASS_LIVE)
    return ASGST_INVALID_ARGUMENT;
  int r = retire_methods(k, false);
  if (r < 0) return r;
  k->methods.n = 0;
  atomic_store_explicit(&k->magic, ASGST__SYNTH_DEAD, memory_order_release);
  return 0;
}

/* N. */
int ASGST_SynthRedefineClass(ASGST_SynthVM *vm, ASGST_Class klass, ASGST_Method *new_methods,
                             int capacity) {
  asgst__synth_class *k = (asgst__synth_class *)klass;
  if (vm == NULL || k == NULL || atomic_load(&k->magic) != ASGST__SYNTH_CLASS_LIVE)
    return ASGST_INVALID_ARGUMENT;
  int n = k->methods.n;
  asgst__synth_method **old = malloc((size_t)(n ? n : 1) * sizeof *old);
  if (old == NULL) return ASGST_INVALID_ARGUMENT;
  memcpy(old, k->methods.items, (size_t)n * sizeof *old);
  int r = retire_methods(k, true);
  if (r < 0) {
    free(old);
    return r;
  }
  k->methods.n = 0;
  int made = 0;
  for (int i = 0; i < n; i++) {
    asgst__synth_method *o = old[i];
    asgst__synth_method *m = new_method(vm, k, o->name, o->signature, o->generic,
                                        o->modifiers, o->idnum, o->lines, o->nlines);
    if (m == NULL) continue;
    if (new_methods && made < capacity) new_methods[made] = (ASGST_Method)m;
    made++;
  }
  free(old);
  return made;
}
