/*
 * plt_entry.c - x86_64: no PLT entry needs decoding (plt_entry.h). GNU ld and lld write
 * an .eh_frame row for .plt, so the call frame tables step a pc there.
 */
#if defined(__x86_64__)
#include "../plt_entry.h"

/* SS. See plt_entry.h. */
bool asgst__plt_entry_at(uintptr_t pc, asgst__code_read_fn read, void *ctx) {
  (void)pc, (void)read, (void)ctx;
  return false;
}

#endif
