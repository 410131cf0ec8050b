/*
 * bound_vm.h - the JVM the library is bound to and the binding's choices, set by the
 * binding (hotspot_init.c) and read by the rooms below it (bound_vm.c holds them).
 */
#ifndef ASGST_HOTSPOT_BOUND_VM_H
#define ASGST_HOTSPOT_BOUND_VM_H

#include <jvmti.h>
#include <stdbool.h>

/* The JVM and the library's own JVMTI environment; NULL when unbound. */
extern JavaVM *asgst__hs_vm;
extern jvmtiEnv *asgst__hs_jvmti;
/* The library's JVMTI environment may suspend threads. */
extern bool asgst__hs_can_suspend;
/* ASGST_Initialize's ASGST_INIT_REALTIME_QUEUES: real-time scheduling for queues. */
extern bool asgst__hs_realtime_queues;

#endif
