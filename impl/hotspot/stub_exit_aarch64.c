/*
 * stub_exit_aarch64.c - the arm64 half of stub_exit.h. Instructions are 4 bytes: the path
 * falls through conditional branches (b.cond, cbz/cbnz, tbz/tbnz) and calls (bl, blr), and
 * ends at the first unconditional b. HotSpot's arm64 stubs load constants with movz/movk
 * or adrp, not from literal pools among their instructions, so each word on the path is
 * an instruction.
 */
#if defined(__aarch64__)
#include "../safe_read.h"
#include "stub_exit.h"

/* SS. See stub_exit.h. */
bool asgst__hs_stub_way_back(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  uintptr_t at = pc;
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    uint32_t w;
    if (at < pc || at >= hi || (at & 3) != 0 || !asgst__load_u32(at, &w)) return false;
    if ((w & 0xfc000000u) == 0x14000000u) { /* b imm26 */
      int32_t imm = (int32_t)(w << 6) >> 6;
      uintptr_t target = at + (uintptr_t)((intptr_t)imm * 4);
      if (target >= lo && target < pc) { *back = target; return true; }
      if (target <= at) return false;
      at = target;
      continue;
    }
    /* br, ret, eret, brk, udf, hlt: the path leaves or traps */
    if ((w & 0xfffffc1fu) == 0xd61f0000u || (w & 0xfffffc1fu) == 0xd65f0000u || w == 0xd69f03e0u ||
        (w & 0xffe0001fu) == 0xd4200000u || (w & 0xffe0001fu) == 0xd4400000u || (w & 0xffff0000u) == 0)
      return false;
    /* braa/brab/retaa (pointer authentication) leave too */
    if ((w & 0xfefff800u) == 0xd61f0800u || (w & 0xfffffbffu) == 0xd65f0bffu) return false;
    at += 4;
  }
  return false;
}

/* SS. See stub_exit.h: arm64's adapters are not decoded. */
int asgst__hs_c2i_ret_at_sp(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *out) {
  (void)pc, (void)lo, (void)hi, (void)out;
  return 0;
}

/* SS. See stub_exit.h: not decoded on arm64. */
int asgst__hs_stub_ret_offset(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, long *ra) {
  (void)pc, (void)lo, (void)hi, (void)pop_ra, (void)ra;
  return 0;
}

/* SS. See stub_exit.h: arm64's adapters are not decoded. */
int asgst__hs_i2c_effect(uintptr_t pc, uintptr_t lo, uintptr_t hi, long *ra, long *depth) {
  (void)pc, (void)lo, (void)hi, (void)ra, (void)depth;
  return 0;
}

#endif
