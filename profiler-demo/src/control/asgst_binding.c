/*
 * asgst_binding.c - binding the ASGST library to the JVM (ASGST_Initialize, a library
 * extension that finds the JVM's vmStructs and selects the HotSpot backend).
 */
#include <stdio.h>
#include <string.h>

#include "control/control.h"
#include "core/state.h"

/* N. */
int prof_init_flags(void) {
  return (prof.opts.untested_jdk ? ASGST_INIT_UNTESTED_JDK : 0) |
         (prof.opts.realtime_queues ? ASGST_INIT_REALTIME_QUEUES : 0);
}

/* N. */
int prof_bind_asgst(JavaVM *vm) {
  prof.init_error[0] = 0;
  int r = ASGST_Initialize(vm, prof_init_flags());
  if (r != 0)
    snprintf(prof.init_error, sizeof prof.init_error, "%s: %s", ASGST_ErrorName(r),
             ASGST_InitializeError());
  return r;
}
