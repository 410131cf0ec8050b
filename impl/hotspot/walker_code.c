/*
 * walker_code.c - the sender of a compiled or stub frame, including frames caught in
 * their prologue or epilogue.
 *
 * A complete compiled frame is sized by its blob: sender sp = sp + _frame_size words, the
 * return address just below it, the caller's saved rbp below that. Between the entry and
 * _frame_complete_offset, and in the epilogue, the frame is only partly there. Instead of
 * guessing, the walker decodes the few instructions HotSpot's x86_64 compilers put there
 * (stack bang, push rbp, mov rbp,rsp, sub/add rsp, the entry barrier, pop rbp, the return
 * poll (thread-local, or older JDK 8 updates' global polling page), ret, nops) from the
 * entry (prologue) or from the pc (epilogue) and knows exactly where the return address
 * is. Anything else ends the walk with ASGST_UNSAFE_STATE.
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "../safe_read.h"
#include "codecache.h"
#include "walker_code.h"
#include "vm_model.h"

/* SS. Length of a multi-byte nop (0f 1f /0 with ModRM/SIB/disp) at p, 0 if not one. */
static int nop_len(const uint8_t *p) {
  int n = 0;
  if (p[0] == 0x66) n = 1;
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
  if (p[0] == 0x55) { e->depth += 8; e->fp_slot = 0; return 1; } /* push rbp */
  if (p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xe5) { e->fp_moved = true; return 3; }
  if (p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xec) {            /* sub rsp, imm8 */
    e->depth += p[3];
    if (e->fp_slot >= 0) e->fp_slot += p[3];
    return 4;
  }
  if (p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xec) {            /* sub rsp, imm32 */
    long v = (long)(p[3] | p[4] << 8 | p[5] << 16 | (uint32_t)p[6] << 24);
    e->depth += v;
    if (e->fp_slot >= 0) e->fp_slot += v;
    return 7;
  }
  if (p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xac && p[3] == 0x24) { /* mov [rsp+d32],rbp */
    e->fp_slot = (long)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);
    return 8;
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

/* SS. See walker_code.h. At most 16 instructions: a prologue is short. */
bool asgst__hs_decode_prologue(uintptr_t entry, uintptr_t pc, asgst__hs_stack_effect *e) {
  e->depth = 0;
  e->fp_slot = -1;
  e->fp_moved = false;
  uintptr_t at = entry;
  uint8_t buf[16];
  for (int n = 0; at < pc; n++) {
    if (n > 16 || !asgst__load_bytes(at, buf, sizeof buf)) return false;
    int len = prologue_insn(buf, e);
    if (len == 0) return false;
    at += (uintptr_t)len;
  }
  return at == pc;
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
  }
  if (b[i] != 0xc3) return false;                                               /* ret */
  e->depth = add + (pop ? 8 : 0);
  e->fp_slot = pop ? add : -1;
  e->fp_moved = false;
  return true;
}

/* SS. Sender from a known stack effect at r. */
static int sender_from_effect(const asgst__regs *r, const asgst__hs_stack_effect *e, asgst__regs *s) {
  uintptr_t ra = r->sp + (uintptr_t)e->depth;
  if (!asgst__load_ptr(ra, &s->pc)) return ASGST_BAD_FRAME;
  s->sp = ra + 8;
  if (e->fp_slot >= 0) {
    if (!asgst__load_ptr(r->sp + (uintptr_t)e->fp_slot, &s->fp)) return ASGST_BAD_FRAME;
  } else if (e->fp_moved) {
    return ASGST_UNSAFE_STATE;
  } else {
    s->fp = r->fp; /* rbp untouched so far: it is still the caller's */
  }
  return 1;
}

/* SS. A complete frame of `size` words (> 0) at r. */
static int sender_by_size(const asgst__regs *r, uint32_t size, asgst__regs *s) {
  uintptr_t ssp = r->sp + 8 * (uintptr_t)size;
  if (!asgst__load_ptr(ssp - 8, &s->pc) || !asgst__load_ptr(ssp - 16, &s->fp))
    return ASGST_BAD_FRAME;
  s->sp = ssp;
  return 1;
}

/* SS. If pc is a continuation return barrier (StubRoutines' cont_returnBarrier or its
 * exception twin, JDK 21+), the byte offset of JavaThread::_cont_entry that its first
 * instruction reads; -1 otherwise. Both barriers begin with mov rsp,[r15+disp32] (r15 is
 * the current JavaThread in HotSpot's x86_64 code), which puts rsp back at the thread's
 * ContinuationEntry; no other stub loads rsp from the thread. Where the tables export
 * the offset (25), the instruction must name that very field. */
static long return_barrier_at(uintptr_t pc) {
  const asgst__vm_model *model = &asgst__vm;
  uint8_t b[7];
  if (model->cont_return_pc_addr == 0 || !asgst__load_bytes(pc, b, sizeof b)) return -1;
  if (b[0] != 0x49 || b[1] != 0x8b || b[2] != 0xa7) return -1;
  long off = (long)(b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24);
  if (off <= 0 || off >= 65536 || (off & 7)) return -1;
  if (model->jt_cont_entry >= 0 && off != model->jt_cont_entry) return -1;
  return off;
}

/* SS. The frame of Continuation.enterSpecial that a return barrier stands for. A virtual
 * thread's frames are thawed lazily when it mounts again; the lowest thawed frame returns
 * into the barrier, which thaws more. Until then the virtual thread's older frames sit
 * frozen in a heap stack chunk (not walked, as AsyncGetCallTrace does not walk them) and
 * the physical caller is enterSpecial, whose frame is [ContinuationEntry][saved rbp]
 * [return address] from the entry up: its sp is the entry (JavaThread::_cont_entry) and
 * its pc the one its call to thaw returns to (ContinuationEntry::_return_pc), where the
 * thawed frames return once no frozen frame is left. Its rbp points at the saved rbp,
 * two words below the sender's sp (the frame size of the enterSpecial nmethod). */
static int enter_special_frame(const asgst__regs *r, const asgst__thread *t, long off, asgst__regs *s,
                               uintptr_t *blob) {
  uintptr_t entry, pc;
  int32_t fsize, complete;
  if (t->vm_thread == NULL) return ASGST_UNSAFE_STATE;
  if (!asgst__load_ptr((uintptr_t)t->vm_thread + (uintptr_t)off, &entry) ||
      !asgst__load_ptr(asgst__vm.cont_return_pc_addr, &pc))
    return ASGST_BAD_FRAME;
  /* The entry lies at or above the barrier's sp: the thawed frames are below it. */
  if (pc == 0 || entry < r->sp || (entry & 7) || (t->stack_base && entry >= t->stack_base))
    return ASGST_UNSAFE_STATE;
  if (asgst__hs_classify(pc, blob) != ASGST__HK_NATIVE || !asgst__vm_blob_frame(*blob, &fsize, &complete) ||
      fsize <= 2 || fsize > 4096)
    return ASGST_UNSAFE_STATE;
  s->pc = pc;
  s->sp = entry;
  s->fp = entry + 8 * (uintptr_t)fsize - 16;
  return 1;
}

/* SS. */
int asgst__hs_barrier_frame(const asgst__thread *t, asgst__regs *r, uintptr_t *blob) {
  long off = return_barrier_at(r->pc);
  if (off < 0) return 0;
  asgst__regs e;
  int rc = enter_special_frame(r, t, off, &e, blob);
  if (rc == 1) *r = e;
  return rc;
}

/* SS. A stub without a frame size (frame_size 0: StubRoutines and friends). It is either
 * at its first instruction or at a ret (nothing pushed) or has built an rbp frame with
 * enter(); the last is accepted only if rbp points into the stack at or above sp and the saved
 * return address leads into Java code. */
static int stub_sender(uintptr_t blob, const asgst__regs *r, bool top, const asgst__thread *t,
                       asgst__regs *s) {
  uintptr_t code;
  uint8_t op = 0;
  if (!asgst__vm_code_begin(blob, &code)) return ASGST_BAD_FRAME;
  /* Vtable and itable stubs ("vtable chunks") and inline cache stubs ("InlineCacheBuffer")
   * never push anything: they load a register and jump, so the return address into the
   * calling compiled code is at sp at every pc of theirs. */
  if (top && (r->pc == code || (asgst__load_u8(r->pc, &op) && op == 0xc3) ||
              asgst__hs_blob_named(blob, "vtable chunks") || asgst__hs_blob_named(blob, "InlineCacheBuffer"))) {
    asgst__hs_stack_effect e = {0, -1, false};
    return sender_from_effect(r, &e, s);
  }
  /* rbp == rsp is the moment just after enter()'s mov rbp,rsp, before anything else is
   * pushed: the frame is complete (javac: a tenth of the walk errors were stubs there). */
  if (r->fp < r->sp || (r->fp & 7) || (t->stack_base && r->fp >= t->stack_base))
    return ASGST_UNSAFE_STATE;
  if (!asgst__load_ptr(r->fp + 8, &s->pc) || !asgst__load_ptr(r->fp, &s->fp))
    return ASGST_BAD_FRAME;
  s->sp = r->fp + 16;
  /* The nmethod entry barrier stub pushes a word of -1 (where it writes the new sp if it
   * deoptimizes the caller) before enter(): its return address is one word higher, and
   * leads into the nmethod that called it (javac on 21: half of the walk errors). */
  if (s->pc == UINTPTR_MAX) {
    if (!asgst__load_ptr(r->fp + 16, &s->pc)) return ASGST_BAD_FRAME;
    s->sp = r->fp + 24;
    return asgst__hs_classify(s->pc, &(uintptr_t){0}) == ASGST__HK_NMETHOD ? 1 : ASGST_UNSAFE_STATE;
  }
  uintptr_t b;
  int k = asgst__hs_classify(s->pc, &b);
  if (k == ASGST__HK_C) return ASGST_UNSAFE_STATE;
  return 1;
}

/* SS. */
ASGST__HOT int asgst__hs_blob_sender(uintptr_t blob, const asgst__regs *r, bool top,
                          const asgst__thread *t, asgst__regs *s) {
  int32_t fsize, complete;
  uintptr_t code;
  if (!asgst__vm_blob_frame(blob, &fsize, &complete) || !asgst__vm_code_begin(blob, &code))
    return ASGST_BAD_FRAME;
  uint32_t size = (uint32_t)fsize;
  if (fsize <= 0) {
    /* Method handle intrinsics (linkToStatic, invokeBasic, ...) are native nmethods
     * without a frame: they only jump, so they are only ever the top frame, with the
     * return address at sp. */
    uintptr_t b;
    if (top && asgst__hs_classify(r->pc, &b) == ASGST__HK_NATIVE) {
      asgst__hs_stack_effect none = {0, -1, false};
      return sender_from_effect(r, &none, s);
    }
    return stub_sender(blob, r, top, t, s);
  }
  if (size > (1u << 20)) return ASGST_BAD_FRAME;
  /* Stopped at a call (a return address or an anchor), a blob with a frame size has its
   * whole frame, even one the VM calls never safe (safepoint handler, runtime stubs). */
  if (!top) return sender_by_size(r, size, s);
  asgst__hs_stack_effect e;
  if (complete < 0 || r->pc < code + (uint32_t)complete) {
    uintptr_t entry = code;
    int kind = asgst__hs_classify(r->pc, &(uintptr_t){0});
    if (kind == ASGST__HK_NMETHOD || kind == ASGST__HK_NATIVE) {
      uintptr_t ep, vep;
      if (!asgst__vm_nm_entries(blob, &ep, &vep)) return ASGST_BAD_FRAME;
      /* Before the verified entry is the inline cache check: nothing pushed yet. */
      if (r->pc < vep) {
        if (r->pc < ep) return ASGST_UNSAFE_STATE;
        asgst__hs_stack_effect none = {0, -1, false};
        return sender_from_effect(r, &none, s);
      }
      entry = vep;
    }
    if (!asgst__hs_decode_prologue(entry, r->pc, &e)) return ASGST_UNSAFE_STATE;
    return sender_from_effect(r, &e, s);
  }
  if (asgst__hs_decode_epilogue(r->pc, &e)) return sender_from_effect(r, &e, s);
  return sender_by_size(r, size, s);
}

/* SS. */
ASGST__HOT bool asgst__hs_frame_complete_at(uintptr_t blob, uintptr_t pc) {
  int32_t size, complete;
  uintptr_t code;
  asgst__hs_stack_effect e;
  if (!asgst__vm_blob_frame(blob, &size, &complete) || !asgst__vm_code_begin(blob, &code))
    return false;
  if (size <= 0 || size > (1 << 20) || complete < 0) return false;
  return pc >= code + (uint32_t)complete && !asgst__hs_decode_epilogue(pc, &e);
}

/* SS. */
ASGST__HOT uintptr_t asgst__hs_real_pc(uintptr_t nm, const asgst__regs *r) {
  uintptr_t d1, d2;
  if (!asgst__vm_nm_deopt(nm, &d1, &d2)) return r->pc;
  if (r->pc != d1 && r->pc != d2) return r->pc;
  uint32_t off;
  uintptr_t orig;
  if (!asgst__vm_nm_orig_pc_offset(nm, &off) || !asgst__load_ptr(r->sp + off, &orig))
    return r->pc;
  return orig;
}
