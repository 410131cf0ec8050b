/*
 * class_shadow.h - shadow copies of the metadata of classes that can be unloaded, so that
 * ASGST class unload handlers, which on a stock JDK 17 run only after the VM has freed
 * the class's metadata, can still resolve the handles they are given (class_shadow.c).
 */
#ifndef ASGST_HOTSPOT_CLASS_SHADOW_H
#define ASGST_HOTSPOT_CLASS_SHADOW_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../backend.h"

typedef struct asgst__hs_shadow asgst__hs_shadow;

/* ---- Shadows (class_shadow.c) ---- */

/* N. A snapshot of what the metadata accessors return for InstanceKlass k and its n
 * methods (read from VM memory under the guard; the class must be alive). NULL when out
 * of memory or k cannot be read. */
asgst__hs_shadow *asgst__hs_shadow_take(uintptr_t k, const ASGST_Method *methods, int n);
/* N. Frees a shadow that was never published. */
void asgst__hs_shadow_free(asgst__hs_shadow *s);

/* N. Makes the accessors answer from s for its class and methods (false if all publishing
 * slots are taken; the handlers then see VM memory, as without a shadow). */
bool asgst__hs_shadow_publish(asgst__hs_shadow *s);
/* N. Stops answering from s and frees it as soon as no signal-handler reader can hold it
 * (now, or at a later asgst__hs_shadow_reclaim). */
void asgst__hs_shadow_retire(asgst__hs_shadow *s);
/* N. Frees the retired shadows no reader can hold any more. */
void asgst__hs_shadow_reclaim(void);

/* The number of published shadows: the accessors' one cheap test. */
extern atomic_int asgst__hs_shadows_published;

/* SS. True when a shadow may be published; a relaxed load and one branch that is
 * predicted "no" (a stale "no" only means a reader on another thread reads VM memory, as
 * it would without shadows; the publishing thread itself always sees its own store). */
static inline bool asgst__hs_shadow_maybe(void) {
  return __builtin_expect(atomic_load_explicit(&asgst__hs_shadows_published, memory_order_relaxed) != 0, 0);
}

/* SS (caller holds the guard). Answer from a published shadow; false when no published
 * shadow covers the handle (the caller then reads VM memory). */
bool asgst__hs_shadow_method_info(ASGST_Method m, ASGST_MethodInfo *info);
bool asgst__hs_shadow_class_info(ASGST_Class k, ASGST_ClassInfo *info);
bool asgst__hs_shadow_method_class(ASGST_Method m, ASGST_Class *out);
bool asgst__hs_shadow_method_idnum(ASGST_Method m, jint *out);
bool asgst__hs_shadow_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e,
                                 int length, int *total);

/* N. Frees a shadow that was never published (counted as discarded). */
void asgst__hs_shadow_discard(asgst__hs_shadow *s);

#endif
