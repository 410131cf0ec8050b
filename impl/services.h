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

/* N. Calls every registered class unload handler (backends call this before a class's
 * handles become invalid). */
void asgst__notify_class_unload(ASGST_Class k, ASGST_Method *methods, int count, bool redefined);

#endif
