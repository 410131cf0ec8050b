/*
 * stub_exit.c - the arm64 half of stub_exit.h. Instructions are 4 bytes. The way back
 * from out-of-line stub code falls through conditional branches (b.cond, cbz/cbnz,
 * tbz/tbnz) and calls (bl, blr), and ends at the first unconditional b; a frameless
 * stub's way to its ret (asgst__hs_stub_frame_at) is searched, as no call may be on it.
 * HotSpot's arm64 stubs load constants with movz/movk
 * or adrp, not from literal pools among their instructions, so each word on the path is
 * an instruction.
 */
#if defined(__aarch64__)
#include "../../safe_read.h"
#include "../stub_exit.h"
#include "insn.h"
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
    if (is_b(w)) {
      uintptr_t target = imm26_target(w, at);
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

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_way_back(uintptr_t ret, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  uintptr_t b;
  uint32_t w;
  if (!follow(ret, 0, lo, hi, &b, NULL) || b < lo + 4 || !asgst__load_u32(b - 4, &w)) return false;
  uintptr_t e = target_of(w, b - 4);
  if (e <= b || e > ret || !follow(e, ret, lo, hi, &(uintptr_t){0}, NULL)) return false;
  *back = b;
  return true;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_depth(uintptr_t ret, uintptr_t lo, uintptr_t hi, long *depth) {
  *depth = 0;
  return follow(ret, 0, lo, hi, &(uintptr_t){0}, depth);
}

/* Most conditional branches whose taken way a search keeps to try later. */
#define LR_EXIT_FORKS 8

/* SS. The search of asgst__hs_stub_frame_at (stub_exit.h) from pc for a ret through lr:
 * true with *depth the bytes the path adds to sp. A path ends where it meets a call, a
 * write of x29 or x30, an unknown move of sp, br, a jump backward or out of [pc, hi), or
 * a word it cannot read; the search then goes on from the last forward conditional
 * branch it fell through. Every step moves forward, so it ends. */
static bool lr_exit(uintptr_t pc, uintptr_t hi, long *depth) {
  struct { uintptr_t at; long depth; } forks[LR_EXIT_FORKS];
  int nforks = 0;
  uintptr_t at = pc;
  long d = 0;
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    uint32_t w;
    long e = 0;
    bool live = at < hi && asgst__load_u32(at, &w);
    if (live && (w == RET_LR || w == RETAA || w == RETAB)) {
      *depth = d;
      return true;
    }
    live = live && asgst__a64_sp_effect(w, &e) >= 0 && !may_write(w, 29) && !may_write(w, 30);
    uintptr_t t = live ? target_of(w, at) : 0;
    if (live && is_b(w)) { /* taken, forward only */
      live = t > at;
      at = t;
    } else if (live && !ends_line(w)) {
      if (t > at && nforks < LR_EXIT_FORKS) forks[nforks].at = t, forks[nforks++].depth = d + e;
      at += 4;
    } else {
      live = false;
    }
    if (live) {
      d += e;
      continue;
    }
    if (nforks == 0) return false;
    nforks--;
    at = forks[nforks].at;
    d = forks[nforks].depth;
  }
  return false;
}

/* SS. The offset from sp of the slot w, a post-indexed load from sp, reloads x30 from:
 * ldp with x30 first (0) or second (8), ldr x30 (0); -1 if w is none of them. */
static long lr_reload_slot(uint32_t w) {
  if ((w & 0xffc003e0u) == 0xa8c003e0u) /* ldp xA, xB, [sp], #imm */
    return (w & 31) == 30 ? 0 : ((w >> 10) & 31) == 30 ? 8 : -1;
  if ((w & 0xffe00c00u) == 0xf8400400u && (w & 0x3ffu) == 0x3feu) return 0; /* ldr x30, [sp], #imm */
  return -1;
}

/* SS. A stub left by reloading its return address into lr and jumping through another
 * register (C1's unwind_exception: the return address saved below its call of the VM,
 * reloaded after it, and handed to the caller's handler with br), at pc: the code from pc
 * is followed (conditional branches falling through, forward jumps taken) to a br through
 * a register other than x30, adding up the moves of sp. Calls may come before the reload
 * of x30 from the stack (they return), nothing that writes x30 after it but the
 * authentication hints, which change lr in place; nothing may write x29. Reloaded on the
 * way from a slot at or above sp: the return address is in that slot; not reloaded and
 * no call on the way: it is in lr. */
static bool ra_reloaded(uintptr_t pc, uintptr_t hi, asgst__hs_stub_frame *f) {
  uintptr_t at = pc;
  long d = 0, ra = 0;
  bool reloaded = false, called = false;
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS && at < hi; n++) {
    uint32_t w;
    long e = 0, slot;
    if (!asgst__load_u32(at, &w) || may_write(w, 29)) return false;
    if ((w & BR_MASK) == BR && ((w >> 5) & 31) != 30) {
      if (!reloaded && called) return false;
      *f = (asgst__hs_stub_frame){.where = reloaded ? ASGST__STUB_RA_AT_SP : ASGST__STUB_RA_IN_LR,
                                  .ra = ra, .depth = d, .fp_at = -1};
      return true;
    }
    if (!reloaded && (slot = lr_reload_slot(w)) >= 0) {
      ra = d + slot;
      if (ra < 0) return false; /* a slot not yet written at pc */
      reloaded = true;
    } else if (is_call(w)) {
      if (reloaded) return false;
      called = true; /* returns here, lr spent */
    } else if (!auth_hint(w) && may_write(w, 30) && (reloaded || !called)) {
      return false; /* lr written while it still holds the return address */
    }
    if (asgst__a64_sp_effect(w, &e) < 0) return false;
    d += e;
    uintptr_t t = target_of(w, at);
    if (is_b(w)) { /* forward only */
      if (t <= at) return false;
      at = t;
      continue;
    }
    if (ends_line(w)) return false; /* ret, br x30, the authenticated forms */
    at += 4;
  }
  return false;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_frame_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, asgst__hs_stub_frame *f) {
  uint32_t w, prev = 0;
  long depth;
  if (pc < lo || pc >= hi || (pc & 3) || !asgst__load_u32(pc, &w) ||
      (pc >= lo + 4 && !asgst__load_u32(pc - 4, &prev)))
    return false;
  if (pop_ra) return ra_reloaded(pc, hi, f);
  if (w == STP_FP_LR_PRE) {
    /* enter() is about to save the caller's fp and return address: both still live */
    *f = (asgst__hs_stub_frame){.where = ASGST__STUB_RA_IN_LR, .depth = 0, .fp_at = -1};
  } else if ((w == MOV_FP_SP && prev == STP_FP_LR_PRE) || w == LDP_FP_LR_POST) {
    *f = (asgst__hs_stub_frame){.where = ASGST__STUB_RA_AT_SP, .ra = 8, .depth = 16, .fp_at = 0};
  } else if (lr_exit(pc, hi, &depth)) {
    *f = (asgst__hs_stub_frame){.where = ASGST__STUB_RA_IN_LR, .depth = depth, .fp_at = -1};
  } else {
    return false;
  }
  return true;
}

/* SS. See stub_exit.h: ldp xA,xB,[sp],#16 or ldr xA,[sp],#16. */
long asgst__hs_args_popped_at(uintptr_t ret) {
  uint32_t w;
  if ((ret & 3) || !asgst__load_u32(ret, &w)) return 0;
  return (w & 0xffff83e0u) == 0xa8c103e0u || (w & 0xffffffe0u) == 0xf84107e0u ? 16 : 0;
}

/* SS. See stub_exit.h: a bl just before ret. */
uintptr_t asgst__hs_call_target_before(uintptr_t ret) {
  uint32_t w;
  if ((ret & 3) || !asgst__load_u32(ret - 4, &w) || (w & 0xfc000000u) != 0x94000000u) return 0;
  return imm26_target(w, ret - 4);
}

#endif
