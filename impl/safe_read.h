/*
 * safe_read.h - the one way to read memory that may be invalid (VM structures, stacks of
 * other threads, synthetic frames).
 *
 * Two layers: these loads refuse addresses that cannot be user
 * memory (NULL page, non-canonical, misaligned where alignment is required) and return
 * false; a load of a plausible address that still faults (unmapped page, PROT_NONE) is
 * caught by the crash guard (impl/guard.h) around the walk, which ends it with
 * ASGST_WALK_FAULTED. So these helpers must only be used inside a guarded region (guard.h).
 * The loads are SS and inline: no call on the hot path. Their slow path and the read
 * hooks are in safe_read.c.
 */
#ifndef ASGST_IMPL_SAFE_READ_H
#define ASGST_IMPL_SAFE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"

/* User space: [64 KiB, ASGST__MAX_ADDR (impl/arch/)). Lower addresses are never mapped by
 * Linux by default (vm.mmap_min_addr), higher ones are kernel or non-canonical. */
#define ASGST__MIN_ADDR ((uintptr_t)0x10000)

/* Read hooks (safe_read.c): a thread's guarded loads can read somewhere else than the
 * address they name. The read layer knows no user of its hooks; each registers itself:
 * - a logger (asgst__read_log): every guarded load of the thread asks it where to read.
 *   The recorder (impl/record/) registers one while a recording walk runs; it answers
 *   with its snapshot of the page, taken at the page's first read, so that the recording
 *   holds exactly the memory the walk saw;
 * - a copy (asgst__read_from_copy): the thread's loads wholly inside a range read a copy
 *   of it (the walker of a stack copy, impl/stack_copy.h).
 * Other threads' loads are not moved. While any hook is on, loads take the slow path and
 * ASGST__HOOKED sends them to asgst__hooked_read, which returns the address to load from. */
#define ASGST__HOOK_LOG 1  /* some thread's loads are logged */
#define ASGST__HOOK_COPY 2 /* some thread's loads of a range read a copy */
extern volatile int asgst__read_hooks;
uintptr_t asgst__hooked_read(uintptr_t a, size_t n); /* SS */
#define ASGST__HOOKED(a, n) \
  (__builtin_expect(asgst__read_hooks != 0, 0) ? asgst__hooked_read((a), (n)) : (a))

/* SS. A logger: the address a load of [a, a+n) by the logged thread reads instead (a
 * itself to read live memory). Called on the slow path of that thread's loads only. */
typedef uintptr_t (*asgst__read_logger)(uintptr_t a, size_t n);
/* SS. From now on the calling thread's guarded loads go through `log`; NULL stops that.
 * One logged thread at a time in the process (the caller serializes). */
void asgst__read_log(asgst__read_logger log);
/* SS. True if the calling thread's loads are logged. */
bool asgst__read_logged(void);

/* A copy of the memory [lo, hi): buf[0] holds the byte at lo. */
typedef struct {
  uintptr_t lo, hi;
  const uint8_t *buf;
} asgst__read_copy;
/* SS. From now on the calling thread's guarded loads wholly inside [c->lo, c->hi) read
 * c->buf (a load straddling hi reads live memory); NULL stops that. *c must not change
 * meanwhile. One such thread at a time in the process (the caller serializes). */
void asgst__read_from_copy(const asgst__read_copy *c);

/* The fast path's bound (safe_read.c): ASGST__MAX_ADDR - ASGST__MIN_ADDR while no
 * hook is on, else 0, which sends every load to the slow path. One compare of the address
 * against it thus tests plausibility and hooks at once; a walk's loads are most of its
 * instructions, and folding the two tests into one made a warm walk measurably faster. Not
 * volatile on purpose: the compiler may keep it in a register for a whole function. A
 * thread that needs its hooks turns them on before its walk, in another function; other
 * threads may take either path. */
extern uintptr_t asgst__fast_limit;
/* SS. The slow path of the loads below: the full checks (alignment only if `aligned`),
 * then the hooks; false (and *out = 0) for an implausible address. */
__attribute__((cold)) bool asgst__load_slow(uintptr_t a, size_t n, bool aligned, uint64_t *out);

/* SS. True if the loads below may read [a, a+n) directly (n: a small constant). a - MIN
 * wraps for an address below MIN, and cannot wrap back when n is added (n < MIN). */
static inline bool asgst__fast_ok(uintptr_t a, size_t n) {
  return __builtin_expect(a - ASGST__MIN_ADDR + n <= asgst__fast_limit, 1);
}

/* SS. True while the calling thread's loads are logged (a recording walk). Facts that
 * walks learn from VM memory once and keep (the code heaps, ...) are then read again by
 * that walk, so that the log holds the memory they come from: another thread may have
 * learned them just before, and its reads are not logged. The fast path's bound comes
 * first: it is 0 whenever a hook is on (a logging thread turned its hooks on before its
 * walk), and not volatile, so the walk's loads keep it in a register and this costs one
 * compare, where the hooks word (volatile) was loaded again at every test. */
static inline bool asgst__relearn(void) {
  return __builtin_expect(asgst__fast_limit == 0, 0) && (asgst__read_hooks & ASGST__HOOK_LOG) != 0 &&
         asgst__read_logged();
}

/* SS. True if [a, a+n) can be user memory. */
static inline bool asgst__plausible(uintptr_t a, size_t n) {
  return a >= ASGST__MIN_ADDR && a < ASGST__MAX_ADDR && n <= ASGST__MAX_ADDR - a;
}

/* SS. Loads of 8/4/2/1 bytes; false (and *out = 0) for implausible or misaligned addresses. */
static inline bool asgst__load_u64(uintptr_t a, uint64_t *out) {
  if (!asgst__fast_ok(a, 8) || (a & 7)) return asgst__load_slow(a, 8, true, out);
  *out = *(const volatile uint64_t *)a;
  return true;
}
static inline bool asgst__load_ptr(uintptr_t a, uintptr_t *out) {
  uint64_t v;
  bool ok = asgst__load_u64(a, &v);
  *out = (uintptr_t)v;
  return ok;
}
/* SS. asgst__load_ptr at an address the caller proved 8-byte aligned (an aligned base
 * plus a multiple of 8): the alignment test is left out (the slow path still checks). For
 * the interpreter's frame slots below a checked fp, several loads of every frame. */
static inline bool asgst__load_ptr_a8(uintptr_t a, uintptr_t *out) {
  if (!asgst__fast_ok(a, 8)) {
    uint64_t v;
    bool ok = asgst__load_slow(a, 8, true, &v);
    *out = (uintptr_t)v;
    return ok;
  }
  *out = *(const volatile uintptr_t *)a;
  return true;
}
/* SS. The two words at a and a + 8 (a proven 8-byte aligned, as for asgst__load_ptr_a8)
 * under one test of the fast path's bound: a saved fp and the return address above it. */
static inline bool asgst__load_pair_a8(uintptr_t a, uintptr_t *lo, uintptr_t *hi) {
  if (!asgst__fast_ok(a, 16)) return asgst__load_ptr_a8(a, lo) && asgst__load_ptr_a8(a + 8, hi);
  *lo = *(const volatile uintptr_t *)a;
  *hi = *(const volatile uintptr_t *)(a + 8);
  return true;
}
/* SS. A saved return address: the word at a without the bits pointer authentication
 * signs it with (impl/arch/; none on x86_64). */
static inline bool asgst__load_ret(uintptr_t a, uintptr_t *out) {
  bool ok = asgst__load_ptr(a, out);
  *out = asgst__strip_pc(*out);
  return ok;
}
static inline bool asgst__load_u32(uintptr_t a, uint32_t *out) {
  uint64_t v;
  if (!asgst__fast_ok(a, 4) || (a & 3)) {
    bool ok = asgst__load_slow(a, 4, true, &v);
    *out = (uint32_t)v;
    return ok;
  }
  *out = *(const volatile uint32_t *)a;
  return true;
}
static inline bool asgst__load_u16(uintptr_t a, uint16_t *out) {
  uint64_t v;
  if (!asgst__fast_ok(a, 2) || (a & 1)) {
    bool ok = asgst__load_slow(a, 2, true, &v);
    *out = (uint16_t)v;
    return ok;
  }
  *out = *(const volatile uint16_t *)a;
  return true;
}
static inline bool asgst__load_u8(uintptr_t a, uint8_t *out) {
  uint64_t v;
  if (!asgst__fast_ok(a, 1)) {
    bool ok = asgst__load_slow(a, 1, true, &v);
    *out = (uint8_t)v;
    return ok;
  }
  *out = *(const volatile uint8_t *)a;
  return true;
}
/* SS. Loads a field of `size` bytes (1, 2, 4 or 8, as a vmStructs table gives it),
 * zero-extended. Unaligned fields are allowed here (some VM fields are packed). */
static inline bool asgst__load_sized(uintptr_t a, size_t size, uint64_t *out) {
  if (!asgst__fast_ok(a, 8)) return asgst__load_slow(a, size, false, out);
  switch (size) {
    case 1: *out = *(const volatile uint8_t *)a; return true;
    case 2: *out = *(const volatile uint16_t *)a; return true;
    case 4: *out = *(const volatile uint32_t *)a; return true;
    case 8: *out = *(const volatile uint64_t *)a; return true;
    default: *out = 0; return false;
  }
}
/* SS. Copies n bytes; false for an implausible range. */
static inline bool asgst__load_bytes(uintptr_t a, void *dst, size_t n) {
  if (!asgst__plausible(a, n)) return false;
  const volatile uint8_t *s = (const volatile uint8_t *)ASGST__HOOKED(a, n);
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < n; i++) d[i] = s[i];
  return true;
}

#endif
