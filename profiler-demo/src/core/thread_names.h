/*
 * thread_names.h - the names of the threads seen in a run, kept after they end, so that
 * outputs and the fd report can name a record's thread (thread_names.c). Filled by the
 * thread registry (sampling/threads.c). All N.
 */
#ifndef ASGSTPROF_CORE_THREAD_NAMES_H
#define ASGSTPROF_CORE_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* N. Remembers (or renames) tid. java: the name is the Java thread's (JVMTI), not the
 * OS's (/proc comm, truncated to 15 bytes). A Java name replaces an OS name, never the
 * other way round; "DestroyJavaVM", which the launcher's main thread is called once main
 * has returned, does not replace the thread's Java name either. */
void prof_thread_name_remember(pid_t tid, const char *name, bool java);
/* N. Copies the name of tid into buf ("tid N" if unknown). */
void prof_thread_name(pid_t tid, char *buf, size_t len);

#endif /* ASGSTPROF_CORE_THREAD_NAMES_H */
