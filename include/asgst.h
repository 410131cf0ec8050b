/*
 * asgst.h - AsyncGetStackTrace (ASGST) for stock HotSpot JVMs.
 *
 * The one public header of libasgst. It implements the ASGST API contract (the iterator,
 * method and class information, class unload handlers and per-thread safepoint queues of
 * the AsyncGetStackTrace proposal for OpenJDK) plus a few library extensions, marked below.
 * The contract is every function declared above the "Library extensions" line and not
 * marked "Extension": any implementation exports each of them, with the name and the
 * signature given here.
 *
 * Signal-safety classes, stated on every function:
 *   SS  async-signal-safe: callable from a signal handler. Never allocates, locks, prints,
 *       calls JVMTI or touches lazily allocated thread-local storage.
 *   SP  callable from a queue handler, which runs at a safepoint (real or emulated): may
 *       allocate memory and take locks, but never calls JVMTI.
 *   N   ordinary code.
 *
 * General rule: every walking and information function (ASGST_RunWithIterator*,
 * ASGST_NextFrame, ASGST_Get*Info, ...) is SS and reads VM memory only through guarded
 * loads, so a torn stack or an unloaded method ends a walk with an error code instead of
 * crashing the process.
 */
#ifndef ASGST_H
#define ASGST_H

#include <stdbool.h>
#include <stdint.h>
#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ASGST_EXPORT __attribute__((visibility("default")))
#else
#define ASGST_EXPORT
#endif

/* ---- Handles -------------------------------------------------------------------------
 * Opaque. On HotSpot an ASGST_Method holds a Method* of the VM and an ASGST_Class an
 * InstanceKlass*; neither needs a jmethodID to have been created. */
typedef struct _ASGST_Method *ASGST_Method;
typedef struct _ASGST_Class *ASGST_Class;
typedef struct _ASGST_Iterator ASGST_Iterator;
typedef struct _ASGST_Queue ASGST_Queue;

/* ---- Capabilities -------------------------------------------------------------------- */
enum ASGST_Capabilities {
  ASGST_REGISTER_QUEUE = 1, /* ASGST_RegisterQueue and friends work */
  ASGST_MARK_FRAME = 2      /* frame marking (not offered by this library) */
};

/* SS. The capability bits of this implementation. Functions whose bit is absent return
 * ASGST_UNSUPPORTED (or NULL/false where they return a pointer/bool). No bit outside
 * enum ASGST_Capabilities is ever set. */
ASGST_EXPORT int ASGST_Capabilities(void);

/* ---- Frames -------------------------------------------------------------------------- */
enum ASGST_FrameTypeId {
  ASGST_FRAME_JAVA = 1,         /* a physical frame, interpreted or JIT-compiled code */
  ASGST_FRAME_JAVA_INLINED = 2, /* a method the JIT inlined in a caller's compiled frame */
  ASGST_FRAME_JAVA_NATIVE = 3,  /* a Java native method's wrapper (Java calls C) */
  ASGST_FRAME_NON_JAVA = 4      /* C or C++ code, or a VM stub */
};

/* comp_level uses HotSpot's tier numbers: 1 to 3 are C1 code (1 when C1 compiles without
 * profiling, the only C1 level under -XX:TieredStopAtLevel=1) and 4 is C2 code. */
typedef struct {
  uint8_t type;        /* enum ASGST_FrameTypeId */
  int comp_level;      /* 0 for the interpreter, 1-4 the compilation tier, -1 when unknown */
  int bci;             /* -1 when there is none (native and non-Java frames) */
  ASGST_Method method; /* NULL when the frame has no method (non-Java frames) */
  void *pc;
  void *sp;            /* sp, fp can be NULL; inlined frames have their physical frame's */
  void *fp;
} ASGST_Frame;

/* ---- Options, trace kinds, errors ---------------------------------------------------- */
/* Without ASGST_INCLUDE_NON_JAVA_FRAMES a walk reports the Java frames (types 1-3) only;
 * with it, those same Java frames come in the same order, with C/stub frames among them. */
enum ASGST_Options {
  ASGST_INCLUDE_NON_JAVA_FRAMES = 1, /* also report C and stub frames */
  ASGST_END_ON_FIRST_JAVA_FRAME = 2  /* end once a bytecode-backed frame has been reported */
};

enum ASGST_TraceKind {
  ASGST_JAVA_TRACE = 1,    /* the thread is a Java thread */
  ASGST_NON_JAVA_TRACE = 2 /* a thread the VM does not know (only C frames) */
};

/*
 * Error codes. 0 and -1..-7 are the contract's; codes below -16 are this library's own.
 * Codes -8..-16 are never returned: an implementation's own codes all lie below -16.
 * One list generates the enum and ASGST_ErrorName.
 *   ASGST_NO_FRAME            end of the trace / nothing to report
 *   ASGST_NO_THREAD           no thread to walk (no current thread known to the backend)
 *   ASGST_THREAD_EXIT         the thread is exiting
 *   ASGST_UNSAFE_STATE        the thread is in a state where its stack cannot be walked
 *   ASGST_NO_TOP_JAVA_FRAME   the thread has no Java frame where one was required
 *   ASGST_ENQUEUE_*           enqueue failures
 *   ASGST_WALK_FAULTED        -17: a memory fault during the walk was caught and recovered
 *   ASGST_BAD_FRAME           -18: a frame failed a consistency check (pc/sp/fp invalid)
 *   ASGST_STACK_LOOP          -19: the stack does not grow toward its base or is too deep
 *   ASGST_NOT_INITIALIZED     -20: ASGST_Initialize has not succeeded (no backend active)
 *   ASGST_UNSUPPORTED_VM      -21: the JVM's layout is not supported (see InitializeError)
 *   ASGST_THREAD_NOT_ANSWERING -22: an out-of-thread target did not answer in time
 *   ASGST_THREAD_NOT_FOUND    -23: no such OS thread in this process
 *   ASGST_INVALID_ARGUMENT    -24: a NULL or out-of-range argument
 *   ASGST_UNSUPPORTED         -25: the function's capability is absent
 *   ASGST_STALE_FRAME         -26: a queue element's frame had left the stack
 *   ASGST_BUSY                -27: another out-of-thread walk or init is in progress
 *   ASGST_SIGNAL_NOT_DELIVERED -28: the signal to an out-of-thread target could not be
 *                             queued (the user's queued-signal quota, ulimit -i, is full)
 *   ASGST_INIT_PENDING        -29: ASGST_Initialize was called before the VM was live
 *                             (Agent_OnLoad); the binding completes at the VMInit event
 *                             (see ASGST_InitializeStatus, ASGST_SetInitializeCallback);
 *                             or, after ASGST_Initialize answered 0 in the live phase
 *                             with very many classes loaded, they are still being listed
 */
#define ASGST_ERROR_LIST(X)                 \
  X(ASGST_NO_FRAME, 0)                      \
  X(ASGST_NO_THREAD, -1)                    \
  X(ASGST_THREAD_EXIT, -2)                  \
  X(ASGST_UNSAFE_STATE, -3)                 \
  X(ASGST_NO_TOP_JAVA_FRAME, -4)            \
  X(ASGST_ENQUEUE_NO_QUEUE, -5)             \
  X(ASGST_ENQUEUE_FULL_QUEUE, -6)           \
  X(ASGST_ENQUEUE_OTHER_ERROR, -7)          \
  X(ASGST_WALK_FAULTED, -17)                \
  X(ASGST_BAD_FRAME, -18)                   \
  X(ASGST_STACK_LOOP, -19)                  \
  X(ASGST_NOT_INITIALIZED, -20)             \
  X(ASGST_UNSUPPORTED_VM, -21)              \
  X(ASGST_THREAD_NOT_ANSWERING, -22)        \
  X(ASGST_THREAD_NOT_FOUND, -23)            \
  X(ASGST_INVALID_ARGUMENT, -24)            \
  X(ASGST_UNSUPPORTED, -25)                 \
  X(ASGST_STALE_FRAME, -26)                 \
  X(ASGST_BUSY, -27)                        \
  X(ASGST_SIGNAL_NOT_DELIVERED, -28)        \
  X(ASGST_INIT_PENDING, -29)

#define ASGST__ERROR_ENUM(name, value) name = value,
enum ASGST_Error { ASGST_ERROR_LIST(ASGST__ERROR_ENUM) };
#undef ASGST__ERROR_ENUM

/* ---- Iterator ------------------------------------------------------------------------ */
typedef void (*ASGST_IteratorHandler)(ASGST_Iterator *it, void *arg);

/* SS. Builds an iterator for the stack described by `ucontext` (a ucontext_t* as passed to
 * an SA_SIGINFO handler; NULL stands for the calling thread at this point) on the caller's
 * stack, calls fun(it, arg) exactly once; the result is an error code (<= 0) or the trace
 * kind (> 0). When the iterator cannot be built, fun is still called once with an iterator
 * whose ASGST_State is that error, so handlers have one code path. The iterator must not
 * be used after fun returns. `options` is a bit set of enum ASGST_Options. The crash guard
 * needs SIGSEGV and SIGBUS deliverable: a signal handler that calls this must not block
 * them in its sa_mask (a blocked synchronous fault kills the process). The iterator takes
 * about 7 KiB of the caller's stack (most of it a buffer of 128 decoded frames, which
 * spares a deep walk the cost of refilling a smaller one), besides what fun uses: a
 * handler on an alternate signal stack needs that much room. */
ASGST_EXPORT int ASGST_RunWithIterator(void *ucontext, int32_t options,
                                       ASGST_IteratorHandler fun, void *arg);

/* SS. Same, starting at the given frame of the current thread. The frame is given by the
 * pc, sp and fp a thread stopped in it would have: a physical Java frame's as
 * ASGST_NextFrame reported them, say, or a C caller's as they will be once its callee
 * returns (pc the return address). */
ASGST_EXPORT int ASGST_RunWithIteratorFromFrame(void *sp, void *fp, void *pc, int32_t options,
                                                ASGST_IteratorHandler fun, void *arg);

/* SS. Returns 1 after filling *frame with the next frame, 0 when the walk is over, < 0 on
 * an error (and then zeroes every field of *frame). Order: callee before caller; the
 * methods inlined into a physical frame are reported ahead of it, innermost first, each
 * with the physical frame's comp_level, sp and fp. Once over, a walk keeps returning 0.
 * Never loops forever; every read is guarded. */
ASGST_EXPORT int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *frame);

/* SS. Resets the iterator to the frame it started at. */
ASGST_EXPORT void ASGST_RewindIterator(ASGST_Iterator *it);

/* SS. 1 when a following ASGST_NextFrame call would succeed, otherwise the value it would
 * return; NULL gives 0. */
ASGST_EXPORT int ASGST_State(ASGST_Iterator *it);

/* SS. The calling thread's state, expressed with some of JVMTI's thread state bits (each
 * with its JVMTI meaning); 0 for a thread the VM does not know (or not yet started), or an
 * error (< 0) when no backend is active. On HotSpot (docs/thread_states.md):
 *   running Java code or in the VM   ALIVE | RUNNABLE                           0x5
 *   in native code                   ALIVE | RUNNABLE | IN_NATIVE               0x400005
 *   entering a contended monitor     ALIVE | BLOCKED_ON_MONITOR_ENTER           0x401
 *   Object.wait() / wait(ms)         ALIVE | WAITING | IN_OBJECT_WAIT
 *                                      | WAITING_INDEFINITELY / _WITH_TIMEOUT   0x191 / 0x1a1
 *   Thread.sleep                     ALIVE | WAITING | WAITING_WITH_TIMEOUT
 *                                      | SLEEPING                               0xe1
 *   LockSupport.park / parkNanos     ALIVE | WAITING | PARKED
 *                                      | WAITING_INDEFINITELY / _WITH_TIMEOUT   0x291 / 0x2a1
 *   exiting                          TERMINATED                                 0x2
 * (a thread in native code keeps the bits of what it waits for, as JVMTI's GetThreadState
 * does). Where java.lang.Thread's status cannot be read (it is learned at binding; a
 * collector whose references are not plain addresses), the blocked kinds fall back to the
 * VM's monitor fields and sleeping or parked read ALIVE | WAITING: a caller that needs
 * the kind tests SLEEPING, PARKED, IN_OBJECT_WAIT rather than the whole value. Not the
 * JVMTI bits SUSPENDED, INTERRUPTED, VENDOR_*. */
ASGST_EXPORT int ASGST_ThreadState(void);

/* SS. Extension: the state (as ASGST_ThreadState) of the thread `it` walks. For a walk of
 * another thread (ASGST_RunWithIteratorOnThread) the target's, read in its own signal
 * handler as the walk began; for every other walk the calling thread's, now (which is
 * ASGST_ThreadState()). 0 for NULL or an iterator that could not be built. */
ASGST_EXPORT int ASGST_IteratorThreadState(ASGST_Iterator *it);

/* ---- Information on methods and classes (all SS) -------------------------------------- */
typedef struct {
  ASGST_Class klass;
  char *method_name;       jint method_name_length;      /* capacity in, length out */
  char *signature;         jint signature_length;
  char *generic_signature; jint generic_signature_length;
  jint modifiers;
  jint idnum;        /* numbered within its class; kept when the class is redefined */
  jlong class_idnum; /* kept when the class is redefined */
} ASGST_MethodInfo;

typedef struct {
  char *class_name;         jint class_name_length;
  char *generic_class_name; jint generic_class_name_length;
  jint modifiers;
  jlong idnum;
} ASGST_ClassInfo;

typedef struct {
  jint start_bci;
  jint line_number;
} ASGST_MethodLineNumberEntry;

/* Every string is cut to fit its capacity (the *_length field on input) and ends in a NUL;
 * on output *_length is the full length of the string (excluding the NUL), so a caller
 * can tell truncation (length >= capacity). A field whose buffer is NULL is not written
 * (its length is still reported). A field the VM cannot supply comes back as NULL with
 * length 0. Class names are given in internal form, with slashes ("java/lang/String").
 * An invalid or unloaded handle gives NULL/0 fields, never a crash. A NULL handle is such a
 * handle: ASGST_GetClass returns NULL, the line number table has no entry and every line
 * is -1. Names, signatures, generic signatures, Java modifier flags and line number
 * entries are those JVMTI reports for the same method or class (a class name is its JVMTI
 * signature without the leading 'L' and the trailing ';'). ASGST_GetMethodIdNum,
 * ASGST_GetClassIdNum and ASGST_GetClass return what the info structures hold (idnum,
 * class_idnum, klass); two methods of one class never share an idnum. */
ASGST_EXPORT void ASGST_GetMethodInfo(ASGST_Method m, ASGST_MethodInfo *info); /* SS */
ASGST_EXPORT void ASGST_GetClassInfo(ASGST_Class k, ASGST_ClassInfo *info);    /* SS */
ASGST_EXPORT jint ASGST_GetMethodIdNum(ASGST_Method m);                         /* SS */
ASGST_EXPORT jlong ASGST_GetClassIdNum(ASGST_Class k);                          /* SS */
ASGST_EXPORT ASGST_Class ASGST_GetClass(ASGST_Method m);                        /* SS */
/* SS. Copies up to `length` entries and returns the total number of entries (0 if none). */
ASGST_EXPORT int ASGST_GetMethodLineNumberTable(ASGST_Method m,
                                                ASGST_MethodLineNumberEntry *entries,
                                                int length);
/* SS. The source line of `bci`, -1 if unknown. */
ASGST_EXPORT jint ASGST_GetMethodLineNumber(ASGST_Method m, jint bci);

/* Conversions (N: not async-signal-safe). NULL when there is no counterpart. Converting one
 * way and back gives the same method or class (for a jclass, a reference to the same
 * object). */
ASGST_EXPORT jmethodID ASGST_MethodToJMethodID(ASGST_Method m);
ASGST_EXPORT ASGST_Method ASGST_JMethodIDToMethod(jmethodID id);
ASGST_EXPORT jclass ASGST_ClassToJClass(ASGST_Class k);
ASGST_EXPORT ASGST_Class ASGST_JClassToClass(jclass k);

/* ---- Unloading and redefinition of classes (N) --------------------------------------- */
/* Runs while the class's handles are still valid, with the class's methods. `redefined`
 * is true when the methods are old versions replaced by a redefinition (idnums survive).
 * More than one handler can be registered, and handlers can run at the same time. */
typedef void (*ASGST_ClassUnloadHandler)(ASGST_Class k, ASGST_Method *methods, int count,
                                         bool redefined, void *arg);
ASGST_EXPORT void ASGST_RegisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg);
/* Returns true if the (h, arg) pair was registered and is now removed. */
ASGST_EXPORT bool ASGST_DeregisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg);

/* ---- Safepoint queues (capability ASGST_REGISTER_QUEUE) ------------------------------ */
typedef struct {
  void *pc;
  void *fp;
  void *sp;
  void *arg;
} ASGST_QueueElement;

typedef struct {
  jint size;     /* elements now in the queue */
  jint capacity; /* current capacity */
  jint attempts; /* enqueue attempts (failed ones too) after the previous processing's end */
} ASGST_QueueSizeInfo;

typedef void (*ASGST_Handler)(ASGST_Iterator *it, void *queue_arg, void *element_arg);
typedef void (*ASGST_OnQueueSafepointHandler)(ASGST_Queue *q, ASGST_Iterator *it, void *arg);

/* N. Registers a queue of `size` elements owned by env's thread (the current thread when
 * env is NULL; env must be the calling thread's JNIEnv, another thread's is refused).
 * `fun` is called (SP) once per element at the thread's next safe point. Processing runs
 * the start hook, then fun for each element from the oldest to the youngest (with the
 * element's arg as it is by then), then the end hook, and leaves the queue empty.
 * `options` are the iterator options used for the element iterators. NULL on failure.
 * On HotSpot the library's thread "asgst-queues" processes the queue soon after an
 * enqueue: it suspends the owner (JVMTI SuspendThread; the owner stops at its next
 * safepoint poll, at once if it is in native code or blocked), runs the hooks and
 * handlers on itself, and resumes the owner. Handlers must therefore not wait for anything
 * the owner may hold. An element whose frame has left the stack (or been replaced by
 * another method's at the same place) gets an iterator whose state is ASGST_STALE_FRAME.
 * A thread that ends processes what its queues still hold before it goes. */
ASGST_EXPORT ASGST_Queue *ASGST_RegisterQueue(JNIEnv *env, int size, int options,
                                             ASGST_Handler fun, void *queue_arg);
/* N. Removes the queue; pending elements are dropped without calling handlers. */
ASGST_EXPORT bool ASGST_DeregisterQueue(JNIEnv *env, ASGST_Queue *q);
/* SS. Called from the owner thread, or while the owner is stopped: stores the topmost Java
 * frame of ucontext (NULL: here) with element_arg and asks for processing. The result is
 * the trace kind, or ASGST_ENQUEUE_NO_QUEUE (q NULL/deregistered), ASGST_ENQUEUE_FULL_QUEUE,
 * ASGST_ENQUEUE_OTHER_ERROR (no top frame). */
ASGST_EXPORT int ASGST_Enqueue(ASGST_Queue *q, void *ucontext, void *element_arg);
/* SS. Fills *e with the element ASGST_Enqueue would store here (arg NULL). Returns an
 * error code or the trace kind. */
ASGST_EXPORT int ASGST_GetEnqueuableElement(void *ucontext, ASGST_QueueElement *e);
/* SS. Element n of the queue, oldest first for n >= 0 (0 is the oldest) and youngest first
 * for n < 0 (-1 is the youngest); NULL when out of range. A caller may change the returned
 * element's arg (queue compression). */
ASGST_EXPORT ASGST_QueueElement *ASGST_GetQueueElement(ASGST_Queue *q, int n);
/* SS. The new capacity applies once the next processing is over. */
ASGST_EXPORT void ASGST_ResizeQueue(ASGST_Queue *q, int size);
/* SS. */
ASGST_EXPORT ASGST_QueueSizeInfo ASGST_GetQueueSizeInfo(ASGST_Queue *q);
/* N. Hooks called at processing start / end, only when the queue is non-empty. With
 * offer_iterator the hook gets an iterator over the thread's stack at the safe point
 * (built with `options`), else NULL. A NULL handler removes the hook. */
ASGST_EXPORT void ASGST_SetOnQueueProcessingStart(ASGST_Queue *q, int options,
                                                  bool offer_iterator,
                                                  ASGST_OnQueueSafepointHandler h, void *arg);
ASGST_EXPORT void ASGST_SetOnQueueProcessingEnd(ASGST_Queue *q, int options,
                                                bool offer_iterator,
                                                ASGST_OnQueueSafepointHandler h, void *arg);

/* ====================================================================================
 * Library extensions (not part of the ASGST proposal).
 * ==================================================================================== */

/* Extension: an ASGST_Initialize flag. A JDK newer than the newest this library was tested
 * on is refused by default; with this flag it is accepted when every required piece of the
 * model resolves and the self-check at initialization passes, and ASGST_DisabledFeatures()
 * then starts with "untested JDK N". Older or unknown JDKs are refused all the same. */
#define ASGST_INIT_UNTESTED_JDK 1

/* Extension: an ASGST_Initialize flag, opting in to real-time scheduling for safepoint
 * queues on JDK 17+ (off by default: without it the library changes no thread's policy,
 * priority or affinity). With it, a queue owner waiting in its signal handler for its
 * suspension runs at SCHED_FIFO 1 for at most 1 ms (a timer thread of the library puts it
 * back), the processing thread waits for owners at SCHED_FIFO 2 and keeps it until the
 * owner is resumed (so queue handlers and hooks run at it: they must not spin on what a
 * normal thread holds), then drops to its normal policy until it waits again, and the
 * processing threads keep off the waiting owner's CPU (affinity). It is used only where every one of the library's
 * threads reached its real-time priority; otherwise ASGST_DisabledFeatures() says why.
 * It lowers the stale share of queue elements on a machine with more busy threads than
 * CPUs; docs/queues.md has the measured figures. */
#define ASGST_INIT_REALTIME_QUEUES 2

/* Extension: an ASGST_Initialize flag. By default the library switches the VM flag
 * DebugNonSafepoints on (as async-profiler does): methods compiled afterwards carry debug
 * information at every pc, so inlined frames and bcis are exact at any sampled pc. With
 * this flag the VM's flags are left as they are; walks then report the debug information
 * of the nearest safepoint (coarser bcis in compiled frames) unless the JVM was started
 * with -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints. */
#define ASGST_INIT_KEEP_VM_FLAGS 4

/* N. Binds the library to the JVM of this process (from Agent_OnLoad, Agent_OnAttach,
 * VMInit or JNI_OnLoad). Works through a JVMTI environment of its own. Returns 0, or an
 * error code below -16 (ASGST_UNSUPPORTED_VM with the reason in ASGST_InitializeError()).
 * Calling it again after success is harmless and returns 0. `flags`: 0 or ASGST_INIT_*
 * bits; other bits are ASGST_INVALID_ARGUMENT.
 * Called before the VM is live (Agent_OnLoad), 0 means "accepted": the VM's tables and
 * version were checked, and the binding completes at the VMInit event of that JVMTI
 * environment, where the live self-check may still refuse the VM. Until then every
 * walk returns ASGST_INIT_PENDING. JVMTI does not order the VMInit callbacks of different
 * environments, so in the caller's own VMInit callback the binding may not be complete
 * yet: start sampling from ASGST_SetInitializeCallback's callback, or check
 * ASGST_InitializeStatus().
 * Called in the live phase (Agent_OnAttach, JNI_OnLoad, a VMInit callback), 0 means
 * bound. The classes already loaded are listed by a library thread, and the answer waits
 * for that listing for at most 2 ms, so that it does not grow with their number beyond
 * that: should the listing take longer (many classes, or a busy machine), walks and
 * ASGST_InitializeStatus() return ASGST_INIT_PENDING until it is done, the
 * ASGST_SetInitializeCallback callback runs when it is done, and ASGST_JClassToClass /
 * ASGST_JMethodIDToMethod wait for it. That keeps the unload handler promise for those
 * classes: none of them reaches the caller before it is listed, and from then on it
 * cannot unload unreported. */
ASGST_EXPORT int ASGST_Initialize(JavaVM *vm, int32_t flags);
/* N. Extension: where the binding stands: 0 bound (walks work); ASGST_INIT_PENDING
 * (completes at VMInit, or the classes loaded before a live-phase binding are still being
 * listed); ASGST_NOT_INITIALIZED (never initialized, or shut down); or the error with which
 * the last binding was refused, with its reason in ASGST_InitializeError() (a refusal at
 * VMInit included). */
ASGST_EXPORT int ASGST_InitializeStatus(void);
/* Called once with ASGST_InitializeStatus()'s final answer (0 or an error). */
typedef void (*ASGST_InitializeCallback)(int status, void *arg);
/* N. Extension: asks for cb(status, arg) once the binding's outcome is known, i.e. once
 * ASGST_InitializeStatus() no longer says ASGST_INIT_PENDING. A binding pending until
 * VMInit runs cb there, on the VMInit thread; a live-phase binding whose class listing
 * outlasted the answer runs it on the library's listing thread ("asgst-classes") when
 * the listing is done. Either way, on success walks work from cb on. Otherwise cb runs
 * before this call returns, with the current status. One callback at a time: a second
 * call replaces a pending one; cb NULL cancels it. */
ASGST_EXPORT void ASGST_SetInitializeCallback(ASGST_InitializeCallback cb, void *arg);
/* N. Why the last ASGST_Initialize failed ("" if it did not). */
ASGST_EXPORT const char *ASGST_InitializeError(void);
/* N. Unbinds from the JVM; walks afterwards return ASGST_NOT_INITIALIZED. */
ASGST_EXPORT void ASGST_Shutdown(void);
/* N. Extension: after a successful ASGST_Initialize, "" or the features switched off
 * because this VM lacks an optional piece, each with what is missing ("switching
 * DebugNonSafepoints on (no JVMFlag::flags); ..."). */
ASGST_EXPORT const char *ASGST_DisabledFeatures(void);

/* N on the walker side. Signals the OS thread `os_thread_id` of this process and keeps it
 * waiting in its signal handler; meanwhile fun(it, arg) walks the thread's stack (with the
 * crash guard on). After that the thread is released. Waits at most timeout_us for the
 * target to answer (<= 0: 100 ms). Returns an error (ASGST_THREAD_NOT_FOUND,
 * ASGST_THREAD_NOT_ANSWERING, ...) or the trace kind.
 * The calling thread may block every signal: SIGSEGV and SIGBUS are let through for the
 * walk's duration and its mask is put back before the call returns. */
ASGST_EXPORT int ASGST_RunWithIteratorOnThread(int64_t os_thread_id, int32_t options,
                                               int32_t timeout_us, ASGST_IteratorHandler fun,
                                               void *arg);
/* Extension, experimental: an option bit of ASGST_RunWithIteratorOnThread only (other
 * entry points ignore it). The target is held just long enough to copy its stack (from its
 * sp up, at most 1 MiB: a few microseconds), then released; fun walks the copy while the
 * target runs on. The frames' sp/fp stay the target's addresses. Everything but the stack
 * (code cache, metadata, the thread object) is read as it is by the time of the walk, so a
 * frame can be wrong or the walk end in an error, never in a crash. How often, measured:
 * tests/jvm/test_remote_walk.sh and ./build.sh fuzz print it. */
enum { ASGST_COPY_STACK = 1 << 16 };
/* SS. Extension: walks the stack of `ucontext` (not NULL) as ASGST_RunWithIterator would,
 * and writes a self-contained recording of that walk into buf: the registers, the frames
 * and their names and line numbers, the VM layout, and every page of memory the walk and
 * those metadata reads touched (a few KB to a few hundred KB). ASGST_ReplayWalk walks it
 * again later, in any process, without the JVM; the format is documented in
 * impl/record/format.h. Returns the recording's size, or an error: ASGST_INVALID_ARGUMENT
 * (bad argument, or buf too small), ASGST_BUSY (another recording runs), ASGST_UNSUPPORTED
 * (the active backend cannot be recorded). Slower than a walk (it copies every page). */
ASGST_EXPORT int64_t ASGST_RecordWalk(void *ucontext, int32_t options, void *buf, size_t cap);

/* N. Extension: walks a recording made by ASGST_RecordWalk again, with no JVM: maps the
 * recorded memory back at its addresses, builds the VM layout from it and runs
 * fun(it, arg) a single time, with an iterator at the recorded registers and options;
 * inside fun the method and class info accessors answer from the recording. Memory that
 * was not recorded faults (the walk ends with an error), never crashes. Returns the walk's
 * kind or an error, ASGST_ReplayError() says why: ASGST_INVALID_ARGUMENT (damaged,
 * truncated or of another format version), ASGST_BUSY (a JVM is bound in this process, or
 * a recorded address is already used here), ASGST_UNSUPPORTED_VM (its layout is not
 * supported). */
ASGST_EXPORT int ASGST_ReplayWalk(const void *recording, size_t len, ASGST_IteratorHandler fun,
                                  void *arg);
/* N. Extension: why the last ASGST_ReplayWalk failed ("" if it did not). */
ASGST_EXPORT const char *ASGST_ReplayError(void);

/* SS. Extension: the name the VM gives the code blob (JIT code cache) holding `pc`, for
 * naming the ASGST_FRAME_NON_JAVA frames that are VM-generated code rather than C code of
 * a library: "StubRoutines (1)" (the blob of the call stub and other stub routines; named
 * by generation phase on newer JDKs: "StubRoutines (initial stubs)" on 21,
 * "StubRoutines (initialstubs)" on 25), "I2C/C2I adapters", "vtable chunks",
 * "RuntimeStub - _new_array_Java", "SafepointBlob"... as the VM spells them.
 * Java code answers too ("Interpreter", "nmethod", "native nmethod"), but its frames are
 * Java frames already. Call it where the frame was taken (in the signal handler): a blob
 * may be freed later, and its address reused. It costs one code cache lookup (a few
 * loads) and the copy; no walk. Copies the name into buf (capacity len, truncated and
 * NUL-terminated; buf may be NULL when len is 0) and returns its full length (> 0; >= len
 * means truncated). *blob, if blob is not NULL, gets the blob's start: the same for every
 * pc in the blob, a key to keep each blob's name once (NULL when the result is not > 0).
 * Returns 0 if pc lies in no code blob (C code, or a freed blob), or an error:
 * ASGST_INVALID_ARGUMENT (pc NULL, len < 0, buf NULL with len > 0),
 * ASGST_NOT_INITIALIZED (no backend), ASGST_UNSUPPORTED (the active backend has no code
 * cache: the synthetic VM, a replayed recording), ASGST_WALK_FAULTED (a read faulted under
 * the crash guard). */
ASGST_EXPORT int ASGST_GetCodeBlobName(const void *pc, char *buf, int32_t len,
                                       const void **blob);

/* SS. "ASGST_NO_FRAME", ..., "ASGST_UNKNOWN_ERROR" for codes not in the list. */
ASGST_EXPORT const char *ASGST_ErrorName(int code);

/* N/SP. The calling thread declares this point safe and processes its own queues now:
   start hook, the handler for each element from the oldest on, end hook, elements removed,
   pending resize applied. Returns the number of elements handled, or an error. */
ASGST_EXPORT int ASGST_ProcessQueues(void);

/* Function-pointer typedefs so that callers can resolve the API with dlsym. */
typedef int (*ASGST_RunWithIterator_t)(void *, int32_t, ASGST_IteratorHandler, void *);
typedef int (*ASGST_NextFrame_t)(ASGST_Iterator *, ASGST_Frame *);
typedef int (*ASGST_Initialize_t)(JavaVM *, int32_t);
typedef int (*ASGST_InitializeStatus_t)(void);

#ifdef __cplusplus
}
#endif

#endif /* ASGST_H */
