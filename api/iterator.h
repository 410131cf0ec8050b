/*
 * iterator.h - what an ASGST_Iterator is, and what its options mean to the caller.
 *
 * An iterator is a walk cursor (impl/walk_cursor.h), which the backend moves and fills
 * with decoded frames batch by batch, plus what only the API knows: the backend walking
 * it, which buffered frame NextFrame hands out next, and the walk's outcome.
 *
 * The options, as the API applies them:
 *  - ASGST_INCLUDE_NON_JAVA_FRAMES: C frames are reported. A backend's decode makes a C
 *    frame only with it (it knows when it makes one; a test here would reload the newest
 *    frame on every physical frame), so the bit travels in the cursor.
 *  - ASGST_END_ON_FIRST_JAVA_FRAME: the walk ends after the first Java frame it hands
 *    out. The API asks the backend for batches of one frame, and NextFrame ends the walk
 *    (ASGST_NO_FRAME) once it has handed out a frame of bytecode.
 *  - The internal ASGST__OPT_* bits (impl/backend.h, impl/test_build.h) only change how a
 *    backend reads frames; the API passes them on.
 * The outcome: state is 1 while frames may follow, 0 at the end, an error code (< 0)
 * otherwise, and kind the trace kind begin() found (> 0) or the error that stopped it.
 */
#ifndef ASGST_API_ITERATOR_H
#define ASGST_API_ITERATOR_H

#include "asgst.h"
#include "../impl/backend.h"

struct _ASGST_Iterator {
  const struct asgst__backend *be;
  int32_t kind;          /* trace kind found by begin() (> 0) */
  int32_t state;         /* 1: frames may follow; 0: end; < 0: error */
  asgst__regs top;       /* the registers the walk starts from (begin() runs again on rewind) */
  /* In bytes, not frames: NextFrame's fast path then needs no multiply (a frame is 48
   * bytes), a few instructions of every frame's twenty. */
  uint32_t next_off;
  uint32_t fast_end_off; /* NextFrame hands out the frame at next_off unchecked while next_off < this */
  int32_t end;           /* what follows the buffered frames: 1 more frames, else end/error */
  int32_t walked_state;  /* out-of-thread walks: the target's thread state, read in its
                            handler (ASGST_IteratorThreadState); 0: the walker is the walked */
  /* Last: its frame buffer ends the struct, behind every field a walk touches. */
  asgst__cursor wc;
};

#endif
