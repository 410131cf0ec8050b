/*
 * services.h - what backends (impl/) use of the VM-independent layer (api/): the class
 * unload notification and clearing a method info. Implemented in api/; backends include
 * this, never api/internal.h.
 */
#ifndef ASGST_IMPL_SERVICES_H
#define ASGST_IMPL_SERVICES_H

#include <stdbool.h>

#include "asgst.h"
#include "backend.h"

/* SS. Empties every output field of *info (strings become "", lengths 0). */
void asgst__clear_method_info(ASGST_MethodInfo *info);

/* SP. Processes every queue bound to `owner` (a handle the backend's queue_bind gave) while
 * that thread is stopped at a safe point: t is the thread as the backend sees it
 * (thread_kind its current_thread() answer, or an error), `here` its last Java frame.
 * Returns the number of elements handled. (api/queue_process.c) */
int asgst__queues_process_stopped(void *owner, const asgst__thread *t, int thread_kind,
                                  const asgst__regs *here);
/* Called after an element was added to a queue, to wake what processes it (the backend's
 * processing thread); NULL: the owner processes its queues itself. SS. */
typedef void (*asgst__queue_waker)(void);
/* N. Sets the waker (api/queue_ring.c). */
void asgst__queues_set_waker(asgst__queue_waker fn);
/* N. Owners (queue_bind handles) with elements waiting, at most max of them, each once.
 * Returns how many were written. (api/queue_registry.c) */
int asgst__queues_waiting(void **owners, int max);

/* N. Calls every registered class unload handler (backends call this before a class's
 * handles become invalid). */
void asgst__notify_class_unload(ASGST_Class k, ASGST_Method *methods, int count, bool redefined);

#endif
