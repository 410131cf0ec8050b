/*
 * walker_code.h - the sender of a compiled or stub frame, from the code itself where the
 * frame is not complete (walker_code.c).
 */
#ifndef ASGST_HOTSPOT_WALKER_CODE_H
#define ASGST_HOTSPOT_WALKER_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../backend.h"

/* Stack effect of the instructions between a frame's entry and pc. */
typedef struct {
  long depth;     /* bytes from sp up to the sender's sp */
  long ra_slot;   /* offset from sp of the return address; -1: still in the link register */
  long fp_slot;   /* offset from sp of the caller's saved fp, -1 if fp not saved */
  bool fp_moved;  /* fp set to this frame: it no longer holds the caller's fp */
} asgst__hs_stack_effect;

/* The per-architecture decoders (walker_code_x86_64.c, walker_code_aarch64.c). */
/* SS. Stack effect from a verified entry point up to pc, through the prologue
 * instructions HotSpot's compilers emit; false at any other instruction. frame_bytes is
 * the blob's whole frame (arm64 stops decoding once the frame is that big). */
bool asgst__hs_decode_prologue(uintptr_t entry, uintptr_t pc, long frame_bytes,
                               asgst__hs_stack_effect *e);
/* SS. If the code at pc is a compiled epilogue (from the frame's release through the
 * return poll to the return), its stack effect. */
bool asgst__hs_decode_epilogue(uintptr_t pc, asgst__hs_stack_effect *e);
/* SS. The stack effect at a function's first instruction (nothing saved yet). */
void asgst__hs_entry_effect(asgst__hs_stack_effect *e);
/* SS. True if pc is a return instruction. */
bool asgst__hs_at_return(uintptr_t pc);
/* SS. True if pc is at one of the first instructions of an I2C adapter, which read the
 * return address from sp before moving sp (x86_64; false on arm64). */
bool asgst__hs_adapter_ret_at_sp(uintptr_t pc);
/* SS. If pc is the first instruction of a continuation return barrier, the byte offset in
 * the current JavaThread that it loads the stack pointer from; -1 otherwise. */
long asgst__hs_barrier_thread_offset(uintptr_t pc);

/* SS. Where the top pc lies in the call stub if blob is the call stub's (one of
 * call_stub.h's ASGST__CS_*; NONE elsewhere, and on arm64). At ASGST__CS_WRAPPER (the
 * JavaCallWrapper stored below the frame record at fp, before or after the call) the
 * frame is an entry frame as at the stub's return address; in the other phases
 * asgst__hs_blob_sender gives its C caller. */
int asgst__hs_call_stub_phase(uintptr_t blob, uintptr_t pc);

/* SS. Sender of a frame of code blob `blob` (compiled or stub) at r. `top` says r was
 * interrupted anywhere (prologue/epilogue possible); otherwise r.pc is a return address.
 * Returns 1 and fills *s, or an error. */
int asgst__hs_blob_sender(uintptr_t blob, const asgst__regs *r, bool top,
                          const asgst__thread *t, asgst__regs *s);

/* SS. A continuation return barrier (JDK 21+) is no frame of its own: the return address
 * of a virtual thread's lowest thawed frame, or interrupted at its first instruction just
 * after that frame returned (rsp is still that frame's sender sp; further into the
 * barrier frames are being thawed, which is not provably walkable). If r.pc is one, moves
 * r to the frame it stands for, Continuation.enterSpecial's (*blob: its nmethod), and
 * returns 1; 0 if r.pc is not a barrier; an error if it is but that frame is not sound. */
int asgst__hs_barrier_frame(const asgst__thread *t, asgst__regs *r, uintptr_t *blob);

/* SS. Original pc of a deoptimized compiled frame whose pc is the nmethod's deopt handler
 * (the VM saved it in the frame); pc itself otherwise. */
uintptr_t asgst__hs_real_pc(uintptr_t nm, const asgst__regs *r);

/* SS. True if a frame of the compiled blob interrupted at pc has its whole frame: it has a
 * frame size, pc is past the prologue and not at the start of an epilogue. Its sender is
 * then found by the frame size, as for a frame stopped at a call. */
bool asgst__hs_frame_complete_at(uintptr_t blob, uintptr_t pc);

#endif
