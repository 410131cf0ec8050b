/*
 * decoders.h - x86_64: what this room's decoders of HotSpot's code cover (frame_code.c,
 * stub_exit.c, call_stub.c), for the walker's choices (impl/hotspot/walking/walker_code.c).
 * Included through arch.h only.
 */
#ifndef ASGST_ARCH_X86_64_DECODERS_H
#define ASGST_ARCH_X86_64_DECODERS_H

/* Bytes of the frame record enter() builds at a stub's first instruction: push rbp;
 * mov rbp,rsp. */
#define ASGST__ENTER_BYTES 4
/* 1: the call stub is decoded (asgst__hs_call_stub_at). */
#define ASGST__CALL_STUB_DECODED 1

#endif
