/*
 * codecache.h - what the code cache (codecache.c) offers outside the walker, whose own view
 * of it is walker_internal.h: forgetting what it has learned, for the replay backend
 * (replay_backend.c), which swaps the VM memory under it.
 */
#ifndef ASGST_HOTSPOT_CODECACHE_H
#define ASGST_HOTSPOT_CODECACHE_H

#include <stdbool.h>

/* SS. Forgets the lazily learned code heaps, interpreter range and names (values: their
 * values too, only when no walk runs). */
void asgst__hs_codecache_forget(bool values);

#endif
