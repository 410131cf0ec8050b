/*
 * initialize.c - the binding extension: ASGST_Initialize, ASGST_InitializeError,
 * ASGST_InitializeStatus, ASGST_SetInitializeCallback, ASGST_Shutdown, ASGST_DisabledFeatures. The work is done by the backend that binds to a
 * live JVM, through impl/backend.h (it serialises concurrent calls itself).
 */
#include "internal.h"

/* N. */
int ASGST_Initialize(JavaVM *vm, int32_t flags) {
  if (vm == NULL || (flags & ~(ASGST_INIT_UNTESTED_JDK | ASGST_INIT_REALTIME_QUEUES |
                                  ASGST_INIT_KEEP_VM_FLAGS)) != 0)
    return ASGST_INVALID_ARGUMENT;
  asgst__api_provide_services();
  return asgst__bind_jvm(vm, flags);
}

/* N. */
const char *ASGST_InitializeError(void) {
  return asgst__bind_error();
}

/* N. */
int ASGST_InitializeStatus(void) {
  return asgst__bind_status();
}

/* N. */
void ASGST_SetInitializeCallback(ASGST_InitializeCallback cb, void *arg) {
  asgst__bind_on_outcome(cb, arg);
}

/* N. */
void ASGST_Shutdown(void) {
  asgst__unbind_jvm();
}

/* N. */
const char *ASGST_DisabledFeatures(void) {
  return asgst__bind_features_off();
}
