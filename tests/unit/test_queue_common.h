/*
 * test_queue_common.h - what the queue tests share: a synthetic VM with two Java stacks,
 * a handler that records what it is given, and a hand-made interpreted frame on the real
 * thread stack.
 *
 * Stacks (bottom first):  s1: main(bci 1) -> foo(bci 2) -> bar(bci 3)
 *                         s2: main(bci 1) -> baz(bci 4)
 */
#ifndef TEST_QUEUE_COMMON_H
#define TEST_QUEUE_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "asgst.h"
#include "asgst_synthetic.h"
#include "test_arch.h"

typedef struct {
  ASGST_SynthVM *vm;
  ASGST_Method main_m, foo, bar, baz;
  ASGST_SynthStack *s1, *s2;
  ucontext_t uc1, uc2;
} qfix;

static qfix fx;

/* N. cmocka setup: a fresh active VM, the calling thread attached. */
static int qfix_setup(void **state) {
  (void)state;
  memset(&fx, 0, sizeof fx);
  fx.vm = ASGST_SynthCreateVM();
  if (fx.vm == NULL || ASGST_SynthActivate(fx.vm) != 0) return -1;
  ASGST_SynthAttachThread(fx.vm);
  ASGST_Class k = ASGST_SynthDeclareClass(fx.vm, "q/Main", NULL, 1, 7);
  fx.main_m = ASGST_SynthDeclareMethod(fx.vm, k, "main", "()V", NULL, 9, 1, NULL, 0);
  fx.foo = ASGST_SynthDeclareMethod(fx.vm, k, "foo", "()V", NULL, 1, 2, NULL, 0);
  fx.bar = ASGST_SynthDeclareMethod(fx.vm, k, "bar", "()V", NULL, 1, 3, NULL, 0);
  fx.baz = ASGST_SynthDeclareMethod(fx.vm, k, "baz", "()V", NULL, 1, 4, NULL, 0);
  fx.s1 = ASGST_SynthCreateStack(fx.vm, 16384);
  fx.s2 = ASGST_SynthCreateStack(fx.vm, 16384);
  if (!fx.main_m || !fx.foo || !fx.bar || !fx.baz || !fx.s1 || !fx.s2) return -1;
  ASGST_SynthPushInterpreted(fx.s1, fx.main_m, 1);
  ASGST_SynthPushInterpreted(fx.s1, fx.foo, 2);
  ASGST_SynthPushInterpreted(fx.s1, fx.bar, 3);
  ASGST_SynthPushInterpreted(fx.s2, fx.main_m, 1);
  ASGST_SynthPushInterpreted(fx.s2, fx.baz, 4);
  if (ASGST_SynthContext(fx.s1, &fx.uc1) != 0 || ASGST_SynthContext(fx.s2, &fx.uc2) != 0)
    return -1;
  return 0;
}

/* N. cmocka teardown. */
static int qfix_teardown(void **state) {
  (void)state;
  ASGST_SynthDestroyStack(fx.s1);
  ASGST_SynthDestroyStack(fx.s2);
  ASGST_SynthDetachThread();
  ASGST_SynthDestroyVM(fx.vm);
  return 0;
}

/* What one element handler call saw. */
typedef struct {
  void *arg;
  int state;          /* ASGST_State before the first NextFrame */
  int nframes;
  ASGST_Method methods[8];
  int bcis[8];
  int end;            /* what the NextFrame after the last frame returned */
} qcall;

typedef struct {
  int n;
  qcall calls[64];
  char log[256];      /* "S" start hook, "H" handler, "E" end hook, in call order */
} qrec;

/* SP. Appends a letter to the call log. */
static void qrec_log(qrec *r, char c) {
  size_t len = strlen(r->log);
  if (len + 1 < sizeof r->log) {
    r->log[len] = c;
    r->log[len + 1] = '\0';
  }
}

/* SP. An ASGST_Handler whose queue_arg is a qrec: records the iterator's frames. */
static void qrec_handler(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  qrec *r = queue_arg;
  qrec_log(r, 'H');
  if (r->n >= 64) return;
  qcall *c = &r->calls[r->n++];
  memset(c, 0, sizeof *c);
  c->arg = element_arg;
  c->state = ASGST_State(it);
  ASGST_Frame f;
  int rc;
  while ((rc = ASGST_NextFrame(it, &f)) == 1 && c->nframes < 8) {
    c->methods[c->nframes] = f.method;
    c->bcis[c->nframes++] = f.bci;
  }
  c->end = rc;
}

/* The registers of the top frame of a synthetic stack. */
static inline void *top_pc(ASGST_SynthStack *s) {
  return ASGST_SynthFramePc(s, ASGST_SynthFrameCount(s) - 1);
}
static inline void *top_sp(ASGST_SynthStack *s) {
  return ASGST_SynthFrameSp(s, ASGST_SynthFrameCount(s) - 1);
}
static inline void *top_fp(ASGST_SynthStack *s) {
  return ASGST_SynthFrameFp(s, ASGST_SynthFrameCount(s) - 1);
}

/* An interpreted frame built by hand in memory the caller provides (a local array on the
 * real thread stack): slots[4] is its fp, fp[0] = fp[1] = 0 end the walk, fp[-1] holds
 * the Method*, fp[-2] the bci. *uc gets the pc in the interpreter, sp = fp - 16 and fp. */
#define QFRAME_SLOTS 8
static inline void qframe_build(uintptr_t slots[QFRAME_SLOTS], ASGST_Method m, int bci,
                                ucontext_t *uc) {
  memset(slots, 0, QFRAME_SLOTS * sizeof slots[0]);
  uintptr_t *fp = &slots[4];
  fp[-1] = (uintptr_t)m;
  fp[-2] = (uintptr_t)bci;
  memset(uc, 0, sizeof *uc);
  uc_set_regs(uc, (uintptr_t)ASGST_SynthBlobStart(ASGST_SynthInterpreter(fx.vm)),
              (uintptr_t)(fp - 2), (uintptr_t)fp);
}

#endif
