/*
 * backend.c - the synthetic VM's walking callbacks: thread lookup, begin, decode, step.
 *
 * Frames are classified by the blob containing their pc and stepped through the fp chain
 * (see asgst_synthetic.h). Every read of frame memory goes through impl/safe_read.h; the
 * API layer runs these callbacks inside the crash guard.
 */
#include <jvmti.h>

#include "internal.h"
#include "../fill_loop.h"
#include "../safe_read.h"

/* The VM the calling thread is attached to (NULL: not a Java thread). initial-exec TLS:
 * read from signal handlers. */
static __thread ASGST_SynthVM *attached __attribute__((tls_model("initial-exec")));

/* N. */
int ASGST_SynthAttachThread(ASGST_SynthVM *vm) {
  if (vm == NULL) return ASGST_INVALID_ARGUMENT;
  attached = vm;
  return 0;
}

/* N. */
void ASGST_SynthDetachThread(void) {
  attached = NULL;
}

/* SS. The attached VM if it is the active one, else NULL. */
static ASGST_SynthVM *java_thread_vm(void) {
  ASGST_SynthVM *vm = attached;
  return vm && vm == asgst__synth_active() ? vm : NULL;
}

/* SS. */
static int synth_current_thread(asgst__thread *t) {
  ASGST_SynthVM *vm = java_thread_vm();
  t->vm_thread = vm;
  /* The synthetic stacks are not the thread's own stack, so no bounds are given. */
  t->stack_base = 0;
  t->stack_limit = 0;
  return vm ? ASGST_JAVA_TRACE : ASGST_NON_JAVA_TRACE;
}

/* SS. Registers that cannot be a frame at all are rejected here; everything else is left
 * to decode/step, which read memory under the guard. */
static int synth_begin(asgst__cursor *wc, const asgst__regs *top) {
  if (!asgst__plausible(top->pc, 1) || !asgst__plausible(top->sp, 8) || (top->sp & 7))
    return ASGST_BAD_FRAME;
  wc->cur = *top;
  return wc->thread.vm_thread ? ASGST_JAVA_TRACE : ASGST_NON_JAVA_TRACE;
}

/* SS. Appends one logical frame of the physical frame wc->cur. */
static void add_frame(asgst__cursor *wc, uint8_t type, int level, int bci, ASGST_Method m) {
  ASGST_Frame *f = &wc->pending[wc->npending++];
  f->type = type;
  f->comp_level = level;
  f->bci = bci;
  f->method = m;
  f->pc = (void *)wc->cur.pc;
  f->sp = (void *)wc->cur.sp;
  f->fp = (void *)wc->cur.fp;
}

/* SS. An interpreted frame: Method* and bci live in the frame. */
static int decode_interpreted(asgst__cursor *wc) {
  uintptr_t fp = wc->cur.fp, m;
  uint64_t bci;
  if (!asgst__load_ptr(fp + 8 * ASGST__SYNTH_INTERP_METHOD_SLOT, &m) ||
      !asgst__load_u64(fp + 8 * ASGST__SYNTH_INTERP_BCI_SLOT, &bci))
    return ASGST_BAD_FRAME;
  uint32_t magic;
  if (!asgst__load_u32(m, &magic) ||
      (magic != ASGST__SYNTH_METHOD_LIVE && magic != ASGST__SYNTH_DEAD))
    return ASGST_BAD_FRAME;
  if ((int64_t)bci < 0 || (int64_t)bci > 65535) return ASGST_BAD_FRAME;
  add_frame(wc, ASGST_FRAME_JAVA, 0, (int)bci, (ASGST_Method)m);
  return 0;
}

/* SS. A compiled frame: its scopes, innermost first; only the last is the physical one. */
static int decode_compiled(asgst__cursor *wc, const ASGST_SynthBlob *b) {
  const asgst__synth_scopes *s = asgst__synth_find_scopes(b, wc->cur.pc - b->start);
  if (s == NULL) {
    add_frame(wc, ASGST_FRAME_JAVA, b->tier, -1, b->method);
    return 0;
  }
  if (s->n > ASGST__MAX_FRAMES_PER_PHYS) return ASGST_BAD_FRAME;
  if (s->n > asgst__room(wc)) return ASGST__NO_ROOM;
  for (int i = 0; i < s->n; i++) {
    uint8_t type = i == s->n - 1 ? ASGST_FRAME_JAVA : ASGST_FRAME_JAVA_INLINED;
    add_frame(wc, type, b->tier, s->scopes[i].bci, s->scopes[i].method);
  }
  return 0;
}

/* SS. */
static int synth_decode(asgst__cursor *wc) {
  if (!asgst__plausible(wc->cur.pc, 1)) return ASGST_BAD_FRAME;
  if (asgst__room(wc) < 1) return ASGST__NO_ROOM;
  ASGST_SynthVM *vm = asgst__synth_active();
  const ASGST_SynthBlob *b = vm ? asgst__synth_find_blob(vm, wc->cur.pc) : NULL;
  switch (b ? b->kind : ASGST__SYNTH_STUB) {
    case ASGST__SYNTH_INTERPRETER:
      return decode_interpreted(wc);
    case ASGST__SYNTH_COMPILED:
      return decode_compiled(wc, b);
    case ASGST__SYNTH_NATIVE:
      add_frame(wc, ASGST_FRAME_JAVA_NATIVE, 0, -1, b->method);
      return 0;
    default:
      /* C frames only where the caller wants them (fill_loop.h). */
      if (wc->options & ASGST_INCLUDE_NON_JAVA_FRAMES) add_frame(wc, ASGST_FRAME_NON_JAVA, -1, -1, NULL);
      return 0;
  }
}

/* SS. True if pc is in a Java blob (interpreted, compiled or native wrapper). */
static bool is_java_pc(uintptr_t pc) {
  ASGST_SynthVM *vm = asgst__synth_active();
  const ASGST_SynthBlob *b = vm ? asgst__synth_find_blob(vm, pc) : NULL;
  return b && b->kind != ASGST__SYNTH_STUB;
}

/* SS. Follows the fp chain. A frame whose fp cannot be its own (below its sp, misaligned,
 * implausible) ends a C stack (C code without frame pointers cannot be followed further)
 * but is an error in a Java frame, where the VM promises the layout. */
static int synth_step(asgst__cursor *wc) {
  uintptr_t fp = wc->cur.fp;
  if (fp == 0) return 0;
  if (fp < wc->cur.sp || (fp & 7) || !asgst__plausible(fp, 16))
    return is_java_pc(wc->cur.pc) ? ASGST_BAD_FRAME : 0;
  uintptr_t sender_fp, sender_pc;
  if (!asgst__load_ptr(fp, &sender_fp) || !asgst__load_ret(fp + 8, &sender_pc))
    return ASGST_BAD_FRAME;
  if (sender_pc == 0) return 0;
  wc->cur.pc = sender_pc;
  wc->cur.sp = fp + 16;
  wc->cur.fp = sender_fp;
  wc->cur.lr = 0; /* the link register belongs to the interrupted frame only */
  return 1;
}

/* SS. */
static int synth_fill(asgst__cursor *wc, int limit) {
  return asgst__fill_loop(wc, limit, synth_decode, synth_step);
}

/* SS. */
static int synth_thread_state(void) {
  return java_thread_vm() ? JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE : 0;
}

const asgst__backend asgst__synthetic_backend = {
    .name = "synthetic",
    .current_thread = synth_current_thread,
    .begin = synth_begin,
    .decode = synth_decode,
    .step = synth_step,
    .fill = synth_fill,
    .top_java_frame = NULL,
    .method_info = asgst__synth_method_info,
    .class_info = asgst__synth_class_info,
    .method_class = asgst__synth_method_class,
    .method_idnum = asgst__synth_method_idnum,
    .class_idnum = asgst__synth_class_idnum,
    .line_table = asgst__synth_line_table,
    .thread_state = synth_thread_state,
};
