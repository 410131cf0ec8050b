/*
 * frame_code.c - the x86_64 half of frame_code.h: the stack effect of the
 * instructions HotSpot's x86_64 compilers put in a frame's prologue and epilogue, and the
 * few stub instructions the walker recognizes.
 *
 * A call pushes the return address; a compiled frame then saves rbp (push rbp, or mov
 * [rsp+d],rbp after sub rsp) and allocates the rest. Decoded: the stack bang, push rbp,
 * mov rbp,rsp, sub/add rsp, the nmethod entry barrier, pop rbp, the return poll
 * (thread-local, or older JDK 8 updates' global polling page), a native method wrapper's
 * pending-exception check after its frame is left, ret, and nops, from the entry
 * (prologue) or from the pc (epilogue). Anything else: not understood.
 */
#if defined(__x86_64__)
/* Hot path: no SLP vectorization (see walker_code.c). */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "../../safe_read.h"
#include "../frame_code.h"

/* SS. Length of a multi-byte nop (0f 1f /0 with ModRM/SIB/disp) at p, 0 if not one. */
static int nop_len(const uint8_t *p) {
  int n = 0;
  while (n < 3 && p[n] == 0x66) n++; /* C2 pads with 66 66 90 too (JDK 27's prologues) */
  if (p[n] == 0x90) return n + 1;
  if (p[n] != 0x0f || p[n + 1] != 0x1f) return 0;
  uint8_t modrm = p[n + 2];
  int len = n + 3, mod = modrm >> 6, rm = modrm & 7;
  if (mod != 3 && rm == 4) len++; /* SIB */
  if (mod == 1) len += 1; else if (mod == 2) len += 4;
  return len;
}

/* SS. Applies one prologue instruction at p; returns its length, 0 if not understood. */
static int prologue_insn(const uint8_t *p, asgst__hs_stack_effect *e) {
  int n = nop_len(p);
  if (n) return n;
  if (p[0] == 0x89 && p[1] == 0x84 && p[2] == 0x24) return 7;   /* stack bang */
  if (p[0] == 0x55) { e->ra_slot += 8; e->fp_slot = 0; return 1; } /* push rbp */
  /* mov rbp,rsp, in either encoding (native method wrappers use 48 8b ec) */
  if (p[0] == 0x48 && ((p[1] == 0x89 && p[2] == 0xe5) || (p[1] == 0x8b && p[2] == 0xec))) {
    e->fp_moved = true;
    return 3;
  }
  if (p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xec) {            /* sub rsp, imm8 */
    e->ra_slot += p[3];
    if (e->fp_slot >= 0) e->fp_slot += p[3];
    return 4;
  }
  if (p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xec) {            /* sub rsp, imm32 */
    long v = (long)(p[3] | p[4] << 8 | p[5] << 16 | (uint32_t)p[6] << 24);
    e->ra_slot += v;
    if (e->fp_slot >= 0) e->fp_slot += v;
    return 7;
  }
  if (p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xac && p[3] == 0x24) { /* mov [rsp+d32],rbp */
    e->fp_slot = (long)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);
    return 8;
  }
  /* mov [rsp+d8],rbp: C2's prologue of a small frame (sub rsp,0x18 then the save at
   * 0x10); JDK 25 and 27 emit this short form, where most of their prologue samples were. */
  if (p[0] == 0x48 && p[1] == 0x89 && p[2] == 0x6c && p[3] == 0x24 && p[4] < 0x80) {
    e->fp_slot = p[4];
    return 5;
  }
  /* The nmethod entry barrier (JDK 20+ with G1, any JDK with ZGC or Shenandoah) ends the
   * prologue: cmp dword [r15+disp],imm32 against the thread's disarmed value, then either
   * jne to an out-of-line slow path (C2) or je over a call of the barrier stub (C1). Both
   * paths come back to the next instruction with the stack as it was, so for a pc after
   * them the stack effect is that of the instructions before. */
  if (p[0] == 0x41 && p[1] == 0x81 && p[2] == 0x7f) return 8;          /* cmp [r15+d8],imm32 */
  if (p[0] == 0x41 && p[1] == 0x81 && p[2] == 0xbf) return 11;         /* cmp [r15+d32],imm32 */
  if (p[0] == 0x0f && p[1] == 0x85) return 6;                          /* jne rel32 */
  if (p[0] == 0x74) return 2;                                          /* je rel8 */
  if (p[0] == 0xe8) return 5;                                          /* call rel32 */
  return 0;
}

/* SS. See walker_code.h. At most 16 instructions: a prologue is short. The frame size
 * is not needed: every instruction up to the frame's completion is decoded. */
bool asgst__hs_decode_prologue(uintptr_t entry, uintptr_t pc, long frame_bytes,
                               asgst__hs_stack_effect *e) {
  (void)frame_bytes;
  asgst__hs_entry_effect(e);
  uintptr_t at = entry;
  uint8_t buf[16];
  for (int n = 0; at < pc; n++) {
    if (n > 16 || !asgst__load_bytes(at, buf, sizeof buf)) return false;
    int len = prologue_insn(buf, e);
    if (len == 0) return false;
    at += (uintptr_t)len;
  }
  if (at != pc) return false;
  e->depth = e->ra_slot + 8; /* prologue_insn counted the bytes below the return address */
  return true;
}

/* SS. See walker_code.h. The effect is relative to the return address. */
bool asgst__hs_decode_epilogue(uintptr_t pc, asgst__hs_stack_effect *e) {
  uint8_t b[40];
  if (!asgst__load_bytes(pc, b, sizeof b)) return false;
  int i = 0;
  long add = 0;
  bool pop = false;
  if (b[i] == 0xc5 && b[i + 1] == 0xf8 && b[i + 2] == 0x77) i += 3;           /* vzeroupper */
  if (b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xc4) { add = b[i + 3]; i += 4; }
  else if (b[i] == 0x48 && b[i + 1] == 0x81 && b[i + 2] == 0xc4) {
    add = (long)(b[i + 3] | b[i + 4] << 8 | b[i + 5] << 16 | (uint32_t)b[i + 6] << 24);
    i += 7;
  }
  if (b[i] == 0x5d) { pop = true; i++; }                                        /* pop rbp */
  if (add && !pop) return false;
  /* cmp rsp,[r15+d32]; or [r15+d8] where the poll word lies near the JavaThread's start
   * (the JDK 27 build here): without that form, a sample at such a poll had no sender. */
  if (b[i] == 0x49 && b[i + 1] == 0x3b && (b[i + 2] == 0xa7 || b[i + 2] == 0x67)) {
    i += b[i + 2] == 0xa7 ? 7 : 4;
    if (b[i] != 0x0f || b[i + 1] != 0x87) return false;                        /* ja rel32 */
    i += 6;
  } else if (b[i] == 0x0f && b[i + 1] == 0x87) {
    i += 6;
  } else if (b[i] == 0x85 && b[i + 1] == 0x05) {                                /* test [rip+d],eax */
    i += 6; /* older JDK 8 updates' return poll reads the global polling page (8u504
               here polls the thread's word, as above) */
  } else if ((b[i] == 0x4d && b[i + 1] == 0x8b && b[i + 2] == 0x97) ||
             (b[i] == 0x41 && b[i + 1] == 0x85 && b[i + 2] == 0x02)) {
    /* JDK 11's return poll reads the thread's polling page: mov r10,[r15+d32], then
     * test [r10],eax (a loop's poll is followed by its backward jump, never by ret).
     * Without it a sample at the test was sized as a whole frame: JDK 11's walk errors
     * in test_walk's JNI callback run. */
    if (b[i] == 0x4d) i += 7;
    if (b[i] != 0x41 || b[i + 1] != 0x85 || b[i + 2] != 0x02) return false;
    i += 3;
  } else if (!add && !pop) {
    /* A native method's wrapper, its frame already left: cmp qword [r15+d32],0 (a pending
     * exception?) and jne to the code that forwards it. Neither moves rsp, and the
     * fall-through is the ret, so the return address is at sp (a JNI call in a tight loop
     * is often stopped here). */
    if (b[i] == 0x49 && b[i + 1] == 0x83 && b[i + 2] == 0xbf && b[i + 7] == 0) i += 8;
    /* JDK 11 compares with an imm32 zero and an 8-bit displacement: cmp qword [r15+d8],0 */
    else if (b[i] == 0x49 && b[i + 1] == 0x81 && b[i + 2] == 0x7f && !(b[i + 4] | b[i + 5] | b[i + 6] | b[i + 7]))
      i += 8;
    if (b[i] == 0x0f && b[i + 1] == 0x85) i += 6;                               /* jne rel32 */
  }
  if (b[i] != 0xc3) return false;                                               /* ret */
  e->ra_slot = add + (pop ? 8 : 0);
  e->depth = e->ra_slot + 8;
  e->fp_slot = pop ? add : -1;
  e->fp_moved = false;
  return true;
}

/* SS. At a function's first instruction: nothing but the return address pushed. */
void asgst__hs_entry_effect(asgst__hs_stack_effect *e) {
  e->depth = 8;
  e->ra_slot = 0;
  e->fp_slot = -1;
  e->fp_moved = false;
}

/* SS. */
bool asgst__hs_at_return(uintptr_t pc) {
  uint8_t op = 0;
  return asgst__load_u8(pc, &op) && op == 0xc3; /* ret */
}

/* SS. The I2C adapter (interpreted caller, compiled callee) begins by taking the return
 * address from [rsp] and keeping the caller's sp in r11 before it aligns rsp:
 *   mov rax,[rsp]; mov r11,rsp; (sub rsp,N;) and rsp,-16; push rax; ...
 * At those first two instructions nothing has moved rsp: the return address is at sp. */
bool asgst__hs_adapter_ret_at_sp(uintptr_t pc) {
  uint8_t b[24];
  if (!asgst__load_bytes(pc, b, sizeof b)) return false;
  int i = 0;
  if (b[0] == 0x48 && b[1] == 0x8b && b[2] == 0x04 && b[3] == 0x24) i = 4;      /* mov rax,[rsp] */
  else if (pc < 4 || !asgst__load_bytes(pc - 4, b, sizeof b) || b[0] != 0x48 || b[1] != 0x8b ||
           b[2] != 0x04 || b[3] != 0x24)
    return false;
  else i = 4; /* at the mov r11,rsp just after it (b reread from pc - 4) */
  if (!((b[i] == 0x4c && b[i + 1] == 0x8b && b[i + 2] == 0xdc) ||
        (b[i] == 0x49 && b[i + 1] == 0x89 && b[i + 2] == 0xe3)))                 /* mov r11,rsp */
    return false;
  i += 3;
  if (b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xec) i += 4;             /* sub rsp,imm8 */
  else if (b[i] == 0x48 && b[i + 1] == 0x81 && b[i + 2] == 0xec) i += 7;        /* sub rsp,imm32 */
  return b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xe4 && b[i + 3] == 0xf0; /* and rsp,-16 */
}

/* SS. The continuation return barriers begin with mov rsp,[r15+disp32] (r15 is the
 * current JavaThread in HotSpot's x86_64 code), which puts rsp back at the thread's
 * ContinuationEntry; no other stub loads rsp from the thread. */
long asgst__hs_barrier_thread_offset(uintptr_t pc) {
  uint8_t b[7];
  if (!asgst__load_bytes(pc, b, sizeof b)) return -1;
  if (b[0] != 0x49 || b[1] != 0x8b || b[2] != 0xa7) return -1;
  return (long)(b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24);
}

#endif
