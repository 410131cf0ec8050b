/*
 * scopes.h - the logical frames (inlined methods) of a compiled frame, from its debug
 * information (scopes.c).
 */
#ifndef ASGST_HOTSPOT_SCOPES_H
#define ASGST_HOTSPOT_SCOPES_H

#include <stdbool.h>
#include <stdint.h>

#include "asgst.h"
#include "../../backend.h"

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

/* SS. asgst__hs_scopes, and in *at_pc whether a PcDesc lies at exactly pc (true where
 * that is not known: a bad read). */
int asgst__hs_scopes_at(uintptr_t nm, uintptr_t pc, int mode, ASGST_Frame *out, int max, bool *at_pc);

#endif
