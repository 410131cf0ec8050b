/*
 * backend_select.c - the active backend, error names, capabilities, and small helpers
 * shared by every backend.
 */
#include <stdatomic.h>
#include <string.h>
#include <ucontext.h>

#include "internal.h"

static _Atomic(const asgst__backend *) active;

/* SS. */
ASGST__HOT const asgst__backend *asgst__active_backend(void) {
  return atomic_load_explicit(&active, memory_order_acquire);
}

/* N. */
void asgst__set_backend(const asgst__backend *be) {
  atomic_store_explicit(&active, be, memory_order_release);
}

/* SS. */
void asgst__copy_string(char *dst, jint *cap, const char *src, size_t len) {
  if (cap == NULL) return;
  if (dst != NULL && *cap > 0) {
    size_t n = len < (size_t)(*cap - 1) ? len : (size_t)(*cap - 1);
    if (src) memcpy(dst, src, n);
    dst[n] = '\0';
  }
  *cap = (jint)len;
}

/* SS. */
ASGST__HOT void asgst__regs_from_ucontext(const void *ucontext, asgst__regs *r) {
  const ucontext_t *uc = (const ucontext_t *)ucontext;
  r->pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  r->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  r->fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
}

/* SS. */
const char *ASGST_ErrorName(int code) {
  switch (code) {
#define ASGST__ERROR_NAME(name, value) \
    case value: return #name;
    ASGST_ERROR_LIST(ASGST__ERROR_NAME)
#undef ASGST__ERROR_NAME
    default: return "ASGST_UNKNOWN_ERROR";
  }
}

/* SS. Queues work without a backend too (the owner processes them with
 * ASGST_ProcessQueues); a backend may take the capability away (HotSpot without the JVMTI
 * suspend capability). */
int ASGST_Capabilities(void) {
  const asgst__backend *be = asgst__active_backend();
  return be && be->capabilities ? be->capabilities() : ASGST_REGISTER_QUEUE;
}

/* SS. */
int ASGST_ThreadState(void) {
  const asgst__backend *be = asgst__active_backend();
  if (be == NULL) return ASGST_NOT_INITIALIZED;
  return be->thread_state ? be->thread_state() : 0;
}
