/*
 * stack_copy.c - taking the copy of a held thread's stack (see stack_copy.h).
 */
#include "stack_copy.h"

#include <string.h>
#include <sys/mman.h>

#include "guard.h"
#include "safe_read.h"

#define PAGE 4096u

/* N. */
int asgst__stack_copy_init(asgst__stack_copy *c, size_t cap) {
  void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  c->buf = p;
  c->cap = cap;
  c->lo = c->hi = 0;
  return 0;
}

/* SS. Copies [lo, hi) page by page; returns the end of what was copied (a page that
 * faults, e.g. the unmapped guard zone of a stack whose base is unknown, ends it). libc's
 * memcpy faults with a pc outside the library: each page is announced to the guard as the
 * range being copied, so that its fault is the guard's (guard.h). */
static uintptr_t copy_pages(uint8_t *dst, uintptr_t lo, uintptr_t hi) {
  volatile uintptr_t done = lo;
  /* A fault ends the copy at `done`; the handler ended the announcement. */
  ASGST__GUARDED({
    while (done < hi) {
      uintptr_t end = (done + PAGE) & ~(uintptr_t)(PAGE - 1);
      if (end > hi) end = hi;
      asgst__guard_copying(done, end);
      memcpy(dst + (done - lo), (const void *)done, end - done);
      done = end;
    }
    asgst__guard_copying(0, 0);
  }, );
  return done;
}

/* SS. */
size_t asgst__stack_copy_take(asgst__stack_copy *c, uintptr_t sp, uintptr_t stack_base) {
  uintptr_t lo = sp & ~(uintptr_t)63; /* keeps every load's alignment in the copy */
  uintptr_t hi = lo + c->cap;
  if (stack_base > lo && stack_base < hi) hi = stack_base;
  c->lo = c->hi = lo;
  if (c->buf == NULL || !asgst__plausible(lo, hi - lo)) return 0;
  c->hi = copy_pages(c->buf, lo, hi);
  return c->hi - lo;
}

/* The copy the walking thread reads, as the read layer sees it (one copy walk at a time in
 * the process, stack_copy.h). */
static asgst__read_copy in_use;

/* SS. */
void asgst__stack_copy_use(const asgst__stack_copy *c) {
  if (c == NULL) {
    asgst__read_from_copy(NULL);
    return;
  }
  in_use = (asgst__read_copy){c->lo, c->hi, c->buf};
  asgst__read_from_copy(&in_use);
}
