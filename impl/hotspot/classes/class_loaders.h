/*
 * class_loaders.h - which classes can be unloaded, so need a shadow copy of their
 * metadata (class_loaders.c). All N.
 */
#ifndef ASGST_HOTSPOT_CLASS_LOADERS_H
#define ASGST_HOTSPOT_CLASS_LOADERS_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* N. Fetches the built-in class loaders once (ClassLoader.getPlatformClassLoader,
 * getSystemClassLoader and its parents). */
void asgst__hs_loaders_init(JNIEnv *env);
/* N. Whether class c (InstanceKlass k) can be unloaded: its loader is not a built-in one,
 * or it is a hidden class with a ClassLoaderData of its own. */
bool asgst__hs_can_unload(jvmtiEnv *jvmti, JNIEnv *env, jclass c, uintptr_t k);

#endif
