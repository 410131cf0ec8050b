/*
 * adapter_lr.h - arm64: where the i2c/c2i adapters leave the return address in the link
 * register (aarch64/adapter_frame.c, which answers adapter_frame.h from it; its unit test
 * calls it directly). On x86_64 a call pushes its return address, and nothing here is
 * defined.
 */
#ifndef ASGST_ARCH_ADAPTER_LR_H
#define ASGST_ARCH_ADAPTER_LR_H

#include <stdint.h>

/* What asgst__hs_adapter_lr answers. */
enum { ASGST__ADAPTER_LR_NONE = 0, ASGST__ADAPTER_LR_I2C = 1, ASGST__ADAPTER_LR_C2I = 2, ASGST__ADAPTER_LR_RECORD = 3 };

/* Instructions read at most from the adapter's start through the blob's end: a c2i of
 * many arguments moves each with two or three instructions. */
#define ASGST__ADAPTER_LR_MAX_INSNS 2048

/* SS. The I2C/C2I adapters' blob [lo, hi) interrupted at pc (arm64). HotSpot's adapters
 * are entered as if called (the i2c from the interpreter or the call stub, the c2i's
 * entries from compiled code or from an i2c that lost a race): at an entry the return
 * address is in lr, sp is the caller's and fp is the caller's. The i2c starts at lo and
 * ends with its br into the compiled entry (the blob's first br); the c2i starts after it.
 * Answers ASGST__ADAPTER_LR_I2C or _C2I if every instruction from that adapter's start up
 * to pc leaves sp, fp (x29) and lr (x30) alone, a frame record bracket (stp x29,x30,
 * [sp,#-16]!; mov x29,sp ... mov sp,x29; ldp x29,x30,[sp],#16, the c2i's call to fix its
 * caller's call site) counting as leaving them alone, and no direct branch of the blob
 * enters that stretch other than forward from within it (a branch out of the blob is an
 * exit to a runtime stub): then at pc, too, the return address is lr, the caller's sp is
 * sp and its fp is fp. ASGST__ADAPTER_LR_RECORD if the same holds up to that bracket and
 * pc lies inside it after its mov x29,sp (up to its ldp): the frame record at fp holds the
 * caller's fp and return address, the caller's sp is fp + 16. ASGST__ADAPTER_LR_NONE
 * otherwise (past the i2c's alignment of sp for stack arguments, past the c2i's growth of
 * sp for the interpreter's arguments, between the bracket's stp and its mov x29,sp, an
 * unreadable word, more than ASGST__ADAPTER_LR_MAX_INSNS instructions). */
int asgst__hs_adapter_lr(uintptr_t pc, uintptr_t lo, uintptr_t hi);

#endif
