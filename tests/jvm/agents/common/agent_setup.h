/* agent_setup.h - the Agent_OnLoad chores the small test agents share. */
#ifndef ASGST_TEST_AGENT_SETUP_H
#define ASGST_TEST_AGENT_SETUP_H

#include <jvmti.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* N. Gets a JVMTI environment, installs cb and enables the n events. 0, or -1. */
int agent_setup(JavaVM *vm, jvmtiEnv **jvmti, const jvmtiEventCallbacks *cb, const jvmtiEvent *events,
                int n);
/* N. agent_setup, adding the capabilities caps first (NULL: none). */
int agent_setup_caps(JavaVM *vm, jvmtiEnv **jvmti, const jvmtiCapabilities *caps, const jvmtiEventCallbacks *cb,
                     const jvmtiEvent *events, int n);
/* N. True in the arm64 suite under qemu-user (ASGST_TEST_QEMU=1, tests/aarch64/run_suite.sh). */
bool agent_under_qemu(void);
/* N. The flags the test agents give ASGST_Initialize: ASGST_INIT_UNTESTED_JDK when the
 * environment has ASGST_TEST_UNTESTED_JDK=1 (tests/run_all.sh sets it for a JDK newer than
 * the newest tested, e.g. an early-access build), else 0. */
int agent_init_flags(void);
/* N. Starts fn on a new Java thread of the agent (JVMTI RunAgentThread); false if the
 * thread could not be made or started. */
bool agent_start_thread(jvmtiEnv *jvmti, JNIEnv *env, jvmtiStartFunction fn);
/* N. ASGST_Initialize in the live phase (a VMInit callback), then waits until walks work
 * (ASGST_InitializeStatus() no longer ASGST_INIT_PENDING: the library lists the loaded
 * classes on its own thread, which a busy machine may keep waiting past the answer), at
 * most 30 s. Returns ASGST_Initialize's result, or the status the wait ended with. */
int agent_initialize_live(JavaVM *vm, int32_t flags);
/* N. ASGST_Initialize, then fn on a new agent thread; on failure prints
 * "<prefix> not ok - ..." and returns false. */
bool agent_initialize_and_start(JavaVM *vm, jvmtiEnv *jvmti, JNIEnv *env, jvmtiStartFunction fn,
                                const char *prefix);
/* N. Sets *quit and waits up to ms milliseconds for *finished (an agent thread's report). */
void agent_stop_and_wait(atomic_int *quit, atomic_int *finished, int ms);
/* N. The number of option `name=N` in an agent's comma-separated options, else fallback. */
long agent_option(const char *options, const char *name, long fallback);
/* N. Installs fn as the SA_SIGINFO handler of sig. */
void agent_handle_signal(int sig, void (*fn)(int, siginfo_t *, void *));

/* N. Adds the calling thread's id to a set of n slots (0 = free); false if it is full. */
bool agent_tids_add(atomic_int *tids, int n);
/* N. Removes the calling thread's id from the set. */
void agent_tids_remove(atomic_int *tids, int n);
/* N. Sends sig to the next thread of the set after slot *next (round robin, so that every
 * registered thread is sampled in turn) and moves *next past it. Returns whether a signal
 * was sent (false: the set is empty, or the thread has just gone). */
bool agent_tids_signal_next(atomic_int *tids, int n, int *next, int sig);

#endif
