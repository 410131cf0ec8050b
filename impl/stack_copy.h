/*
 * stack_copy.h - a copy of another thread's stack, walked after that thread has moved on:
 * the experimental non-blocking out-of-thread walk (ASGST_COPY_STACK, api/remote_walk.c).
 *
 * The walker copies the target's stack while the target waits in its signal handler,
 * releases it, then walks with its own loads of the copied range sent to the copy (a read
 * hook it registers with impl/safe_read.h). Everything else the walk reads (the code
 * cache, metadata, the thread object) is read live, as it is by then: that is what makes
 * such a walk wrong sometimes, and what the crash guard must survive.
 */
#ifndef ASGST_IMPL_STACK_COPY_H
#define ASGST_IMPL_STACK_COPY_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uintptr_t lo, hi; /* the copied addresses of the target's stack: [lo, hi) */
  uint8_t *buf;     /* their bytes, buf[0] holding address lo; page-aligned */
  size_t cap;       /* bytes buf can hold */
} asgst__stack_copy;

/* N. Maps a buffer of cap bytes (a multiple of the page size) for c. 0, or -1. */
int asgst__stack_copy_init(asgst__stack_copy *c, size_t cap);
/* SS. Copies the stack from sp (rounded down to 64 bytes) up to stack_base (exclusive; 0
 * if unknown) or c->cap bytes, whichever comes first, under the crash guard; a page that
 * faults ends the copy there. Sets c->lo/hi; returns the bytes copied. */
size_t asgst__stack_copy_take(asgst__stack_copy *c, uintptr_t sp, uintptr_t stack_base);
/* SS. From now on the calling thread's guarded loads of [c->lo, c->hi) read the copy;
 * NULL stops that. One copy walk at a time in the process (the caller serializes). */
void asgst__stack_copy_use(const asgst__stack_copy *c);

#endif
