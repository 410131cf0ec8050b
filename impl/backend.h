/*
 * backend.h - the boundary between the VM-independent API (api/) and the code that knows
 * how frames of one kind of VM are laid out (impl/hotspot, impl/synthetic).
 *
 * One table of callbacks, in the manner of libunwind's accessors. The API layer owns the
 * iterator (api/iterator.h): what the options mean, the crash guard, handing frames out and
 * rewinding; a backend moves a walk cursor (walk_cursor.h) and only answers four
 * questions: where does a stack start, what is the frame at this position, where is its
 * sender, and what does this method/class look like. Every callback marked SS must be
 * async-signal-safe and must read VM memory only through impl/safe_read.h (a fault inside a
 * guarded walk is turned into ASGST_WALK_FAULTED by impl/guard.c anyway).
 */
#ifndef ASGST_IMPL_BACKEND_H
#define ASGST_IMPL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "asgst.h"
#include "walk_cursor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function of the walk's hot path: GCC groups them in .text.hot, so the code a
 * walk runs shares fewer cache lines and pages (a walk starts with cold caches: it runs in
 * a signal handler between stretches of the profiled program). */
#define ASGST__HOT __attribute__((hot))

typedef struct asgst__backend {
  const char *name;

  /* SS. Fill *t for the calling thread (may be a thread the VM does not know). Returns
   * ASGST_JAVA_TRACE, ASGST_NON_JAVA_TRACE or an error (ASGST_THREAD_EXIT, ...). */
  int (*current_thread)(asgst__thread *t);

  /* SS, optional. current_thread() without a crash guard of its own, for a walk of the
   * calling thread that runs it under the guard of its first batch (api/iterator.c): one
   * sigsetjmp per walk instead of two. A fault inside goes to the caller's guard. */
  int (*current_thread_unguarded)(asgst__thread *t);

  /* SS, optional. Starts loading what the walk from *top will read first, before the
   * thread lookup: its misses then overlap the lookup's instead of following them. */
  void (*prefetch)(const asgst__regs *top);

  /* SS. Prepare a walk of wc->thread starting at *top (registers from a ucontext or given
   * by the caller). Sets wc->cur (possibly different from *top, e.g. from the thread's last
   * Java frame anchor when the top is in VM code) and its scratch. Returns the trace kind or
   * an error. */
  int (*begin)(asgst__cursor *wc, const asgst__regs *top);

  /* SS. Decode the physical frame at wc->cur, appending its logical frames (innermost
   * first; a C frame gives exactly one ASGST_FRAME_NON_JAVA frame, and only with
   * ASGST_INCLUDE_NON_JAVA_FRAMES, none otherwise) at
   * wc->pending[wc->npending], at most asgst__room(wc) of them, and advance wc->npending.
   * Returns 0, ASGST__NO_ROOM (nothing appended), ASGST__DECODE_STEPPED or
   * ASGST__DECODE_END (above) or an error. It may also take the
   * following physical frames when it can prove them (a recursion), stepping wc->cur and
   * wc->depth as the batch loop would and storing wc->committed after each; it stops at
   * wc->batch_limit frames. */
  int (*decode)(asgst__cursor *wc);

  /* SS. Move wc->cur to the sender of the current frame. Returns 1 if there is one, 0 at
   * the bottom of the stack, or an error when the step cannot be proven. */
  int (*step)(asgst__cursor *wc);

  /* SS. A batch of the walk: asgst__fill_loop (impl/fill_loop.h) over this backend's
   * decode and step, instantiated where the compiler can inline them. Called under the
   * crash guard. */
  int (*fill)(asgst__cursor *wc, int limit);

  /* SS. Find the top Java frame from *top for a queue element (pc/sp/fp of the physical
   * frame) and the next ncallers physical Java frames below it (callers[0] its sender;
   * 0/0 past the stack's end), by the same walk. *out is written as soon as it is known,
   * each caller as it is found. *direct (if not NULL): callers[0] is the frame's own
   * physical sender, the frame returns straight into it (not a Java frame below C or entry
   * frames: a frame the VM called). Returns the kind or an error. May be NULL: the API
   * then walks with decode/step. */
  int (*top_java_frame)(const asgst__thread *t, const asgst__regs *top, asgst__regs *out,
                        asgst__regs *callers, int ncallers, bool *direct);

  /* SS metadata accessors. Strings are copied with asgst__copy_string semantics. */
  void (*method_info)(ASGST_Method m, ASGST_MethodInfo *info);
  void (*class_info)(ASGST_Class k, ASGST_ClassInfo *info);
  ASGST_Class (*method_class)(ASGST_Method m);
  jint (*method_idnum)(ASGST_Method m);
  jlong (*class_idnum)(ASGST_Class k);
  /* Copies entries [offset, offset + length) of the line number table into e and returns
   * the total number of entries. */
  int (*line_table)(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e, int length);

  /* SS, optional (NULL: ASGST_GetCodeBlobName answers ASGST_UNSUPPORTED). The name of the
   * code blob holding pc into buf (asgst__copy_string semantics on capacity len), its full
   * length, and the blob's start in *blob; 0 if pc is in no blob. Called under the guard. */
  int (*code_blob_name)(uintptr_t pc, char *buf, int32_t len, uintptr_t *blob);
  /* SS, optional. False if pc is surely in no code blob, answered from the backend's own
   * memory (no VM read, so no guard needed): lets ASGST_GetCodeBlobName answer C code of
   * libraries, most frames a caller asks about, without setting up the guard. */
  bool (*may_be_blob)(uintptr_t pc);

  /* SS. JVMTI thread state bits of the current thread (0 for non-VM threads). */
  int (*thread_state)(void);

  /* N. Binds a queue being registered to the thread of env (the calling thread's JNIEnv,
   * or NULL for the calling thread): *owner gets what the backend needs to bring that
   * thread to a safe point later and process its queues there. 0 or an error
   * (ASGST_INVALID_ARGUMENT for another thread's env). May be NULL: the owner then
   * processes its queues itself (ASGST_ProcessQueues). */
  int (*queue_bind)(JNIEnv *env, void **owner);
  /* N. Releases what queue_bind gave. */
  void (*queue_unbind)(void *owner);
  /* SS. What a queue element's frame at r is, to tell at processing time whether the frame
   * found at the same place is still the same one (e.g. the Method* of an interpreted
   * frame, the code blob of a compiled one); 0 if unknown. May be NULL. */
  uintptr_t (*frame_identity)(const asgst__regs *r);
  /* SS, optional. Where the frame at r stands in its method, where the frame's own memory
   * says so and it moves on as the frame runs (an interpreted frame's bcp slot); 0 if
   * not (false). Noted with a queue element so that its iterator reports the frame's
   * position at the sample, not at the safe point: decode then uses wc->top_position for
   * the top frame. */
  bool (*frame_position)(const asgst__regs *r, uintptr_t *pos);

  /* SS. The ASGST_Capabilities bits this backend offers. May be NULL: all of them. */
  int (*capabilities)(void);

  /* SS. The VM layout as text for a recording (impl/record/format.h), NULL (and
   * ASGST_RecordWalk answers ASGST_UNSUPPORTED) if the backend's walks cannot be recorded. */
  const char *(*layout_text)(size_t *len);

  /* N conversions; may be NULL (then the API returns NULL). */
  jmethodID (*to_jmethodid)(ASGST_Method m);
  ASGST_Method (*from_jmethodid)(jmethodID id);
  jclass (*to_jclass)(ASGST_Class k);
  ASGST_Class (*from_jclass)(jclass k);
} asgst__backend;

/* The active backend (set by ASGST_Initialize or by the synthetic VM), NULL if none.
 * Read with an acquire load from signal handlers. */
const asgst__backend *asgst__active_backend(void);                     /* SS */
void asgst__set_backend(const asgst__backend *be);                    /* N */
/* Makes `to` active if `from` still is (a binding may have been undone meanwhile); false
 * if another backend (or none) is active. */
bool asgst__replace_backend(const asgst__backend *from, const asgst__backend *to); /* N */
/* The error a call needing a backend returns while none is active: ASGST_NOT_INITIALIZED,
 * or ASGST_INIT_PENDING while a binding waits for VMInit. */
int asgst__unbound_error(void);                                        /* SS */
void asgst__set_unbound_error(int code);                               /* N */

/* An option bit of the recording and replay walks: the walk uses only what a recording
 * holds, VM memory. So no frame cache (a hit skips the reads that decode a frame, which a
 * recording must hold and a replay must do), and no C frame tables (impl/native: they are
 * built from the libraries of the walking process, which a replay does not have); C frames
 * are stepped by frame pointer alone. */
#define ASGST__OPT_REPLAYABLE (1 << 29)
/* An option bit of queue processing: the walk starts exactly at the given registers, a
 * frame recorded earlier (a queue element's), as at an interrupted pc, even though the
 * thread (stopped now) has a last Java frame anchor elsewhere. */
#define ASGST__OPT_RECORDED_TOP (1 << 28)
/* With ASGST__OPT_RECORDED_TOP: the recorded frame was stopped at a call (the thread's
 * frame anchor or a return address), not interrupted, so its debug information is looked
 * up as at an anchor. */
#define ASGST__OPT_RECORDED_AT_CALL (1 << 27)
/* Bits 30 and 26 are the test build's (impl/test_build.h). */

/* ---- Binding to a live JVM: implemented by the HotSpot backend (hotspot_init.c), called
 * by api/initialize.c, so that api/ knows no backend by name. All N. ---- */
/* Binds to the JVM (see ASGST_Initialize). 0, or an error < -16. */
int asgst__bind_jvm(JavaVM *vm, int32_t flags);
/* The reason of the last failure, a note while binding waits for VMInit, else "". */
const char *asgst__bind_error(void);
/* Features switched off for missing optional pieces of the bound VM ("" if none). */
const char *asgst__bind_features_off(void);
/* Unbinds: no backend, the backend's JVMTI environment disposed. */
void asgst__unbind_jvm(void);
/* ASGST_InitializeStatus's answer. */
int asgst__bind_status(void);
/* Asks for cb(status, arg) once the outcome of a pending binding is known (at once if none
 * is pending); NULL cancels. */
void asgst__bind_on_outcome(ASGST_InitializeCallback cb, void *arg);

/* SS. Copy `len` bytes of `src` (not NUL-terminated) into the caller's buffer of capacity
 * *cap, truncating and NUL-terminating; set *cap to len. A NULL dst only reports len. */
void asgst__copy_string(char *dst, jint *cap, const char *src, size_t len);
/* SS. Empties every output field of *info (strings become "", lengths 0). */
void asgst__clear_method_info(ASGST_MethodInfo *info);

#ifdef __cplusplus
}
#endif

#endif
