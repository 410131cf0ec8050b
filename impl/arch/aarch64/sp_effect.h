/*
 * sp_effect.h - arm64: how one instruction moves sp, for the decoders that add up a stub's
 * stack depth (stub_exit.c) or prove that code leaves sp alone (adapter_frame.c).
 */
#ifndef ASGST_ARCH_AARCH64_SP_EFFECT_H
#define ASGST_ARCH_AARCH64_SP_EFFECT_H

#include <stdint.h>

/* SS. How the instruction w moves sp: 0 not at all (a load or store through sp without
 * writeback does not), 1 with *delta the bytes it adds (ldp/stp and ldr/str of any
 * register size pre- or post-indexed on sp, add/sub sp, sp, #imm), -1 if it may move sp
 * otherwise (sp as the destination of another add/sub or a logical immediate, SIMD
 * structure loads post-indexed on sp, SVE addvl/addpl into sp, pointer authenticated loads
 * with writeback on sp). */
static inline int asgst__a64_sp_effect(uint32_t w, long *delta) {
  unsigned rd = w & 31, rn = (w >> 5) & 31;
  if ((w & 0x3a000000u) == 0x28000000u) { /* load/store pair */
    unsigned idx = (w >> 23) & 3, opc = w >> 30;
    if (rn != 31 || (idx != 1 && idx != 3)) return 0;
    long scale = ((w >> 26) & 1) ? 4L << opc : opc == 2 ? 8 : 4;
    long imm7 = (long)((w >> 15) & 0x7f);
    *delta = (imm7 >= 64 ? imm7 - 128 : imm7) * scale;
    return 1;
  }
  if ((w & 0x3b200000u) == 0x38000000u && (w & 0x400u)) { /* ldr/str pre- or post-indexed */
    if (rn != 31) return 0;
    long imm9 = (long)((w >> 12) & 0x1ff);
    *delta = imm9 >= 256 ? imm9 - 512 : imm9;
    return 1;
  }
  if ((w & 0x1f800000u) == 0x11000000u) { /* add/sub (immediate) */
    if (((w >> 29) & 1) || rd != 31) return 0; /* adds/subs write xzr, not sp */
    if (rn != 31 || !(w >> 31)) return -1;
    long imm = (long)((w >> 10) & 0xfff) << ((w & (1u << 22)) ? 12 : 0);
    *delta = (w & (1u << 30)) ? -imm : imm;
    return 1;
  }
  if ((w & 0x1fe00000u) == 0x0b200000u) /* add/sub (extended register) */
    return !((w >> 29) & 1) && rd == 31 ? -1 : 0;
  if ((w & 0x1f800000u) == 0x12000000u) /* logical (immediate): and/orr/eor into sp */
    return ((w >> 29) & 3) != 3 && rd == 31 ? -1 : 0;
  if ((w & 0xbfa00000u) == 0x0c800000u || (w & 0xbf800000u) == 0x0d800000u) /* ld1/st1 ..., [sp], */
    return rn == 31 ? -1 : 0;
  if ((w & 0xffa0f800u) == 0x04205000u) /* SVE addvl/addpl */
    return rd == 31 ? -1 : 0;
  if ((w & 0xff200c00u) == 0xf8200c00u) /* ldraa/ldrab with writeback */
    return rn == 31 ? -1 : 0;
  return 0;
}

#endif
