/*
 * adapter_frame.c - x86_64: where a frame in the adapters' blob finds its caller
 * (adapter_frame.h), from stub_exit.h's two decoders: the i2c's from the blob's start to
 * the pc, the c2i's from the pc to its pop of the return address or a jump to a runtime
 * stub, with nothing moving rsp on the way.
 */
#if defined(__x86_64__)
#include "../adapter_frame.h"
#include "../stub_exit.h"

/* SS. See adapter_frame.h. The i2c first: it starts the blob. */
void asgst__hs_adapter_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, asgst__hs_adapter_frame *a) {
  long ra, depth;
  uintptr_t out = 0;
  *a = (asgst__hs_adapter_frame){.adapter = ASGST__ADAPTER_NONE, .where = ASGST__CALLER_AT_SP};
  if (asgst__hs_i2c_effect(pc, lo, hi, &ra, &depth)) {
    a->adapter = ASGST__ADAPTER_I2C;
    a->ra = ra;
    a->depth = depth;
    return;
  }
  int how = asgst__hs_c2i_ret_at_sp(pc, lo, hi, &out);
  if (how == 0 || (how == 2 && out == 0)) return;
  /* The return address at sp, as at the c2i's entry. */
  a->adapter = ASGST__ADAPTER_C2I;
  a->ra = 0;
  a->depth = 8;
  a->exit = how == 2 ? out : 0;
}

#endif
