/*
 * class_registry.h - the table of registered classes (class_registry.c): one entry per
 * loaded class the library knows, found by InstanceKlass* (a hash) or by the JVMTI tag
 * its mirror carries (entry index + 1). The bottom of the class files: it calls none of
 * them; the files above it (class_register.c, class_unload.c, class_jclass.c) fill,
 * empty and read it. All N.
 */
#ifndef ASGST_HOTSPOT_CLASS_REGISTRY_H
#define ASGST_HOTSPOT_CLASS_REGISTRY_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asgst.h"

struct asgst__hs_shadow; /* class_shadow.h; the registry only holds it */

/* One registered class. */
typedef struct {
  uintptr_t klass;     /* InstanceKlass*, 0 once unloaded */
  jweak ref;           /* weak global reference to the mirror */
  ASGST_Method *methods; /* malloc'ed copy of its Method* array */
  int nmethods;
  bool stale;          /* redefined since the copy of methods was taken */
  struct asgst__hs_shadow *shadow; /* metadata copy of a class that can be unloaded, else NULL */
} asgst__hs_class_entry;

/* N. Makes what the mirror lookup (asgst__hs_klass_of) needs. 0 or -1 with a reason. */
int asgst__hs_registry_init(JNIEnv *env, char *err, size_t errlen);
/* N. Adds *e; its index (the mirror's tag is index + 1), or -1 if its klass is there
 * already or there is no memory (the caller keeps what *e holds). */
int asgst__hs_registry_add(const asgst__hs_class_entry *e);
/* N (any context, no JNI). Takes out the entry of `tag` into *out (its weak reference is
 * kept for asgst__hs_registry_drain_dead). False if the tag names no live entry. */
bool asgst__hs_registry_remove(jlong tag, asgst__hs_class_entry *out);
/* N. Deletes the weak references of removed entries (needs a JNIEnv, so not done at
 * removal); returns at once when there are none. */
void asgst__hs_registry_drain_dead(JNIEnv *env);
/* N. Marks the entry of k as redefined (its method copy is refreshed later). */
void asgst__hs_registry_mark_stale(uintptr_t k);
/* N. Calls refresh, with the registry locked, on every live entry marked stale, then
 * clears the mark. refresh may replace the entry's methods and shadow; it must make no
 * JNI or JVMTI call. */
void asgst__hs_registry_refresh_stale(void (*refresh)(asgst__hs_class_entry *e));
/* N. The weak reference of the registered class k, NULL if unknown. */
jweak asgst__hs_registry_ref(uintptr_t k);
/* N. The InstanceKlass* of the entry of `tag`, 0 if none. */
uintptr_t asgst__hs_registry_klass(jlong tag);
/* N. Forgets every entry, freeing their method copies and passing their shadows to
 * free_shadow. */
void asgst__hs_registry_reset(void (*free_shadow)(struct asgst__hs_shadow *s));

#endif
