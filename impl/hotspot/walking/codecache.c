/*
 * codecache.c - pc -> code blob, through the code heaps' segment maps, and the kind of
 * code at a pc.
 *
 * A CodeHeap divides its memory into segments of 2^_log2_segment_size bytes; the segment
 * map has one byte per segment: 0xFF for a free segment, 0 for the first segment of a
 * block, otherwise how many segments to go back toward the block's start (hops of at
 * most 254). The block starts with a HeapBlock header, followed by the CodeBlob.
 *
 * JDK 8 has one heap (CodeCache::_heap), 9 and later a list (CodeCache::_heaps).
 * The list of heaps, the interpreter's code range and the names of nmethod blobs are
 * learned lazily on the first walk: ASGST_Initialize may run from Agent_OnLoad, before
 * the VM has created its code cache.
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include <stdatomic.h>
#include <string.h>

#include "../../safe_read.h"
#include "codecache.h"
#include "../model/vm_model.h"

#define MAX_HEAPS 8

typedef struct {
  uintptr_t low;    /* VirtualSpace _low_boundary of _memory */
  uintptr_t high;   /* _high_boundary */
  uintptr_t segmap; /* _low of _segmap */
  uintptr_t vm;     /* the CodeHeap */
  /* _high of _segmap as last read: the map is committed only up to there (it grows with
   * the heap), and a pc between the heap's committed end and its reserved _high_boundary
   * (any word classified as a maybe-pc: arm64's link register used as a scratch register
   * by a stub) would read its entry past it, a fault. */
  _Atomic uintptr_t segmap_high;
  int log2_seg;
} heap;

static heap heaps[MAX_HEAPS];
static int nheaps;
static atomic_int heaps_ready;
uintptr_t asgst__hs_interp_low, asgst__hs_interp_high;
uintptr_t asgst__hs_call_stub_ret;
static atomic_int interp_ready;
/* The _name pointers of nmethod blobs: every nmethod shares one string literal. */
static atomic_uintptr_t name_nmethod, name_native;

/* SS. Reads CodeHeap h into *out. */
static bool load_heap(uintptr_t h, heap *out) {
  const asgst__vm_model *model = &asgst__vm;
  uint32_t lg;
  if (h == 0 || !asgst__load_ptr(h + model->heap_memory + model->vs_low_boundary, &out->low) ||
      !asgst__load_ptr(h + model->heap_memory + model->vs_high_boundary, &out->high) ||
      !asgst__load_ptr(h + model->heap_segmap + model->vs_low, &out->segmap) ||
      !asgst__load_u32(h + model->heap_log2_seg, &lg) || lg == 0 || lg > 16)
    return false;
  out->vm = h;
  atomic_store_explicit(&out->segmap_high, 0, memory_order_relaxed);
  out->log2_seg = (int)lg;
  return true;
}

/* SS. The CodeHeap pointers: the GrowableArray CodeCache::_heaps (9+), or JDK 8's one
 * CodeCache::_heap. Their count, 0 if not there yet. */
static uint32_t heap_pointers(uintptr_t *data) {
  const asgst__vm_model *model = &asgst__vm;
  if (model->codecache_heap) {
    *data = model->codecache_heap; /* a one-element array: the static itself */
    return 1;
  }
  uintptr_t ga;
  uint32_t len;
  if (!asgst__load_ptr(model->codecache_heaps, &ga) || ga == 0) return 0;
  if (!asgst__load_u32(ga + model->ga_len, &len) || !asgst__load_ptr(ga + model->ga_data, data)) return 0;
  return len;
}

/* SS. Reads the heap list once it exists. Idempotent; racing threads store equal data. */
static bool load_heaps(void) {
  uintptr_t data;
  uint32_t len = heap_pointers(&data);
  if (len == 0 || len > MAX_HEAPS) return false;
  for (uint32_t i = 0; i < len; i++) {
    uintptr_t h;
    if (!asgst__load_ptr(data + 8 * i, &h) || !load_heap(h, &heaps[i])) return false;
  }
  nheaps = (int)len;
  atomic_store_explicit(&heaps_ready, 1, memory_order_release);
  return true;
}

/* SS. The interpreter's code range, from AbstractInterpreter::_code (a StubQueue). */
static bool load_interp(void) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t q, buf;
  uint32_t limit;
  if (!asgst__load_ptr(model->interpreter_code, &q) || q == 0) return false;
  if (!asgst__load_ptr(q + model->sq_stub_buffer, &buf) || buf == 0) return false;
  if (!asgst__load_u32(q + model->sq_buffer_limit, &limit) || limit == 0) return false;
  asgst__hs_interp_low = buf;
  asgst__hs_interp_high = buf + limit;
  atomic_store_explicit(&interp_ready, 1, memory_order_release);
  return true;
}

/* SS. Makes the next walk read the heap list, the interpreter's range and the nmethod
 * names again (a replay must learn them from the recorded memory, and a live binding after
 * a replay from the live VM; a recording walk reads them again anyway, asgst__relearn).
 * `values` also clears the interpreter's range, which the fast test in
 * asgst__hs_in_interpreter reads without the flag: only with no walk running (a replay's
 * start and end). */
void asgst__hs_codecache_forget(bool values) {
  if (values) asgst__hs_interp_low = asgst__hs_interp_high = asgst__hs_call_stub_ret = 0;
  atomic_store_explicit(&heaps_ready, 0, memory_order_relaxed);
  atomic_store_explicit(&interp_ready, 0, memory_order_relaxed);
  atomic_store_explicit(&name_nmethod, 0, memory_order_relaxed);
  atomic_store_explicit(&name_native, 0, memory_order_relaxed);
}

/* SS. True if the segment map entry at idx is committed (or the model does not know where
 * the map ends: F_COMMITTED, vm_model.c). The map only grows while the VM runs
 * (CodeHeap::expand_by commits the heap's memory, then the map's), so an entry below the
 * last _high read is; past it, _high is read again. */
static bool segmap_has(heap *h, uintptr_t idx) {
  uintptr_t end = atomic_load_explicit(&h->segmap_high, memory_order_relaxed);
  if (h->segmap + idx < end || asgst__vm.vs_high < 0) return true; /* < 0: not in the model */
  if (!asgst__load_ptr(h->vm + asgst__vm.heap_segmap + asgst__vm.vs_high, &end) || h->segmap + idx >= end)
    return false;
  atomic_store_explicit(&h->segmap_high, end, memory_order_relaxed);
  return true;
}

/* SS. Block start for pc in heap h, 0 if none (pc in its uncommitted part too). */
ASGST__HOT static uintptr_t find_in_heap(heap *h, uintptr_t pc) {
  uintptr_t idx = (pc - h->low) >> h->log2_seg;
  uint8_t hop;
  if (!segmap_has(h, idx)) return 0;
  if (!asgst__load_u8(h->segmap + idx, &hop) || hop == 0xFF) return 0;
  /* Each hop is at most 254 segments; a block is far smaller than 2^20 segments. */
  for (int n = 0; hop != 0; n++) {
    if (hop > idx || n > (1 << 20)) return 0;
    idx -= hop;
    if (!asgst__load_u8(h->segmap + idx, &hop) || hop == 0xFF) return 0;
  }
  uintptr_t block = h->low + (idx << h->log2_seg);
  uint8_t used;
  if (!asgst__load_u8(block + asgst__vm.heapblock_used, &used) || !used) return 0;
  return block + asgst__vm.heapblock_size;
}

/* SS. */
ASGST__HOT uintptr_t asgst__hs_find_blob(uintptr_t pc) {
  if ((!atomic_load_explicit(&heaps_ready, memory_order_acquire) || asgst__relearn()) && !load_heaps()) return 0;
  for (int i = 0; i < nheaps; i++) {
    heap *h = &heaps[i];
    if (pc < h->low || pc >= h->high) continue;
    uintptr_t blob = find_in_heap(h, pc);
    if (blob == 0) return 0;
    uint32_t size;
    if (!asgst__vm_blob_size(blob, &size) || pc >= blob + size) return 0;
    return blob;
  }
  return 0;
}

/* SS. */
bool asgst__hs_may_be_blob(uintptr_t pc) {
  if (!atomic_load_explicit(&heaps_ready, memory_order_acquire) || asgst__relearn()) return true;
  for (int i = 0; i < nheaps; i++)
    if (pc >= heaps[i].low && pc < heaps[i].high) return true;
  return false;
}

/* SS. Compares a NUL-terminated string in VM memory with s. */
static bool vm_string_equals(uintptr_t p, const char *s) {
  for (size_t i = 0;; i++) {
    uint8_t c;
    if (!asgst__load_u8(p + i, &c)) return false;
    if (c != (uint8_t)s[i]) return false;
    if (c == 0) return true;
  }
}

/* SS. */
bool asgst__hs_blob_named(uintptr_t blob, const char *s) {
  uintptr_t name;
  return asgst__vm_blob_name(blob, &name) && vm_string_equals(name, s);
}

/* The most bytes of a blob name read: HotSpot's are under 100 ("RuntimeStub - " and a
 * stub's name), and a bound keeps a torn pointer from reading far. */
#define BLOB_NAME_MAX 256

/* SS. */
int asgst__hs_code_blob_name(uintptr_t pc, char *buf, int32_t len, uintptr_t *blob) {
  uintptr_t b = asgst__hs_find_blob(pc), name;
  *blob = 0;
  if (b == 0 || !asgst__vm_blob_name(b, &name) || name == 0) return 0;
  int32_t n = 0;
  uint8_t c;
  /* Straight into the caller's buffer: the name is read once, however long it is. */
  for (; n < BLOB_NAME_MAX && asgst__load_u8(name + (uintptr_t)n, &c) && c != 0; n++)
    if (n < len - 1) buf[n] = (char)c;
  if (len > 0) buf[n < len - 1 ? n : len - 1] = '\0';
  if (n > 0) *blob = b;
  return n;
}

/* SS. True if the blob's _name is the (cached) string literal `want`. */
static bool name_is(uintptr_t name, atomic_uintptr_t *cache, const char *want) {
  uintptr_t c = atomic_load_explicit(cache, memory_order_relaxed);
  if (c && !asgst__relearn()) return c == name;
  if (!vm_string_equals(name, want)) return false;
  atomic_store_explicit(cache, name, memory_order_relaxed);
  return true;
}

/* SS. */
bool asgst__hs_in_interpreter_slow(uintptr_t pc) {
  if (!atomic_load_explicit(&interp_ready, memory_order_acquire) || asgst__relearn()) load_interp();
  return pc >= asgst__hs_interp_low && pc < asgst__hs_interp_high;
}

/* SS. */
ASGST__HOT int asgst__hs_classify(uintptr_t pc, uintptr_t *blob) {
  *blob = 0;
  if (!atomic_load_explicit(&interp_ready, memory_order_acquire) || asgst__relearn()) load_interp();
  if (pc >= asgst__hs_interp_low && pc < asgst__hs_interp_high) return ASGST__HK_INTERP;
  uintptr_t b = asgst__hs_find_blob(pc);
  if (b == 0) return ASGST__HK_C;
  *blob = b;
  uintptr_t csr;
  if (asgst__load_ptr(asgst__vm.call_stub_return, &csr) && pc == csr) {
    /* Learned here, where the lookup has just proven it a return address in the call
     * stub's blob (and a recording has just read it from VM memory). */
    if (!asgst__relearn()) asgst__hs_call_stub_ret = csr;
    return ASGST__HK_ENTRY;
  }
  uintptr_t name;
  if (!asgst__vm_blob_name(b, &name)) return ASGST__HK_STUB;
  if (name_is(name, &name_nmethod, "nmethod")) return ASGST__HK_NMETHOD;
  if (name_is(name, &name_native, "native nmethod")) return ASGST__HK_NATIVE;
  return ASGST__HK_STUB;
}
