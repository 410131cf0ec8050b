/*
 * walker_code.c - the sender of a compiled or stub frame, including frames caught in
 * their prologue or epilogue.
 *
 * A complete compiled frame is sized by its blob: sender sp = sp + _frame_size words, the
 * return address just below it, the caller's saved frame pointer below that (x86_64 and
 * arm64 alike). Between the entry and _frame_complete_offset, and in the epilogue, the
 * frame is only partly there. Instead of guessing, the walker decodes the few
 * instructions HotSpot's compilers put there, from the entry (prologue) or from the pc
 * (epilogue), and knows exactly where the return address is: the decoders are per
 * architecture (impl/arch/<arch>/frame_code.c, behind impl/arch/frame_code.h). Anything
 * else ends the walk with ASGST_UNSAFE_STATE.
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include "../../arch/adapter_frame.h"
#include "../../arch/arch.h"
#include "../../arch/call_stub.h"
#include "../../arch/stub_exit.h"
#include "../../native/cfi.h"
#include "../../native/cfi_epoch.h"
#include "../../safe_read.h"
#include "codecache.h"
#include "walker_code.h"
#include "../model/vm_model.h"

/* SS. Sender from a known stack effect at r. */
static int sender_from_effect(const asgst__regs *r, const asgst__hs_stack_effect *e, asgst__regs *s) {
  if (e->ra_slot >= 0) {
    if (!asgst__load_ret(r->sp + (uintptr_t)e->ra_slot, &s->pc)) return ASGST_BAD_FRAME;
  } else {
    /* Still in the link register (arm64): known only in the interrupted frame. */
    if (r->lr == 0) return ASGST_UNSAFE_STATE;
    s->pc = r->lr;
  }
  s->sp = r->sp + (uintptr_t)e->depth;
  s->lr = 0;
  if (e->fp_slot >= 0) {
    if (!asgst__load_ptr(r->sp + (uintptr_t)e->fp_slot, &s->fp)) return ASGST_BAD_FRAME;
  } else if (e->fp_moved) {
    return ASGST_UNSAFE_STATE;
  } else {
    s->fp = r->fp; /* the frame pointer untouched so far: it is still the caller's */
  }
  return 1;
}

/* SS. A complete frame of `size` words (> 0) at r. */
static int sender_by_size(const asgst__regs *r, uint32_t size, asgst__regs *s) {
  uintptr_t ssp = r->sp + 8 * (uintptr_t)size;
  if (!asgst__load_ret(ssp - 8, &s->pc) || !asgst__load_ptr(ssp - 16, &s->fp))
    return ASGST_BAD_FRAME;
  s->sp = ssp;
  s->lr = 0;
  return 1;
}

/* SS. If pc is a continuation return barrier (StubRoutines' cont_returnBarrier or its
 * exception twin, JDK 21+), the byte offset of JavaThread::_cont_entry that its first
 * instruction reads (the per-architecture decoder says which instruction that is); -1
 * otherwise. Where the tables export the offset (25), the instruction must name that
 * very field. */
static long return_barrier_at(uintptr_t pc) {
  const asgst__vm_model *model = &asgst__vm;
  if (model->cont_return_pc_addr == 0) return -1;
  long off = asgst__hs_barrier_thread_offset(pc);
  if (off <= 0 || off >= 65536 || (off & 7)) return -1;
  if (model->jt_cont_entry >= 0 && off != model->jt_cont_entry) return -1;
  return off;
}

/* SS. The frame of Continuation.enterSpecial that a return barrier stands for. A virtual
 * thread's frames are thawed lazily when it mounts again; the lowest thawed frame returns
 * into the barrier, which thaws more. Until then the virtual thread's older frames sit
 * frozen in a heap stack chunk (not walked, as AsyncGetCallTrace does not walk them) and
 * the physical caller is enterSpecial, whose frame is [ContinuationEntry][saved fp]
 * [return address] from the entry up: its sp is the entry (JavaThread::_cont_entry) and
 * its pc the one its call to thaw returns to (ContinuationEntry::_return_pc), where the
 * thawed frames return once no frozen frame is left. Its fp points at the saved fp,
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
  s->lr = 0;
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

/* SS. True if the C frame tables show pc in a loaded object's code (a reader section of
 * its own: the walk may have none open); false before their first build (on a thread of
 * its own, seconds after the start under qemu) and for an object loaded since their
 * last build. Recording walks take true: their replay has no tables and must take the
 * same way. */
static bool in_c_code(uintptr_t pc) {
  if (asgst__relearn()) return true;
  unsigned token = asgst__cfi_enter();
  bool inside = asgst__cfi_inside_code(pc);
  asgst__cfi_exit(token);
  return inside;
}

/* SS. arm64: true if the interrupted stub at r was called from C code and has made no call
 * since (the VM's C code calls generated stubs for its atomic operations, Unsafe's
 * compareAndSet* among them): its return address, into that C code, is then still in the
 * link register, and the sender is that C function at the same sp. A frame record at fp
 * holding that same return address is the stub's own (then the record is used); any other
 * is its C caller's, whose return address leads past the C frame into the Java code that
 * called it. "Not in the code cache" is not "in C code": a stub may use the link register
 * as a scratch register once its frame record holds the return address (C1's
 * g1_post_barrier_slow keeps the card table's base there), and stepping to that as a C
 * frame read unmapped memory (a fault for every such sample of JDK 25's C1 code under G1).
 * So lr must lie in a loaded object's code as the C frame tables know it; before their
 * first build it is not taken, and the frame record test decides as for any stub without
 * a frame size. Always false on x86_64 (no link register: lr is 0). */
static bool called_from_c(const asgst__regs *r, asgst__regs *s) {
  uintptr_t lr = asgst__strip_pc(r->lr), saved;
  if (lr == 0 || asgst__hs_classify(lr, &(uintptr_t){0}) != ASGST__HK_C || !in_c_code(lr)) return false;
  if (r->fp >= r->sp && !(r->fp & 7) && asgst__load_ptr(r->fp + 8, &saved) &&
      asgst__strip_pc(saved) == lr)
    return false;
  *s = (asgst__regs){lr, r->sp, r->fp, 0};
  return true;
}

/* SS. The caller of a frame in the adapters' blob, read where the decoder placed it
 * (adapter_frame.h). */
static int adapter_caller(const asgst__regs *r, const asgst__hs_adapter_frame *a, asgst__regs *s) {
  uintptr_t ra;
  s->lr = 0;
  if (a->where == ASGST__CALLER_AT_SP) {
    if (!asgst__load_ret(r->sp + (uintptr_t)a->ra, &s->pc)) return ASGST_BAD_FRAME;
    s->sp = r->sp + (uintptr_t)a->depth;
    s->fp = r->fp; /* the adapters never write the frame pointer */
    return 1;
  }
  if (a->where == ASGST__CALLER_IN_LR) {
    s->pc = asgst__strip_pc(r->lr);
    s->sp = r->sp;
    s->fp = r->fp;
    return s->pc != 0 ? 1 : ASGST_UNSAFE_STATE;
  }
  if (r->fp < r->sp || (r->fp & 7)) return ASGST_UNSAFE_STATE;
  if (!asgst__load_ptr(r->fp + 8, &ra) || !asgst__load_ptr(r->fp, &s->fp)) return ASGST_BAD_FRAME;
  s->pc = asgst__strip_pc(ra);
  s->sp = r->fp + 16;
  return s->pc != 0 ? 1 : ASGST_UNSAFE_STATE;
}

/* SS. A top frame in the adapters' blob at code, where the decoder proves where its caller
 * is (adapter_frame.h): on x86_64 in the i2c, and in the c2i from its entries up to the
 * pop of its return address or a jump to a runtime stub entered as if called (where most
 * walk errors of cold code were); on arm64 wherever the code from the adapter's start has
 * left lr, sp and fp alone, and inside the c2i's frame record. The caller must be what
 * calls that adapter: the interpreter or the call stub for the i2c; compiled code, or the
 * interpreter where an i2c lost a race and went on into the c2i. Elsewhere: an error. */
static int adapter_sender(uintptr_t blob, uintptr_t code, const asgst__regs *r, asgst__regs *s) {
  uint32_t size;
  uintptr_t b;
  asgst__hs_adapter_frame a;
  if (!asgst__vm_blob_size(blob, &size) || size > (1u << 20)) return ASGST_BAD_FRAME;
  asgst__hs_adapter_at(r->pc, code, blob + size, &a);
  if (a.adapter == ASGST__ADAPTER_NONE) return ASGST_UNSAFE_STATE;
  if (a.exit != 0 && (asgst__hs_classify(a.exit, &b) != ASGST__HK_STUB || b == blob))
    return ASGST_UNSAFE_STATE;
  int rc = adapter_caller(r, &a, s);
  if (rc != 1) return rc;
  int k = asgst__hs_classify(s->pc, &b);
  if (a.adapter == ASGST__ADAPTER_I2C) return k == ASGST__HK_INTERP || k == ASGST__HK_ENTRY ? 1 : ASGST_UNSAFE_STATE;
  return k == ASGST__HK_NMETHOD || k == ASGST__HK_INTERP ? 1 : ASGST_UNSAFE_STATE;
}

/* SS. The name of blob into buf (up to 63 bytes); false if it cannot be read. */
static bool blob_name_of(uintptr_t blob, char buf[64]) {
  uintptr_t name;
  int n = 0;
  if (!asgst__vm_blob_name(blob, &name) || name == 0) return false;
  for (uint8_t c = 1; n < 63 && c; n++)
    if (!asgst__load_u8(name + (uintptr_t)n, &c)) return false; else buf[n] = (char)c;
  buf[n] = 0;
  return true;
}

/* SS. True if the string s contains needle. */
static bool has(const char *s, const char *needle) {
  for (const char *h = s; *h; h++) {
    int i = 0;
    while (needle[i] && h[i] == needle[i]) i++;
    if (!needle[i]) return true;
  }
  return false;
}

/* SS. True if the name of blob contains needle (HotSpot's names of C1's stubs vary by
 * release: "C1 Runtime slow_subtype_check", "slow_subtype_check_blob", ...). */
static bool blob_name_has(uintptr_t blob, const char *needle) {
  char buf[64];
  return blob_name_of(blob, buf) && has(buf, needle);
}

/* SS. The caller of a frame in a stub without a frame record, where the stub's code proves
 * it (*f, stub_exit.h) into *s: 1, or ASGST_UNSAFE_STATE where it is in lr and lr is not
 * known (not a top frame), or ASGST_BAD_FRAME on a bad read. */
static int frameless_caller(const asgst__hs_stub_frame *f, const asgst__regs *r, asgst__regs *s) {
  s->lr = 0;
  s->sp = r->sp + (uintptr_t)f->depth;
  s->fp = r->fp;
  if (f->where == ASGST__STUB_RA_IN_LR) {
    s->pc = asgst__strip_pc(r->lr);
    return s->pc != 0 ? 1 : ASGST_UNSAFE_STATE;
  }
  if (!asgst__load_ret(r->sp + (uintptr_t)f->ra, &s->pc)) return ASGST_BAD_FRAME;
  if (f->fp_at >= 0 && !asgst__load_ptr(r->sp + (uintptr_t)f->fp_at, &s->fp)) return ASGST_BAD_FRAME;
  return 1;
}

/* SS. C1's runtime stubs that keep no frame record, interrupted anywhere or stopped at a
 * call they made: slow_subtype_check (called with its two arguments pushed, which the
 * caller pops right after the call) and unwind_exception (jumped to once the throwing
 * method's frame is gone: its return address is that method's, into the caller that gets
 * the exception). The way from the pc to the stub's exit tells where the caller is
 * (asgst__hs_stub_frame_at). 0 if blob is neither. */
static int c1_leaf_stub_sender(uintptr_t blob, uintptr_t code, const asgst__regs *r, asgst__regs *s) {
  char name[64];
  if (!blob_name_of(blob, name)) return 0;
  bool subtype = has(name, "slow_subtype_check"); /* the name read once for both */
  if (!subtype && !has(name, "unwind_exception")) return 0;
  uint32_t size;
  uintptr_t b;
  asgst__hs_stub_frame f;
  if (!asgst__vm_blob_size(blob, &size) || size > (1u << 20)) return ASGST_BAD_FRAME;
  if (!asgst__hs_stub_frame_at(r->pc, code, blob + size, !subtype, &f)) return ASGST_UNSAFE_STATE;
  int rc = frameless_caller(&f, r, s);
  if (rc != 1) return rc;
  int k = asgst__hs_classify(s->pc, &b);
  /* The two arguments stay below the caller's frame until its pop right after the call:
   * the caller's decode adds them (asgst__hs_subtype_args_at), as for a sample there. */
  if (subtype) return k == ASGST__HK_NMETHOD && asgst__hs_args_popped_at(s->pc) != 0 ? 1 : ASGST_UNSAFE_STATE;
  return k == ASGST__HK_NMETHOD || k == ASGST__HK_INTERP || k == ASGST__HK_ENTRY ? 1 : ASGST_UNSAFE_STATE;
}

/* SS. See walker_code.h. The pop is read first: it is the code at pc, in the cache. */
long asgst__hs_subtype_args_at(uintptr_t pc) {
  long popped = asgst__hs_args_popped_at(pc);
  if (popped == 0) return 0;
  uintptr_t target = asgst__hs_call_target_before(pc), blob;
  if (target == 0 || asgst__hs_classify(target, &blob) != ASGST__HK_STUB) return 0;
  return blob_name_has(blob, "slow_subtype_check") ? popped : 0;
}

/* SS. A top frame in a stub that keeps its return address in the link register, where
 * the code from pc to its ret proves it (asgst__hs_stub_frame_at): a leaf stub (arm64's
 * string and array intrinsics, block fills), or any stub at its enter() or past its
 * leave(). Its caller is Java code, another stub, or C code (the VM calls some stubs).
 * 0 where nothing is proven. */
static int leaf_stub_sender(uintptr_t blob, uintptr_t code, const asgst__regs *r, asgst__regs *s) {
  uint32_t size;
  uintptr_t b;
  asgst__hs_stub_frame f;
  if (!asgst__vm_blob_size(blob, &size) || size > (1u << 20)) return ASGST_BAD_FRAME;
  if (!asgst__hs_stub_frame_at(r->pc, code, blob + size, false, &f)) return 0;
  int rc = frameless_caller(&f, r, s);
  if (rc != 1) return rc;
  int k = asgst__hs_classify(s->pc, &b);
  return k == ASGST__HK_NMETHOD || k == ASGST__HK_INTERP || k == ASGST__HK_STUB || k == ASGST__HK_C
             ? 1 : ASGST_UNSAFE_STATE;
}

/* SS. See walker_code.h. */
int asgst__hs_call_stub_phase(uintptr_t blob, uintptr_t pc) {
  if (!ASGST__CALL_STUB_DECODED) return ASGST__CS_NONE; /* arm64: impl/arch/aarch64/call_stub.c */
  uintptr_t code, ret;
  uint32_t size;
  /* The return address first: a pc far from it costs no read of the blob. */
  if (!asgst__load_ptr(asgst__vm.call_stub_return, &ret) ||
      (pc < ret ? ret - pc > ASGST__CALL_STUB_SPAN : pc - ret >= ASGST__CALL_STUB_TAIL))
    return ASGST__CS_NONE;
  if (!asgst__vm_code_begin(blob, &code) || !asgst__vm_blob_size(blob, &size) || size > (1u << 20))
    return ASGST__CS_NONE;
  return asgst__hs_call_stub_at(pc, code, blob + size, ret, 8 * (long)asgst__vm.entry_wrapper_slot);
}

/* SS. The call stub interrupted before its store of the JavaCallWrapper or at its ret
 * (phase, one of ASGST__CS_ENTRY, _PUSHED, _RECORD): its sender is its C caller (the VM's
 * JavaCalls::call_helper), the return address where enter() has put it so far. The
 * previous Java segment is reachable only through the wrapper, which is in rdi (or no
 * longer in the stub's frame): the walk goes on through the C frames as from a sample in
 * that caller. A sender outside C code is no caller of the stub. */
static int call_stub_caller(int phase, const asgst__regs *r, const asgst__thread *t, asgst__regs *s) {
  uintptr_t ra_at = r->sp, fp_at = 0, b;
  s->sp = r->sp + 8;
  s->fp = r->fp;
  if (phase == ASGST__CS_PUSHED) {
    ra_at = r->sp + 8;
    fp_at = r->sp;
    s->sp = r->sp + 16;
  } else if (phase == ASGST__CS_RECORD) {
    if (r->fp < r->sp || (r->fp & 7) || (t->stack_base && r->fp >= t->stack_base)) return ASGST_UNSAFE_STATE;
    ra_at = r->fp + 8;
    fp_at = r->fp;
    s->sp = r->fp + 16;
  }
  if (!asgst__load_ret(ra_at, &s->pc) || (fp_at && !asgst__load_ptr(fp_at, &s->fp))) return ASGST_BAD_FRAME;
  s->lr = 0;
  return asgst__hs_classify(s->pc, &b) == ASGST__HK_C ? 1 : ASGST_BAD_FRAME;
}

/* SS. A stub without a frame size (frame_size 0: StubRoutines and friends). It is one of
 * C1's frameless stubs (c1_leaf_stub_sender), or at its first instruction or at a return
 * (nothing saved), or (arm64) a leaf called from C (called_from_c), or (arm64) a stub whose
 * way to its ret proves its caller (leaf_stub_sender), or has built a frame record with enter() (push rbp; mov rbp,rsp on
 * x86_64, stp x29,x30,[sp,#-16]!; mov x29,sp on arm64: either way [fp] the caller's fp,
 * [fp+8] the return address); the last is accepted only if fp points into the stack at or
 * above sp and the saved return address leads into Java code. */
static int stub_sender(uintptr_t blob, const asgst__regs *r, bool top, const asgst__thread *t,
                       asgst__regs *s) {
  uintptr_t code;
  if (!asgst__vm_code_begin(blob, &code)) return ASGST_BAD_FRAME;
  /* Vtable and itable stubs ("vtable chunks") and inline cache stubs ("InlineCacheBuffer")
   * never push anything: they load a register and jump, so the return address into the
   * calling compiled code is at sp at every pc of theirs. */
  asgst__hs_stack_effect e;
  /* C1's frameless stubs first, interrupted or stopped at a call they made, at their entry
   * and return too: their sender is proven as compiled code that pops slow_subtype_check's
   * arguments, or the caller unwind_exception hands the exception to. */
  int c1 = c1_leaf_stub_sender(blob, code, r, s);
  if (c1 != 0) return c1;
  if (top && (r->pc == code || asgst__hs_at_return(r->pc) ||
              asgst__hs_blob_named(blob, "vtable chunks") || asgst__hs_blob_named(blob, "InlineCacheBuffer") ||
              asgst__hs_adapter_ret_at_sp(r->pc))) {
    asgst__hs_entry_effect(&e);
    return sender_from_effect(r, &e, s);
  }
  /* Just past the push of the frame pointer that begins a stub's frame (x86_64 push rbp,
   * arm64 stp x29,x30): the frame pointer still is the caller's, the return address one
   * word above sp (C1's g1_post_barrier_slow, for one).
   * Only that first instruction: further in, a stub may have branched. */
  if (top && r->pc - code <= 4 && asgst__hs_decode_prologue(code, r->pc, 0, &e) && e.fp_slot >= 0)
    return sender_from_effect(r, &e, s);
  if (top && called_from_c(r, s)) return 1;
  /* The call stub before its wrapper's store or at its ret (in between, decode_frame walks
   * it as an entry frame and never asks here). */
  int cs = top ? asgst__hs_call_stub_phase(blob, r->pc) : ASGST__CS_NONE;
  if (cs != ASGST__CS_NONE && cs != ASGST__CS_WRAPPER) return call_stub_caller(cs, r, t, s);
  /* The adapters (I2C/C2I) build no frame record of their own except around the c2i's
   * call to fix the caller's call site: a top pc elsewhere in them has the caller's fp
   * (the i2c: an interpreted caller's, whose sender the step below would land on, one
   * frame short). Not proven to be a frame record here: an error, not a guess. */
  if (top && asgst__hs_blob_named(blob, "I2C/C2I adapters")) return adapter_sender(blob, code, r, s);
  /* Where a call leaves the return address in the link register, a frameless stub's
   * caller is proven by its way to its ret. On x86_64 the return address moves with every
   * push, and only C1's two stubs above are followed. */
  if (top && !ASGST__RET_AT_SP) {
    int leaf = leaf_stub_sender(blob, code, r, s);
    if (leaf != 0) return leaf;
  }
  /* fp == sp is the moment just after enter()'s mov fp,sp, before anything else is
   * pushed: the frame is complete. */
  if (r->fp < r->sp || (r->fp & 7) || (t->stack_base && r->fp >= t->stack_base))
    return ASGST_UNSAFE_STATE;
  if (!asgst__load_ptr(r->fp + 8, &s->pc) || !asgst__load_ptr(r->fp, &s->fp))
    return ASGST_BAD_FRAME;
  s->sp = r->fp + 16;
  s->lr = 0;
  /* x86_64's nmethod entry barrier stub pushes a word of -1 (where it writes the new sp if
   * it deoptimizes the caller) before enter(): its return address is one word higher, and
   * leads into the nmethod that called it (javac on 21: half of the walk errors). arm64's
   * stub builds a plain frame record. */
  if (s->pc == UINTPTR_MAX) {
    if (!asgst__load_ptr(r->fp + 16, &s->pc)) return ASGST_BAD_FRAME;
    s->sp = r->fp + 24;
    return asgst__hs_classify(s->pc, &(uintptr_t){0}) == ASGST__HK_NMETHOD ? 1 : ASGST_UNSAFE_STATE;
  }
  s->pc = asgst__strip_pc(s->pc);
  uintptr_t b;
  int k = asgst__hs_classify(s->pc, &b);
  if (k == ASGST__HK_C) return ASGST_UNSAFE_STATE;
  return 1;
}

/* SS. True if blob is one of C1's runtime stubs, by name ("X Runtime1 stub" on 8-17, "C1
 * Runtime X" later). */
static bool c1_runtime_stub(uintptr_t blob) {
  char name[64];
  return blob_name_of(blob, name) && (has(name, "Runtime1") || has(name, "C1 Runtime"));
}

/* SS. A frame in a C1 runtime stub that has a frame size but which the VM never walks
 * while it runs (frame_complete -1), interrupted (top) past its prologue or at its return,
 * or stopped at a call it made where the frame size does not describe its frame. JDK 8's
 * g1_post_barrier_slow is one: its frame size (60 words) is close to, not equal to, what
 * its runtime path has pushed at its call of the C runtime (enter, three pushes, a save
 * area of 58 words, and the alignment word of call_VM_leaf: 63 or 64), and its fast
 * path, where most of its samples are (the card checks after the StoreLoad fence), has
 * pushed two registers only. Such a stub begins with enter() and keeps fp its frame record
 * up to the leave before its return: C1's stubs read their arguments through it in
 * between (StubFrame's load_argument), save and restore it around their calls, and the C
 * code they call preserves it (callee-saved). So the sender is read from the record, and
 * accepted only if it is compiled Java code, the only caller of C1's stubs. At the
 * return, the return address is at sp. ASGST_UNSAFE_STATE otherwise. */
static int never_safe_stub_sender(uintptr_t code, const asgst__regs *r, bool top,
                                  const asgst__thread *t, asgst__regs *s) {
  asgst__hs_stack_effect e;
  if (top && asgst__hs_at_return(r->pc)) {
    asgst__hs_entry_effect(&e);
    if (sender_from_effect(r, &e, s) != 1) return ASGST_UNSAFE_STATE;
  } else {
    /* Past enter() (ASGST__ENTER_BYTES, decoders.h): its frame record built. */
    if (r->pc < code + ASGST__ENTER_BYTES ||
        !asgst__hs_decode_prologue(code, code + ASGST__ENTER_BYTES, 0, &e) ||
        !e.fp_moved || e.fp_slot < 0)
      return ASGST_UNSAFE_STATE;
    if (r->fp < r->sp || (r->fp & 7) || (t->stack_base && r->fp >= t->stack_base))
      return ASGST_UNSAFE_STATE;
    if (!asgst__load_ptr(r->fp + 8, &s->pc) || !asgst__load_ptr(r->fp, &s->fp)) return ASGST_BAD_FRAME;
    s->pc = asgst__strip_pc(s->pc);
    s->sp = r->fp + 16;
    s->lr = 0;
  }
  return asgst__hs_classify(s->pc, &(uintptr_t){0}) == ASGST__HK_NMETHOD ? 1 : ASGST_UNSAFE_STATE;
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
      asgst__hs_stack_effect none;
      asgst__hs_entry_effect(&none);
      return sender_from_effect(r, &none, s);
    }
    return stub_sender(blob, r, top, t, s);
  }
  if (size > (1u << 20)) return ASGST_BAD_FRAME;
  /* Stopped at a call (a return address or an anchor), a blob with a frame size has its
   * whole frame, even one the VM calls never safe (safepoint handler, runtime stubs). */
  if (!top) {
    /* A C1 runtime stub whose frame record and frame size disagree (JDK 8's
     * g1_post_barrier_slow at its leaf call of the C runtime): the record, where it proves
     * a Java sender. At the VM's own call sites (with an oop map) the two agree. */
    if (complete < 0 && r->fp + 16 != r->sp + 8 * (uintptr_t)size && c1_runtime_stub(blob) &&
        never_safe_stub_sender(code, r, false, t, s) == 1)
      return 1;
    return sender_by_size(r, size, s);
  }
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
        asgst__hs_stack_effect none;
        asgst__hs_entry_effect(&none);
        return sender_from_effect(r, &none, s);
      }
      entry = vep;
    }
    if (asgst__hs_decode_prologue(entry, r->pc, 8 * (long)size, &e)) return sender_from_effect(r, &e, s);
    /* C1's runtime stubs only: other never-safe blobs that begin with enter() move fp
     * later (the deoptimization blob replaces the frames it unpacks). */
    if (complete < 0 && kind == ASGST__HK_STUB && c1_runtime_stub(blob))
      return never_safe_stub_sender(code, r, true, t, s);
    return ASGST_UNSAFE_STATE;
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
