/*
 * insn.h - arm64: the few facts about instruction words that the decoders of HotSpot's
 * code share (adapter_frame.c, stub_exit.c): the words of enter() and leave(), branch
 * targets, and which instructions may write the frame pointer or the link register.
 */
#ifndef ASGST_ARCH_AARCH64_INSN_H
#define ASGST_ARCH_AARCH64_INSN_H

#include <stdbool.h>
#include <stdint.h>

enum {
  STP_FP_LR_PRE = 0xa9bf7bfdu,  /* stp x29,x30,[sp,#-16]!: enter()'s first instruction */
  MOV_FP_SP = 0x910003fdu,      /* mov x29,sp: its second */
  MOV_SP_FP = 0x910003bfu,      /* mov sp,x29: leave()'s first */
  LDP_FP_LR_POST = 0xa8c17bfdu, /* ldp x29,x30,[sp],#16: its second */
  BR_MASK = 0xfffffc1fu, BR = 0xd61f0000u,
  RET_LR = 0xd65f03c0u,                      /* ret (x30) */
  RETAA = 0xd65f0bffu, RETAB = 0xd65f0fffu,  /* the same, authenticating lr first */
};

/* SS. True if w is b (imm26). */
static inline bool is_b(uint32_t w) { return (w & 0xfc000000u) == 0x14000000u; }

/* SS. True if w is bl (imm26) or blr: a call that returns to the next word. */
static inline bool is_call(uint32_t w) {
  return (w & 0xfc000000u) == 0x94000000u || (w & 0xfffffc1fu) == 0xd63f0000u;
}

/* SS. The target of b or bl at `at` (their imm26). */
static inline uintptr_t imm26_target(uint32_t w, uintptr_t at) {
  return at + (uintptr_t)((intptr_t)((int32_t)(w << 6) >> 6) * 4);
}

/* SS. True if w is one of the pointer authentication hints that rewrite lr in place
 * (paciasp, pacibsp, autiasp, autibsp, paciaz, pacibz, autiaz, autibz, xpaclri). */
static inline bool auth_hint(uint32_t w) {
  if ((w & 0xfffffc1fu) != 0xd503201fu) return false;
  unsigned op = (w >> 5) & 0x7f; /* CRm:op2 */
  return op == 0x07 || (op >= 0x18 && op <= 0x1f);
}

/* SS. The target of the direct branch w at `at` (b, b.cond, cbz/cbnz, tbz/tbnz), 0 if w is
 * none. bl is a call that returns: not a branch here. */
static inline uintptr_t target_of(uint32_t w, uintptr_t at) {
  if (is_b(w)) return imm26_target(w, at);
  if ((w & 0xff000010u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u)
    return at + (uintptr_t)((intptr_t)((int32_t)(w << 8) >> 13) * 4);
  if ((w & 0x7e000000u) == 0x36000000u) return at + (uintptr_t)((intptr_t)((int32_t)(w << 13) >> 18) * 4);
  return 0;
}

/* SS. True if w is a direct branch (b, b.cond, cbz/cbnz, tbz/tbnz, bl) or br, blr, ret. */
static inline bool is_branch(uint32_t w) {
  return (w & 0x7c000000u) == 0x14000000u || (w & 0xff000010u) == 0x54000000u ||
         (w & 0x7c000000u) == 0x34000000u || (w & 0xfe000000u) == 0xd6000000u;
}

/* SS. True if w may write register n (29 or 30): conservatively, any instruction whose
 * destination field names it except the stores, which only read it, and a load's or
 * store's base register written back. Calls write lr. */
static inline bool may_write(uint32_t w, unsigned n) {
  if (n == 30 && (is_call(w) || (w & 0xfefff800u) == 0xd63f0800u || auth_hint(w)))
    return true; /* bl, blr, blraa/blrab, the authentication hints */
  if (is_branch(w)) return false; /* an offset, a condition or a tested register there */
  unsigned rt = w & 31, rn = (w >> 5) & 31, rt2 = (w >> 10) & 31;
  if ((w & 0x0a000000u) != 0x08000000u) return rt == n; /* not a load or store: rd in bits 0-4 */
  /* A load into a general register (V, bit 26, clear: a SIMD load writes a vector register):
   * opc 00 is a store. */
  bool gp_load = !((w >> 26) & 1) && ((w >> 22) & 3) != 0;
  if ((w & 0x3a000000u) == 0x28000000u) { /* pair */
    bool load = !((w >> 26) & 1) && ((w >> 22) & 1), back = ((w >> 23) & 3) == 1 || ((w >> 23) & 3) == 3;
    return (load && (rt == n || rt2 == n)) || (back && rn == n);
  }
  if ((w & 0x3b000000u) == 0x39000000u) /* ldr/str unsigned offset */
    return gp_load && rt == n;
  if ((w & 0x3b200c00u) == 0x38200800u) /* ldr/str register offset: no writeback */
    return gp_load && rt == n;
  if ((w & 0x3b200000u) == 0x38000000u) { /* ldr/str unscaled, pre- or post-indexed */
    bool back = (w & 0x400u) != 0;
    return (gp_load && rt == n) || (back && rn == n);
  }
  return rt == n || rt2 == n || ((w >> 16) & 31) == n; /* anything else: any field */
}

/* SS. True if w leaves the straight line for good: b, br, ret (and their authenticated
 * forms). The next instruction is reached only by a branch or as an entry. */
static inline bool ends_line(uint32_t w) {
  return is_b(w) || (w & 0xfffffc1fu) == BR || (w & 0xfffffc1fu) == 0xd65f0000u ||
         (w & 0xfefff800u) == 0xd61f0800u || (w & 0xfffffbffu) == 0xd65f0bffu;
}

#endif
