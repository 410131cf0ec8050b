/*
 * adapter_frame.h - where a frame interrupted in HotSpot's I2C/C2I adapters finds its
 * caller, decoded per architecture: x86_64/adapter_frame.c (the return address on the
 * stack, stub_exit.h's i2c and c2i decoders), aarch64/adapter_frame.c (the return address
 * still in the link register, adapter_lr.h). The walker (walker_code.c) reads the caller
 * where this says and checks what it finds there.
 */
#ifndef ASGST_ARCH_ADAPTER_FRAME_H
#define ASGST_ARCH_ADAPTER_FRAME_H

#include <stdint.h>

/* Which adapter the pc is in. */
enum { ASGST__ADAPTER_NONE = 0, ASGST__ADAPTER_I2C = 1, ASGST__ADAPTER_C2I = 2 };

/* Where its caller is. */
enum {
  ASGST__CALLER_AT_SP,  /* the return address at sp + ra, the caller's sp at sp + depth,
                           fp untouched (the caller's) */
  ASGST__CALLER_IN_LR,  /* the return address in the link register, sp and fp the caller's */
  ASGST__CALLER_RECORD, /* a frame record at fp: the caller's fp at fp, its return address
                           at fp + 8, its sp fp + 16 */
};

typedef struct {
  int adapter;    /* ASGST__ADAPTER_*; NONE: no place is provable at this pc */
  int where;      /* ASGST__CALLER_* */
  long ra, depth; /* for ASGST__CALLER_AT_SP */
  uintptr_t exit; /* nonzero: proven only by following the code to a jump out of the blob
                     to this address, a runtime stub entered as if called; the caller
                     checks that a stub starts there */
} asgst__hs_adapter_frame;

/* SS. The adapters' blob [lo, hi) interrupted at pc: fills *a (a->adapter NONE where the
 * decoder cannot prove where the caller is). Reads code through safe_read.h. */
void asgst__hs_adapter_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, asgst__hs_adapter_frame *a);

#endif
