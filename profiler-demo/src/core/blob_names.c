/*
 * blob_names.c - the names of VM code blobs, kept once per (blob, name) in a fixed table
 * written by signal handlers: open addressing by blob address, an entry claimed by a
 * compare-and-swap of its key, published by its `ready` flag once its name is written.
 * A blob freed and another one allocated at the same address with another name get two
 * entries (the name is compared too), so an old sample keeps its old name.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/blob_names.h"

/* Distinct blobs that C frames of a run meet: a few dozen (call stub, adapters, runtime
 * stubs, vtable chunks); a power of two. */
#define ENTRIES 1024

typedef struct {
  _Atomic uintptr_t blob; /* 0: free */
  atomic_int ready;       /* name written */
  char name[PROF_BLOB_NAME_CAP];
} entry;

static entry table[ENTRIES];

/* SS. Copies at most cap - 1 bytes of s, NUL-terminated (no libc: strncpy is not listed
 * as async-signal-safe everywhere). */
static void copy_name(char *dst, const char *s, size_t cap) {
  size_t i = 0;
  for (; i + 1 < cap && s[i]; i++) dst[i] = s[i];
  dst[i] = '\0';
}

/* SS. True if e's (published) name is s, as copy_name would have kept it. */
static bool same_name(const entry *e, const char *s) {
  size_t i = 0;
  for (; i + 1 < sizeof e->name && s[i]; i++)
    if (e->name[i] != s[i]) return false;
  return e->name[i] == '\0';
}

/* SS. */
int prof_blob_name_intern(const void *blob, const char *name) {
  uintptr_t key = (uintptr_t)blob;
  if (key == 0) return 0;
  /* Blobs start at code heap segment boundaries (64 or 128 bytes): drop those bits. */
  size_t h = (size_t)((key >> 6) * 0x9E3779B97F4A7C15ull >> 40);
  for (size_t probe = 0; probe < ENTRIES; probe++) {
    size_t i = (h + probe) & (ENTRIES - 1);
    entry *e = &table[i];
    uintptr_t k = atomic_load_explicit(&e->blob, memory_order_acquire);
    if (k == 0) {
      if (atomic_compare_exchange_strong_explicit(&e->blob, &k, key, memory_order_acq_rel,
                                                  memory_order_acquire)) {
        copy_name(e->name, name, sizeof e->name);
        atomic_store_explicit(&e->ready, 1, memory_order_release);
        return (int)i + 1;
      }
      /* Another handler claimed it first: k is its key now. */
    }
    /* An entry still being written is passed over: at worst the name is kept twice. */
    if (k == key && atomic_load_explicit(&e->ready, memory_order_acquire) && same_name(e, name))
      return (int)i + 1;
  }
  return 0;
}

/* N. */
const char *prof_blob_name(int id) {
  if (id < 1 || id > ENTRIES) return NULL;
  const entry *e = &table[id - 1];
  return atomic_load_explicit(&e->ready, memory_order_acquire) ? e->name : NULL;
}

/* N. */
void prof_blob_names_reset(void) {
  for (size_t i = 0; i < ENTRIES; i++) {
    atomic_store_explicit(&table[i].ready, 0, memory_order_relaxed);
    atomic_store_explicit(&table[i].blob, 0, memory_order_release);
  }
}
