/*
 * queries.c - error names, capabilities, the thread state (answered by the active backend,
 * which impl/backend.c holds) and the registers of a signal context.
 */
#include "../impl/arch/arch.h"
#include "internal.h"

/* SS. */
ASGST__HOT void asgst__regs_from_ucontext(const void *ucontext, asgst__regs *r) {
  const ucontext_t *uc = (const ucontext_t *)ucontext;
  asgst__uc_regs(uc, r);
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
  if (be == NULL) return asgst__unbound_error();
  return be->thread_state ? be->thread_state() : 0;
}
