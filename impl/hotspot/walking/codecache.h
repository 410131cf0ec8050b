/*
 * codecache.h - the code cache (codecache.c): which code is at a pc (the kind of frame,
 * its code blob), the interpreter's range and the call stub as learned, and forgetting
 * what was learned (the replay backend swaps the VM memory under it).
 */
#ifndef ASGST_HOTSPOT_CODECACHE_H
#define ASGST_HOTSPOT_CODECACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../backend.h"
#include "../../safe_read.h"

/* SS. Forgets the lazily learned code heaps, interpreter range and names (values: their
 * values too, only when no walk runs). */
void asgst__hs_codecache_forget(bool values);

/* What a physical frame is. */
enum {
  ASGST__HK_C = 0,     /* not in the code cache: C/C++ code (frame pointers) */
  ASGST__HK_INTERP,    /* template interpreter */
  ASGST__HK_NMETHOD,   /* compiled Java method (C1/C2) */
  ASGST__HK_NATIVE,    /* native method wrapper nmethod */
  ASGST__HK_STUB,      /* any other code blob: stubs, adapters, runtime blobs */
  ASGST__HK_ENTRY      /* the call stub at its return address: C called Java here */
};

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
/* SS. backend.h code_blob_name(): the name of the blob holding pc (its full length, at
 * most 256 bytes read), *blob its start; 0 if pc is in no live blob. Caller holds the guard. */
int asgst__hs_code_blob_name(uintptr_t pc, char *buf, int32_t len, uintptr_t *blob);
/* SS. backend.h may_be_blob(): false if pc lies outside every code heap as learned (true
 * before they are, and in recording walks, which must read what a lookup reads). */
bool asgst__hs_may_be_blob(uintptr_t pc);
/* SS. True if blob's name equals s (blob names are static strings of libjvm). */
bool asgst__hs_blob_named(uintptr_t blob, const char *s);

#endif
