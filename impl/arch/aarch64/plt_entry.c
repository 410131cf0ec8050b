/*
 * plt_entry.c - arm64: a pc in a PLT entry (plt_entry.h). GNU ld and lld write each entry
 * as [bti c;] adrp x16,page; ldr x17,[x16,#off]; add x16,x16,#off; br x17: it touches
 * x16 and x17 only, and arm64's linkers give .plt no .eh_frame row.
 */
#if defined(__aarch64__)
#include "../plt_entry.h"

enum {
  BTI_C = 0xd503245fu,
  PLT0_PUSH = 0xa9bf7bf0u, /* stp x16,x30,[sp,#-16]!: the lazy binding header's first */
};

/* SS. The instruction word at a (4-aligned), read as half of an aligned 8-byte word
 * (little-endian). */
static bool load_insn(uintptr_t a, asgst__code_read_fn read, void *ctx, uint32_t *w) {
  uintptr_t word;
  if (!read(ctx, a & ~(uintptr_t)7, &word)) return false;
  *w = (uint32_t)(word >> (8 * (a & 4)));
  return true;
}

/* SS. True if the four words at e are an entry's adrp, ldr, add and br, and the word
 * before them is not the lazy binding header's push (the header, PLT0, has the same four
 * words after it: sp is no longer the caller's there). */
static bool plt_words(uintptr_t e, asgst__code_read_fn read, void *ctx) {
  uint32_t w[4], before;
  for (int i = 0; i < 4; i++)
    if (!load_insn(e + 4u * (uintptr_t)i, read, ctx, &w[i])) return false;
  if (load_insn(e - 4, read, ctx, &before) && before == PLT0_PUSH) return false;
  return (w[0] & 0x9f00001fu) == 0x90000010u && (w[1] & 0xffc003ffu) == 0xf9400211u &&
         (w[2] & 0xffc003ffu) == 0x91000210u && w[3] == 0xd61f0220u;
}

/* SS. See plt_entry.h. */
bool asgst__plt_entry_at(uintptr_t pc, asgst__code_read_fn read, void *ctx) {
  uint32_t w;
  if ((pc & 3) || !load_insn(pc, read, ctx, &w)) return false;
  if (w == BTI_C) return plt_words(pc + 4, read, ctx); /* before the entry's adrp */
  for (uintptr_t k = 0; k < 4; k++)
    if (pc >= 4 * k && plt_words(pc - 4 * k, read, ctx)) return true;
  return false;
}

#endif
