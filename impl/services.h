/*
 * services.h - what backends (impl/) ask of the VM-independent layer (api/) without
 * naming it: the class unload notification and the processing of queues. api/ hands the
 * backend layer a table of these (asgst__services_provide) before the first handler or
 * queue exists; until then every call here is a no-op, which is also what api/ would do
 * with no handler and no queue registered. Calls thus point down from api/ to impl/ only.
 */
#ifndef ASGST_IMPL_SERVICES_H
#define ASGST_IMPL_SERVICES_H

#include <stdatomic.h>
#include <stdbool.h>

#include "asgst.h"
#include "backend.h"

typedef struct {
  /* N. Calls every registered class unload handler. */
  void (*notify_class_unload)(ASGST_Class k, ASGST_Method *methods, int count, bool redefined);
  /* SP. Processes every queue bound to `owner` while that thread is stopped at a safe
   * point; returns the number of elements handled. */
  int (*queues_process_stopped)(void *owner, const asgst__thread *t, int thread_kind,
                                const asgst__regs *here);
  /* N. Owners with elements waiting, at most max, each once; returns how many. */
  int (*queues_waiting)(void **owners, int max);
  /* N. Processes the calling thread's own queues at a safe point it declares
   * (ASGST_ProcessQueues). */
  int (*process_own_queues)(void);
} asgst__services;

/* N. Sets the table (impl/services.c); api/ calls it, the same table each time. */
void asgst__services_provide(const asgst__services *s);
/* SS. The table, NULL until api/ provided it. */
const asgst__services *asgst__services_get(void);

/* N. Calls every registered class unload handler (backends call this before a class's
 * handles become invalid). */
static inline void asgst__notify_class_unload(ASGST_Class k, ASGST_Method *methods, int count,
                                              bool redefined) {
  const asgst__services *s = asgst__services_get();
  if (s) s->notify_class_unload(k, methods, count, redefined);
}

/* SP. Processes every queue bound to `owner` (a handle the backend's queue_bind gave) while
 * that thread is stopped at a safe point: t is the thread as the backend sees it
 * (thread_kind its current_thread() answer, or an error: ASGST_NO_TOP_JAVA_FRAME says the
 * stopped thread has no Java frame, so every element is stale), `here` its last Java
 * frame. Returns the number of elements handled. */
static inline int asgst__queues_process_stopped(void *owner, const asgst__thread *t,
                                                int thread_kind, const asgst__regs *here) {
  const asgst__services *s = asgst__services_get();
  return s ? s->queues_process_stopped(owner, t, thread_kind, here) : 0;
}

/* N. Owners (queue_bind handles) with elements waiting, at most max of them, each once.
 * Returns how many were written. */
static inline int asgst__queues_waiting(void **owners, int max) {
  const asgst__services *s = asgst__services_get();
  return s ? s->queues_waiting(owners, max) : 0;
}

/* N. The calling thread's own queues, processed at a safe point it declares. */
static inline int asgst__process_own_queues(void) {
  const asgst__services *s = asgst__services_get();
  return s ? s->process_own_queues() : 0;
}

/* Called after an element was added to a queue bound to `owner` (queue_bind's handle), to
 * wake what processes it (the backend's processing thread); NULL: the owner processes its
 * queues itself. Called on the owner it may hold it until its next safepoint poll will
 * stop it (bounded). SS. */
typedef void (*asgst__queue_waker)(void *owner);
/* N. Sets the waker (impl/services.c): the backend's, read by api/queue_ring.c. */
void asgst__queues_set_waker(asgst__queue_waker fn);
/* SS. The waker, NULL if none. */
asgst__queue_waker asgst__queues_waker(void);

#endif
