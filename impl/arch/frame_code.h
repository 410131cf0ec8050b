/*
 * frame_code.h - the stack effect of the code HotSpot's compilers put in a frame's
 * prologue and epilogue, and the few stub instructions the walker recognizes, decoded per
 * architecture (impl/arch/x86_64/frame_code.c, impl/arch/aarch64/frame_code.c) for the
 * walker's frames caught before their frame is complete (impl/hotspot/walking/walker_code.c).
 */
#ifndef ASGST_ARCH_FRAME_CODE_H
#define ASGST_ARCH_FRAME_CODE_H

#include <stdbool.h>
#include <stdint.h>

/* Stack effect of the instructions between a frame's entry and pc. */
typedef struct {
  long depth;     /* bytes from sp up to the sender's sp */
  long ra_slot;   /* offset from sp of the return address; -1: still in the link register */
  long fp_slot;   /* offset from sp of the caller's saved fp, -1 if fp not saved */
  bool fp_moved;  /* fp set to this frame: it no longer holds the caller's fp */
} asgst__hs_stack_effect;

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

#endif
