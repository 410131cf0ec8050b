/*
 * thread_state.h - the state of the sampled thread, kept with every sample: what the
 * library's ASGST_ThreadState says in the handler, reduced to the kinds the outputs name
 * (the JDK's JFR ThreadState constants, and short words for the marker frames of the
 * `states` option).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_THREAD_STATE_H
#define ASGSTPROF_CORE_THREAD_STATE_H

#include <stdint.h>

/* Also the ids of the JFR ThreadState constants (0: not known, written as running). */
enum prof_tstate {
  TS_UNKNOWN,
  TS_RUNNABLE,     /* running Java code or in the VM */
  TS_NATIVE,       /* in native code (a JNI method, a blocking syscall of the JDK) */
  TS_BLOCKED,      /* entering a contended monitor */
  TS_WAIT,         /* Object.wait() */
  TS_WAIT_TIMED,   /* Object.wait(ms) */
  TS_SLEEPING,     /* Thread.sleep */
  TS_PARKED,       /* LockSupport.park */
  TS_PARKED_TIMED, /* LockSupport.parkNanos / parkUntil */
  TS_WAITING,      /* waiting, the kind not known (the library's fallback) */
  TS_COUNT
};

/* SS. The calling thread's state now (ASGST_ThreadState); TS_UNKNOWN for a non-Java
 * thread. */
uint8_t prof_tstate_now(void);
/* SS. The kind of a set of JVMTI thread state bits. */
uint8_t prof_tstate_of(int jvmti_bits);
/* N. The word of the marker frame "[state=WORD]": running, native, blocked, waiting,
 * waiting_timed, sleeping, parked, parked_timed ("unknown" for TS_UNKNOWN). */
const char *prof_tstate_word(int s);
/* N. The JFR ThreadState constant's name (the JDK's, and STATE_IN_NATIVE, STATE_WAITING
 * of ours); indexed by the enum, TS_UNKNOWN's is NULL. */
extern const char *const prof_tstate_jfr_names[TS_COUNT];

#endif /* ASGSTPROF_CORE_THREAD_STATE_H */
