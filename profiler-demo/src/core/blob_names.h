/*
 * blob_names.h - the names of the VM code blobs (stubs, adapters, runtime blobs) that C
 * frames of a run were in, taken at sample time (blob_names.c): a blob can be freed before
 * the dump, and its address reused. Each (blob, name) is kept once; a record's C frame
 * carries its id (prof_frame.bci, core/records.h).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_BLOB_NAMES_H
#define ASGSTPROF_CORE_BLOB_NAMES_H

#include <stdint.h>

/* The longest name kept (longer ones are cut); HotSpot's are under 100 bytes. */
#define PROF_BLOB_NAME_CAP 80

/* SS. The id (>= 1) of blob's name, added if new; 0 when the table is full. name is
 * NUL-terminated. Lock-free: two threads adding the same blob at once may keep it twice. */
int prof_blob_name_intern(const void *blob, const char *name);
/* N. The name of id, NULL if there is none. */
const char *prof_blob_name(int id);
/* N. Forgets every name (profiling restart: no sample refers to them any more). */
void prof_blob_names_reset(void);

#endif /* ASGSTPROF_CORE_BLOB_NAMES_H */
