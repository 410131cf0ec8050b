/*
 * queue.h - what the safepoint queue files (api/queue_*.c) share, and the hooks a VM
 * backend's processing code uses.
 *
 * A queue is a fixed-capacity ring of ASGST_QueueElement with one producer (ASGST_Enqueue,
 * normally the owner thread's signal handler) and one consumer (processing). head and
 * tail count elements ever removed / ever added; the element n lives at
 * ring->elems[n % capacity]. Only the producer moves tail and only the consumer moves head,
 * so neither needs a lock.
 *
 * The consumer sometimes has to keep producers and readers out of the ring altogether
 * (swapping in a resized ring, freeing it at deregistration). It raises `resizing` (or
 * `dead`) and waits until `producing` and `readers` are zero; producers and readers first
 * announce themselves and then check the flags, all with sequentially consistent atomics,
 * so one side always sees the other (the Dekker pattern). A producer or reader that finds a
 * flag raised gives up instead of waiting, which keeps them async-signal-safe even when
 * they interrupt the consumer on the same thread.
 */
#ifndef ASGST_API_QUEUE_H
#define ASGST_API_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"

/* A start or end hook. */
typedef struct {
  ASGST_OnQueueSafepointHandler h; /* NULL: no hook */
  void *arg;
  int options;
  bool offer_iterator;
} asgst__queue_hook;

/* The physical Java frames below an element's own whose places a stale check compares:
 * its sender and the next ones. A frame popped and replaced at the same place by the same
 * method, called from the same place of a sender that was itself replaced, has the same
 * sender position; the frames further down tell (seen on JDK 11, where owners run on for
 * milliseconds: 0.6-1.3% of the stacks of a recursion with several call sites). */
#define ASGST__CALLERS 4

/* What the stale check of an element needs, noted at enqueue time: the backend's identity
 * of its frame (bit 0: the frame was stopped at a call, see asgst__queue_capture) and its
 * callers' positions (sp and pc, the return address into each; [0] its sender; 0/0 where
 * unknown); for each caller whose position lies in its memory (an interpreted one, whose
 * return pc is shared by every call site, bit k of caller_kept) its identity and position;
 * whether the sender is the frame's own physical sender (sender_direct: no C or entry
 * frame between); and where the frame stood in its method then (the backend's
 * frame_position, if has_position). */
typedef struct {
  uintptr_t ident, caller_sp[ASGST__CALLERS], caller_pc[ASGST__CALLERS], position;
  uintptr_t caller_ident[ASGST__CALLERS], caller_position[ASGST__CALLERS];
  unsigned caller_kept;
  bool has_position, sender_direct;
} asgst__elem_ident;

typedef struct {
  int capacity;
  asgst__elem_ident *ident;     /* per slot (stale checks) */
  ASGST_QueueElement elems[];
} asgst__ring;

struct _ASGST_Queue {
  ASGST_Queue *next;            /* registry list (live queues) or graveyard (dead ones) */
  pthread_t owner;              /* the thread whose safe points process this queue */
  pid_t owner_tid;              /* its kernel thread id */
  uintptr_t stack_lo, stack_hi; /* the owner's OS stack [lo, hi), 0/0 if unknown */
  void *vm_owner;               /* the backend's handle of the owner (queue_bind), or NULL */
  const asgst__backend *bound;  /* the backend that gave vm_owner */
  int options;                  /* iterator options for the element handlers */
  ASGST_Handler fun;
  void *arg;
  asgst__queue_hook start, end; /* guarded by the registry mutex */
  int busy;                     /* being processed (registry mutex) */
  unsigned round;               /* last ASGST_ProcessQueues round that took it (mutex) */
  _Atomic(asgst__ring *) ring;
  _Atomic uint64_t head;        /* moved by the consumer only */
  _Atomic uint64_t tail;        /* moved by the producer only (and by a resize) */
  atomic_int capacity;          /* ring->capacity, readable without entering */
  atomic_int attempts;          /* enqueue attempts since the last processing ended */
  atomic_int wanted;            /* capacity asked for by ASGST_ResizeQueue, 0 if none */
  atomic_int producing;         /* an enqueue is writing (0/1) */
  atomic_int readers;           /* SS readers inside the ring */
  atomic_int resizing;          /* the consumer is swapping the ring */
  atomic_int dead;              /* deregistered */
  atomic_int requested;         /* an element was added since processing last started */
};

#define ASGST__STABLE_MAX 512

/* A physical frame of the stopped stack, for stale checks: its place, identity and, where
 * the backend keeps it in the frame's memory, its position (has_position). */
typedef struct {
  uintptr_t sp, pc, fp, ident, position;
  bool has_position;
} asgst__stable_frame;

/* Where processing happens: the backend, the processed thread and its position. */
typedef struct {
  const asgst__backend *be; /* NULL if no backend is active */
  asgst__thread thread;     /* valid if thread_kind > 0 */
  int thread_kind;          /* current_thread()'s answer, or an error */
  asgst__regs here;         /* the safe point: the frame that asked for processing, or
                               the last Java frame of the stopped owner */
  /* The frames from `here` down, with their identities (see asgst__queue_scan); -1: no
   * identity check (the backend has no frame_identity). */
  int nstable;
  asgst__stable_frame stable[ASGST__STABLE_MAX];
} asgst__queue_point;



/* SS. Fills *e (arg NULL) with the top Java frame of the current thread seen from *top,
 * and *ident (if not NULL) with the backend's identity of that frame and its sender's
 * position. Returns the trace kind or an error. (queue_ring.c) */
int asgst__queue_capture(const asgst__regs *top, ASGST_QueueElement *e, asgst__elem_ident *ident);
/* N. A ring of `size` slots with their identity slots, NULL without memory. (queue_ring.c) */
asgst__ring *asgst__ring_new(int size);

/* SS. Enqueue with registers already taken from the ucontext or the caller. (queue_ring.c) */
int asgst__queue_enqueue(ASGST_Queue *q, const asgst__regs *top, void *arg);

/* SP. Waits until no producer or reader is inside the ring. The caller has raised
 * q->resizing or q->dead first, so no new one gets in. (queue_ring.c) */
void asgst__queue_exclude(ASGST_Queue *q);

/* SP. Replaces the ring by one of the wanted capacity if a resize is pending; keeps the
 * oldest elements that fit. (queue_ring.c) */
void asgst__queue_apply_resize(ASGST_Queue *q);

/* N. The next queue of the calling thread (owner NULL) or bound to the backend handle
 * `owner`, not yet taken in `round` and not busy, marked busy; NULL when there is none.
 * (queue_registry.c) */
ASGST_Queue *asgst__queue_take_next(unsigned round, void *owner);
/* SP. Notes in p the frames of the stack from p->here and their identities, for the stale
 * checks of asgst__queue_process. (queue_process.c) */
void asgst__queue_scan(asgst__queue_point *p);
/* N. A new round number for one ASGST_ProcessQueues call. (queue_registry.c) */
unsigned asgst__queue_new_round(void);
/* N. Ends processing of a queue taken with asgst__queue_take_next; frees its ring if it
 * was deregistered meanwhile. (queue_registry.c) */
void asgst__queue_release(ASGST_Queue *q);
/* N. A copy of q's start (is_end false) or end hook, read under the registry mutex.
 * (queue_registry.c) */
asgst__queue_hook asgst__queue_get_hook(ASGST_Queue *q, bool is_end);

/* SP. Processes q (taken/busy) at point p: hooks, handlers, removal, pending resize,
 * attempts reset. Returns the number of elements handled. (queue_process.c) */
int asgst__queue_process(ASGST_Queue *q, const asgst__queue_point *p);

#endif
