/*
 * threads.h - the room of threads: the current thread and its state (hotspot_thread.c,
 * thread_status.c) and whether its next safepoint poll stops it (poll_arm.c).
 */
#ifndef ASGST_HOTSPOT_THREADS_H
#define ASGST_HOTSPOT_THREADS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "../../backend.h"

/* N. Finds the pthread key under which the VM keeps the current Thread*, by scanning the
 * keys for the calling thread's JavaThread* (java.lang.Thread.eetop), and records the
 * vtables of the VM's JavaThreads. 0 or -1 with a reason. */
int asgst__hs_threads_init(JNIEnv *env, char *err, size_t errlen);
/* N. Records the vtable of the calling thread (a JavaThread: called from ThreadStart). */
void asgst__hs_thread_started(void);
/* SS. backend.h current_thread(). */
int asgst__hs_current_thread(asgst__thread *t);
/* SS (under the caller's crash guard). backend.h current_thread_unguarded(). */
int asgst__hs_current_thread_unguarded(asgst__thread *t);
/* SS. backend.h thread_state(). */
int asgst__hs_thread_state(void);
/* N. Learns where java.lang.Thread keeps its status (thread_status.c); at bind time. */
void asgst__hs_thread_status_init(JNIEnv *env);
/* SS (under a guard). JavaThread jt's java.lang.Thread threadStatus, -1 if not known. */
int asgst__hs_thread_status(uintptr_t jt);


/* ---- Whether a thread's next poll stops it (poll_arm.c) ---- */
/* N. Finds the poll word on the calling Java thread (at init). */
void asgst__hs_poll_discover(void);
/* N. Confirms it on a second Java thread; only then is asgst__hs_poll_armed usable. */
void asgst__hs_poll_confirm(void);
/* SS. 1 if t's (the calling thread's) next safepoint poll stops it, 0 if not, -1 unknown. */
int asgst__hs_poll_armed(const asgst__thread *t);
/* N. The poll word's offset in JavaThread (0 on JDK 8: the global page), -1 if unusable. */
long asgst__hs_poll_offset(void);

#endif
