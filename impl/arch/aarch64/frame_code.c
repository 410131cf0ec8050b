/*
 * frame_code.c - the arm64 half of frame_code.h: the stack effect of the
 * instructions HotSpot's arm64 compilers put in a frame's prologue and epilogue, and the
 * few stub instructions the walker recognizes.
 *
 * A call (bl) leaves the return address in x30 (lr); nothing is on the stack for the
 * callee until its prologue saves the frame record (x29, x30). C1 and C2 build a frame
 * of N bytes either as
 *     sub sp, sp, #N ; stp x29, x30, [sp, #N-16]           (N below 528)
 * or  stp x29, x30, [sp, #-16]! ; sub sp, sp, #N-16         (larger; through a scratch
 *                                                           register past 4 KiB)
 * after an optional stack bang (sub x9, sp, #bang ; str xzr, [x9]), nops, pacia/paciaz
 * where return addresses are signed, and add x29, sp, #N-16 with PreserveFramePointer.
 * What follows (the nmethod entry barrier, which may call a stub and so clobbers x30)
 * does not move sp: once the frame has its full size and the record is saved, the frame
 * is complete. The epilogue reverses it (ldp x29, x30 ... ; add sp ...), then autia
 * or autiaz, the return poll (ldr x8, [x28, #poll] ; cmp sp, x8 ; b.hi slow) and ret.
 * Instructions are decoded by their fixed bits; anything else: not understood.
 */
#if defined(__aarch64__)
/* Hot path: no SLP vectorization (see walker_code.c). */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "../../safe_read.h"
#include "../frame_code.h"

#define SP 31 /* register number 31 is sp in the instructions below (xzr elsewhere) */
#define FP 29
#define LR 30

/* Immediates moved into scratch registers (movz/movk), for sp moves through them. */
typedef struct {
  uint32_t known; /* bit r: val[r] holds what x<r> was set to */
  long val[32];
} scratch_regs;

/* SS. Field helpers. */
static inline unsigned rd(uint32_t i) { return i & 31; }
static inline unsigned rn(uint32_t i) { return (i >> 5) & 31; }
static inline unsigned rt2(uint32_t i) { return (i >> 10) & 31; }
/* SS. imm12 of add/sub (immediate), shifted by 12 if sh is set. */
static inline long addsub_imm(uint32_t i) {
  long v = (long)((i >> 10) & 0xfff);
  return (i & (1u << 22)) ? v << 12 : v;
}
/* SS. Signed, scaled imm7 of a 64-bit ldp/stp. */
static inline long pair_off(uint32_t i) {
  long v = (long)((i >> 15) & 0x7f);
  return (v >= 64 ? v - 128 : v) * 8;
}

/* SS. Instruction classes (64-bit forms only: HotSpot's frame code is 64-bit). */
static inline bool is_hint(uint32_t i) { return (i & 0xfffff01f) == 0xd503201f; } /* nop, paci*z/sp, auti*z/sp, bti */
static inline bool is_pac_lr(uint32_t i) {  /* pacia/pacib/autia/autib x30, xN */
  return (i & 0xffffe81f) == 0xdac1001e;
}
static inline bool is_add_imm(uint32_t i) { return (i & 0xff800000) == 0x91000000; }
static inline bool is_sub_imm(uint32_t i) { return (i & 0xff800000) == 0xd1000000; }
/* add/sub sp, sp, xM (extended register, uxtx, no shift) */
static inline bool is_addsub_sp_reg(uint32_t i, bool sub) {
  return (i & 0xffe0ffff) == (sub ? 0xcb2063ffu : 0x8b2063ffu);
}
/* stp/ldp x29, x30 with base sp: the kind is the top ten bits */
static inline bool is_fp_lr_pair(uint32_t i, uint32_t kind) {
  return (i & 0xffc07fff) == (kind | (LR << 10) | (SP << 5) | FP);
}
#define STP_OFF 0xa9000000u
#define STP_PRE 0xa9800000u
#define LDP_OFF 0xa9400000u
#define LDP_POST 0xa8c00000u
static inline bool is_movz(uint32_t i) { return (i & 0xff800000) == 0xd2800000; }
static inline bool is_movk(uint32_t i) { return (i & 0xff800000) == 0xf2800000; }
static inline bool is_str_xzr(uint32_t i) { return (i & 0xffc0001f) == 0xf900001f && rn(i) != SP; }
static inline bool is_ldr_thread(uint32_t i) { return (i & 0xffc003e0) == 0xf9400380; } /* ldr xN, [x28, #off] */
static inline bool is_cmp_sp(uint32_t i) { return (i & 0xffe0ffff) == 0xeb2063ff; }    /* cmp sp, xM */
static inline bool is_b_hi(uint32_t i) { return (i & 0xff00001f) == 0x54000008; }
static inline bool is_ret(uint32_t i) {
  return (i & 0xfffffc1f) == 0xd65f0000 || i == 0xd65f0bff || i == 0xd65f0fff; /* ret, retaa, retab */
}

/* SS. Notes a movz/movk into a scratch register; false if i is neither. */
static bool track_mov(uint32_t i, scratch_regs *s) {
  unsigned r = rd(i), shift = ((i >> 21) & 3) * 16;
  if (r >= FP || !(is_movz(i) || (is_movk(i) && (s->known & (1u << r))))) return false;
  uint64_t imm = (uint64_t)((i >> 5) & 0xffff) << shift;
  uint64_t old = is_movz(i) ? 0 : (uint64_t)s->val[r] & ~((uint64_t)0xffff << shift);
  s->val[r] = (long)(old | imm);
  s->known |= 1u << r;
  return true;
}

/* SS. The value of an sp move through xM, or -1 if not known. */
static long tracked(uint32_t i, const scratch_regs *s) {
  unsigned m = (i >> 16) & 31;
  return (s->known & (1u << m)) ? s->val[m] : -1;
}

/* SS. Moves the saved-slot offsets up by n bytes allocated below them. */
static void allocate(asgst__hs_stack_effect *e, long n) {
  e->depth += n;
  if (e->fp_slot >= 0) e->fp_slot += n;
  if (e->ra_slot >= 0) e->ra_slot += n;
}

/* SS. Applies one prologue instruction; false if not understood. */
static bool prologue_insn(uint32_t i, asgst__hs_stack_effect *e, scratch_regs *s) {
  if (is_hint(i) || is_pac_lr(i) || is_str_xzr(i) || track_mov(i, s)) return true;
  if (is_sub_imm(i)) {
    if (rd(i) == SP && rn(i) == SP) { allocate(e, addsub_imm(i)); return true; }
    return rd(i) != SP && rd(i) != FP && rd(i) != LR; /* the stack bang's address */
  }
  if (is_addsub_sp_reg(i, true)) {
    long v = tracked(i, s);
    if (v < 0) return false;
    allocate(e, v);
    return true;
  }
  if (is_add_imm(i) && rd(i) == FP && rn(i) == SP) { e->fp_moved = true; return true; }
  if (is_fp_lr_pair(i, STP_OFF)) {
    e->fp_slot = pair_off(i);
    e->ra_slot = e->fp_slot + 8;
    return true;
  }
  if (is_fp_lr_pair(i, STP_PRE)) {
    allocate(e, -pair_off(i));
    e->fp_slot = 0;
    e->ra_slot = 8;
    return true;
  }
  return false;
}

/* SS. See walker_code.h. At most 24 instructions: a prologue is short. */
bool asgst__hs_decode_prologue(uintptr_t entry, uintptr_t pc, long frame_bytes,
                               asgst__hs_stack_effect *e) {
  scratch_regs s;
  s.known = 0;
  asgst__hs_entry_effect(e);
  for (uintptr_t at = entry; at < pc; at += 4) {
    /* The whole frame and its record are in place: the rest keeps sp where it is. */
    if (frame_bytes > 0 && e->depth == frame_bytes && e->ra_slot >= 0) return true;
    uint32_t i;
    if (at - entry > 24 * 4 || !asgst__load_u32(at, &i) || !prologue_insn(i, e, &s)) return false;
  }
  return true;
}

/* SS. See walker_code.h. Decodes forward from pc to the ret: the bytes released on the
 * way are the sender's sp; a frame record loaded on the way is still in memory at pc. */
bool asgst__hs_decode_epilogue(uintptr_t pc, asgst__hs_stack_effect *e) {
  scratch_regs s;
  s.known = 0;
  long released = 0, record = -1;
  for (int n = 0; n < 16; n++, pc += 4) {
    uint32_t i;
    if (!asgst__load_u32(pc, &i)) return false;
    if (is_ret(i)) {
      e->depth = released;
      e->fp_slot = record;
      e->ra_slot = record >= 0 ? record + 8 : -1;
      e->fp_moved = false;
      return true;
    }
    if (is_fp_lr_pair(i, LDP_OFF) && record < 0) {
      record = released + pair_off(i);
    } else if (is_fp_lr_pair(i, LDP_POST) && record < 0) {
      record = released;
      released += pair_off(i);
    } else if (is_add_imm(i) && rd(i) == SP && rn(i) == SP) {
      released += addsub_imm(i);
    } else if (is_addsub_sp_reg(i, false)) {
      long v = tracked(i, &s);
      if (v < 0) return false;
      released += v;
    } else if (!(is_hint(i) || is_pac_lr(i) || track_mov(i, &s) || is_ldr_thread(i) ||
                 is_cmp_sp(i) || is_b_hi(i))) {
      return false;
    }
  }
  return false;
}

/* SS. At a function's first instruction: the return address is in the link register. */
void asgst__hs_entry_effect(asgst__hs_stack_effect *e) {
  e->depth = 0;
  e->ra_slot = -1;
  e->fp_slot = -1;
  e->fp_moved = false;
}

/* SS. */
bool asgst__hs_at_return(uintptr_t pc) {
  uint32_t i;
  return asgst__load_u32(pc, &i) && is_ret(i);
}

/* SS. arm64's adapters are not decoded: the link register case (called_from_c) and the
 * frame record cover what is walked there. */
bool asgst__hs_adapter_ret_at_sp(uintptr_t pc) {
  (void)pc;
  return false;
}

/* SS. A continuation return barrier starts by loading the thread's ContinuationEntry
 * into a scratch register (ldr xN, [x28, #off]; x28 is the current JavaThread in
 * HotSpot's arm64 code) and moving sp there (mov sp, xN). */
long asgst__hs_barrier_thread_offset(uintptr_t pc) {
  uint32_t i[2];
  if (!asgst__load_u32(pc, &i[0]) || !asgst__load_u32(pc + 4, &i[1])) return -1;
  if (!is_ldr_thread(i[0]) || i[1] != (0x9100001fu | (rd(i[0]) << 5))) return -1;
  return (long)((i[0] >> 10) & 0xfff) * 8;
}

#endif
