/*
 * shim.h - a deliberately limited ASGST implementation over AsyncGetCallTrace, used to
 * prove that the conformance suite tells a limited implementation from a full one. It
 * gives Java frames with method (a jmethodID) and bci only: no compilation tiers, no
 * inlined flags, no C frames, no walk from a given frame, no queues, no unload events;
 * method and class information come from JVMTI, so they are not signal safe either.
 */
#ifndef ASGST_CONF_SHIM_H
#define ASGST_CONF_SHIM_H

#include <jvmti.h>

#include "asgst.h"
#include "tests/jvm/agents/common/asgct_oracle.h"

enum { SHIM_MAXF = 256 };

struct _ASGST_Iterator {
  ASGCT_CallFrame frames[SHIM_MAXF];
  int n, pos, state, options;
};

extern JavaVM *shim_vm;
extern jvmtiEnv *shim_jvmti;

/* N. The current thread's JNIEnv, NULL if it is not attached (reads the VM's
 * thread-local, so it is what every ASGCT-based profiler calls in its handler). */
JNIEnv *shim_env(void);

#endif
