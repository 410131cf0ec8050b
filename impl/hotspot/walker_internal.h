/*
 * walker_internal.h - what the files of the HotSpot stack walker share (codecache.c,
 * scopes.c, walker_code.c, walker.c). Not used outside impl/hotspot.
 */
#ifndef ASGST_HOTSPOT_WALKER_INTERNAL_H
#define ASGST_HOTSPOT_WALKER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../backend.h"
#include "vm_model.h"

/* What a physical frame is. */
enum {
  ASGST__HK_C = 0,     /* not in the code cache: C/C++ code (frame pointers) */
  ASGST__HK_INTERP,    /* template interpreter */
  ASGST__HK_NMETHOD,   /* compiled Java method (C1/C2) */
  ASGST__HK_NATIVE,    /* native method wrapper nmethod */
  ASGST__HK_STUB,      /* any other code blob: stubs, adapters, runtime blobs */
  ASGST__HK_ENTRY      /* the call stub at its return address: C called Java here */
};

/* Stack effect of the instructions between a frame's entry and pc (walker_code.c). */
typedef struct {
  long depth;     /* bytes pushed/allocated since entry: the return address is at sp+depth */
  long fp_slot;   /* offset from sp of the caller's saved rbp, -1 if rbp not saved */
  bool fp_moved;  /* mov rbp,rsp executed: rbp no longer holds the caller's fp */
} asgst__hs_stack_effect;
/* SS. Stack effect from a verified entry point up to pc, through the prologue
 * instructions HotSpot's x86_64 compilers emit; false at any other instruction. */
bool asgst__hs_decode_prologue(uintptr_t entry, uintptr_t pc, asgst__hs_stack_effect *e);
/* SS. If the code at pc is an epilogue ([vzeroupper] [add rsp,N] [pop rbp] [return poll]
 * ret), its stack effect. */
bool asgst__hs_decode_epilogue(uintptr_t pc, asgst__hs_stack_effect *e);

/* SS. The code blob containing pc, 0 if pc is not in a live blob of the code cache. */
uintptr_t asgst__hs_find_blob(uintptr_t pc);
/* The template interpreter's code range, 0/0 until learned (codecache.c). */
extern uintptr_t asgst__hs_interp_low, asgst__hs_interp_high;
/* SS. Learns the range if needed, then tests pc. */
bool asgst__hs_in_interpreter_slow(uintptr_t pc);
/* SS. True if pc is in the template interpreter (two compares once the range is known). */
static inline bool asgst__hs_in_interpreter(uintptr_t pc) {
  if (asgst__hs_interp_high && !asgst__relearn()) return pc >= asgst__hs_interp_low && pc < asgst__hs_interp_high;
  return asgst__hs_in_interpreter_slow(pc);
}
/* The call stub's return address once a walk has classified it (codecache.c), else 0. */
extern uintptr_t asgst__hs_call_stub_ret;
/* SS. True if pc is the call stub's return address as learned: an entry frame (C called
 * Java) known without a code cache lookup. False until learned, and in recording walks,
 * which must read what classify reads. */
static inline bool asgst__hs_is_entry(uintptr_t pc) {
  return pc == asgst__hs_call_stub_ret && pc != 0 && !asgst__relearn();
}
/* SS. Kind of the code at pc; *blob gets its code blob (0 for C code and the interpreter). */
int asgst__hs_classify(uintptr_t pc, uintptr_t *blob);
/* SS. True if blob's name equals s (blob names are static strings of libjvm). */
bool asgst__hs_blob_named(uintptr_t blob, const char *s);

/* How to find the PcDesc of a compiled frame (AsyncGetCallTrace's rules, which follow
 * where debug information is recorded: a PcDesc describes the state after the instruction
 * that ends at its pc). */
enum {
  ASGST__PC_EXACT = 0, /* pc is a return address: the PcDesc at exactly pc */
  ASGST__PC_NEAR,      /* pc was interrupted: the first PcDesc after pc */
  ASGST__PC_ANCHOR     /* pc from a frame anchor: exact if there is one, else near */
};

/* SS. Expands the compiled frame of nmethod nm at pc into logical frames, innermost
 * first, into out[0..max). Returns the count, or an error (< 0): ASGST__NO_ROOM if they
 * do not fit but could in a buffer of ASGST__MAX_FRAMES_PER_PHYS. */
int asgst__hs_scopes(uintptr_t nm, uintptr_t pc, int mode, ASGST_Frame *out, int max);

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

/* A decoded compiled frame at a return address (framecache.c). */
#define ASGST__FC_MAX 4 /* logical frames an entry holds */
typedef struct {
  uintptr_t blob;
  uint32_t compile_id;
  int32_t level;
  uint32_t frame_size; /* words */
  int n;
  uintptr_t method[ASGST__FC_MAX];
  int32_t bci[ASGST__FC_MAX];
} asgst__hs_fc_entry;

/* SS. The cached decoding of the compiled frame at r, if still valid: r->pc is a return
 * address, or with `top` the pc of an interrupted top frame (decoded with the PcDesc after
 * it, and complete there). Writes its logical frames to out (innermost first, at most
 * room), its blob and frame size, and returns their number; 0 on a miss, -1 if they do not
 * fit in room. *checked is the nmethod the walk has already proven current (updated). */
int asgst__hs_fc_frames(const asgst__regs *r, bool top, ASGST_Frame *out, int room,
                        uintptr_t *blob, uint32_t *fsize,
                        uintptr_t *checked, uintptr_t stack_base);
/* SS. Starts loading the entry of an interrupted top frame at pc (no fault possible). */
void asgst__hs_fc_prefetch(uintptr_t pc);
/* SS. Remembers a decoding (n logical frames, 1..ASGST__FC_MAX) of the frame at a return
 * address, or with `top` of a complete top frame at an interrupted pc. */
void asgst__hs_fc_put(uintptr_t pc, bool top, const asgst__hs_fc_entry *e);

/* N. Maps every page of the frame cache (at initialization, so that no walk takes the
 * page faults of its first touches). */
void asgst__hs_fc_prefault(void);

/* SS. True if a frame of the compiled blob interrupted at pc has its whole frame: it has a
 * frame size, pc is past the prologue and not at the start of an epilogue. Its sender is
 * then found by the frame size, as for a frame stopped at a call. */
bool asgst__hs_frame_complete_at(uintptr_t blob, uintptr_t pc);


#endif
