/*
 * asgst_synthetic.h - a synthetic VM for tests: drive the ASGST API without a JVM.
 *
 * A synthetic VM holds classes, methods and code blobs (real mmap'd address ranges), and
 * builds real stack memory in which frames follow the x86_64 frame-pointer convention:
 * fp[0] is the caller's fp, fp[1] the return pc, and the caller's sp is fp + 16. Activating
 * a VM makes it the library's backend, so ASGST_RunWithIterator and every accessor of
 * asgst.h work over it exactly as over a JVM.
 *
 * How the synthetic backend sees memory:
 *   - a pc inside an interpreter blob is an interpreted frame: its Method* is at fp[-1] and
 *     its bci at fp[-2] (comp_level 0);
 *   - a pc inside a compiled blob is a compiled frame of the blob's tier; its scopes
 *     (inlining chain, innermost first) come from the scope entry with the greatest pc
 *     offset <= the pc's offset (the blob's root method with bci -1 if there is none);
 *   - a pc inside a native wrapper is an ASGST_FRAME_JAVA_NATIVE frame (bci -1,
 *     comp_level 0 like HotSpot's native wrapper nmethods);
 *   - a pc inside a stub or outside every blob is an ASGST_FRAME_NON_JAVA frame.
 * Every frame is stepped through the fp chain; the walk ends at fp == 0 or return pc == 0.
 * A C frame whose fp cannot belong to it (below its sp, misaligned, implausible) also ends
 * the walk normally, since C code without frame pointers cannot be followed; the same in
 * a Java frame is an error (ASGST_BAD_FRAME). So the backend also walks real C stacks of
 * live threads (as NON_JAVA frames).
 *
 * Threads: the calling thread's trace kind is ASGST_JAVA_TRACE after
 * ASGST_SynthAttachThread, else ASGST_NON_JAVA_TRACE (frames are decoded the same way).
 * Stack bounds are not known (0).
 *
 * Signal safety: building (declare, push, unload, ...) is N; walking and the accessors of
 * asgst.h are SS as everywhere. Declarations may run while other threads walk (tables are
 * append-only and published with release stores), but a stack must not be modified while
 * it is being walked unless the test wants a torn stack.
 */
#ifndef ASGST_SYNTHETIC_H
#define ASGST_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "asgst.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ASGST_SynthVM ASGST_SynthVM;
typedef struct ASGST_SynthBlob ASGST_SynthBlob;
typedef struct ASGST_SynthStack ASGST_SynthStack;

/* One level of an inlining chain: the method and its bci. */
typedef struct {
  ASGST_Method method;
  jint bci;
} ASGST_SynthScope;

/* ---- VM ------------------------------------------------------------------------------ */
/* N. A new, inactive VM (with its interpreter blob); NULL on failure. */
ASGST_EXPORT ASGST_SynthVM *ASGST_SynthCreateVM(void);
/* N. Makes vm the library's active backend and installs the crash guard. 0 or an error. */
ASGST_EXPORT int ASGST_SynthActivate(ASGST_SynthVM *vm);
/* N. Frees the VM with its classes, methods, blobs and stacks' bookkeeping (stacks must be
 * destroyed by the caller first). If it is active, the library has no backend afterwards. */
ASGST_EXPORT void ASGST_SynthDestroyVM(ASGST_SynthVM *vm);
/* N. The calling thread becomes a "Java" thread of vm (ASGST_JAVA_TRACE, thread state
 * ALIVE|RUNNABLE). 0 or ASGST_INVALID_ARGUMENT. */
ASGST_EXPORT int ASGST_SynthAttachThread(ASGST_SynthVM *vm);
/* N. The calling thread is no Java thread any more. */
ASGST_EXPORT void ASGST_SynthDetachThread(void);

/* ---- Classes and methods (N) --------------------------------------------------------- */
/* A class with its internal name ("com/x/Foo"), generic signature (may be NULL),
 * modifiers and idnum. NULL on failure. */
ASGST_EXPORT ASGST_Class ASGST_SynthDeclareClass(ASGST_SynthVM *vm, const char *name,
                                                 const char *generic_name, jint modifiers,
                                                 jlong idnum);
/* A method of k. generic_signature may be NULL; `lines` (nlines entries, may be NULL) is
 * copied. NULL on failure. */
ASGST_EXPORT ASGST_Method ASGST_SynthDeclareMethod(ASGST_SynthVM *vm, ASGST_Class k,
                                                   const char *name, const char *signature,
                                                   const char *generic_signature,
                                                   jint modifiers, jint idnum,
                                                   const ASGST_MethodLineNumberEntry *lines,
                                                   int nlines);
/* Unloads k: calls the class unload handlers with its methods (redefined = false), then
 * invalidates k and its methods (their handles stay readable: empty info, no crash, until
 * the VM is destroyed). 0 or ASGST_INVALID_ARGUMENT. */
ASGST_EXPORT int ASGST_SynthUnloadClass(ASGST_SynthVM *vm, ASGST_Class k);
/* Redefines k: calls the handlers with its current methods (redefined = true), invalidates
 * them and gives k new methods with the same names, signatures, idnums and line tables.
 * Up to `capacity` new handles are stored in new_methods (in declaration order); returns
 * the number of methods or ASGST_INVALID_ARGUMENT. */
ASGST_EXPORT int ASGST_SynthRedefineClass(ASGST_SynthVM *vm, ASGST_Class k,
                                          ASGST_Method *new_methods, int capacity);

/* ---- Code blobs (N) ------------------------------------------------------------------ */
/* The VM's interpreter blob (one per VM). */
ASGST_EXPORT ASGST_SynthBlob *ASGST_SynthInterpreter(ASGST_SynthVM *vm);
/* A compiled method of `root` at tier 1-4 with `size` bytes of code. NULL on failure. */
ASGST_EXPORT ASGST_SynthBlob *ASGST_SynthDeclareCompiled(ASGST_SynthVM *vm, ASGST_Method root,
                                                         int tier, size_t size);
/* Scopes of the compiled blob's pc `pc_offset`: scopes[0] is the innermost (the inlined
 * method executing), scopes[n-1] the root. 0, or ASGST_INVALID_ARGUMENT (not a compiled
 * blob, n < 1 or too deep, offset outside the blob, table full). */
ASGST_EXPORT int ASGST_SynthAddScopes(ASGST_SynthBlob *b, size_t pc_offset,
                                      const ASGST_SynthScope *scopes, int n);
/* A native method wrapper of m. NULL on failure. */
ASGST_EXPORT ASGST_SynthBlob *ASGST_SynthDeclareNativeWrapper(ASGST_SynthVM *vm,
                                                              ASGST_Method m);
/* A stub (non-Java code inside the VM's code cache). NULL on failure. */
ASGST_EXPORT ASGST_SynthBlob *ASGST_SynthDeclareStub(ASGST_SynthVM *vm, size_t size);
/* The blob's first code address. */
ASGST_EXPORT void *ASGST_SynthBlobStart(const ASGST_SynthBlob *b);

/* ---- Stacks (N) ---------------------------------------------------------------------- */
/* A stack region of at least `size` bytes with a PROT_NONE guard page below and above.
 * Frames are pushed from the bottom (outermost caller) up. NULL on failure. */
ASGST_EXPORT ASGST_SynthStack *ASGST_SynthCreateStack(ASGST_SynthVM *vm, size_t size);
ASGST_EXPORT void ASGST_SynthDestroyStack(ASGST_SynthStack *s);

/* Each push returns the new frame's index (0 = bottom) or ASGST_INVALID_ARGUMENT (stack
 * full, bad blob). The pushed frame becomes the top; its pc is what the ucontext (or the
 * next pushed frame's return address) holds. */
ASGST_EXPORT int ASGST_SynthPushInterpreted(ASGST_SynthStack *s, ASGST_Method m, jint bci);
ASGST_EXPORT int ASGST_SynthPushCompiled(ASGST_SynthStack *s, ASGST_SynthBlob *b,
                                         size_t pc_offset);
ASGST_EXPORT int ASGST_SynthPushNative(ASGST_SynthStack *s, ASGST_SynthBlob *wrapper);
ASGST_EXPORT int ASGST_SynthPushStub(ASGST_SynthStack *s, ASGST_SynthBlob *stub,
                                     size_t pc_offset);
/* A C frame at `pc`, which must lie outside every blob (NULL: a pc inside this library's
 * code). */
ASGST_EXPORT int ASGST_SynthPushC(ASGST_SynthStack *s, const void *pc);

/* Number of frames pushed. */
ASGST_EXPORT int ASGST_SynthFrameCount(const ASGST_SynthStack *s);
/* Registers of frame i (0 = bottom); NULL for an index out of range. Tests corrupt a
 * frame by writing through its fp: ((uintptr_t *)fp)[0] is the caller's fp, [1] the
 * return pc, [-1]/[-2] an interpreted frame's Method* and bci. */
ASGST_EXPORT void *ASGST_SynthFramePc(const ASGST_SynthStack *s, int i);
ASGST_EXPORT void *ASGST_SynthFrameSp(const ASGST_SynthStack *s, int i);
ASGST_EXPORT void *ASGST_SynthFrameFp(const ASGST_SynthStack *s, int i);
/* Fills uc (zeroed first) with RIP/RSP/RBP of the top frame. 0, or ASGST_NO_FRAME for an
 * empty stack. */
ASGST_EXPORT int ASGST_SynthContext(const ASGST_SynthStack *s, ucontext_t *uc);

/* ---- Addresses for corruption tests (N) ---------------------------------------------- */
/* The stack's PROT_NONE guard page below (upper = 0) or above (upper != 0) the region. */
ASGST_EXPORT void *ASGST_SynthGuardPage(const ASGST_SynthStack *s, int upper);
/* A page-aligned, plausible user address that is not mapped (checked with mincore when
 * called); NULL if none was found. */
ASGST_EXPORT void *ASGST_SynthUnmappedAddress(void);

#ifdef __cplusplus
}
#endif

#endif
