/*
 * bound_vm.c - the variables of bound_vm.h. They live in the model's room, not with the
 * binding that sets them, so that the rooms reading them include nothing above them.
 */
#include "bound_vm.h"

JavaVM *asgst__hs_vm;
bool asgst__hs_can_suspend;
bool asgst__hs_realtime_queues;
jvmtiEnv *asgst__hs_jvmti;
