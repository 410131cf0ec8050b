/*
 * asgct_oracle.h - AsyncGetCallTrace as a test oracle: its types (libjvm exports the
 * function but no header declares it) and what an agent must do before it may call it.
 *
 * ASGCT needs a jmethodID for every method it may report (created here at ClassPrepare
 * and, at VMInit, for the classes already loaded) and returns -1 for every walk unless
 * some JVMTI environment has ClassLoad events enabled, so asgct_oracle_enable() enables it.
 */
#ifndef ASGST_TESTS_ASGCT_ORACLE_H
#define ASGST_TESTS_ASGCT_ORACLE_H

#include <stdint.h>

#include <jvmti.h>

typedef struct {
  jint lineno; /* bci; -3 for a native method */
  jmethodID method_id;
} ASGCT_CallFrame;
typedef struct {
  JNIEnv *env_id;
  jint num_frames;
  ASGCT_CallFrame *frames;
} ASGCT_CallTrace;
typedef void (*asgct_fn)(ASGCT_CallTrace *, jint, void *);

/* N. AsyncGetCallTrace from libjvm, NULL if it is not there. */
asgct_fn asgct_oracle_lookup(void);
/* N. Sets the ClassPrepare and ClassLoad callbacks in *cb (before SetEventCallbacks) ... */
void asgct_oracle_callbacks(jvmtiEventCallbacks *cb);
/* N. ... and enables both events (after it). */
void asgct_oracle_enable(jvmtiEnv *j);
/* N. jmethodIDs for every method of the classes loaded so far (at VMInit, once
 * ASGST_Initialize has bound the library). */
void asgct_oracle_prepare_loaded(jvmtiEnv *j);
/* SS. The Method* of a jmethodID ASGCT reported, 0 if unknown. Up to JDK 25 a jmethodID
 * points at its Method*; from 26 on it is a number, mapped through the library at
 * ClassPrepare (a class prepared before ASGST was bound is mapped at prepare_loaded). */
uintptr_t asgct_oracle_method(jmethodID id);

#endif
