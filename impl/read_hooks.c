/*
 * read_hooks.c - the slow path of the guarded loads of impl/safe_read.h, taken only while
 * a recording walk reads its page snapshot or a thread walks a stack copy (impl/stack_copy.h).
 */
#include <stdbool.h>

#include "replay/record.h"
#include "safe_read.h"
#include "stack_copy.h"

volatile int asgst__read_hooks;

/* The stack copy the calling thread walks, NULL if none. initial-exec TLS: read from
 * signal handlers, which must not trigger a lazy TLS allocation. */
static __thread const asgst__stack_copy *volatile copy_here
    __attribute__((tls_model("initial-exec")));

/* SS. */
uintptr_t asgst__hooked_read(uintptr_t a, size_t n) {
  int hooks = asgst__read_hooks;
  if ((hooks & ASGST__HOOK_LOG) && asgst__recording_here()) return asgst__record_read(a, n);
  if (hooks & ASGST__HOOK_COPY) {
    const asgst__stack_copy *c = copy_here;
    /* Only a load wholly inside the copy moves; one straddling its end reads live memory
     * (the copy ends at the stack's base or at a page that faulted). */
    if (c != NULL && a >= c->lo && a < c->hi && n <= c->hi - a) return (uintptr_t)c->buf + (a - c->lo);
  }
  return a;
}

/* SS. */
void asgst__stack_copy_use(const asgst__stack_copy *c) {
  copy_here = c;
  if (c) __atomic_or_fetch(&asgst__read_hooks, ASGST__HOOK_COPY, __ATOMIC_SEQ_CST);
  else __atomic_and_fetch(&asgst__read_hooks, ~ASGST__HOOK_COPY, __ATOMIC_SEQ_CST);
}
