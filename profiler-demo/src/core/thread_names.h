/*
 * thread_names.h - the names of the threads seen in a run, kept after they end, so that
 * outputs and the fd report can name a record's thread (thread_names.c). Filled by the
 * thread registry (sampling/threads.c). All N.
 */
#ifndef ASGSTPROF_CORE_THREAD_NAMES_H
#define ASGSTPROF_CORE_THREAD_NAMES_H

#include <stddef.h>
#include <sys/types.h>

/* N. Remembers (or renames) tid. */
void prof_thread_name_remember(pid_t tid, const char *name);
/* N. Copies the name of tid into buf ("tid N" if unknown). */
void prof_thread_name(pid_t tid, char *buf, size_t len);

#endif /* ASGSTPROF_CORE_THREAD_NAMES_H */
