/*
 * walker.c - begin/decode/step of the HotSpot backend: a walk over physical frames.
 *
 * The walk keeps a small state in the cursor's scratch (hs_state): what the current
 * frame is, how to look up its debug information, and, while C frames are being walked
 * toward a Java segment, the anchor (last Java frame) that segment starts at.
 *
 * Where Java frames start: if the thread has a last Java frame anchor (it is in the VM,
 * in native code, blocked, or in a runtime stub), everything above the anchor is VM/C
 * code and the Java frames start at the anchor, as AsyncGetCallTrace does; C frames up to
 * it are walked only with ASGST_INCLUDE_NON_JAVA_FRAMES, by the DWARF call frame tables
 * (impl/native/cfi.h) or, where they have no rule, by frame pointer. Otherwise the
 * thread runs Java code (or a leaf C routine called from it) and the walk starts at the
 * interrupted registers.
 *
 * Signal frames: a walk that starts in a signal handler (another agent's, interrupted by
 * ours just as it began) steps its C frames to the signal return trampoline and from
 * there through the kernel's signal frame (impl/native/sigframe.h) to the registers the
 * first signal interrupted: that frame is walked as an interrupted top frame, and Java
 * frames follow if it was Java code.
 */
/* Hot path: no SLP vectorization, whose 16-byte loads of fields just written by narrower
 * stores stall on failed store forwarding. */
#pragma GCC optimize("no-tree-slp-vectorize")
#include <string.h>

#include "../../fill_loop.h"
#include "../../safe_read.h"
#include "../../test_build.h"
#include "../../native/cfi.h"
#include "../../native/cfi_inline.h" /* the C step inlines the lookup and the step */
#include "../../native/cfi_tail.h"
#include "../../native/sigframe.h"
#include "../../arch/call_stub.h"
#include "walker.h"
#include "codecache.h"
#include "walker_code.h"
#include "../../arch/stub_exit.h"
#include "scopes.h"
#include "framecache.h"
#include "../model/vm_model.h"
#include "../model/vmstructs.h"

typedef struct {
  uint8_t kind;       /* ASGST__HK_* of cur, set by decode */
  uint8_t pcmode;     /* ASGST__PC_* for cur's debug information */
  uint8_t top;        /* cur was interrupted anywhere, not stopped at a call */
  uint8_t has_target; /* C frames are being walked toward `target` */
  uint8_t java_seen;  /* a Java physical frame has been decoded */
  uint8_t leaf_call;  /* no anchor: if the thread is in Java, Java frames lie below any C or
                         stub top (the state is read only by leaf_end, which needs it) */
  uint32_t fsize;     /* frame size in words of a compiled cur (0: read it from the blob) */
  uintptr_t blob;     /* code blob of cur (0 for C and interpreter) */
  asgst__regs target; /* the anchor frame the current C frames lead to */
  /* The previous physical frame if it was a complete compiled frame (see repeat()). */
  uintptr_t memo_pc;
  uint16_t memo_at;   /* index of its first frame in wc->pending */
  uint8_t memo_n;     /* its logical frames, 0: no memo */
  uintptr_t fc_checked; /* the nmethod whose compile id this walk has checked (framecache.c) */
  /* A return address the previous C step found a table row for, and its rule: C code
   * (a loaded object's, never the code cache), so decode and the next step skip the
   * code cache and the table search. Or the interrupted pc that begin classified C
   * (c_rule NULL: a top frame's rule is looked up at the pc itself). 0: none. */
  uintptr_t c_pc;
  const struct asgst_cfi_rule *c_rule;
  const struct asgst_cfi_object *c_obj; /* the object of the last table lookup (cfi.h) */
  /* The sp of the C frame below the thread's first call stub, proven C by step_entry: the
   * first of the thread's tail (native/cfi_tail.h), which c_run takes from its memory. */
  uintptr_t tail_sp;
} hs_state;

_Static_assert(sizeof(hs_state) <= ASGST__BACKEND_SCRATCH, "scratch too small");

/* Reads a field of the walk state on its own. GCC otherwise merges tests of adjacent
 * byte fields into one wider load, which stalls behind the byte stores that just wrote
 * them (store forwarding fails). */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* SS. Copies registers field by field. A struct copy compiles to 16-byte loads, which
 * stall when the source was just written by 8-byte stores (store forwarding fails; the
 * bench showed it as most of a frame's cost). Relaxed atomic loads keep them apart. */
static inline void set_regs(asgst__regs *d, const asgst__regs *s) {
  uintptr_t pc = __atomic_load_n(&s->pc, __ATOMIC_RELAXED);
  uintptr_t sp = __atomic_load_n(&s->sp, __ATOMIC_RELAXED);
  uintptr_t fp = __atomic_load_n(&s->fp, __ATOMIC_RELAXED);
  uintptr_t lr = __atomic_load_n(&s->lr, __ATOMIC_RELAXED);
  d->pc = pc;
  d->sp = sp;
  d->fp = fp;
  d->lr = lr;
}

/* SS. */
static hs_state *state_of(asgst__cursor *wc) { return (hs_state *)(void *)wc->scratch; }

/* SS. The frame an anchor (JavaThread::_anchor or a JavaCallWrapper's) describes; false
 * if the anchor is empty (no Java frame). */
ASGST__HOT static bool anchor_frame(uintptr_t anchor, asgst__regs *r) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t sp, pc, fp;
  if (!asgst__load_ptr(anchor + model->anchor_sp, &sp) || sp == 0) return false;
  if (!asgst__load_ptr(anchor + model->anchor_pc, &pc) || !asgst__load_ptr(anchor + model->anchor_fp, &fp))
    return false;
  /* No pc stored (the interpreter's calls into the VM): it is the return address the call
   * left just below the anchor's sp. */
  if (pc == 0 && !asgst__load_ret(sp - 8, &pc)) return false;
  r->sp = sp;
  r->pc = pc;
  r->fp = fp;
  r->lr = 0;
  return true;
}

/* SS. A frame kind of Java code: interpreted, compiled or a native method's wrapper. */
static inline bool is_java_kind(int kind) {
  return kind == ASGST__HK_INTERP || kind == ASGST__HK_NMETHOD || kind == ASGST__HK_NATIVE;
}

/* SS. */
ASGST__HOT int asgst__hs_begin(asgst__cursor *wc, const asgst__regs *top) {
  const asgst__vm_model *model = &asgst__vm;
  hs_state *s = state_of(wc);
  memset(s, 0, sizeof *s);
  set_regs(&wc->cur, top);
  uintptr_t jt = (uintptr_t)wc->thread.vm_thread;
  /* A thread the VM does not know: its top pc is an interrupted one (the C step looks it up
   * as it is, not as a return address: at a function's first instruction pc - 1 is in the
   * function before). A caller frame given to ASGST_RunWithIteratorFromFrame on such a
   * thread is looked up the same way, which misses only after a call that ends its
   * function (a call to a function that does not return). */
  if (jt == 0) {
    s->top = 1;
    return ASGST_NON_JAVA_TRACE;
  }
  /* JDK 8 exports neither JavaThread::_terminated nor its values (jt_terminated < 0):
   * an exiting thread is then walked like any other. Once java.lang.Thread.exit has
   * returned it has no Java frame left (an empty anchor), and the guard catches a fault
   * on memory it frees. Not read twice: a walk of the calling thread read it in the
   * thread lookup just before (wc->thread_checked). */
  if (model->jt_terminated >= 0 && !wc->thread_checked) {
    uint32_t term;
    if (!asgst__load_u32(jt + model->jt_terminated, &term)) return ASGST_NO_THREAD;
    if ((int32_t)term >= model->term_exiting) return ASGST_THREAD_EXIT;
  }
  asgst__regs a;
  if (wc->options & ASGST__OPT_RECORDED_AT_CALL) {
    s->pcmode = ASGST__PC_ANCHOR;
    return ASGST_JAVA_TRACE;
  }
  if ((wc->options & ASGST__OPT_RECORDED_TOP) || !anchor_frame(jt + model->jt_anchor, &a)) {
    s->top = 1;
    /* A thread in Java code without an anchor that is interrupted in C code or a stub is
     * mostly in a leaf call from Java (no anchor is set for those): see leaf_end, which
     * reads the thread state. Not here: most walks never ask, and the state lies on a
     * line of the JavaThread of its own (a cache miss on a walk's fixed path). The walked
     * thread is stopped for the whole walk, so the state read later is the same. */
    s->leaf_call = !(wc->options & ASGST__OPT_RECORDED_TOP);
    s->pcmode = ASGST__PC_NEAR;
    return ASGST_JAVA_TRACE;
  }
  /* Java code at the top with an anchor set (between setting the anchor and the call
   * into the VM, or just back from it) is the anchor's own frame. */
  uintptr_t blob;
  int kind = asgst__hs_classify(top->pc, &blob);
  bool java_top = is_java_kind(kind);
  /* A Java frame older than the anchor's: a caller's frame, from an earlier walk, given to
   * ASGST_RunWithIteratorFromFrame (an interrupted sp is never above the anchor). It is
   * stopped at a call, so the walk starts there as at any return address. */
  if (java_top && top->sp > a.sp) {
    s->pcmode = ASGST__PC_EXACT;
    return ASGST_JAVA_TRACE;
  }
  if ((wc->options & ASGST_INCLUDE_NON_JAVA_FRAMES) && !java_top && top->sp < a.sp) {
    s->has_target = 1;
    set_regs(&s->target, &a);
    s->top = 1;
    s->pcmode = ASGST__PC_NEAR;
    /* Classified C just now: decode need not look it up again (c_rule stays NULL, a
     * top frame's rule is looked up at the pc itself). */
    if (kind == ASGST__HK_C) s->c_pc = top->pc;
  } else {
    set_regs(&wc->cur, &a);
    s->pcmode = ASGST__PC_ANCHOR;
  }
  return ASGST_JAVA_TRACE;
}

/* SS. Where decode appends the frames of wc->cur. */
static inline ASGST_Frame *out_of(asgst__cursor *wc) { return &wc->pending[wc->npending]; }

/* What every frame that is not Java code starts with (c_frame_out). */
static const ASGST_Frame non_java_head = {.type = ASGST_FRAME_NON_JAVA, .comp_level = -1, .bci = -1};

/* SS. A frame that is not Java code at pc, sp, fp into f: its fields up to the method
 * copied from non_java_head (two stores where four were), then the registers. */
static inline __attribute__((always_inline)) void c_frame_out(ASGST_Frame *f, uintptr_t pc, uintptr_t sp,
                                                              uintptr_t fp) {
  __builtin_memcpy(f, &non_java_head, offsetof(ASGST_Frame, pc));
  f->pc = (void *)pc;
  f->sp = (void *)sp;
  f->fp = (void *)fp;
}

/* SS. One frame that is not Java code (the caller checked the room), if the walk reports
 * C frames (fill_loop.h). Inline: a call per C frame costs more than the frame's write. */
static inline __attribute__((always_inline)) void non_java(asgst__cursor *wc) {
  if (!(wc->options & ASGST_INCLUDE_NON_JAVA_FRAMES)) return;
  c_frame_out(out_of(wc), wc->cur.pc, wc->cur.sp, wc->cur.fp);
  wc->npending++;
}

#define ACC_NATIVE 0x0100 /* JVM_ACC_NATIVE, the class file's flag */

/* SS. True if Method* m is a native method. */
ASGST__HOT static bool method_is_native(uintptr_t m) {
  int32_t flags;
  return asgst__vm_method_access(m, &flags) && (flags & ACC_NATIVE);
}

#define MAX_CODE_SIZE 65535u /* the class file format's limit on a method's bytecodes */

/* SS. The bci a bcp slot holds outside [first, end) in a Java method: 0 at the start;
 * on JDK 8 the slot itself while a GC has turned it into a bci (no bcp is that small);
 * else -1 (unknown). */
static int odd_bci(uintptr_t codes, uintptr_t bcp) {
  if (bcp == codes || bcp == 0) return 0;
  return asgst__vm.bcx_may_be_bci && bcp <= MAX_CODE_SIZE ? (int)bcp : -1;
}

/* SS. The type and bci of an interpreted frame of Method m: a bcp in [first, end) proves a
 * Java method without reading its access flags; any other needs them (a native method has
 * no bytecodes, and its bcp slot holds 0 or, on JDK 25, where they would start). */
ASGST__HOT static void type_and_bci(uintptr_t m, uintptr_t codes, uintptr_t bcp, uintptr_t first,
                                    uintptr_t end, ASGST_Frame *f) {
  if (bcp >= first && bcp < end) {
    f->type = ASGST_FRAME_JAVA;
    f->bci = (int)(bcp - codes);
  } else if (method_is_native(m)) {
    f->type = ASGST_FRAME_JAVA_NATIVE;
    f->bci = -1;
  } else {
    f->type = ASGST_FRAME_JAVA;
    f->bci = odd_bci(codes, bcp);
  }
}

/* SS. Where the bcp of an interpreted frame may lie without the access flags: [*first,
 * *end). `top`: interrupted anywhere (it may be between bytecodes or half built), so the
 * method's code size bounds it. Otherwise the frame is stopped at a call and its bcp is
 * the one the interpreter saved before the call, always inside the bytecodes: the largest
 * code size the class file format allows bounds it, and the start is left out (where a
 * native method's bcp may point). The exact size is in the ConstMethod's line, a cache
 * miss per frame on most walks, a visible share of a whole walk even for the few
 * interpreted frames at the base of the bench's stacks (Thread.run and its callers). On a
 * torn stack, a bcp inside 64 KiB past the start only
 * misreports the bci. */
ASGST__HOT static bool bcp_bounds(uintptr_t cm, uintptr_t codes, bool top, uintptr_t *first,
                                  uintptr_t *end) {
  uint16_t code_size = 0;
  if (top && !asgst__load_u16(cm + asgst__vm.cm_code_size, &code_size)) return false;
  *first = top ? codes : codes + 1;
  *end = codes + (top ? code_size : MAX_CODE_SIZE);
  return true;
}

/* SS. The bcp slot of the interpreted frame at fp; for a queue element's own frame, the
 * slot as it was at the sample (wc->top_position): the interpreter writes it afresh at
 * its next call or poll, the safe point the element is processed at. */
static inline bool load_bcp(const asgst__cursor *wc, uintptr_t fp, uintptr_t *bcp) {
  if (wc->has_top_position && wc->depth == 0) return *bcp = wc->top_position, true;
  return asgst__load_ptr_a8(fp + 8 * asgst__vm.interp_bcp_slot, bcp); /* fp: checked aligned */
}

/* SS. The interpreted frame at pc/sp/fp (fp checked by interp_fp_ok) into *f: Method* in
 * a fixed slot below fp, the bcp given (load_bcp). `top`: interrupted anywhere, not
 * stopped at a call. Inline with constant `top` in the run below, whose walk state stays
 * in registers. */
static inline __attribute__((always_inline)) int decode_interpreted_at(
    uintptr_t pc, uintptr_t sp, uintptr_t fp, uintptr_t bcp, bool top, ASGST_Frame *f) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t m, cm;
  if (!asgst__load_ptr_a8(fp + 8 * model->interp_method_slot, &m) || m == 0 || (m & 7) ||
      !asgst__load_ptr(m + model->method_const, &cm) || cm == 0 || (cm & 7))
    return ASGST_BAD_FRAME;
  uintptr_t codes = cm + (uintptr_t)model->cm_sizeof, first, end;
  if (!bcp_bounds(cm, codes, top, &first, &end)) return ASGST_BAD_FRAME;
  type_and_bci(m, codes, bcp, first, end, f);
  f->comp_level = 0;
  f->method = (ASGST_Method)m;
  f->pc = (void *)pc;
  f->sp = (void *)sp;
  f->fp = (void *)fp;
  return 0;
}

/* SS. True if fp can be an interpreted frame's above sp: aligned, within the stack. */
static inline bool interp_fp_ok(uintptr_t fp, uintptr_t sp, uintptr_t base) {
  return fp >= sp && !(fp & 7) && fp < base;
}

/* SS. The interpreted frame at wc->cur. `top`: interrupted anywhere, not stopped at a call. */
ASGST__HOT static int decode_interpreted(asgst__cursor *wc, bool top) {
  uintptr_t fp = wc->cur.fp, bcp;
  uintptr_t base = wc->thread.stack_base ? wc->thread.stack_base : UINTPTR_MAX;
  if (!interp_fp_ok(fp, wc->cur.sp, base) || !load_bcp(wc, fp, &bcp)) return ASGST_BAD_FRAME;
  int r = decode_interpreted_at(wc->cur.pc, wc->cur.sp, fp, bcp, top, out_of(wc));
  if (r == 0) wc->npending++;
  return r;
}

/* SS. After an interpreted frame was decoded at wc->cur: its senders while they are
 * interpreted frames too, taken here without a trip through the batch loop's step and
 * decode dispatch per frame, which costs more than the step itself. Each is
 * the step step_frame makes from an interpreted frame, with the checks of
 * asgst__step_checked (sp grows strictly, so only the depth and the stack base are left),
 * and decode_frame's decoding of a frame in the interpreter (not C proven by a step, nor
 * the entry frame: both outside the interpreter's code). Not while C frames head for an
 * anchor (step_frame's test after the step). A step the batch loop would refuse is left
 * to it, which then refuses it; a decode that fails fails the walk as it would there.
 * The walk's position stays in locals and is stored back once (as in repeat(): the frame
 * stores may alias any field of *wc, which the loop would otherwise reload and store per
 * frame); a fault reads back only the committed count. Returns 0 or the decoding's error. */
static int interpreted_run(asgst__cursor *wc, hs_state *s) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t base = wc->thread.stack_base ? wc->thread.stack_base : UINTPTR_MAX;
  uintptr_t pc = wc->cur.pc, sp = wc->cur.sp, fp = wc->cur.fp;
  int np = wc->npending, depth = wc->depth, r = 0;
  int stop = wc->batch_limit < ASGST__PENDING_CAP ? wc->batch_limit : ASGST__PENDING_CAP;
  const uintptr_t sender_sp_off = 8 * (uintptr_t)model->interp_sender_sp_slot;
  const uintptr_t bcp_off = 8 * (uintptr_t)model->interp_bcp_slot;
  while (np < stop && depth < ASGST__MAX_DEPTH) {
    /* fp was checked aligned by the decoding before. */
    uintptr_t npc, nfp, nsp, bcp;
    if (!asgst__load_ptr_a8(fp + 8, &npc) || !asgst__load_ptr_a8(fp, &nfp) ||
        !asgst__load_ptr_a8(fp + sender_sp_off, &nsp))
      break;
    npc = asgst__strip_pc(npc);
    if (nsp <= sp || (nsp & 7) || nsp >= base || !asgst__hs_in_interpreter(npc)) break;
    *(volatile int32_t *)&wc->committed = np;
    pc = npc, sp = nsp, fp = nfp;
    depth++;
    /* The sender's frame: stopped at a call, past the walk's first (load_bcp's own case). */
    if (!interp_fp_ok(fp, sp, base) || !asgst__load_ptr_a8(fp + bcp_off, &bcp)) {
      r = ASGST_BAD_FRAME;
      break;
    }
    r = decode_interpreted_at(pc, sp, fp, bcp, false, &wc->pending[np]);
    if (r != 0) break;
    np++;
  }
  if (depth != wc->depth) {
    wc->cur.pc = pc;
    wc->cur.sp = sp;
    wc->cur.fp = fp;
    wc->cur.lr = 0;
    wc->depth = depth;
    s->top = 0;
    s->pcmode = ASGST__PC_EXACT;
  }
  wc->npending = np;
  return r;
}

/* SS. True if the frame cache may hold the decoding of a compiled frame read under this
 * pc mode: at a return address (exact, not top) or interrupted (near, top). */
static inline bool cacheable(int pcmode, int top) {
  return top ? pcmode == ASGST__PC_NEAR : pcmode == ASGST__PC_EXACT;
}

/* SS. Puts the decoding of the compiled frame at wc->cur into the frame cache: at a return
 * address, or (top) at an interrupted pc where the frame is complete. Not for deoptimized
 * frames, whose pc is the deopt handler's. */
ASGST__HOT static void remember(asgst__cursor *wc, hs_state *s, uint64_t level, const ASGST_Frame *out,
                     int n, bool top) {
  if (n > ASGST__FC_MAX || asgst__hs_real_pc(s->blob, &wc->cur) != wc->cur.pc) return;
  if (top && !asgst__hs_frame_complete_at(s->blob, wc->cur.pc)) return;
  asgst__hs_fc_entry e;
  int32_t size, complete;
  if (!asgst__vm_nm_compile_id(s->blob, &e.compile_id) ||
      !asgst__vm_blob_frame(s->blob, &size, &complete) || size <= 0)
    return;
  uint32_t fsize = (uint32_t)size;
  e.blob = s->blob;
  e.level = (int32_t)level;
  e.frame_size = fsize;
  e.n = n;
  for (int i = 0; i < n; i++) {
    e.method[i] = (uintptr_t)out[i].method;
    e.bci[i] = out[i].bci;
  }
  if (!top) s->fsize = fsize; /* proves the frame complete for memo() and step */
  if (!(wc->options & ASGST__OPT_REPLAYABLE)) asgst__hs_fc_put(wc->cur.pc, top, &e);
}

/* SS. Notes that the frames just appended at `at` (n of them) decode a complete compiled
 * frame at wc->cur.pc, for repeat(). */
static inline void memo(asgst__cursor *wc, hs_state *s, int at, int n) {
  s->memo_pc = wc->cur.pc;
  s->memo_at = (uint16_t)at;
  s->memo_n = (uint8_t)n;
}

/* SS. Writes a copy of the n frames at `src` to dst, for the physical frame at sp/fp. */
static inline void copy_frames_at(ASGST_Frame *dst, const ASGST_Frame *src, int n, uintptr_t sp,
                                  uintptr_t fp) {
  for (int i = 0; i < n; i++) {
    /* Everything up to sp in two 16-byte moves. The source is the first frame of the run,
     * written a step earlier (a load still waiting on narrower stores would stall). */
    __builtin_memcpy(&dst[i], &src[i], offsetof(ASGST_Frame, sp));
    dst[i].sp = (void *)sp;
    dst[i].fp = (void *)fp;
  }
}

/* SS. Appends a copy of the n frames at `src` for the physical frame wc->cur. */
static inline void copy_frames(asgst__cursor *wc, const ASGST_Frame *src, int n) {
  copy_frames_at(out_of(wc), src, n, wc->cur.sp, wc->cur.fp);
  wc->npending += n;
}

/* SS. How many senders repeat() may take at most, each n frames further: while the batch
 * has room (np below the batch's limit, n frames free) and the depth is below
 * ASGST__MAX_DEPTH (the checks of asgst__step_checked but the stack base's, which the loop
 * makes). None if sp is misaligned: sp grows by whole words, so an aligned sp makes every
 * slot read aligned. */
static inline int repeat_count(const asgst__cursor *wc, int n, int np, int depth, uintptr_t sp) {
  int stop = wc->batch_limit < ASGST__PENDING_CAP - n + 1 ? wc->batch_limit : ASGST__PENDING_CAP - n + 1;
  if ((sp & 7) || np >= stop || depth >= ASGST__MAX_DEPTH) return 0;
  /* A division only for inlined frames: one-frame recursions are the common case. */
  int k = n == 1 ? stop - np : (stop - np + n - 1) / n;
  return k < ASGST__MAX_DEPTH - depth ? k : ASGST__MAX_DEPTH - depth;
}

/* SS. repeat()'s run: at most k senders of *sp at the same return address pc, each step
 * bytes further and below base, their frames copied from src (n of them) after
 * wc->pending[wc->npending]; the caller proved every slot read plainly readable. Each sender
 * is committed as it completes. Moves *sp and *fp to the last one taken and returns how
 * many were taken. Inline with n constant at each call: no inner copy loop for n of 1 or 2. */
static inline __attribute__((always_inline)) int repeat_run(asgst__cursor *wc, const ASGST_Frame *src,
                                                            int n, int k, uintptr_t pc, uintptr_t step,
                                                            uintptr_t base, uintptr_t *sp_, uintptr_t *fp_) {
  uintptr_t sp = *sp_, fp = *fp_;
  int np = wc->npending, taken = 0;
  /* One bound for both limits: the (k + 1)th sender's sp and the stack base. */
  uintptr_t end = sp + (uintptr_t)(k + 1) * step;
  if (end > base) end = base;
  for (uintptr_t ssp = sp + step; ssp < end; ssp += step, taken++) {
    uintptr_t npc = asgst__strip_pc(*(const volatile uintptr_t *)(ssp - 8));
    if (npc != pc) break;
    uintptr_t nfp = *(const volatile uintptr_t *)(ssp - 16);
    /* The step the batch loop would have made, without leaving this frame's state. */
    *(volatile int32_t *)&wc->committed = np;
    sp = ssp;
    fp = nfp;
    /* From the same source each time: copying the previous copy chained every frame's
     * loads to the stores just before them. */
    copy_frames_at(&wc->pending[np], src, n, sp, fp);
    np += n;
  }
  *sp_ = sp;
  *fp_ = fp;
  return taken;
}

/* SS. Recursion: a compiled frame at the same return address as the frame just decoded is
 * the same code at the same call site, so its frames are those just appended, at a new
 * sp/fp. They are still in the buffer if they are its last entries (a new batch empties
 * it). Costs a copy instead of a frame cache lookup and its validation; the nmethod cannot
 * go away in between, its previous frame is on this (stopped) stack.
 *
 * A recursion rarely stops at one frame, so the senders at the same return address are
 * taken here too, stepped by the frame size with the checks of asgst__step_checked (sp
 * grows by the frame size, so only the depth and the stack base are left to check), until
 * the batch is full. Each is committed as it completes. True if done. */
ASGST__HOT static bool repeat(asgst__cursor *wc, hs_state *s) {
  int n = LD(s->memo_n), at = LD(s->memo_at);
  uintptr_t pc = s->memo_pc;
  if (n == 0 || wc->cur.pc != pc || at + n != wc->npending || n > asgst__room(wc))
    return false;
  const ASGST_Frame *src = &wc->pending[at];
  copy_frames(wc, src, n);
  uint32_t fsize = LD(s->fsize);
  if (LD(s->has_target) || fsize == 0) {
    s->memo_at = (uint16_t)(wc->npending - n);
    return true; /* kind, blob and fsize are still those of the previous frame */
  }
  /* The walk's position in locals, stored back once: the frame copies are byte copies,
   * which may alias any field of *it, so fields read in the loop were reloaded (and the
   * position stored) once per frame. A fault in the loop ends the walk, with only the
   * committed count read back. */
  int np = wc->npending, depth = wc->depth;
  uintptr_t sp = wc->cur.sp, fp = wc->cur.fp, step = 8 * (uintptr_t)fsize;
  uintptr_t base = wc->thread.stack_base, lo = sp + step - 16;
  int k = repeat_count(wc, n, np, depth, sp);
  /* Every slot the run may read lies in [lo, base): one test of the loads' bound for all
   * of them, where a test per load cost more than the load (the frame copies are byte
   * copies, which may alias the bound, so it was loaded again before each). Without that
   * (hooks on, as in a recording walk, or no stack base) the run is not taken here: the
   * batch loop takes the senders one by one, each load checked. */
  if (base <= lo || lo < ASGST__MIN_ADDR || !asgst__fast_ok(lo, base - lo)) k = 0;
  /* The common cases get a copy of the run with a constant count, which has no inner loop:
   * one frame (no inlining at the call) and two (C2 inlines a recursive call once, by
   * default, so a compiled recursion's physical frames hold two of its frames each). */
  int taken = n == 1   ? repeat_run(wc, src, 1, k, pc, step, base, &sp, &fp)
              : n == 2 ? repeat_run(wc, src, 2, k, pc, step, base, &sp, &fp)
                       : repeat_run(wc, src, n, k, pc, step, base, &sp, &fp);
  depth += taken;
  np += taken * n;
  wc->cur.sp = sp;
  wc->cur.fp = fp;
  wc->depth = depth;
  wc->npending = np;
  s->memo_at = (uint16_t)(np - n);
  return true;
}

/* SS. The sender of the complete compiled frame at wc->cur (fsize words) for
 * decode_cached's run, into *r: false where the run stops and the batch loop takes over
 * (past the stack, an unreadable slot, the interpreter or the entry frame, which have no
 * cache entries: tested first so that the lookup does not miss on them). A recursion
 * (the sender at the return address of the frame just appended) is taken here whole by
 * repeat(), and the step made from where it ended. */
static inline __attribute__((always_inline)) bool cached_sender(asgst__cursor *wc, hs_state *s,
                                                                uintptr_t base, asgst__regs *r) {
  for (;;) {
    if (wc->npending >= wc->batch_limit || wc->depth >= ASGST__MAX_DEPTH) return false;
    uintptr_t ssp = wc->cur.sp + 8 * (uintptr_t)LD(s->fsize), npc, nfp;
    if (ssp >= base) return false;
    if (!asgst__load_pair_a8(ssp - 16, &nfp, &npc)) return false;
    npc = asgst__strip_pc(npc);
    if (asgst__hs_in_interpreter(npc) || asgst__hs_is_entry(npc)) return false;
    r->pc = npc;
    r->sp = ssp;
    r->fp = nfp;
    r->lr = 0;
    /* The frame at wc->cur is complete: a fault from here on leaves it counted. */
    *(volatile int32_t *)&wc->committed = wc->npending;
    /* Recursion: the frames just appended again (repeat(), which takes the whole run; the
     * frames of the hit are the buffer's last, so it cannot refuse once they fit). */
    int memo_n = LD(s->memo_n);
    if (npc != s->memo_pc || memo_n == 0) return true;
    if (memo_n > asgst__room(wc)) return false;
    set_regs(&wc->cur, r);
    wc->depth++;
    s->pcmode = ASGST__PC_EXACT;
    repeat(wc, s);
  }
}

/* SS. A compiled frame from the frame cache, at a return address or (top) interrupted where
 * its frame is complete: 0 on a hit, 1 on a miss, ASGST__NO_ROOM if its frames do not fit.
 * After a hit, its senders while they are frame cache hits or recursions of one, taken
 * here without a trip through the batch loop's step and decode dispatch per physical
 * frame (about half of a cached frame's instructions). Each is the step the batch loop
 * would make from a complete compiled frame (sp grows by the frame size; the depth and
 * the stack base are checked as asgst__step_checked does) and the decoding decode_frame
 * would make at a return address. Left to the batch loop: a miss, a full batch, and what
 * cached_sender refuses. wc->cur moves only to a frame that is then decoded. One loop
 * with one lookup for the first frame and its senders: the lookup is inline, and a copy
 * of it for the first frame was a third of this function's code, cache lines every cold
 * walk loads. */
ASGST__HOT static int decode_cached(asgst__cursor *wc, hs_state *s, bool top) {
  uintptr_t base = wc->thread.stack_base ? wc->thread.stack_base : UINTPTR_MAX;
  asgst__regs r;
  set_regs(&r, &wc->cur);
  bool first = true;
  for (;;) {
    uintptr_t blob;
    uint32_t fsize;
    int n = asgst__hs_fc_frames(&r, top, out_of(wc), asgst__room(wc), &blob, &fsize,
                                &s->fc_checked, wc->thread.stack_base);
    if (n <= 0) return !first ? 0 : n < 0 ? ASGST__NO_ROOM : 1;
    if (!first) {
      set_regs(&wc->cur, &r);
      wc->depth++;
      s->pcmode = ASGST__PC_EXACT;
    }
    /* A top frame's decoding differs from that of a return address at the same pc. */
    if (top) s->memo_n = 0; else memo(wc, s, wc->npending, n);
    wc->npending += n;
    s->blob = blob;
    s->fsize = fsize;
    if (first) {
      s->kind = ASGST__HK_NMETHOD;
      s->top = 0; /* complete: the sender is found by the frame size */
      s->java_seen = 1;
      /* As in repeat(): sp grows by whole words, so one test of its alignment serves all
       * the run's slots. */
      if (LD(s->has_target) || (wc->cur.sp & 7)) return 0;
      first = false;
      top = false;
    }
    if (!cached_sender(wc, s, base, &r)) return 0;
  }
}

/* SS. Scopes from the stub code's way back into the main code (stub_exit.h): those of
 * the branch into the stub, as of an interrupted pc just before the stub's continuation
 * (the PcDesc at the continuation, if any, describes the state after that branch).
 * at_call false: pc was interrupted where no debug information covers it. at_call true:
 * pc is a return address that no PcDesc names (a call without debug information, before
 * any Java frame: C1's G1 barrier stubs call the runtime's slow path so), taken only once
 * proven to lie in out-of-line stub code (asgst__hs_stub_call_way_back); the near rule
 * would take the first PcDesc after it, in C1 code mostly a later CodeStub's (another
 * bytecode's). 0 if there is no provable way back. */
static int stub_scopes(asgst__cursor *wc, uintptr_t nm, uintptr_t pc, bool at_call, ASGST_Frame *out) {
  uintptr_t code, back;
  uint32_t size;
  if (!asgst__vm_code_begin(nm, &code) || !asgst__vm_blob_size(nm, &size)) return 0;
  bool found = at_call ? asgst__hs_stub_call_way_back(pc, code, nm + size, &back)
                       : asgst__hs_stub_way_back(pc, code, nm + size, &back);
  if (!found || back <= code) return 0;
  return asgst__hs_scopes(nm, back - 1, ASGST__PC_NEAR, out, asgst__room(wc));
}

/* SS. For ret, a return address of C1 code nm that no PcDesc names and that is not
 * proven to lie in stub code: the frame (method, the loop's bci) if ret lies in an OSR
 * compilation's entry code. C1 places that code after the method's main code: it builds
 * the frame, copies the interpreter's locals from the OSR buffer, calls the runtime to
 * free the buffer (a leaf call without debug information) and jumps back to the loop's
 * header. The near rule would name the first PcDesc after it, a later stub's. Proven by
 * the way back: the paths from the OSR entry point and from ret end in the same jump back
 * into the code before the entry. 0 otherwise. */
static int osr_entry_scope(uintptr_t nm, uintptr_t ret, uintptr_t method, ASGST_Frame *out) {
  int32_t bci;
  uintptr_t entry, code, back_entry, back_ret;
  uint32_t size;
  if (!asgst__vm_nm_osr(nm, &bci, &entry) || ret <= entry || !asgst__vm_code_begin(nm, &code) ||
      !asgst__vm_blob_size(nm, &size) || entry <= code)
    return 0;
  if (!asgst__hs_stub_way_back(entry, code, nm + size, &back_entry) ||
      !asgst__hs_stub_way_back(ret, code, nm + size, &back_ret) || back_entry != back_ret ||
      back_entry >= entry)
    return 0;
  out->type = ASGST_FRAME_JAVA;
  out->bci = bci;
  out->method = (ASGST_Method)method;
  return 1;
}

/* SS. For a return address ret of nmethod nm that no PcDesc names: the bytes between sp
 * and the frame's own sp (asgst__hs_stub_call_depth): above 0 where ret lies in stub code
 * that saved registers below the frame around its call (C2's G1 barrier stubs, JDK 24+,
 * calling the runtime), whose sender the frame size read from sp would miss. 0 if none or
 * not known. */
static long stub_call_depth(uintptr_t nm, uintptr_t ret) {
  uintptr_t code;
  uint32_t size;
  long depth;
  if (!asgst__vm_code_begin(nm, &code) || !asgst__vm_blob_size(nm, &size) ||
      !asgst__hs_stub_call_depth(ret, code, nm + size, &depth) || depth <= 0 || depth > 65536 || (depth & 7))
    return 0;
  return depth;
}

/* SS. A compiled frame: its scopes at pc, innermost first. */
ASGST__HOT static int decode_compiled(asgst__cursor *wc, hs_state *s) {
  uintptr_t nm = s->blob, method;
  long depth = 0;
  int32_t lvl;
  if (!asgst__vm_nm_level(nm, &lvl) || !asgst__vm_nm_method(nm, &method)) return ASGST_BAD_FRAME;
  uint64_t level = (uint64_t)lvl;
  int n;
  ASGST_Frame *out = out_of(wc);
  if (s->kind == ASGST__HK_NATIVE) {
    ASGST_Frame *f = out;
    f->type = ASGST_FRAME_JAVA_NATIVE;
    f->bci = -1;
    f->method = (ASGST_Method)method;
    n = 1;
  } else {
    uintptr_t pc = asgst__hs_real_pc(nm, &wc->cur);
    bool at_pc;
    n = asgst__hs_scopes_at(nm, pc, s->pcmode, out, asgst__room(wc), &at_pc);
    if (n < 0) return n;
    /* A return address (not top) read by a rule other than exact: the call had no debug
     * information (a leaf call, or the anchor's pc). Without a PcDesc at exactly it, it may
     * lie in stub code, which may have saved registers below the frame around its call. */
    bool stub_call = !at_pc && !LD(s->top) && s->pcmode != ASGST__PC_EXACT;
    /* Back from C1's slow_subtype_check (stepped to from the stub, or interrupted just
     * after its return, where qemu-user delivers signals), before the pop of the two
     * arguments pushed for it: sp is 16 bytes below the frame's own. Tried first: the
     * stub-code depth below would count that pop and then go on into the main code. */
    if (!at_pc && (stub_call || LD(s->top))) depth = asgst__hs_subtype_args_at(wc->cur.pc);
    if (stub_call && depth == 0) depth = stub_call_depth(nm, pc);
    /* Proven to lie in stub code, the stub's way back names the bci. C1 code only (tiers
     * 1-3): C1's CodeStubs branch back to the instruction after their branch, whose next
     * PcDesc is the served bytecode's. C2 places other code there: on JDK 25-27 the near
     * rule from a monitor exit's slow-path branch named the loop's back edge, a later
     * bytecode, where the call's own near rule names the monitorexit. */
    if (stub_call && lvl >= 1 && lvl <= 3) {
      int k = stub_scopes(wc, nm, pc, true, out);
      if (k == ASGST__NO_ROOM) return k;
      if (k == 0) k = osr_entry_scope(nm, pc, method, out);
      /* A torn scope may have overwritten part of the near rule's frames: read again. */
      n = k > 0 ? k : k < 0 ? asgst__hs_scopes(nm, pc, s->pcmode, out, asgst__room(wc)) : n;
      if (n < 0) return n;
    }
    if (n == 0 && s->pcmode != ASGST__PC_EXACT) {
      /* A stub walk that fails (a read fault, a torn scope) leaves the bci unknown, as it
       * was without it; only a full buffer is passed on, for the caller to retry. */
      int k = stub_scopes(wc, nm, pc, false, out);
      if (k == ASGST__NO_ROOM) return k;
      if (k > 0) n = k;
    }
    if (n == 0) {
      if (s->pcmode == ASGST__PC_EXACT) return ASGST_BAD_FRAME; /* a call site without debug info */
      /* Interrupted where no debug information covers the pc: the method is known, the
       * bci and any inlining are not. */
      ASGST_Frame *f = out;
      f->type = ASGST_FRAME_JAVA;
      f->bci = -1;
      f->method = (ASGST_Method)method;
      n = 1;
    }
  }
  /* The frame's own sp, which its step sizes it from (applied once the decode succeeded:
   * a decode that ran out of room runs again). */
  wc->cur.sp += (uintptr_t)depth;
  /* Not with a depth: the frame cache's entry would size the frame from sp alone. */
  if (s->kind == ASGST__HK_NMETHOD && cacheable(s->pcmode, s->top) && depth == 0)
    remember(wc, s, level, out, n, s->top);
  if (s->fsize && n <= 0xff) memo(wc, s, wc->npending, n); /* remember() proved it complete */
  for (int i = 0; i < n; i++) {
    ASGST_Frame *f = &out[i];
    f->comp_level = (int)(int32_t)level;
    f->pc = (void *)wc->cur.pc;
    f->sp = (void *)wc->cur.sp;
    f->fp = (void *)wc->cur.fp;
  }
  wc->npending += n;
  return 0;
}

/* SS. True if C code at wc->cur.pc cannot be the sender of a frame of kind callee, so
 * the step to it read a pc from the wrong slot (a top frame stopped in its prologue or
 * epilogue, a torn stack). Java code is called only from code in the code cache (Java
 * frames, the call stub, adapters). The call stub is called by the VM's C++ code only
 * (libjvm, loaded before the tables' first build): a sender in no object the tables know
 * is no caller. Other stubs are not checked: an upcall stub's caller may be a library
 * loaded since the tables' last build. Recordable walks are not checked: a replay has
 * no tables, and recordings of earlier versions lack code-cache pages that classify
 * reads now (their walks relied on C frames ending quietly). */
static bool lost_sender(asgst__cursor *wc, int callee) {
  if (wc->options & ASGST__OPT_REPLAYABLE) return false;
  if (is_java_kind(callee)) return true;
  if (callee != ASGST__HK_ENTRY) return false;
  asgst__cfi_section_open(&wc->cfi_section); /* the tables are read: see cfi_epoch.h */
  return asgst__cfi_outside_code(wc->cur.pc);
}

static __attribute__((noinline)) int c_run(asgst__cursor *wc, hs_state *s);

/* SS. backend.h decode(), inlined into the batch loop. `runs`: a run of C frames may step
 * on (c_run: ASGST__DECODE_STEPPED or ASGST__DECODE_END), which only the batch loop
 * expects. */
static inline __attribute__((always_inline)) int decode_frame_runs(asgst__cursor *wc, bool runs) {
  hs_state *s = state_of(wc);
  /* Every kind of frame gives at least one logical frame. */
  if (asgst__room(wc) < 1) return ASGST__NO_ROOM;
  /* The kind of the frame this one is the sender of (C for the first frame). */
  uint8_t callee = LD(s->kind);
  /* The frame cache knows compiled frames at a return address (exact) and complete top
   * frames (near); see cacheable(). */
  int top = LD(s->top);
  /* C code the C step proved C (see step_c), and the entry frame, which ends every Java
   * segment: known by their pc alone, they cost neither a frame cache miss nor a code
   * cache lookup (cold memory on every walk). */
  bool proven_c = wc->cur.pc == LD(s->c_pc);
  if (proven_c || asgst__hs_is_entry(wc->cur.pc)) {
    s->memo_n = 0;
    s->fsize = 0;
    s->kind = proven_c ? ASGST__HK_C : ASGST__HK_ENTRY;
    s->blob = 0;
    non_java(wc);
    return runs && proven_c ? c_run(wc, s) : 0;
  }
  bool interp = asgst__hs_in_interpreter(wc->cur.pc);
  if (!interp && cacheable(LD(s->pcmode), top) && !(wc->options & ASGST__OPT_REPLAYABLE)) {
    if (!top && repeat(wc, s)) return 0;
    int r = decode_cached(wc, s, top);
    if (r <= 0) return r;
  }
  s->memo_n = 0;
  s->fsize = 0;
  if (interp) {
    s->kind = ASGST__HK_INTERP;
    s->blob = 0;
    int r = decode_interpreted(wc, top);
    if (r != 0) return r;
    s->java_seen = 1;
    return LD(s->has_target) ? 0 : interpreted_run(wc, s);
  }
  uintptr_t blob;
  s->kind = (uint8_t)asgst__hs_classify(wc->cur.pc, &blob);
  s->blob = blob;
  int r = 0;
  switch (s->kind) {
    case ASGST__HK_INTERP: r = decode_interpreted(wc, top); break;
    case ASGST__HK_NMETHOD:
    case ASGST__HK_NATIVE: r = decode_compiled(wc, s); break;
    case ASGST__HK_STUB:
      if (top && asgst__hs_call_stub_phase(blob, wc->cur.pc) == ASGST__CS_WRAPPER) {
        /* The call stub past its store of the JavaCallWrapper, before its pop rbp: its
         * frame record at fp holds all an entry frame's step reads (step_entry), as at
         * its return address. */
        s->kind = ASGST__HK_ENTRY;
        s->blob = 0;
        non_java(wc);
        return 0;
      }
      r = asgst__hs_barrier_frame(&wc->thread, &wc->cur, &blob);
      if (r == 0) { non_java(wc); return 0; }
      if (r < 0) return r;
      /* Continuation.enterSpecial at its call's return address, which has a whole frame. */
      s->kind = ASGST__HK_NATIVE;
      s->blob = blob;
      s->top = 0;
      s->pcmode = ASGST__PC_EXACT;
      r = decode_compiled(wc, s);
      break;
    default:
      if (LD(s->pcmode) != ASGST__PC_ANCHOR && lost_sender(wc, callee)) return ASGST_BAD_FRAME;
      non_java(wc);
      return 0;
  }
  if (r == 0) s->java_seen = 1;
  return r;
}

/* SS. The CFI stepper's read callback: a guarded load (the walk's guard is around it). */
static bool cfi_read(void *ctx, uintptr_t addr, uintptr_t *value) {
  (void)ctx;
  return asgst__load_ptr(addr, value);
}

/* SS. Sender of C frame *c by the DWARF call frame tables (impl/native/cfi.h) into *n:
 * 1, or 2 where c is a signal return trampoline and *n the frame its signal interrupted
 * (impl/native/sigframe.h; n->lr set), or 0 where the tables say c is the thread's
 * outermost frame, or -1 where they have no usable rule or give a sender that does not
 * lie above c (or at its sp, see may_share) below `limit` (0: none).
 * Tried before frame pointers: code built without them leaves in fp some older frame's
 * value, and a frame pointer step from it would skip C frames silently. `top`: c was interrupted anywhere, so its pc is not a return address. */
ASGST__HOT static int cfi_sender(const asgst__regs *c, hs_state *s, uintptr_t limit,
                                  asgst__regs *n) {
  bool top = LD(s->top);
  struct asgst_cfi_frame f = {.pc = c->pc, .sp = c->sp, .fp = c->fp, .lr = top ? c->lr : 0};
  const struct asgst_cfi_rule *rule = !top && c->pc == LD(s->c_pc)
                                          ? s->c_rule
                                          : asgst__cfi_find(c->pc, !top, &s->c_obj);
  int r = asgst__cfi_apply(rule, &f, cfi_read, NULL);
  /* No usable rule: a signal return trampoline (its 'S' rule, or none) is stepped through
   * the signal frame. Only here, so that it costs the ordinary step nothing. */
  if (r == ASGST_CFI_NO_RULE) r = asgst__sigframe_step(&f, top, cfi_read, NULL);
  if (r == ASGST_CFI_NO_RULE) r = asgst__cfi_plt_step(&f, top, cfi_read, NULL);
  if (r != ASGST_CFI_STEPPED && r != ASGST_CFI_SIGNAL) return r == ASGST_CFI_OUTERMOST ? 0 : -1;
  /* Above c; at c's sp only for an interrupted frame on arm64 that has allocated nothing
   * yet (a function's entry, its return address in lr), as asgst__sp_grew allows: a
   * handler our signal found at its first instruction returns (lr) to the trampoline. */
  bool may_share = top && !ASGST__RET_AT_SP && r == ASGST_CFI_STEPPED && c->lr != 0;
  if (f.sp < c->sp || (f.sp == c->sp && !may_share) || (f.sp & 7) || (limit && f.sp > limit))
    return -1;
  n->pc = f.pc;
  n->sp = f.sp;
  n->fp = f.fp;
  n->lr = f.lr;
  return r == ASGST_CFI_SIGNAL ? 2 : 1;
}

/* SS. Sender of a C frame by frame pointer into *n; false if the chain is broken. */
ASGST__HOT static bool fp_sender(const asgst__regs *c, uintptr_t limit, asgst__regs *n) {
  bool ok = c->fp > c->sp && !(c->fp & 7) && (limit == 0 || c->fp + 16 <= limit);
  if (!ok || !asgst__load_ret(c->fp + 8, &n->pc) || !asgst__load_ptr(c->fp, &n->fp)) return false;
  n->sp = c->fp + 16;
  return true;
}

/* SS. The end of a walk that found no Java frame, its chain lost (not the thread's first
 * frame by the tables: a thread in Java also runs C code between the JavaCallWrapper's
 * switch to _thread_in_Java and the call stub, down to the thread's start): an error
 * where the thread is in Java (likely a leaf call whose Java frames were skipped;
 * AsyncGetCallTrace answers not_walkable_Java there), else the end. */
static inline int leaf_end(const asgst__cursor *wc, const hs_state *s) {
  if (!LD(s->leaf_call) || LD(s->java_seen)) return 0;
  uint32_t st;
  bool in_java = asgst__load_u32((uintptr_t)wc->thread.vm_thread + asgst__vm.jt_state, &st) &&
                 (int32_t)st == asgst__vm.st_in_java;
  return in_java ? ASGST_UNSAFE_STATE : 0;
}

/* SS. Sender of a C frame, by the call frame tables or else by frame pointer, heading for
 * s->target if set. */
ASGST__HOT static int step_c(asgst__cursor *wc, hs_state *s) {
  asgst__regs *c = &wc->cur;
  uintptr_t limit = s->has_target ? s->target.sp : wc->thread.stack_base;
  asgst__regs n = {0};
  bool tables = !(wc->options & ASGST__OPT_REPLAYABLE);
  /* The tables are read from here to the batch's end: a reader section (cfi_epoch.h). */
  if (tables) asgst__cfi_section_open(&wc->cfi_section);
  int cfi = tables ? cfi_sender(c, s, limit, &n) : -1;
  /* The tables' outermost frame (the thread's start), or without a rule an fp of 0. */
  if (cfi == 0 && !s->has_target) return 0;
  if (cfi < 0 && c->fp == 0 && !s->has_target) return leaf_end(wc, s);
  if (cfi > 0 || (cfi < 0 && fp_sender(c, limit, &n))) {
    uintptr_t blob;
    /* Through a signal frame: the sender was interrupted anywhere (Java code too), a top
     * frame like the walk's first, its pc no return address. */
    bool sig = cfi == 2;
    /* Heading for an anchor, a sender at or past its sp is the anchor's own frame (as
     * where C code called by a native method returns to it): tested first, so that its
     * pc (in the code cache) costs no search of the tables' objects. */
    bool past_target = LD(s->has_target) && n.sp >= s->target.sp;
    /* A row in a loaded object's table makes the sender C code, never the code cache:
     * looked up once here, the rule serves the next step and decode skips the code cache. */
    const struct asgst_cfi_rule *next = !tables || sig || past_target ? NULL
                                        /* recursion: the same return address again */
                                        : n.pc == c->pc && !LD(s->top) && c->pc == LD(s->c_pc)
                                            ? s->c_rule
                                            : asgst__cfi_find(n.pc, true, &s->c_obj);
    /* So is code-cache code (a Java frame that called the VM, or a stub that set the
     * anchor): continue at the anchor. */
    bool to_anchor = past_target ||
                     (s->has_target && !next && asgst__hs_classify(n.pc, &blob) != ASGST__HK_C);
    if (!to_anchor) {
      /* Read before the byte stores below: a wide load of the flags just after one of
       * them was written stalls (store forwarding fails; most of step_c's time). */
      uint8_t mode = !sig && (LD(s->java_seen) || LD(s->has_target)) ? ASGST__PC_EXACT
                                                                       : ASGST__PC_NEAR;
      s->c_pc = next ? n.pc : 0;
      s->c_rule = next;
      set_regs(c, &n);
      s->top = sig;
      s->pcmode = mode;
      return 1;
    }
  } else if (!s->has_target) {
    /* No Java segment is left below: the chain ran into C code with neither a table row
     * nor frame pointers. Nothing below can be Java, so the trace is complete; ending it
     * with an error would flag every full trace. */
    return leaf_end(wc, s);
  }
  /* The C frames reached (or lost their chain before) the anchor of the next Java
   * segment: it is known exactly, continue there. */
  set_regs(c, &s->target);
  s->has_target = 0;
  s->top = 0;
  s->pcmode = ASGST__PC_ANCHOR;
  s->c_pc = 0;
  return 1;
}

/* SS. Sender of an entry frame (the call stub, C calling Java): the JavaCallWrapper
 * below its fp holds the anchor of the previous Java segment. */
ASGST__HOT static int step_entry(asgst__cursor *wc, hs_state *s) {
  const asgst__vm_model *model = &asgst__vm;
  uintptr_t fp = wc->cur.fp, jcw;
  /* fp == sp only in a top frame at the end of the stub, its locals released (add rsp)
   * before its pop rbp. */
  if (fp < wc->cur.sp || (fp == wc->cur.sp && !LD(s->top)) || (fp & 7)) return ASGST_BAD_FRAME;
  if (!asgst__load_ptr(fp + 8 * model->entry_wrapper_slot, &jcw) || jcw == 0) return ASGST_BAD_FRAME;
  asgst__regs a;
  bool more = anchor_frame(jcw + model->jcw_anchor, &a);
  if (!(wc->options & ASGST_INCLUDE_NON_JAVA_FRAMES)) {
    /* The first Java call of the thread: no Java frames below (interrupted in the call
     * stub itself, none yet either). */
    if (!more) return LD(s->top) ? 0 : leaf_end(wc, s);
    set_regs(&wc->cur, &a);
    s->pcmode = ASGST__PC_EXACT;
    s->top = 0;
    return 1;
  }
  asgst__regs n = {0};
  if (!asgst__load_ret(fp + 8, &n.pc) || !asgst__load_ptr(fp, &n.fp)) return ASGST_BAD_FRAME;
  n.sp = fp + 16;
  s->top = 0;
  if (!more && !(wc->options & ASGST__OPT_REPLAYABLE)) {
    /* The VM's C++ code that made the thread's first Java call, below it only C code:
     * a table row proves it C, as a C step's sender (decode then takes it and its
     * senders as a run of C frames, with neither a code cache lookup nor the test that
     * it lies in code; a row is in code). */
    asgst__cfi_section_open(&wc->cfi_section);
    const struct asgst_cfi_rule *rule = asgst__cfi_find(n.pc, true, &s->c_obj);
    if (rule) {
      s->c_pc = n.pc;
      s->c_rule = rule;
      s->tail_sp = n.sp;
    }
  }
  if (more) {
    s->has_target = 1;
    set_regs(&s->target, &a);
    if (n.sp >= a.sp) set_regs(&n, &a);
  }
  set_regs(&wc->cur, &n);
  s->pcmode = ASGST__PC_EXACT;
  return 1;
}

/* SS. step_c in the form asgst__step_checked takes. */
static inline __attribute__((always_inline)) int step_c_of(asgst__cursor *wc) {
  return step_c(wc, state_of(wc));
}

/* SS. c_run's loop over common C frames, without step_c's generality: from wc->cur,
 * proven C by the last step (its rule in s->c_rule, so not a top frame), while each
 * frame's rule is plain (ASGST_CFI_PLAIN_*, impl/native/cfi.h), its sender lies above it and below the target or
 * the stack base, and the sender's pc has a table row (proven C in turn): steps as
 * step_c and asgst__step_checked would, appending each sender as non_java would, in
 * registers (the walk state is written once at the end; wc->committed after each frame,
 * for the fault path). Returns true if it stepped at least once (wc->cur then the last
 * sender, decoded); false where the first frame needs step_c (a sender in the code cache,
 * a signal frame, the anchor reached, a failed check: it knows what each is). */
static inline __attribute__((always_inline)) bool c_quick_run(asgst__cursor *wc, hs_state *s) {
  const struct asgst_cfi_rule *rule = s->c_rule;
  uintptr_t pc = wc->cur.pc, sp = wc->cur.sp, fp = wc->cur.fp;
  if (!rule || pc != s->c_pc || wc->cur.lr != 0 || (wc->options & ASGST__OPT_REPLAYABLE)) return false;
  /* At or past the target is the anchor's business, at or past the base the stack's end. */
  uintptr_t limit = LD(s->has_target) ? s->target.sp : wc->thread.stack_base;
  if (limit == 0) limit = UINTPTR_MAX;
  bool out = wc->options & ASGST_INCLUDE_NON_JAVA_FRAMES;
  int32_t n = wc->npending, stop = wc->batch_limit < ASGST__PENDING_CAP ? wc->batch_limit : ASGST__PENDING_CAP;
  int32_t depth = wc->depth, first = depth;
  /* The frames the loop may take: the depth's room, and the buffer's if it fills it. */
  int32_t left = ASGST__MAX_DEPTH - depth;
  if (out && stop - n < left) left = stop - n;
  const struct asgst_cfi_object *near = s->c_obj;
  asgst__cfi_section_open(&wc->cfi_section); /* open since the step that found rule */
  for (; left > 0; left--) {
    uint8_t plain = rule->plain;
    uintptr_t cfa;
    if (plain == ASGST_CFI_PLAIN_SP) {
      /* Above sp and aligned as it is (sp is: a CFA checked so, or fp + 16 of an entry
       * frame whose fp was), by a positive multiple of 8. */
      cfa = sp + (intptr_t)rule->cfa_off;
    } else {
      if (plain != ASGST_CFI_PLAIN_FP) break;
      cfa = fp + (intptr_t)rule->cfa_off;
      if (cfa <= sp || (cfa & 7)) break;
    }
    if (cfa >= limit) break;
    /* Aligned: cfa is, and a plain rule's offsets are multiples of 8. */
    uintptr_t ra, nfp = fp;
    if (!asgst__load_ptr_a8(cfa + (intptr_t)rule->ra_off, &ra)) break;
    if (rule->fp_rule == ASGST_REG_AT_CFA && !asgst__load_ptr_a8(cfa + (intptr_t)rule->fp_off, &nfp)) break;
    if (rule->fp_rule == ASGST_REG_UNDEF) nfp = 0;
    uintptr_t npc = asgst__strip_pc(ra);
    const struct asgst_cfi_rule *next = npc == pc ? rule : asgst__cfi_find(npc, true, &near);
    if (!next) break;
    pc = npc, sp = cfa, fp = nfp, rule = next;
    depth++;
    if (out) {
      c_frame_out(&wc->pending[n], pc, sp, fp);
      /* A volatile store: if a later read faults, the frames counted here are complete. */
      *(volatile int32_t *)&wc->committed = ++n;
    }
  }
  s->c_obj = near;
  if (depth == first) return false;
  uint8_t mode = LD(s->java_seen) || LD(s->has_target) ? ASGST__PC_EXACT : ASGST__PC_NEAR;
  wc->cur.pc = pc;
  wc->cur.sp = sp;
  wc->cur.fp = fp;
  wc->depth = depth;
  wc->npending = n;
  s->c_pc = pc;
  s->c_rule = rule;
  s->top = 0;
  s->pcmode = mode;
  return true;
}

/* SS. The thread's tail below wc->cur (the first C frame below its first call stub, proven
 * C: s->c_rule its rule), appended from the tails' memory (native/cfi_tail.h), or walked
 * there and remembered: ASGST__DECODE_END (wc->cur then the outermost frame), or 0 where
 * the caller walks it (not a tail remembered, or not room for all of it). */
static int tail_run(asgst__cursor *wc, hs_state *s) {
  if (wc->cur.pc != LD(s->c_pc) || !s->c_rule || wc->cur.lr != 0) return 0;
  int32_t n = wc->npending, stop = wc->batch_limit < ASGST__PENDING_CAP ? wc->batch_limit : ASGST__PENDING_CAP;
  struct asgst_cfi_frame first = {.pc = wc->cur.pc, .sp = wc->cur.sp, .fp = wc->cur.fp};
  uintptr_t limit = wc->thread.stack_base ? wc->thread.stack_base : UINTPTR_MAX;
  struct asgst_cfi_tail_frame f[ASGST_CFI_TAIL_MAX];
  asgst__cfi_section_open(&wc->cfi_section); /* open since step_entry's lookup */
  long k = asgst__cfi_tail_replay(&first, limit, cfi_read, NULL, f);
  if (k == ASGST_CFI_TAIL_MISS) k = asgst__cfi_tail_record(&first, s->c_rule, limit, cfi_read, NULL, f);
  /* All of it or none: the frames a batch, the depth or the buffer can still take. */
  if (k < 0 || k > stop - n || k > ASGST__MAX_DEPTH - wc->depth) return 0;
  for (long i = 0; i < k; i++) c_frame_out(&wc->pending[n + i], f[i].pc, f[i].sp, f[i].fp);
  if (k > 0) {
    wc->cur.pc = f[k - 1].pc;
    wc->cur.sp = f[k - 1].sp;
    wc->cur.fp = f[k - 1].fp;
  }
  wc->depth += (int32_t)k;
  wc->npending = n + (int32_t)k;
  return ASGST__DECODE_END;
}

/* SS. After a C frame proven C by the C step to it (decode_frame): its senders while the
 * C step proves them C too, stepped here (the common ones by c_quick_run, the others with
 * asgst__step_checked) and decoded as decode_frame decodes proven C code, without a trip
 * through the batch loop's dispatch per frame (a third of a C frame's instructions).
 * Returns 0 where the batch is full (or its buffer), ASGST__DECODE_STEPPED where the
 * sender is something else (decoded next by the batch loop), ASGST__DECODE_END at the
 * stack's end, or the step's error. */
static __attribute__((noinline)) int c_run(asgst__cursor *wc, hs_state *s) {
  /* The thread's tail, when this is its first frame (once: a tail not taken is walked;
   * tail_sp is never set in a replayable walk). The first frame is complete: a fault in the
   * tail's reads leaves it counted, as the loop below would. */
  if (wc->cur.sp == LD(s->tail_sp)) {
    *(volatile int32_t *)&wc->committed = wc->npending;
    s->tail_sp = 0;
    int r = tail_run(wc, s);
    if (r) return r;
  }
  for (;;) {
    if (wc->npending >= wc->batch_limit || asgst__room(wc) < 1) return 0;
    /* The frame at wc->cur is complete: a fault from here on leaves it counted. */
    *(volatile int32_t *)&wc->committed = wc->npending;
    /* kind, memo_n, fsize and blob are still those of a C frame. Where the quick run
     * stopped, step_c takes the frame it stopped at (another quick run would only stop
     * there again, its lookup made twice). */
    if (c_quick_run(wc, s) && (wc->npending >= wc->batch_limit || asgst__room(wc) < 1)) return 0;
    int r = asgst__step_checked(wc, step_c_of);
    if (r <= 0) return r == 0 ? ASGST__DECODE_END : r;
    /* A pc the step proved C (a row of a loaded object's table, never the code cache)
     * is decoded as C code whatever else it might be (decode_frame tests it first). */
    if (wc->cur.pc != LD(s->c_pc)) return ASGST__DECODE_STEPPED;
    non_java(wc);
  }
}

/* SS. backend.h step(), inlined into the batch loop. */
static inline __attribute__((always_inline)) int step_frame(asgst__cursor *wc) {
  const asgst__vm_model *model = &asgst__vm;
  hs_state *s = state_of(wc);
  asgst__regs n;
  int r;
  /* Read once: the tests after the switch then fold for the kinds it knows. */
  const uint8_t kind = LD(s->kind);
  switch (kind) {
    case ASGST__HK_C:
      return step_c(wc, s);
    case ASGST__HK_ENTRY:
      return step_entry(wc, s);
    case ASGST__HK_INTERP: {
      /* fp was checked aligned by decode_interpreted. */
      uintptr_t fp = wc->cur.fp;
      if (!asgst__load_ptr_a8(fp + 8, &n.pc) || !asgst__load_ptr_a8(fp, &n.fp) ||
          !asgst__load_ptr_a8(fp + 8 * model->interp_sender_sp_slot, &n.sp))
        return ASGST_BAD_FRAME;
      n.pc = asgst__strip_pc(n.pc);
      /* The sender's own view of its sp (compiled callers are sized from it). It may lie
       * below fp + 16 when a c2i adapter moved the arguments; it is above our sp. */
      if (n.sp <= wc->cur.sp || (n.sp & 7)) return ASGST_BAD_FRAME;
      break;
    }
    case ASGST__HK_NMETHOD:
      if (LD(s->fsize) && !LD(s->top)) {
        /* A complete compiled frame of known size (from the frame cache). */
        uintptr_t ssp = wc->cur.sp + 8 * (uintptr_t)s->fsize;
        if (!asgst__load_ret(ssp - 8, &n.pc) || !asgst__load_ptr(ssp - 16, &n.fp)) return ASGST_BAD_FRAME;
        n.sp = ssp;
        break;
      }
      /* fall through */
    default:
      r = asgst__hs_blob_sender(s->blob, &wc->cur, s->top, &wc->thread, &n);
      if (r <= 0) return r;
      break;
  }
  /* The test build's AsyncGetCallTrace rule (impl/test_build.h; 0 in the product, where
   * this folds away). */
  bool asgct_rule = (wc->options & ASGST__OPT_ASGCT_PCDESC_RULE) && !LD(s->java_seen) &&
                    kind == ASGST__HK_STUB;
  /* A stub called from compiled code before any Java frame (the top of the Java stack)
   * may have been called without debug information: a leaf call, such as C1's GC barrier
   * stubs, records no PcDesc at its return address. Exact if there is one, else near. */
  bool leaf_callee = kind == ASGST__HK_STUB && !LD(s->java_seen);
  n.lr = 0; /* the link register belongs to the interrupted frame only */
  set_regs(&wc->cur, &n);
  s->top = 0;
  s->pcmode = asgct_rule ? ASGST__PC_NEAR : leaf_callee ? ASGST__PC_ANCHOR : ASGST__PC_EXACT;
  /* Heading for an anchor: a sender at or past its sp, or in Java code, is the anchor's
   * frame (every frame above the anchor is VM code; Java code there is the anchor's own
   * frame seen from below the sp it recorded, as a native wrapper's call leaves it): one
   * frame, reported once, from the anchor. */
  if (LD(s->has_target) &&
      (n.sp >= s->target.sp || is_java_kind(asgst__hs_classify(n.pc, &(uintptr_t){0})))) {
    set_regs(&wc->cur, &s->target);
    s->has_target = 0;
    s->pcmode = ASGST__PC_ANCHOR;
  }
  return 1;
}

/* SS. decode_frame_runs for the batch loop. */
static inline __attribute__((always_inline)) int decode_frame(asgst__cursor *wc) {
  return decode_frame_runs(wc, true);
}

/* SS. A decode that never steps on (next_java_frame steps itself). */
int asgst__hs_decode(asgst__cursor *wc) { return decode_frame_runs(wc, false); }

/* SS. */
int asgst__hs_step(asgst__cursor *wc) { return step_frame(wc); }

/* SS. */
ASGST__HOT int asgst__hs_fill(asgst__cursor *wc, int limit) {
  /* A batch is a reader section of the C frame tables (impl/walk_cursor.h): the object and
   * rule an earlier batch found may have been freed since. After begin both are NULL. */
  hs_state *s = state_of(wc);
  s->c_obj = NULL;
  if (s->c_rule) s->c_rule = NULL, s->c_pc = 0;
  return asgst__fill_loop(wc, limit, decode_frame, step_frame);
}

/* SS. */
bool asgst__hs_last_java_frame(const asgst__thread *t, asgst__regs *out) {
  uintptr_t jt = (uintptr_t)t->vm_thread;
  return jt != 0 && anchor_frame(jt + asgst__vm.jt_anchor, out);
}

/* SS. */
uintptr_t asgst__hs_frame_identity(const asgst__regs *r) {
  uintptr_t blob, m = 0;
  int kind = asgst__hs_classify(r->pc, &blob);
  if (kind == ASGST__HK_INTERP)
    return asgst__load_ptr(r->fp + 8 * asgst__vm.interp_method_slot, &m) ? m : 0;
  return kind == ASGST__HK_NMETHOD || kind == ASGST__HK_NATIVE ? blob : 0;
}

/* SS. */
bool asgst__hs_frame_position(const asgst__regs *r, uintptr_t *pos) {
  return asgst__hs_in_interpreter(r->pc) && asgst__load_ptr(r->fp + 8 * asgst__vm.interp_bcp_slot, pos);
}

/* Physical frames a search for a queue element's Java frames steps over at most. */
#define TOP_SEARCH_DEPTH 4096

/* SS. True if wc->cur is the physical frame at skip_sp/skip_pc. By sp alone on x86_64; on
 * arm64 a sender may share the sp of a frame that had not allocated its own yet or had
 * released it, and only the pc tells them apart. */
static inline bool same_physical(const asgst__cursor *wc, uintptr_t skip_sp, uintptr_t skip_pc) {
  return wc->cur.sp == skip_sp && (ASGST__RET_AT_SP || wc->cur.pc == skip_pc);
}

/* SS. Decodes physical frames of `it` from its current one on, stepping between them,
 * until one reports a Java frame (an inlined one counts: its physical frame is the
 * answer) other than the physical frame at skip_sp/skip_pc: 1 with wc->cur there, 0 if
 * the stack ends first, or an error. skip_sp 0: wc->cur is the interrupted frame. */
static int next_java_frame(asgst__cursor *wc, uintptr_t skip_sp, uintptr_t skip_pc) {
  for (int depth = 0; depth < TOP_SEARCH_DEPTH; depth++) {
    wc->npending = 0;
    int r = asgst__hs_decode(wc);
    if (r < 0) return r == ASGST__NO_ROOM ? ASGST_BAD_FRAME : r;
    if (!same_physical(wc, skip_sp, skip_pc))
      for (int i = 0; i < wc->npending; i++)
        if (wc->pending[i].type != ASGST_FRAME_NON_JAVA) return 1;
    uintptr_t old = wc->cur.sp;
    r = asgst__hs_step(wc);
    if (r <= 0) return r;
    if (!asgst__sp_grew(old, wc->cur.sp, skip_sp == 0 && depth == 0)) return ASGST_STACK_LOOP;
  }
  return ASGST_STACK_LOOP;
}

/* SS. The callers are sought by the walk that found the top frame: a second walk begun
 * at the top frame would decode it again. */
int asgst__hs_top_java_frame(const asgst__thread *t, const asgst__regs *top, asgst__regs *out,
                             asgst__regs *callers, int ncallers, bool *direct) {
  if (direct) *direct = false;
  asgst__cursor wc;
  memset(&wc, 0, offsetof(asgst__cursor, pending));
  wc.batch_limit = 1;
  wc.thread = *t;
  wc.cfi_section = ASGST_CFI_COVERED; /* the caller's section (api/queue_ring.c) */
  int kind = asgst__hs_begin(&wc, top);
  if (kind <= 0) return kind;
  int r = next_java_frame(&wc, 0, 0);
  if (r <= 0) return r == 0 ? ASGST_NO_TOP_JAVA_FRAME : r;
  set_regs(out, &wc.cur);
  /* The Java frame is the interrupted one: its sender may share its sp (asgst__sp_grew). */
  bool interrupted = wc.cur.pc == top->pc && wc.cur.sp == top->sp;
  for (int k = 0; k < ncallers; k++) callers[k].pc = callers[k].sp = callers[k].fp = 0;
  for (int k = 0; k < ncallers; k++) {
    uintptr_t old = wc.cur.sp, old_pc = wc.cur.pc;
    if (asgst__hs_step(&wc) <= 0 || !asgst__sp_grew(old, wc.cur.sp, interrupted && k == 0))
      break;
    uintptr_t sender_sp = wc.cur.sp, sender_pc = wc.cur.pc;
    if (next_java_frame(&wc, old, old_pc) <= 0) break;
    if (k == 0 && direct) *direct = wc.cur.sp == sender_sp && wc.cur.pc == sender_pc;
    set_regs(&callers[k], &wc.cur);
  }
  return kind;
}
