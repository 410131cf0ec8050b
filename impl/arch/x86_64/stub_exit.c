/*
 * stub_exit.c - the x86_64 half of stub_exit.h: an instruction length decoder for
 * the instructions of HotSpot's out-of-line stubs, enough to follow one to its jump back.
 *
 * An instruction is: legacy prefixes, an optional REX byte, then an opcode of the one-byte
 * map, of the 0F, 0F38 or 0F3A maps, or a VEX (C4/C5) or EVEX (62) prefixed one (vector
 * register saves around a runtime call); then ModRM (+SIB, displacement) and an
 * immediate, whose presence and size depend on the opcode. Opcodes outside the tables
 * below are not understood: the walk gives up rather than guess a length.
 */
#if defined(__x86_64__)
#include "../../safe_read.h"
#include "../stub_exit.h"

enum { INSN_NEXT, INSN_JUMP, INSN_STOP };

/* SS. Bytes of the ModRM operand at p (ModRM, SIB, displacement). */
static int modrm_len(const uint8_t *p) {
  int mod = p[0] >> 6, rm = p[0] & 7, n = 1;
  if (mod == 3) return 1;
  if (rm == 4) {
    n++;
    if (mod == 0 && (p[1] & 7) == 5) n += 4; /* SIB without base: disp32 */
  } else if (mod == 0 && rm == 5) {
    n += 4; /* rip-relative */
  }
  if (mod == 1) n += 1; else if (mod == 2) n += 4;
  return n;
}

/* SS. True if opcode op of the 0F map (also VEX/EVEX map 1) takes an imm8. */
static bool map1_imm8(uint8_t op) {
  return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba || op == 0xc2 ||
         (op >= 0xc4 && op <= 0xc6);
}

/* SS. Length of a VEX (c4/c5) or EVEX (62) instruction at b (b[0] the prefix), 0 if not
 * understood. Every one has ModRM but vzeroupper/vzeroall (map 1, 77); map 3 has imm8. */
static int vex_len(const uint8_t *b) {
  int i, map;
  if (b[0] == 0xc5) { map = 1; i = 2; }
  else if (b[0] == 0xc4) { map = b[1] & 0x1f; i = 3; }
  else { map = b[1] & 0x7; i = 4; } /* EVEX: P0.mmm */
  if (map < 1 || map > 3) return 0;
  uint8_t op = b[i++];
  if (map == 1 && op == 0x77) return i;
  i += modrm_len(b + i);
  if (map == 3 || (map == 1 && map1_imm8(op))) i++;
  return i;
}

/* SS. Length of the 0F-map instruction whose opcode byte is at b[i] (after 0F); sets
 * *kind for jcc rel32 (falls through) and stops at ud2/syscall. 0 if not understood. */
static int map1_len(const uint8_t *b, int i, int *kind) {
  uint8_t op = b[i++];
  if (op == 0x38) return i + 1 + modrm_len(b + i + 1);
  if (op == 0x3a) return i + 1 + modrm_len(b + i + 1) + 1;
  if (op >= 0x80 && op <= 0x8f) return i + 4; /* jcc rel32 */
  if (op == 0x0b || op == 0x05 || op == 0x07) { *kind = INSN_STOP; return i; } /* ud2, syscall, sysret */
  if (op == 0x31 || op == 0x77 || op == 0xa2 || (op >= 0xc8 && op <= 0xcf)) return i; /* rdtsc, emms, cpuid, bswap */
  if (op == 0x06 || op == 0x08 || op == 0x09 || (op >= 0x30 && op <= 0x37) || op == 0xa0 || op == 0xa1 ||
      op == 0xa8 || op == 0xa9 || op == 0xaa)
    return 0; /* system instructions: not in a stub */
  i += modrm_len(b + i);
  return map1_imm8(op) ? i + 1 : i;
}

/* SS. Decodes the instruction at b (address at): its length, and in *kind whether it
 * continues (INSN_NEXT), jumps unconditionally to *target (INSN_JUMP) or ends the path
 * (INSN_STOP). 0 if not understood. */
static int insn_len(const uint8_t *b, uintptr_t at, int *kind, uintptr_t *target) {
  int i = 0;
  bool opsize = false, rexw = false;
  *kind = INSN_NEXT;
  for (; i < 4; i++) {
    uint8_t c = b[i];
    if (c == 0x66) opsize = true;
    else if (c != 0x67 && c != 0xf0 && c != 0xf2 && c != 0xf3 && c != 0x2e && c != 0x3e && c != 0x26 &&
             c != 0x36 && c != 0x64 && c != 0x65)
      break;
  }
  if (i == 0 && (b[0] == 0xc4 || b[0] == 0xc5 || b[0] == 0x62)) return vex_len(b);
  if ((b[i] & 0xf0) == 0x40) { rexw = (b[i] & 8) != 0; i++; }
  uint8_t op = b[i++];
  int immz = opsize ? 2 : 4;
  if (op == 0x0f) return map1_len(b, i, kind);
  if (op < 0x40) {
    int low = op & 7;
    if (low < 4) return i + modrm_len(b + i);
    if (low == 4) return i + 1;
    if (low == 5) return i + immz;
    return 0;
  }
  if (op >= 0x50 && op <= 0x5f) return i;                       /* push/pop reg */
  if (op >= 0x70 && op <= 0x7f) return i + 1;                   /* jcc rel8: falls through */
  if ((op >= 0x90 && op <= 0x99) || op == 0x9c || op == 0x9d || op == 0xc9 || op == 0xf5 ||
      (op >= 0xf8 && op <= 0xfd))
    return i;                                                   /* nop/xchg, cdq, pushf, leave, flags */
  if (op >= 0xb0 && op <= 0xb7) return i + 1;                   /* mov r8,imm8 */
  if (op >= 0xb8 && op <= 0xbf) return i + (rexw ? 8 : immz);   /* mov r,imm */
  if (op == 0xe9 || op == 0xeb) {                               /* jmp rel32 / rel8 */
    int n = op == 0xe9 ? 4 : 1;
    int32_t rel = op == 0xe9 ? (int32_t)(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | (uint32_t)b[i + 3] << 24)
                             : (int8_t)b[i];
    *kind = INSN_JUMP;
    *target = at + (uintptr_t)(i + n) + (uintptr_t)(intptr_t)rel;
    return i + n;
  }
  switch (op) {
  case 0x63: case 0x84: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89: case 0x8a:
  case 0x8b: case 0x8c: case 0x8d: case 0x8e: case 0x8f: case 0xd0: case 0xd1: case 0xd2:
  case 0xd3: case 0xfe:
    return i + modrm_len(b + i);
  case 0x69: case 0x81: case 0xc7: return i + modrm_len(b + i) + immz;
  case 0x6b: case 0x80: case 0x83: case 0xc0: case 0xc1: case 0xc6: return i + modrm_len(b + i) + 1;
  case 0x68: return i + 4;
  case 0x6a: case 0xa8: return i + 1;
  case 0xa9: return i + immz;
  case 0xe8: return i + 4;                                      /* call rel32: returns here */
  case 0xf6: return i + modrm_len(b + i) + (((b[i] >> 3) & 7) < 2 ? 1 : 0);
  case 0xf7: return i + modrm_len(b + i) + (((b[i] >> 3) & 7) < 2 ? immz : 0);
  case 0xff: {
    int reg = (b[i] >> 3) & 7;
    if (reg == 4 || reg == 5 || reg == 7) *kind = INSN_STOP;    /* indirect jmp */
    return i + modrm_len(b + i);
  }
  case 0xa4: case 0xa5: case 0xa6: case 0xa7: case 0xaa: case 0xab: case 0xac: case 0xad:
  case 0xae: case 0xaf: return i;                               /* string ops (repne scas) */
  case 0xc2: case 0xc3: case 0xcc: case 0xf4: *kind = INSN_STOP; return i; /* ret, int3, hlt */
  default: return 0;
  }
}

static int rsp_effect(const uint8_t *b, int len, long *delta);

/* SS. Follows the code from `from` as asgst__hs_stub_way_back does. until == 0: true at
 * the first unconditional direct jump to [lo, from), its target in *back. until != 0:
 * true once the path reaches the instruction at until, false if it passes it (the path
 * only moves forward). depth (or NULL): the bytes the path adds to rsp (rsp_effect), false
 * where it is not known. */
static bool follow(uintptr_t from, uintptr_t until, uintptr_t lo, uintptr_t hi, uintptr_t *back, long *depth) {
  uintptr_t at = from;
  uint8_t b[16];
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    if (until != 0 && at >= until) return at == until;
    if (at < from || at >= hi || !asgst__load_bytes(at, b, sizeof b)) return false;
    int kind;
    uintptr_t target = 0;
    int len = insn_len(b, at, &kind, &target);
    if (len == 0 || kind == INSN_STOP) return false;
    long d = 0;
    if (depth != NULL) {
      int e = rsp_effect(b, len, &d);
      if (e < 0) return false;
      if (e > 0) *depth += d;
    }
    if (kind == INSN_JUMP) {
      if (until == 0 && target >= lo && target < from) { *back = target; return true; }
      if (target <= at) return false; /* a loop on the path, or out of the method */
      at = target;                    /* forward within the stub code: checked above */
      continue;
    }
    at += (uintptr_t)len;
  }
  return false;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_way_back(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  return follow(pc, 0, lo, hi, back, NULL);
}

/* SS. The target of a direct branch whose last byte is just before `end` (jcc rel32
 * 0f 8x, jmp rel32 e9, jcc rel8 7x, jmp rel8 eb), if that target lies in (end, until] and
 * the path from it reaches until. x86_64 code cannot be decoded backwards, so each form
 * is tried; the path's check is what proves the bytes a branch into the stub. */
static bool branch_into(uintptr_t end, uintptr_t until, uintptr_t lo, uintptr_t hi) {
  uint8_t b[6];
  if (end < lo + 6 || !asgst__load_bytes(end - 6, b, sizeof b)) return false;
  int32_t rel32 = (int32_t)(b[2] | b[3] << 8 | b[4] << 16 | (uint32_t)b[5] << 24);
  uintptr_t t[3];
  int n = 0;
  if ((b[0] == 0x0f && (b[1] & 0xf0) == 0x80) || b[1] == 0xe9) t[n++] = end + (uintptr_t)(intptr_t)rel32;
  if ((b[4] & 0xf0) == 0x70 || b[4] == 0xeb) t[n++] = end + (uintptr_t)(intptr_t)(int8_t)b[5];
  for (int i = 0; i < n; i++)
    if (t[i] > end && t[i] <= until && follow(t[i], until, lo, hi, &(uintptr_t){0}, NULL)) return true;
  return false;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_way_back(uintptr_t ret, uintptr_t lo, uintptr_t hi, uintptr_t *back) {
  uintptr_t b;
  if (!follow(ret, 0, lo, hi, &b, NULL) || !branch_into(b, ret, lo, hi)) return false;
  *back = b;
  return true;
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_call_depth(uintptr_t ret, uintptr_t lo, uintptr_t hi, long *depth) {
  *depth = 0;
  return follow(ret, 0, lo, hi, &(uintptr_t){0}, depth);
}

/* SS. True if the instruction at b, of length len, may move rsp or touch the stack
 * through it: push, pop, call, enter, leave, a register operand rsp, a memory operand
 * based on rsp, any VEX/EVEX instruction (their saves go through rsp). Conservative:
 * reads count too. */
static bool touches_sp(const uint8_t *b, int len) {
  int i = 0;
  if (b[0] == 0xc4 || b[0] == 0xc5 || b[0] == 0x62) return true;
  while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 ||
                     b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 || b[i] == 0x64 ||
                     b[i] == 0x65))
    i++;
  uint8_t rex = (b[i] & 0xf0) == 0x40 ? b[i++] : 0;
  bool rex_r = rex & 4, rex_b = rex & 1;
  uint8_t op = b[i++];
  bool modrm;
  if (op == 0x0f) {
    uint8_t op2 = b[i++];
    if (op2 == 0x38 || op2 == 0x3a) { i++; modrm = true; }
    else modrm = !((op2 >= 0x80 && op2 <= 0x8f) || op2 == 0x31 || op2 == 0x77 || op2 == 0xa2 ||
                   (op2 >= 0xc8 && op2 <= 0xcf) || op2 == 0xa0 || op2 == 0xa1 || op2 == 0xa8 || op2 == 0xa9);
    if (op2 == 0xa0 || op2 == 0xa1 || op2 == 0xa8 || op2 == 0xa9) return true; /* push/pop fs, gs */
  } else {
    if ((op >= 0x50 && op <= 0x5f) || op == 0x68 || op == 0x6a || op == 0x8f || op == 0x9c ||
        op == 0x9d || op == 0xc8 || op == 0xc9 || op == 0xe8 || op == 0xc2 || op == 0xc3)
      return true;
    if ((op == 0x94 || op == 0xbc) && !rex_b) return true; /* xchg rax,rsp; mov rsp,imm */
    modrm = (op < 0x40 && (op & 7) < 4) || op == 0x63 || op == 0x69 || op == 0x6b ||
            (op >= 0x80 && op <= 0x8f) || op == 0xc0 || op == 0xc1 || op == 0xc6 || op == 0xc7 ||
            (op >= 0xd0 && op <= 0xd3) || op == 0xf6 || op == 0xf7 || op == 0xfe || op == 0xff;
    if (op == 0xff && (((b[i] >> 3) & 7) == 2 || ((b[i] >> 3) & 7) == 3 || ((b[i] >> 3) & 7) == 6))
      return true; /* call, push r/m */
  }
  if (!modrm || i >= len) return false;
  uint8_t m = b[i];
  int mod = m >> 6, reg = (m >> 3) & 7, rm = m & 7;
  if (reg == 4 && !rex_r) return true;
  if (mod == 3) return rm == 4 && !rex_b;
  if (rm == 4 && i + 1 < len) return (b[i + 1] & 7) == 4 && !rex_b; /* SIB base rsp */
  return false;
}

/* SS. The first jump of a conditional branch at b (jcc rel8, 0f 8x rel32 without
 * prefixes), its target; 0 if b is none. */
static uintptr_t jcc_target(const uint8_t *b, uintptr_t at) {
  if (b[0] >= 0x70 && b[0] <= 0x7f) return at + 2 + (uintptr_t)(intptr_t)(int8_t)b[1];
  if (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)
    return at + 6 + (uintptr_t)(intptr_t)(int32_t)(b[2] | b[3] << 8 | b[4] << 16 | (uint32_t)b[5] << 24);
  return 0;
}

/* SS. One path of asgst__hs_c2i_ret_at_sp: taken says whether forward conditional
 * branches are taken (else they fall through). */
static int c2i_path(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool taken, uintptr_t *out) {
  uintptr_t at = pc;
  uint8_t b[16];
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    if (at < pc || at >= hi || !asgst__load_bytes(at, b, sizeof b)) return 0;
    /* pop rax; mov r13,rsp: the c2i takes its return address off the stack. */
    if (b[0] == 0x58 && ((b[1] == 0x49 && b[2] == 0x89 && b[3] == 0xe5) ||
                         (b[1] == 0x4c && b[2] == 0x8b && b[3] == 0xec)))
      return 1;
    /* lea r13,[rsp+8]; pop rax: the same with the sender's sp taken first (the 25.0.5
     * and 27 builds here). */
    if (b[0] == 0x4c && b[1] == 0x8d && b[2] == 0x6c && b[3] == 0x24 && b[4] == 0x08 && b[5] == 0x58)
      return 1;
    int kind;
    uintptr_t target = 0;
    int len = insn_len(b, at, &kind, &target);
    if (len == 0 || kind == INSN_STOP || touches_sp(b, len)) return 0;
    if (kind == INSN_JUMP) {
      if (target < lo || target >= hi) { *out = target; return 2; }
      if (target <= at) return 0;
      at = target;
      continue;
    }
    uintptr_t j = taken ? jcc_target(b, at) : 0;
    if (j > at && j < hi) { at = j; continue; }
    at += (uintptr_t)len;
  }
  return 0;
}

/* SS. True if the instruction at b (length len), met in an i2c between the push of the
 * return address and the jump into the callee, is one the i2c emits there and leaves rsp,
 * rbp and the return address at [rsp] alone: mov between registers and memory (loads of
 * the interpreter's arguments through the saved sp, stores of the outgoing ones at
 * [rsp+8] and up, stores into the thread), cmp, test, loads into xmm registers, nop and
 * forward conditional branches (checked by the caller). */
static bool i2c_insn_ok(const uint8_t *b, int len) {
  int i = 0;
  while (i < len && (b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3)) i++;
  uint8_t rex = (b[i] & 0xf0) == 0x40 ? b[i++] : 0;
  uint8_t op = b[i++];
  if (op == 0x90 || (op >= 0x70 && op <= 0x7f)) return true;
  if (op == 0x0f) {
    uint8_t op2 = b[i];
    return op2 == 0x10 || op2 == 0x12 || (op2 >= 0x80 && op2 <= 0x8f); /* xmm loads, jcc */
  }
  if (op != 0x8b && op != 0x89 && op != 0x3b && op != 0x39 && op != 0x85 && op != 0x83 && op != 0xc7)
    return false;
  uint8_t m = b[i];
  int mod = m >> 6, reg = ((m >> 3) & 7) | (rex & 4 ? 8 : 0), rm = (m & 7) | (rex & 1 ? 8 : 0);
  if (op == 0x83 && (reg & 7) != 7) return false; /* cmp r/m,imm8 only */
  if (op == 0xc7 && (reg & 7) != 0) return false; /* mov r/m,imm32 */
  if (op == 0x8b) return reg != 4 && reg != 5;    /* never loads rsp or rbp */
  if (op != 0x89 && op != 0xc7) return true;       /* compares read only */
  if (mod == 3) return rm != 4 && rm != 5;
  /* A store through rsp: above the return address only. */
  if ((m & 7) == 4 && (b[i + 1] & 7) == 4 && !(rex & 1)) {
    long d = mod == 1 ? (int8_t)b[i + 2]
           : mod == 2 ? (int32_t)(b[i + 2] | b[i + 3] << 8 | b[i + 4] << 16 | (uint32_t)b[i + 5] << 24) : 0;
    return d >= 8;
  }
  return true;
}

/* SS. See stub_exit.h. */
int asgst__hs_i2c_effect(uintptr_t pc, uintptr_t lo, uintptr_t hi, long *ra, long *depth) {
  uint8_t b[16];
  uintptr_t at = lo;
  if (pc < lo || pc >= hi || !asgst__load_bytes(at, b, sizeof b)) return 0;
  long r = 0, d = 8;
  bool known = true;
  /* The prefix, one fixed instruction at a time. Older releases read the return address
   * first (mov rax,[rsp]) and leave it in place (no pop rax). */
  if (b[0] == 0x48 && b[1] == 0x8b && b[2] == 0x04 && b[3] == 0x24) {
    if (pc == lo) { *ra = 0, *depth = 8; return 1; }
    at += 4;
  }
  for (int step = 0; step < 5; step++) {
    /* Just after the pop the sender's sp is sp itself: a frame of no size, which a walk
     * (whose sp must grow at every step) cannot take; unknown there. */
    if (at == pc) { *ra = r, *depth = d; return known && d > 0; }
    if (at > pc || !asgst__load_bytes(at, b, sizeof b)) return 0;
    if (step == 0 && ((b[0] == 0x4c && b[1] == 0x8b && b[2] == 0xdc) || (b[0] == 0x49 && b[1] == 0x89 && b[2] == 0xe3)))
      at += 3;                                                                  /* mov r11,rsp */
    else if (step == 1 && b[0] == 0x58) { r = -8, d = 0; at += 1; }             /* pop rax */
    else if (step == 1) continue; /* older releases keep the return address in place */
    else if (step == 2 && b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xec) { r += b[3], d += b[3]; at += 4; }
    else if (step == 2 && b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xec) {
      long v = (int32_t)(b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24);
      if (v < 0) return 0;
      r += v, d += v;
      at += 7;
    }
    else if (step == 2) continue;                                               /* no sub */
    else if (step == 3 && b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xe4 && b[3] == 0xf0) { known = false; at += 4; }
    else if (step == 4 && b[0] == 0x50) { r = 0, d = 8, known = true; at += 1; } /* push rax */
    else return 0;
  }
  /* From the push to the jmp r11: nothing moves rsp. Decoded to the end even past pc, so
   * that every branch is known to stay inside this stretch. */
  uintptr_t far = at;
  bool seen = false;
  for (int n = 0; n < 4 * ASGST__STUB_EXIT_MAX_INSNS; n++) {
    if (at == pc) seen = true;
    if (at >= hi || !asgst__load_bytes(at, b, sizeof b)) return 0;
    if (b[0] == 0x41 && b[1] == 0xff && b[2] == 0xe3) {                         /* jmp r11 */
      if (!seen || far > at) return 0;
      *ra = 0, *depth = 8;
      return 1;
    }
    int kind;
    uintptr_t target = 0;
    int len = insn_len(b, at, &kind, &target);
    if (len == 0 || kind != INSN_NEXT || !i2c_insn_ok(b, len)) return 0;
    uintptr_t j = jcc_target(b, at);
    if (j && j <= at) return 0;
    if (j > far) far = j;
    at += (uintptr_t)len;
  }
  return 0;
}

/* SS. How the instruction at b (length len) moves rsp: 0 not at all (its memory operand
 * may be based on rsp: a load or store does not move it), else sets *delta to the bytes
 * it adds to rsp and returns 1 (push, pop, pushf, popf, add/sub rsp with an immediate; a
 * direct call returns to the next instruction: 0); -1 if it may move rsp otherwise or is
 * not understood (an indirect call, leave, enter, rsp as a register operand other than
 * in test/cmp). */
static int rsp_effect(const uint8_t *b, int len, long *delta) {
  int i = 0;
  while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 ||
                     b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 || b[i] == 0x64 ||
                     b[i] == 0x65))
    i++;
  if (b[i] == 0xc4 || b[i] == 0xc5 || b[i] == 0x62) {
    /* VEX/EVEX: the ModRM after the prefix and the opcode. A register operand numbered 4
     * (rsp, or a vector register of that number: not told apart here) refuses. */
    int m = b[i] == 0xc5 ? i + 3 : b[i] == 0xc4 ? i + 4 : i + 5;
    if (m >= len) return -1;
    int mod = b[m] >> 6, reg = (b[m] >> 3) & 7, rm = b[m] & 7;
    if (reg == 4 || (mod == 3 && rm == 4)) return -1;
    return 0;
  }
  uint8_t rex = (b[i] & 0xf0) == 0x40 ? b[i++] : 0;
  uint8_t op = b[i++];
  if (op >= 0x50 && op <= 0x57) { *delta = -8; return 1; }
  if (op >= 0x58 && op <= 0x5f) { *delta = 8; return 1; }
  if (op == 0x9c) { *delta = -8; return 1; }
  if (op == 0x9d) { *delta = 8; return 1; }
  if (op == 0xe8) return 0;
  if ((op == 0x83 || op == 0x81) && rex == 0x48 && (b[i] == 0xec || b[i] == 0xc4)) {
    long v = op == 0x83 ? (int8_t)b[i + 1]
                        : (int32_t)(b[i + 1] | b[i + 2] << 8 | b[i + 3] << 16 | (uint32_t)b[i + 4] << 24);
    *delta = b[i] == 0xc4 ? v : -v;
    return 1;
  }
  /* lea rsp,[rsp+d8/d32]: how C1's slow_subtype_check releases its spill area. */
  if (op == 0x8d && rex == 0x48 && (b[i] == 0x64 || b[i] == 0xa4) && b[i + 1] == 0x24) {
    *delta = b[i] == 0x64 ? (int8_t)b[i + 2]
                          : (int32_t)(b[i + 2] | b[i + 3] << 8 | b[i + 4] << 16 | (uint32_t)b[i + 5] << 24);
    return 1;
  }
  if (!touches_sp(b, len)) return 0;
  /* What touches_sp flagged: rsp as a ModRM register operand or a memory base. */
  if (op == 0x0f || op == 0x68 || op == 0x6a || op == 0x8f || op == 0xc8 || op == 0xc9 || op == 0xc2 ||
      op == 0xc3 || op == 0xff || op == 0x94 || op == 0xbc)
    return -1;
  uint8_t m = b[i];
  int mod = m >> 6, reg = ((m >> 3) & 7) | (rex & 4 ? 8 : 0), rm = (m & 7) | (rex & 1 ? 8 : 0);
  bool reads_only = op == 0x84 || op == 0x85 || op == 0x38 || op == 0x39 || op == 0x3a || op == 0x3b ||
                    ((op == 0x80 || op == 0x81 || op == 0x83) && ((m >> 3) & 7) == 7) ||
                    ((op == 0xf6 || op == 0xf7) && ((m >> 3) & 7) == 0);
  if (reads_only) return 0;
  /* Group opcodes: the ModRM reg field extends the opcode (shl is d3 /4), the one operand
   * is r/m. A memory operand through rsp only loads or stores. */
  bool group = op == 0x80 || op == 0x81 || op == 0x83 || op == 0xc0 || op == 0xc1 || op == 0xc6 ||
               op == 0xc7 || (op >= 0xd0 && op <= 0xd3) || op == 0xf6 || op == 0xf7 || op == 0xfe;
  if (group) return mod == 3 && rm == 4 ? -1 : 0;
  /* Two operands: the reg field is the destination where the opcode's direction bit says
   * so (8b, 03, 33, ...; movsxd, imul and lea too), else r/m is; xchg writes both. */
  bool to_reg = op == 0x63 || op == 0x69 || op == 0x6b || op == 0x8d || (op < 0x40 && (op & 2)) ||
                op == 0x8a || op == 0x8b;
  if (op == 0x86 || op == 0x87) return reg == 4 || (mod == 3 && rm == 4) ? -1 : 0;
  if (to_reg) return reg == 4 ? -1 : 0;
  return mod == 3 && rm == 4 ? -1 : 0;
}

/* SS. See stub_exit.h. One path: taken says whether forward conditional branches are
 * taken. */
static int ret_path(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, bool taken, long *ra) {
  uintptr_t at = pc;
  uint8_t b[16];
  long d = 0;
  for (int n = 0; n < ASGST__STUB_EXIT_MAX_INSNS; n++) {
    if (at < lo || at >= hi || !asgst__load_bytes(at, b, sizeof b)) return 0;
    if (b[0] == 0xc3) { *ra = d; return d >= 0; }                             /* ret */
    /* pop r; jmp r': the return address popped and the path leaves through a register. */
    int p = (b[0] & 0xf0) == 0x40 ? 1 : 0;
    if (pop_ra && b[p] >= 0x58 && b[p] <= 0x5f) {
      int q = p + 1 + ((b[p + 1] & 0xf0) == 0x40 ? 1 : 0);
      if (b[q] == 0xff && (b[q + 1] & 0xf8) == 0xe0) { *ra = d; return d >= 0; }
    }
    int kind;
    uintptr_t target = 0;
    int len = insn_len(b, at, &kind, &target);
    if (len == 0 || kind == INSN_STOP) return 0;
    long delta = 0;
    int e = rsp_effect(b, len, &delta);
    if (e < 0) return 0;
    if (e > 0) d += delta;
    if (kind == INSN_JUMP) {
      /* Back into a loop too (one depth per pc: the loop does not move rsp on the
       * whole); a path that never leaves it runs out of instructions: no answer. */
      if (target < lo || target >= hi) return 0;
      at = target;
      continue;
    }
    uintptr_t j = taken ? jcc_target(b, at) : 0;
    if (j > at && j < hi) { at = j; continue; }
    at += (uintptr_t)len;
  }
  return 0;
}

/* SS. See stub_exit.h. */
int asgst__hs_stub_ret_offset(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, long *ra) {
  return ret_path(pc, lo, hi, pop_ra, false, ra) || ret_path(pc, lo, hi, pop_ra, true, ra);
}

/* SS. See stub_exit.h. */
bool asgst__hs_stub_frame_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, asgst__hs_stub_frame *f) {
  long ra;
  if (!asgst__hs_stub_ret_offset(pc, lo, hi, pop_ra, &ra)) return false;
  *f = (asgst__hs_stub_frame){.where = ASGST__STUB_RA_AT_SP, .ra = ra, .depth = ra + 8, .fp_at = -1};
  return true;
}

/* SS. See stub_exit.h: two pops (pop r, or pop r8-r15 with its REX byte). */
long asgst__hs_args_popped_at(uintptr_t ret) {
  uint8_t b[4];
  if (!asgst__load_bytes(ret, b, sizeof b)) return 0;
  int i = b[0] == 0x41 ? 1 : 0;
  if (b[i] < 0x58 || b[i] > 0x5f) return 0;
  i++;
  if (b[i] == 0x41) i++;
  return b[i] >= 0x58 && b[i] <= 0x5f ? 16 : 0;
}

/* SS. See stub_exit.h: e8 and a rel32 just before ret. */
uintptr_t asgst__hs_call_target_before(uintptr_t ret) {
  uint8_t b[5];
  if (!asgst__load_bytes(ret - 5, b, sizeof b) || b[0] != 0xe8) return 0;
  int32_t rel = (int32_t)((uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 24);
  return ret + (uintptr_t)(intptr_t)rel;
}

/* SS. See stub_exit.h. */
int asgst__hs_c2i_ret_at_sp(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *out) {
  int r = c2i_path(pc, lo, hi, false, out);
  return r ? r : c2i_path(pc, lo, hi, true, out);
}

#endif
