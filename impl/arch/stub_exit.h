/*
 * stub_exit.h - the way back from a compiled method's out-of-line stub code into its main
 * code (x86_64/stub_exit.c, aarch64/stub_exit.c), to name the bci a stub serves.
 *
 * HotSpot's compilers put slow paths out of line after the method's main code: C2's
 * barrier stubs (G1 with late barrier expansion on JDK 24+) and C1's CodeStubs. The main
 * code branches to the stub, and the stub ends with an unconditional jump back to the
 * instruction after that branch (its "continuation"). The main code's debug information
 * covers the continuation; the stub's own instructions have none (C2) or only at calls
 * that record it (C1).
 */
#ifndef ASGST_HOTSPOT_STUB_EXIT_H
#define ASGST_HOTSPOT_STUB_EXIT_H

#include <stdbool.h>
#include <stdint.h>

/* Instructions followed at most from the pc to the jump back: a stub saves and restores
 * the live registers around its runtime call, a few dozen instructions at most. */
#define ASGST__STUB_EXIT_MAX_INSNS 256

/* SS. Follows the code from pc in execution order along the path that falls through every
 * conditional branch and returns from every call, taking forward direct jumps that stay
 * within [pc, hi), up to the first unconditional direct jump to a target in [lo, pc):
 * that target goes to *back. False if the path meets a return, an indirect jump, an
 * instruction the decoder does not know, a jump elsewhere, a bad read, or runs longer
 * than ASGST__STUB_EXIT_MAX_INSNS instructions. lo is the method's first instruction, hi
 * the end of its code blob. */
bool asgst__hs_stub_way_back(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *back);

/* SS. For ret, a return address in [lo, hi) that no PcDesc names (a call made without
 * debug information, such as C1's G1 barrier stubs' calls of the runtime's slow path):
 * true, with *back as asgst__hs_stub_way_back gives it, if ret is proven to lie in
 * out-of-line stub code serving the branch just before *back. The proof: the path from
 * ret jumps back to *back; the instruction that ends at *back is a direct branch (taken
 * or not) whose target e lies in (*back, ret]; and the path from e, followed by the same
 * rules, reaches ret. Then the code from e through ret to the jump back is entered only
 * from that branch and leaves only to the instruction after it: a stub. A return address
 * in a method's main code (a leaf call in a loop, whose path may well meet the loop's
 * backward jump) fails the second or third test. */
bool asgst__hs_stub_call_way_back(uintptr_t ret, uintptr_t lo, uintptr_t hi, uintptr_t *back);

/* SS. For ret, a return address in [lo, hi) that no PcDesc names: true with *depth the
 * bytes the code from ret adds to sp on the path asgst__hs_stub_way_back follows, up to its
 * jump back into [lo, ret). HotSpot's code has one stack depth per pc, so at that jump sp is
 * the method frame's own: at ret, the frame's sp is sp + *depth. Out-of-line stub code
 * that saved registers below the frame around its call gives a depth above 0 (C2's G1
 * barrier stubs, JDK 24+, save the live registers before they call the runtime; on arm64
 * the restores are ldp pairs, the last post-indexed); main code gives 0. False if an
 * instruction on the path may move sp in a way the decoder does not add up, or there is
 * no such path. */
bool asgst__hs_stub_call_depth(uintptr_t ret, uintptr_t lo, uintptr_t hi, long *depth);
/* SS. The I2C/C2I adapters' blob [lo, hi), interrupted at pc (x86_64): follows the code
 * from pc (through every conditional branch one way, then, failing that, the other) and
 * answers 1 if it reaches the c2i's pop of its return address (pop rax; mov r13,rsp, or
 * lea r13,[rsp+8]; pop rax),
 * 2 with the target in *out if it reaches a direct jump out of the blob (to a runtime
 * stub entered as if called: the ic miss or wrong method handler), without an
 * instruction that may move rsp or touch the stack on the way: HotSpot's code has one
 * stack depth per pc, so the return address is then at sp at pc too. 0 otherwise.
 * x86_64 only (x86_64/adapter_frame.c answers adapter_frame.h with it; arm64's adapters:
 * adapter_lr.h). */
int asgst__hs_c2i_ret_at_sp(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t *out);

/* SS. A stub of [lo, hi) that keeps no frame record and returns with ret (C1's
 * slow_subtype_check: pushes of the registers it uses, the search, their pops, ret) or,
 * with pop_ra, pops its return address into a register and jumps through another (C1's
 * unwind_exception, which hands the return address to the caller's exception handler),
 * interrupted at pc (or stopped at the return address of a call it made): follows the
 * code from pc (conditional branches falling through, then, failing that, taken forward;
 * direct calls returning; forward jumps within the stub) to that exit, adding up what
 * each instruction does to rsp (push, pop, add or sub of an immediate). HotSpot's code
 * has one stack depth per pc, so the return address is at sp + that sum at pc: 1 with it
 * in *ra. 0 if the path meets anything else that may move rsp, an instruction the decoder
 * does not know, a loop, or leaves the stub. x86_64 only (asgst__hs_stub_frame_at answers
 * with it there). */
int asgst__hs_stub_ret_offset(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, long *ra);

/* Where the caller of a stub without a frame record of its own is, at one pc of it. */
enum {
  ASGST__STUB_RA_AT_SP, /* the return address at sp + ra */
  ASGST__STUB_RA_IN_LR, /* the return address in the link register */
};
typedef struct {
  int where;  /* ASGST__STUB_RA_* */
  long ra;    /* ASGST__STUB_RA_AT_SP: the return address's offset from sp */
  long depth; /* the caller's sp at sp + depth */
  long fp_at; /* the caller's fp at sp + fp_at; -1: the frame pointer is the caller's */
} asgst__hs_stub_frame;

/* SS. A stub of [lo, hi) interrupted at pc (a top frame) or stopped at a call it made (pc
 * its return address), where the stub's code proves where its caller is: true with *f
 * (ASGST__STUB_RA_IN_LR only for a top frame, whose lr is known). pop_ra: the stub leaves
 * by reloading its return address and jumping (C1's unwind_exception), else by returning.
 * x86_64: asgst__hs_stub_ret_offset's answer (the return address on the stack; the path
 * must leave rbp alone, as C1's frameless stubs do).
 * arm64, leaving by a jump: the code is followed to the stub's br, through calls up to
 * the reload of x30 from the stack; the return address is in the slot that reads, or in
 * lr where the path reloads nothing and calls nothing.
 * arm64, returning: at enter()'s stp x29,x30,[sp,#-16]! the return address is in lr; just
 * after it (at its mov x29,sp) and at leave()'s ldp x29,x30,[sp],#16 a frame record is at
 * sp; elsewhere the code from pc is followed to a ret through lr (conditional branches
 * falling through, then, failing that, taken forward; forward jumps taken) on a path
 * where no instruction may write x29 or x30 (so no call) and every move of sp is known
 * (sp_effect.h): the return address is then in lr and the caller's sp at sp plus those
 * moves. False where nothing is proven. */
bool asgst__hs_stub_frame_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool pop_ra, asgst__hs_stub_frame *f);

/* SS. The bytes the code at ret, a return address in compiled code, pops of two words its
 * caller pushed before the call (C1 passes slow_subtype_check's arguments so, and pops
 * them right after: x86_64 two pops, arm64 an ldp or ldr post-indexed on sp by 16): 16,
 * or 0 if the code there is not such a pop or cannot be read. */
long asgst__hs_args_popped_at(uintptr_t ret);

/* SS. The target of the direct call that ends at ret (x86_64 call rel32, arm64 bl), 0 if
 * the code before ret is none or cannot be read. */
uintptr_t asgst__hs_call_target_before(uintptr_t ret);

/* SS. The i2c adapter at the start of the adapters' blob [lo, hi) (x86_64), interrupted at
 * pc: decoded from lo, it keeps the caller's sp in r11, pops the return address, aligns
 * rsp (sub, and), pushes the return address back and moves the arguments without moving
 * rsp again, up to its jmp r11 into the compiled callee. Answers 1 with *ra the offset
 * from sp of the return address and *depth that of the sender's sp where the code from
 * lo to pc puts them: before the pop, at sp (sender sp + 8); after the pop and a sub of
 * N, in the word the pop read, N - 8 above sp (the kernel leaves the 128 bytes below sp
 * alone when it delivers a signal), the sender's sp at sp + N; after the push, at sp
 * again, the sender's sp taken as sp + 8 (as a compiled callee's frame later sizes it:
 * the interpreted caller is walked by its fp). 0 where they are not known (between the
 * and and the push; just after the pop, where the sender's sp would be sp itself, no
 * growth a walk accepts), where pc is not in an i2c
 * of that shape, or the code holds an instruction outside the few the i2c emits. x86_64
 * only, as asgst__hs_c2i_ret_at_sp. */
int asgst__hs_i2c_effect(uintptr_t pc, uintptr_t lo, uintptr_t hi, long *ra, long *depth);

#endif
