/*
 * safe_read.c - the slow path of the guarded loads of safe_read.h (addresses that fail the
 * fast path's one compare: implausible, misaligned, or any load while a read hook is on)
 * and the read hooks' state. Whoever moves a thread's loads registers itself here; this
 * file names none of them.
 */
#include <stdbool.h>

#include "safe_read.h"

volatile int asgst__read_hooks;
uintptr_t asgst__fast_limit = ASGST__MAX_ADDR - ASGST__MIN_ADDR;

/* The calling thread's logger and copy, NULL if none. initial-exec TLS: read from signal
 * handlers, which must not trigger a lazy TLS allocation. */
static __thread volatile asgst__read_logger logger_here __attribute__((tls_model("initial-exec")));
static __thread const asgst__read_copy *volatile copy_here
    __attribute__((tls_model("initial-exec")));

/* SS. */
uintptr_t asgst__hooked_read(uintptr_t a, size_t n) {
  int hooks = asgst__read_hooks;
  if (hooks & ASGST__HOOK_LOG) {
    asgst__read_logger log = logger_here;
    if (log != NULL) return log(a, n);
  }
  if (hooks & ASGST__HOOK_COPY) {
    const asgst__read_copy *c = copy_here;
    /* Only a load wholly inside the copy moves; one straddling its end reads live memory
     * (a stack copy ends at the stack's base or at a page that faulted). */
    if (c != NULL && a >= c->lo && a < c->hi && n <= c->hi - a) return (uintptr_t)c->buf + (a - c->lo);
  }
  return a;
}

/* SS. */
bool asgst__load_slow(uintptr_t a, size_t n, bool aligned, uint64_t *out) {
  *out = 0;
  if (!asgst__plausible(a, n) || (aligned && (a & (n - 1)))) return false;
  uintptr_t p = ASGST__HOOKED(a, n);
  switch (n) {
    case 1: *out = *(const volatile uint8_t *)p; return true;
    case 2: *out = *(const volatile uint16_t *)p; return true;
    case 4: *out = *(const volatile uint32_t *)p; return true;
    case 8: *out = *(const volatile uint64_t *)p; return true;
    default: return false;
  }
}

/* SS. Turns hooks on (on) or off and sets the fast path's bound to match. Two threads may
 * change hooks at once: each stores the bound its own reading of the hooks implies, and
 * stores again if the hooks changed meanwhile, so the last store always matches them. */
static void hooks_set(int hooks, bool on) {
  if (on) __atomic_or_fetch(&asgst__read_hooks, hooks, __ATOMIC_SEQ_CST);
  else __atomic_and_fetch(&asgst__read_hooks, ~hooks, __ATOMIC_SEQ_CST);
  for (;;) {
    int h = __atomic_load_n(&asgst__read_hooks, __ATOMIC_SEQ_CST);
    __atomic_store_n(&asgst__fast_limit, h ? 0 : ASGST__MAX_ADDR - ASGST__MIN_ADDR, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&asgst__read_hooks, __ATOMIC_SEQ_CST) == h) return;
  }
}

/* SS. The thread's slot is written first either way: the hooks word only sends loads to
 * the slow path, where the slot decides whose loads are logged. */
void asgst__read_log(asgst__read_logger log) {
  logger_here = log;
  hooks_set(ASGST__HOOK_LOG, log != NULL);
}

/* SS. */
bool asgst__read_logged(void) { return logger_here != NULL; }

/* SS. */
void asgst__read_from_copy(const asgst__read_copy *c) {
  copy_here = c;
  hooks_set(ASGST__HOOK_COPY, c != NULL);
}
