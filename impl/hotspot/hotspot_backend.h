/*
 * hotspot_backend.h - the top of the HotSpot backend: its backend tables
 * (hotspot_backend.c), the binding's own calls (hotspot_init.c) and the live self-check
 * (self_check.c). The rooms below (model, threads, classes, walking, queues) have their
 * own headers; docs/architecture.md draws them.
 */
#ifndef ASGST_HOTSPOT_BACKEND_H
#define ASGST_HOTSPOT_BACKEND_H

#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>

#include "../backend.h"

/* The backend table (hotspot_backend.c). */
extern const asgst__backend asgst__hotspot_backend;
/* N. The table active while the classes loaded before the binding are listed: no walks,
 * conversions wait (hotspot_backend.c). */
const asgst__backend *asgst__hs_listing_backend(void);

/* N. Reads method and class metadata and the code cache of the live VM with the model and
 * compares them with JVMTI's answers (self_check.c). 0, or -1 with the reason. */
int asgst__hs_self_check(jvmtiEnv *jvmti, JNIEnv *env, char *err, size_t errlen);
/* N. Sets the VM flag `name` (a bool flag) through the JVMFlag table. 0, or -1 if the
 * table or the flag is not exported. */
int asgst__hs_set_bool_flag(const char *name, bool value);

#endif
