/*
 * asgst_binding.c - binding the ASGST library to the JVM (ASGST_Initialize, a library
 * extension that finds the JVM's vmStructs and selects the HotSpot backend).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* N. Waits until walks work after a live-phase binding (ASGST_InitializeStatus leaves
 * ASGST_INIT_PENDING once the library has listed the classes loaded before it), for at
 * most max_ms. At VMInit the demo binds in the live phase, and the answer comes after a
 * bounded wait for that listing; the application has not run yet, so waiting the rest
 * here costs it nothing, and its first events (the fds main opens at once) get their Java
 * frames rather than ASGST_INIT_PENDING. */
void prof_wait_bound(int max_ms) {
  struct timespec nap = {0, 200 * 1000};
  for (int i = 0; i < max_ms * 5 && ASGST_InitializeStatus() == ASGST_INIT_PENDING; i++)
    nanosleep(&nap, NULL);
}
