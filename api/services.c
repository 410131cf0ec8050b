/*
 * services.c - the table of what api/ does for backends (impl/services.h): backends call
 * through it, so no file of impl/ names a function of api/.
 */
#include "internal.h"

static const asgst__services table = {
    .notify_class_unload = asgst__api_notify_class_unload,
    .queues_process_stopped = asgst__api_queues_process_stopped,
    .queues_waiting = asgst__api_queues_waiting,
    /* Called straight through the slot: ASGST_ProcessQueues takes its caller's frame as
     * the safe point, which must be the backend's callback, not a wrapper of ours. */
    .process_own_queues = ASGST_ProcessQueues,
};

/* N. */
void asgst__api_provide_services(void) { asgst__services_provide(&table); }
