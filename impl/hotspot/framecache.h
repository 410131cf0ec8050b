/*
 * framecache.h - a process-wide cache of decoded compiled frames (framecache.c).
 */
#ifndef ASGST_HOTSPOT_FRAMECACHE_H
#define ASGST_HOTSPOT_FRAMECACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "asgst.h"
#include "../backend.h"

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

#endif
