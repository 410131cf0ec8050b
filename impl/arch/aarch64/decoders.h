/*
 * decoders.h - arm64: what this room's decoders of HotSpot's code cover (frame_code.c,
 * stub_exit.c, call_stub.c), for the walker's choices (impl/hotspot/walking/walker_code.c).
 * Included through arch.h only.
 */
#ifndef ASGST_ARCH_AARCH64_DECODERS_H
#define ASGST_ARCH_AARCH64_DECODERS_H

/* Bytes of the frame record enter() builds at a stub's first instruction:
 * stp x29,x30,[sp,#-16]!; mov x29,sp. */
#define ASGST__ENTER_BYTES 8
/* 0: the call stub is not decoded (call_stub.c answers ASGST__CS_NONE). */
#define ASGST__CALL_STUB_DECODED 0

#endif
