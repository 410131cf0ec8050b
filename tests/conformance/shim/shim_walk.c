/*
 * shim_walk.c - the iterator of the AsyncGetCallTrace shim: one ASGCT call fills the
 * iterator, NextFrame hands the frames out. Options: END_ON_FIRST_JAVA_FRAME is honoured;
 * INCLUDE_NON_JAVA_FRAMES is accepted but ASGCT has no C frames to add.
 */
#include <stddef.h>
#include <string.h>

#include "shim.h"

/* ASGCT's own codes (num_frames < 0) that mean the thread is exiting or unknown. */
enum { ASGCT_NOT_JAVA = -3, ASGCT_THREAD_EXIT = -8 };

JavaVM *shim_vm;
jvmtiEnv *shim_jvmti;

/* SS in practice (see shim.h). */
JNIEnv *shim_env(void) {
  JNIEnv *env = NULL;
  if (!shim_vm || (*shim_vm)->GetEnv(shim_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return NULL;
  return env;
}

/* SS. Contract code for an ASGCT result. */
static int kind_of(int num_frames) {
  if (num_frames >= 0) return ASGST_JAVA_TRACE;
  if (num_frames == ASGCT_THREAD_EXIT) return ASGST_THREAD_EXIT;
  if (num_frames == ASGCT_NOT_JAVA) return ASGST_NO_THREAD;
  return ASGST_UNSAFE_STATE;
}

/* SS. */
int ASGST_RunWithIterator(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg) {
  ASGST_Iterator it;
  it.n = it.pos = 0;
  it.options = options;
  JNIEnv *env = shim_env();
  asgct_fn asgct = asgct_oracle_lookup();
  int kind = ASGST_NO_THREAD;
  if (env && asgct) {
    ASGCT_CallTrace t = {env, 0, it.frames};
    asgct(&t, SHIM_MAXF, ucontext);
    kind = kind_of(t.num_frames);
    it.n = t.num_frames > 0 ? t.num_frames : 0;
  }
  it.state = kind <= 0 ? kind : it.n > 0 ? 1 : 0;
  if (fun) fun(&it, arg);
  return kind;
}

/* SS. ASGCT cannot start anywhere but at the top: unsupported (our code -25). */
int ASGST_RunWithIteratorFromFrame(void *sp, void *fp, void *pc, int32_t options,
                                   ASGST_IteratorHandler fun, void *arg) {
  (void)sp, (void)fp, (void)pc;
  ASGST_Iterator it = {.state = ASGST_UNSUPPORTED, .options = options};
  if (fun) fun(&it, arg);
  return ASGST_UNSUPPORTED;
}

/* SS. ASGCT marks a native method with bci -3; it knows no tiers, so comp_level is -1. */
int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *frame) {
  if (!it || !frame) return ASGST_INVALID_ARGUMENT;
  memset(frame, 0, sizeof *frame);
  if (it->state <= 0) return it->state;
  const ASGCT_CallFrame *f = &it->frames[it->pos++];
  bool native = f->lineno == -3;
  frame->type = native ? ASGST_FRAME_JAVA_NATIVE : ASGST_FRAME_JAVA;
  frame->comp_level = -1;
  frame->bci = native ? -1 : f->lineno;
  frame->method = (ASGST_Method)f->method_id;
  bool stop = !native && (it->options & ASGST_END_ON_FIRST_JAVA_FRAME);
  it->state = stop || it->pos >= it->n ? 0 : 1;
  return 1;
}

/* SS. */
void ASGST_RewindIterator(ASGST_Iterator *it) {
  if (!it || (it->state < 0 && it->n == 0)) return;
  it->pos = 0;
  it->state = it->n > 0 ? 1 : 0;
}

/* SS. */
int ASGST_State(ASGST_Iterator *it) {
  return it ? it->state : 0;
}

/* N (JVMTI): 0 for a thread the VM does not know. */
int ASGST_ThreadState(void) {
  jint st = 0;
  if (!shim_env() || !shim_jvmti || (*shim_jvmti)->GetThreadState(shim_jvmti, NULL, &st) != JVMTI_ERROR_NONE)
    return 0;
  return st;
}
