/*
 * call_stub.c - the arm64 half of call_stub.h: the call stub is not decoded there
 * (a top pc in it before its call stays ASGST_UNSAFE_STATE).
 */
#if defined(__aarch64__)
#include "../call_stub.h"

/* SS. See call_stub.h. */
int asgst__hs_call_stub_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t ret,
                           long wrapper_disp) {
  (void)pc, (void)lo, (void)hi, (void)ret, (void)wrapper_disp;
  return ASGST__CS_NONE;
}

#endif
