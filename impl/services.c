/*
 * services.c - the slots through which backends reach what api/ provides (services.h):
 * the services table and the queue waker.
 */
#include "services.h"

static _Atomic(const asgst__services *) services;
static _Atomic(asgst__queue_waker) waker;

/* N. */
void asgst__services_provide(const asgst__services *s) {
  atomic_store_explicit(&services, s, memory_order_release);
}

/* SS. */
const asgst__services *asgst__services_get(void) {
  return atomic_load_explicit(&services, memory_order_acquire);
}

/* N. */
void asgst__queues_set_waker(asgst__queue_waker fn) { atomic_store(&waker, fn); }

/* SS. */
asgst__queue_waker asgst__queues_waker(void) { return atomic_load(&waker); }
