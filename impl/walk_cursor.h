/*
 * walk_cursor.h - what a backend reads and writes during a walk: the walked thread, the
 * physical frame it stands on, how deep it is, and the buffer its decoded frames go to.
 *
 * The iterator (api/iterator.h) embeds one cursor and owns everything else: what the
 * options mean for the caller, which frame is handed out next, the end and error states.
 * A backend's begin, decode, step and fill (impl/backend.h) take the cursor, never the
 * iterator, so a backend cannot depend on how the API hands frames out, and the API can
 * change that without touching a backend.
 */
#ifndef ASGST_IMPL_WALK_CURSOR_H
#define ASGST_IMPL_WALK_CURSOR_H

#include <stdint.h>

#include "asgst.h"
#include "native/cfi_epoch.h"

/* The most logical frames one physical frame can expand to (inlining depth + 1). Deeper
 * inlining is cut at the outermost end and the walk ends with ASGST_BAD_FRAME. */
#define ASGST__MAX_FRAMES_PER_PHYS 64
/* The logical frames a cursor buffers: physical frames are decoded in batches, one crash
 * guard and one pass through the backend per batch rather than per frame. Twice the most
 * one physical frame gives: each batch boundary costs a guard setup, a re-entry into the
 * backend and a frame cache lookup where a recursion would have copied the frame, and a
 * 240-frame walk crossed four of them with 64 (about 10% of its instructions). The price is
 * stack: the iterator lives on the walking handler's (asgst.h says how much). */
#define ASGST__PENDING_CAP (2 * ASGST__MAX_FRAMES_PER_PHYS)
/* decode() returns this when the frames of wc->cur do not fit in the room left in
 * wc->pending: the iterator hands out what it has and decodes wc->cur again into an empty
 * buffer (or, if the buffer was empty, ends the walk with ASGST_BAD_FRAME). Not an API
 * error code; never leaves the library. */
#define ASGST__NO_ROOM (-1000)
/* decode() may also take the following physical frames in a run of its own (stepping as
 * the batch loop does) and return, instead of 0: ASGST__DECODE_STEPPED, wc->cur is a
 * sender not decoded yet (the batch loop decodes it next, without a step), or
 * ASGST__DECODE_END, wc->cur is decoded and the stack ends below it. Never leave the
 * library. */
#define ASGST__DECODE_STEPPED 1
#define ASGST__DECODE_END 2
/* Bytes of per-walk scratch a backend may keep in the cursor (e.g. the next JavaFrame
 * anchor of a HotSpot thread). */
#define ASGST__BACKEND_SCRATCH 128

/* A physical frame position. lr is arm64's link register, meaningful only in a frame
 * interrupted by a signal (a callee that has not saved it yet keeps its return address
 * there): the first, or one a signal frame saved (impl/native/sigframe.h); 0 elsewhere
 * and on x86_64. */
typedef struct {
  uintptr_t pc;
  uintptr_t sp;
  uintptr_t fp;
  uintptr_t lr;
} asgst__regs;

/* The backend's view of the walked thread, captured on that thread (in its signal handler
 * for out-of-thread walks) by current_thread(). */
typedef struct {
  void *vm_thread;      /* backend thread object (JavaThread*), NULL for a non-VM thread */
  uintptr_t stack_base; /* highest address of the stack (exclusive), 0 if unknown */
  uintptr_t stack_limit;/* lowest usable address, 0 if unknown */
} asgst__thread;

/* One walk as a backend sees it. The fields before scratch are what every walk reads and
 * writes; they sit in front of the 6 KiB of pending[] so that they share cache lines (a
 * walk runs in a signal handler, with cold caches). */
typedef struct asgst__cursor {
  int32_t options;       /* the walk's option bits: ASGST_INCLUDE_NON_JAVA_FRAMES and the
                            internal ASGST__OPT_* bits (impl/backend.h) act in a backend */
  int32_t depth;         /* physical frames stepped so far */
  asgst__thread thread;
  asgst__regs cur;       /* the current physical frame */
  int32_t npending;      /* frames in pending[] */
  int32_t cur_decoded;   /* cur's frames are in pending (step before the next decode) */
  int32_t committed;     /* npending after the last complete decode (for the fault path) */
  int32_t batch_limit;   /* the frames the current batch stops at (decode may stop there too) */
  uintptr_t top_position; /* the top frame's position when its queue element was recorded
                             (backend.h frame_position), if has_top_position */
  int32_t has_top_position;
  int32_t thread_checked; /* current_thread() ran in this walk's guard, just before begin():
                             the thread was found alive, begin() need not read that again */
  uint32_t cfi_section;  /* the batch's reader section of the C frame tables, opened by the
                            backend's first use of them (asgst__cfi_section_open) */
  uint8_t scratch[ASGST__BACKEND_SCRATCH] __attribute__((aligned(16)));
  /* Decoded logical frames, innermost first, up to pending[npending]. Only frames the
   * options report are kept. */
  ASGST_Frame pending[ASGST__PENDING_CAP];
} asgst__cursor;

/* SS. Logical frames decode() may still append. */
static inline int asgst__room(const asgst__cursor *wc) { return ASGST__PENDING_CAP - wc->npending; }

/* SS. Empties the buffer and opens no section: the start of a batch. */
static inline void asgst__cursor_batch_start(asgst__cursor *wc) {
  wc->npending = 0;
  wc->committed = 0;
  wc->cfi_section = 0;
}

/* SS. Ends the batch's reader section of the C frame tables, if the backend opened one:
 * after the batch's crash guard, so that a fault, which comes back to the guard, ends it
 * too. Nothing the backend found in the tables outlives its batch. */
static inline void asgst__cursor_batch_end(asgst__cursor *wc) {
  asgst__cfi_section_close(&wc->cfi_section);
}

#endif
