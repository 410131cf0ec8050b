/*
 * asgst_binding.c - binding the ASGST library to the JVM.
 *
 * TEMPORARY: ASGST_Initialize and ASGST_InitializeError come with the library's HotSpot
 * backend, which is being written at the same time as this agent. They are referenced
 * weakly so the agent links and runs (walks then return ASGST_NOT_INITIALIZED) until the
 * backend lands; remove the two pragmas once it has.
 */
#include <string.h>

#include "prof.h"

#pragma weak ASGST_Initialize
#pragma weak ASGST_InitializeError

/* N. */
int prof_bind_asgst(JavaVM *vm) {
  prof_init_error[0] = 0;
  if (!ASGST_Initialize) {
    snprintf(prof_init_error, sizeof prof_init_error,
             "this build of libasgst has no ASGST_Initialize (no HotSpot backend yet)");
    return -1;
  }
  int r = ASGST_Initialize(vm, 0);
  if (r != 0)
    snprintf(prof_init_error, sizeof prof_init_error, "%s: %s", ASGST_ErrorName(r),
             ASGST_InitializeError ? ASGST_InitializeError() : "");
  return r;
}
