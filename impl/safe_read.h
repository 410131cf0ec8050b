/*
 * safe_read.h - the one way to read memory that may be invalid (VM structures, stacks of
 * other threads, synthetic frames).
 *
 * Two layers, as decided in DESIGN.md: these loads refuse addresses that cannot be user
 * memory (NULL page, non-canonical, misaligned where alignment is required) and return
 * false; a load of a plausible address that still faults (unmapped page, PROT_NONE) is
 * caught by the crash guard (impl/guard.h) around the walk, which ends it with
 * ASGST_WALK_FAULTED. So these helpers must only be used inside ASGST__GUARD_BEGIN/END.
 * All functions here are SS and inline: no call on the hot path.
 */
#ifndef ASGST_IMPL_SAFE_READ_H
#define ASGST_IMPL_SAFE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86_64 user space: [64 KiB, 2^47). Lower addresses are never mapped by Linux by
 * default (vm.mmap_min_addr), higher ones are kernel or non-canonical. */
#define ASGST__MIN_ADDR ((uintptr_t)0x10000)
#define ASGST__MAX_ADDR ((uintptr_t)1 << 47)

/* The page log of a recording walk (impl/replay/record.c): while asgst__read_log is set,
 * every load below notes the pages it is about to read, so that the recording holds all
 * the memory the walk depended on. Outside a recording the test is one predictable branch
 * on a variable that stays in cache. */
extern void *volatile asgst__read_log;
void asgst__log_read(uintptr_t a, size_t n); /* SS, impl/replay/record.c */
#define ASGST__LOG_READ(a, n) \
  do { if (__builtin_expect(asgst__read_log != NULL, 0)) asgst__log_read((a), (n)); } while (0)

/* SS. True if [a, a+n) can be user memory. */
static inline bool asgst__plausible(uintptr_t a, size_t n) {
  return a >= ASGST__MIN_ADDR && a < ASGST__MAX_ADDR && n <= ASGST__MAX_ADDR - a;
}

/* SS. Loads of 8/4/2/1 bytes; false (and *out = 0) for implausible addresses. */
static inline bool asgst__load_u64(uintptr_t a, uint64_t *out) {
  if (!asgst__plausible(a, 8) || (a & 7)) { *out = 0; return false; }
  ASGST__LOG_READ(a, 8);
  *out = *(const volatile uint64_t *)a;
  return true;
}
static inline bool asgst__load_ptr(uintptr_t a, uintptr_t *out) {
  uint64_t v;
  bool ok = asgst__load_u64(a, &v);
  *out = (uintptr_t)v;
  return ok;
}
static inline bool asgst__load_u32(uintptr_t a, uint32_t *out) {
  if (!asgst__plausible(a, 4) || (a & 3)) { *out = 0; return false; }
  ASGST__LOG_READ(a, 4);
  *out = *(const volatile uint32_t *)a;
  return true;
}
static inline bool asgst__load_u16(uintptr_t a, uint16_t *out) {
  if (!asgst__plausible(a, 2) || (a & 1)) { *out = 0; return false; }
  ASGST__LOG_READ(a, 2);
  *out = *(const volatile uint16_t *)a;
  return true;
}
static inline bool asgst__load_u8(uintptr_t a, uint8_t *out) {
  if (!asgst__plausible(a, 1)) { *out = 0; return false; }
  ASGST__LOG_READ(a, 1);
  *out = *(const volatile uint8_t *)a;
  return true;
}
/* SS. Loads a field of `size` bytes (1, 2, 4 or 8, as a vmStructs table gives it),
 * zero-extended. Unaligned fields are allowed here (some VM fields are packed). */
static inline bool asgst__load_sized(uintptr_t a, size_t size, uint64_t *out) {
  *out = 0;
  if (!asgst__plausible(a, size)) return false;
  ASGST__LOG_READ(a, size);
  switch (size) {
    case 1: *out = *(const volatile uint8_t *)a; return true;
    case 2: *out = *(const volatile uint16_t *)a; return true;
    case 4: *out = *(const volatile uint32_t *)a; return true;
    case 8: *out = *(const volatile uint64_t *)a; return true;
    default: return false;
  }
}
/* SS. Copies n bytes; false for an implausible range. */
static inline bool asgst__load_bytes(uintptr_t a, void *dst, size_t n) {
  if (!asgst__plausible(a, n)) return false;
  ASGST__LOG_READ(a, n);
  const volatile uint8_t *s = (const volatile uint8_t *)a;
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < n; i++) d[i] = s[i];
  return true;
}

#endif
