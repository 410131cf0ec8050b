/*
 * thread_state.c - the kinds of thread states the outputs name (thread_state.h).
 */
#include "core/thread_state.h"

#include <jvmti.h>
#include <stdbool.h>

#include "asgst.h"

/* SS. */
uint8_t prof_tstate_of(int b) {
  if (b <= 0 || !(b & JVMTI_THREAD_STATE_ALIVE)) return TS_UNKNOWN;
  bool timed = b & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT;
  if (b & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return TS_BLOCKED;
  if (b & JVMTI_THREAD_STATE_SLEEPING) return TS_SLEEPING;
  if (b & JVMTI_THREAD_STATE_PARKED) return timed ? TS_PARKED_TIMED : TS_PARKED;
  if (b & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) return timed ? TS_WAIT_TIMED : TS_WAIT;
  if (b & JVMTI_THREAD_STATE_WAITING) return TS_WAITING;
  if (b & JVMTI_THREAD_STATE_IN_NATIVE) return TS_NATIVE;
  return TS_RUNNABLE;
}

/* SS. */
uint8_t prof_tstate_now(void) {
  return prof_tstate_of(ASGST_ThreadState());
}

/* N. */
const char *prof_tstate_word(int s) {
  static const char *const words[TS_COUNT] = {
      "unknown", "running", "native", "blocked", "waiting", "waiting_timed",
      "sleeping", "parked", "parked_timed", "waiting"};
  return s >= 0 && s < TS_COUNT ? words[s] : "unknown";
}

/* The JDK's JFR names its states after java.lang.Thread's (jfr print shows them); it has
 * none for native code (its jdk.NativeMethodSample says that) nor for a wait of unknown
 * kind: those two are ours, in the same style. */
const char *const prof_tstate_jfr_names[TS_COUNT] = {
    NULL, "STATE_RUNNABLE", "STATE_IN_NATIVE", "STATE_BLOCKED_ON_MONITOR_ENTER",
    "STATE_IN_OBJECT_WAIT", "STATE_IN_OBJECT_WAIT_TIMED", "STATE_SLEEPING", "STATE_PARKED",
    "STATE_PARKED_TIMED", "STATE_WAITING"};
