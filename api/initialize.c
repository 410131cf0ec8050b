/*
 * initialize.c - the binding extension: ASGST_Initialize, ASGST_InitializeError,
 * ASGST_Shutdown. A JavaVM* means HotSpot here; the work is done by the hotspot backend
 * (impl/hotspot/hotspot_init.c), which serialises concurrent calls itself.
 */
#include "internal.h"
#include "../impl/hotspot/hotspot.h"

/* N. */
int ASGST_Initialize(JavaVM *vm, int32_t flags) {
  if (vm == NULL || flags != 0) return ASGST_INVALID_ARGUMENT;
  return asgst__hs_initialize(vm, flags);
}

/* N. */
const char *ASGST_InitializeError(void) {
  return asgst__hs_init_error();
}

/* N. */
void ASGST_Shutdown(void) {
  asgst__hs_shutdown();
}

/* N. */
const char *ASGST_DisabledFeatures(void) {
  return asgst__hs_features_off();
}
