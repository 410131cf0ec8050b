/*
 * thread_names.h - the names of the threads seen in a run, kept after they end, so that
 * outputs and the fd report can name a record's thread (thread_names.c). Filled by the
 * thread registry (sampling/threads.c). All N.
 */
#ifndef ASGSTPROF_CORE_THREAD_NAMES_H
#define ASGSTPROF_CORE_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* N. Remembers (or renames) tid. java: the name is the Java thread's (JVMTI), not the
 * OS's (/proc comm, truncated to 15 bytes). A Java name replaces an OS name, never the
 * other way round; "DestroyJavaVM", which the launcher's main thread is called once main
 * has returned, does not replace the thread's Java name either. */
void prof_thread_name_remember(pid_t tid, const char *name, bool java);
/* N. Remembers tid's java.lang.Thread id and its thread group's name (JVMTI, at the
 * thread's start). The first one stays: the launcher's main thread, once main returned,
 * is attached again as a new Thread "DestroyJavaVM" (a ThreadStart of its own). */
void prof_thread_java_remember(pid_t tid, int64_t java_id, const char *group);
/* N. tid's Java thread id (0 if not known: a thread only seen in /proc) and thread group
 * name into group ("" if not known). */
void prof_thread_java(pid_t tid, int64_t *java_id, char *group, size_t len);
/* N. Copies the name of tid into buf ("tid N" if unknown). */
void prof_thread_name(pid_t tid, char *buf, size_t len);
/* N. Marks tid as sampled as a thread that is not a Java thread (a JIT compiler, GC, VM or
 * native thread: sampling/thread_scan.c), or as a Java thread again (other false). */
void prof_thread_set_other(pid_t tid, bool other);
/* N. Marks tid as ended by JVMTI ThreadEnd: the scan of /proc does not take the exiting
 * thread for a new native one. */
void prof_thread_set_ended(pid_t tid);
/* N. Whether tid ended as a Java thread (prof_thread_set_ended). */
bool prof_thread_ended(pid_t tid);
/* N. For a thread that is not a Java thread: its group's root frame, "[name]" with every
 * run of digits folded to '*' ("[GC Thread#*]") and HotSpot's shortened names written out
 * ("[C2 CompilerThread*]"), and true; false (buf untouched) for a Java thread. */
bool prof_thread_group(pid_t tid, char *buf, size_t len);
/* N. The group label of a thread name (as prof_thread_group, without brackets). */
void prof_thread_fold_name(const char *name, char *buf, size_t len);

#endif /* ASGSTPROF_CORE_THREAD_NAMES_H */
