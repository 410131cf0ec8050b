/*
 * walker.h - the HotSpot stack walker (x86_64): the begin/decode/step/
 * top_java_frame callbacks of the hotspot backend table (impl/backend.h).
 *
 * The walker knows frames: interpreted, compiled (C1/C2, with inlined scopes), native
 * method wrappers, stubs and runtime blobs, entry frames (C calling Java) and C frames
 * between and below Java frames. Method and class metadata belong to the backend
 * (hotspot_backend.c); the walker only reports Method* values.
 *
 * It knows no JDK version: every field and version-specific fact comes from the HotSpot
 * model (vm_model.h), built once at ASGST_Initialize.
 */
#ifndef ASGST_HOTSPOT_WALKER_H
#define ASGST_HOTSPOT_WALKER_H

#include <stddef.h>

#include "../../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SS. backend.h begin(): wc->thread.vm_thread is the walked JavaThread* (NULL for a thread
 * the VM does not know). Returns ASGST_JAVA_TRACE, ASGST_NON_JAVA_TRACE or an error. */
int asgst__hs_begin(asgst__cursor *wc, const asgst__regs *top);

/* SS. backend.h decode(). */
int asgst__hs_decode(asgst__cursor *wc);

/* SS. backend.h step(). */
int asgst__hs_step(asgst__cursor *wc);

/* SS. backend.h fill(): the batch loop over decode and step, inlined. */
int asgst__hs_fill(asgst__cursor *wc, int limit);

/* SS. backend.h top_java_frame(): the physical frame (pc/sp/fp) of the top Java frame,
 * the next ncallers physical Java frames', and whether the first of them is its own
 * physical sender. */
int asgst__hs_top_java_frame(const asgst__thread *t, const asgst__regs *top, asgst__regs *out,
                             asgst__regs *callers, int ncallers, bool *direct);

/* SS (under the guard). The last Java frame of thread t from its frame anchor (a thread
 * stopped in the VM has one); false if it has none. */
bool asgst__hs_last_java_frame(const asgst__thread *t, asgst__regs *out);
/* SS (under the guard). backend.h frame_identity(): the Method* of an interpreted frame,
 * the nmethod of a compiled or native frame, 0 otherwise. */
uintptr_t asgst__hs_frame_identity(const asgst__regs *r);
/* SS. backend.h frame_position(). */
bool asgst__hs_frame_position(const asgst__regs *r, uintptr_t *pos);

#ifdef __cplusplus
}
#endif

#endif
