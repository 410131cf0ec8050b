/*
 * cfi_epoch.c - the counters of reader sections and the epoch (see cfi_epoch.h for the
 * scheme and why it is safe).
 */
#include "impl/native/cfi_epoch.h"

struct asgst_cfi_slot asgst__cfi_slots[ASGST_CFI_SLOTS];
unsigned long asgst__cfi_epoch;
__thread char asgst__cfi_slot_anchor __attribute__((tls_model("initial-exec")));

/* N. */
bool asgst__cfi_try_advance(void) {
  /* Orders the caller's unpublication (an exchange) before the counters' loads. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  unsigned long e = __atomic_load_n(&asgst__cfi_epoch, __ATOMIC_RELAXED);
  unsigned older = (unsigned)((e + 1) & 1);
  for (int i = 0; i < ASGST_CFI_SLOTS; i++)
    if (__atomic_load_n(&asgst__cfi_slots[i].n[older], __ATOMIC_ACQUIRE) != 0) return false;
  __atomic_store_n(&asgst__cfi_epoch, e + 1, __ATOMIC_SEQ_CST);
  return true;
}
