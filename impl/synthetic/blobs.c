/*
 * blobs.c - code blobs of the synthetic VM: real, distinct address ranges (each its own
 * mapping) classified as interpreter, compiled (with inlining scopes), native wrapper or
 * stub.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* N. Rounds n up to whole pages (at least one). */
static size_t page_round(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (n == 0) n = 1;
  return (n + page - 1) / page * page;
}

/* N. Used by vm.c too. A blob of `size` bytes added to vm's table; NULL if the table is
 * full or the mapping failed. The memory is mapped read-only: nothing runs there, but its
 * addresses are real and belong to nothing else. */
ASGST_SynthBlob *asgst__synth_new_blob(ASGST_SynthVM *vm, enum asgst__synth_blob_kind kind,
                                       size_t size) {
  int n = atomic_load_explicit(&vm->nblobs, memory_order_relaxed);
  if (n >= ASGST__SYNTH_MAX_BLOBS || size == 0) return NULL;
  ASGST_SynthBlob *b = calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  b->map_size = page_round(size);
  void *p = mmap(NULL, b->map_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(b);
    return NULL;
  }
  b->kind = kind;
  b->start = (uintptr_t)p;
  b->end = b->start + size;
  vm->blobs[n] = b;
  atomic_store_explicit(&vm->nblobs, n + 1, memory_order_release);
  return b;
}

/* N. */
void asgst__synth_free_blob(ASGST_SynthBlob *b) {
  int n = atomic_load(&b->nscopes);
  for (int i = 0; i < n; i++) free(b->scopes[i]);
  munmap((void *)b->start, b->map_size);
  free(b);
}

/* SS. A linear scan: tests declare a handful of blobs. */
const ASGST_SynthBlob *asgst__synth_find_blob(const ASGST_SynthVM *vm, uintptr_t pc) {
  int n = atomic_load_explicit(&vm->nblobs, memory_order_acquire);
  for (int i = 0; i < n; i++) {
    const ASGST_SynthBlob *b = vm->blobs[i];
    if (pc >= b->start && pc < b->end) return b;
  }
  return NULL;
}

/* SS. */
const asgst__synth_scopes *asgst__synth_find_scopes(const ASGST_SynthBlob *b, size_t off) {
  int n = atomic_load_explicit(&b->nscopes, memory_order_acquire);
  const asgst__synth_scopes *best = NULL;
  for (int i = 0; i < n; i++) {
    const asgst__synth_scopes *s = b->scopes[i];
    if (s->pc_offset <= off && (best == NULL || s->pc_offset >= best->pc_offset)) best = s;
  }
  return best;
}

/* N. */
ASGST_SynthBlob *ASGST_SynthInterpreter(ASGST_SynthVM *vm) {
  return vm ? vm->interpreter : NULL;
}

/* N. */
ASGST_SynthBlob *ASGST_SynthDeclareCompiled(ASGST_SynthVM *vm, ASGST_Method root, int tier,
                                            size_t size) {
  if (vm == NULL || root == NULL || tier < 1 || tier > 4) return NULL;
  ASGST_SynthBlob *b = asgst__synth_new_blob(vm, ASGST__SYNTH_COMPILED, size);
  if (b) {
    b->tier = tier;
    b->method = root;
  }
  return b;
}

/* N. Later entries for the same offset win over earlier ones (find_scopes takes the last
 * of equal offsets). */
int ASGST_SynthAddScopes(ASGST_SynthBlob *b, size_t pc_offset, const ASGST_SynthScope *scopes,
                         int n) {
  if (b == NULL || b->kind != ASGST__SYNTH_COMPILED || scopes == NULL || n < 1 ||
      n > ASGST__MAX_FRAMES_PER_PHYS || pc_offset >= b->end - b->start)
    return ASGST_INVALID_ARGUMENT;
  int count = atomic_load_explicit(&b->nscopes, memory_order_relaxed);
  if (count >= ASGST__SYNTH_MAX_SCOPE_ENTRIES) return ASGST_INVALID_ARGUMENT;
  asgst__synth_scopes *s = malloc(sizeof *s + (size_t)n * sizeof s->scopes[0]);
  if (s == NULL) return ASGST_INVALID_ARGUMENT;
  s->pc_offset = pc_offset;
  s->n = n;
  memcpy(s->scopes, scopes, (size_t)n * sizeof s->scopes[0]);
  b->scopes[count] = s;
  atomic_store_explicit(&b->nscopes, count + 1, memory_order_release);
  return 0;
}

/* N. */
ASGST_SynthBlob *ASGST_SynthDeclareNativeWrapper(ASGST_SynthVM *vm, ASGST_Method m) {
  if (vm == NULL || m == NULL) return NULL;
  ASGST_SynthBlob *b = asgst__synth_new_blob(vm, ASGST__SYNTH_NATIVE, 256);
  if (b) b->method = m;
  return b;
}

/* N. */
ASGST_SynthBlob *ASGST_SynthDeclareStub(ASGST_SynthVM *vm, size_t size) {
  return vm ? asgst__synth_new_blob(vm, ASGST__SYNTH_STUB, size) : NULL;
}

/* N. */
void *ASGST_SynthBlobStart(const ASGST_SynthBlob *b) {
  return b ? (void *)b->start : NULL;
}

