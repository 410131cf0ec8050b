/*
 * call_stub.h - a top pc in the call stub (StubRoutines::call_stub, through which the VM's
 * C++ code calls Java) outside its call of the Java entry (x86_64/call_stub.c,
 * aarch64/call_stub.c).
 *
 * The VM exports the stub's return address (StubRoutines::_call_stub_return_address) but
 * not its entry, and the stub shares its blob with other stubs. Its code from the entry
 * to that return address is decoded instead: enter() (push rbp; mov rbp,rsp), the stores
 * of its register arguments below rbp, the JavaCallWrapper (the first argument, rdi)
 * among them, then the saves, the MXCSR check, the copy of the Java arguments and the
 * indirect call whose return address is the exported one. Where the code from a candidate
 * entry at or below the pc decodes as exactly that sequence and meets the pc on an
 * instruction boundary, the pc is in the call stub and what the stub has done by then is
 * known. After the call, the code from the return address is decoded to the stub's
 * pop rbp; ret (and its out-of-line stores of long, float and double results).
 */
#ifndef ASGST_HOTSPOT_CALL_STUB_H
#define ASGST_HOTSPOT_CALL_STUB_H

#include <stdint.h>

/* Where in the call stub a pc lies (asgst__hs_call_stub_at). */
enum {
  ASGST__CS_NONE = 0,    /* not proven in the call stub */
  ASGST__CS_ENTRY = 1,   /* at its first instruction or its ret: the return address at sp, rbp the caller's */
  ASGST__CS_PUSHED = 2,  /* after push rbp: the caller's rbp at sp, the return address above */
  ASGST__CS_RECORD = 3,  /* frame record at rbp, the JavaCallWrapper not stored yet */
  ASGST__CS_WRAPPER = 4, /* frame record at rbp and the JavaCallWrapper at its slot: an entry frame */
};

/* Bytes before the return address searched for the stub's entry: its code up to the
 * call is 0x84-0x8a bytes on JDK 17 to 27. */
#define ASGST__CALL_STUB_SPAN 512
/* Bytes after the return address decoded at most: the rest of the stub is 0x72-0x78 bytes. */
#define ASGST__CALL_STUB_TAIL 256

/* SS. pc interrupted in the blob whose code is [lo, hi); ret the call stub's return
 * address (StubRoutines::_call_stub_return_address); wrapper_disp the JavaCallWrapper's
 * offset from the stub's rbp (8 * frame::entry_frame_call_wrapper_offset). Answers one of
 * ASGST__CS_*: NONE unless ret lies in [lo, hi], the pc below it within
 * ASGST__CALL_STUB_SPAN or above it within ASGST__CALL_STUB_TAIL, and the code from an
 * entry below ret (the nearest at or below the pc that decodes) is the call stub's, up to
 * its call ending exactly at ret: every instruction one the decoder knows, none after
 * enter() writing rbp, none before the wrapper's store writing a register, every branch
 * landing on an instruction between that store and the call. A pc below ret must be one
 * of that code's instruction boundaries; a pc above it one of the code after the call
 * (see epilogue_phase), where pc == ret itself is NONE (the entry frame the VM exports).
 * Always NONE on arm64. */
int asgst__hs_call_stub_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t ret,
                           long wrapper_disp);

#endif
