/*
 * walker_code.h - the sender of a compiled or stub frame, from the code itself where the
 * frame is not complete (walker_code.c).
 */
#ifndef ASGST_HOTSPOT_WALKER_CODE_H
#define ASGST_HOTSPOT_WALKER_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../arch/frame_code.h"
#include "../../backend.h"

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

/* SS. For a pc in compiled code (interrupted, or the return address the walk stepped to
 * from the stub): 16 where it is the return address of a direct call to C1's
 * slow_subtype_check whose code pops the two arguments pushed for it (the frame's own sp
 * is 16 bytes above sp until that pop), else 0. */
long asgst__hs_subtype_args_at(uintptr_t pc);

#endif
