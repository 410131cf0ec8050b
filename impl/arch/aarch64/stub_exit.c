/*
 * stub_exit.c - the arm64 half of stub_exit.h. Instructions are 4 bytes: the path
 * falls through conditional branches (b.cond, cbz/cbnz, tbz/tbnz) and calls (bl, blr), and
 * ends at the first unconditional b. HotSpot's arm64 stubs load constants with movz/movk
 * or adrp, not from literal pools among their instructions, so each word on the path is
 * an instruction.
 */
#if defined(__aarch64__)
#include "../../safe_read.h"
#include "../stub_exit.h"
#include "sp_effect.h"

/* SS. Follows the code from `from` as asgst__hs_stub_way_back does. until == 0: true at
 * the first b to [lo, from), its target in *back. until != 0: true once the path reaches
 * the instruction at until, false if it passes it (the path only moves forward). depth
 * (or NULL): the bytes the path adds to sp (sp_effect), false where it is not known. */
static bool follow(uintptr_t from, uintptr_t until, uintptr_t lo, uintptr_t hi, uintptr_t *back, long *depth) {
  uintptr_t at = from;
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    if (until != 0 && at >= until) return at == until;
    uint32_t w;
    if (at < from || at >= hi || (at & 3) != 0 || !asgst__load_u32(at, &w)) return false;
    long d = 0;
    if (depth != NULL) {
      int e = asgst__a64_sp_effect(w, &d);
      if (e < 0) return false;
      *depth += d;
    }
    if ((w & 0xfc000000u) == 0x14000000u) { /* b imm26 */
      int32_t imm = (int32_t)(w << 6) >> 6;
      uintptr_t target = at + (uintptr_t)((intptr_t)imm * 4);
      if (until == 0 && target >= lo && target < from) { *back = target; return true; }
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

/* SS. See stub_exit.h. */
bool asgst__hs_stub_way_back(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  return follow(pc, 0, lo, hi, back, NULL);
}

/* SS. The target of the direct branch at `at` (b.cond, cbz/cbnz, tbz/tbnz, b), or 0. */
static uintptr_t branch_target(uint32_t w, uintptr_t at) {
  if ((w & 0xff000010u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u) /* b.cond, cb(n)z */
    return at + (uintptr_t)((intptr_t)((int32_t)(w << 8) >> 13) * 4);
  if ((w & 0x7e000000u) == 0x36000000u) /* tb(n)z imm14 */
    return at + (uintptr_t)((intptr_t)((int32_t)(w << 13) >> 18) * 4);
  if ((w & 0xfc000000u) == 0x14000000u) /* b imm26 */
    return at + (uintptr_t)((intptr_t)((int32_t)(w << 6) >> 6) * 4);
  return 0;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_way_back(uintptr_t ret, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  uintptr_t b;
  uint32_t w;
  if (!follow(ret, 0, lo, hi, &b, NULL) || b < lo + 4 || !asgst__load_u32(b - 4, &w)) return false;
  uintptr_t e = branch_target(w, b - 4);
  if (e <= b || e > ret || !follow(e, ret, lo, hi, &(uintptr_t){0}, NULL)) return false;
  *back = b;
  return true;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_depth(uintptr_t ret, uintptr_t lo, uintptr_t hi, long *depth) {
  *depth = 0;
  return follow(ret, 0, lo, hi, &(uintptr_t){0}, depth);
}

/* SS. See stub_exit.h: not decoded on arm64. */
int asgst__hs_stub_ret_offset(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, long *ra) {
  (void)pc, (void)lo, (void)hi, (void)pop_ra, (void)ra;
  return 0;
}

#endif
