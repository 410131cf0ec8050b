/*
 * test_synthetic_util.h - helpers shared by the test_synthetic_*.c programs: a small world
 * of classes and methods in a synthetic VM, and a handler that collects a whole walk.
 * Included by exactly one .c per program (static functions).
 */
#ifndef TEST_SYNTHETIC_UTIL_H
#define TEST_SYNTHETIC_UTIL_H

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "asgst.h"
#include "asgst_synthetic.h"
#include "test_arch.h"
#include "test_guard_handlers.h"

#define MAX_WALK 256

/* Activates vm and captures the guard's handlers the first time (test_guard_handlers.h:
 * use_guard() puts them back inside a test that walks bad memory). */
static inline int activate(ASGST_SynthVM *vm) {
  int r = ASGST_SynthActivate(vm);
  if (r == 0 && !guard_captured) capture_guard();
  return r;
}

/* Everything one walk produced. */
typedef struct {
  int state_before;          /* ASGST_State before the first NextFrame */
  int n;                     /* frames returned with 1 */
  ASGST_Frame frames[MAX_WALK];
  int states[MAX_WALK];      /* ASGST_State after each frame */
  int last;                  /* the NextFrame result that ended the walk (<= 0) */
  ASGST_Frame last_frame;    /* the frame passed to that call */
  int state_after;           /* ASGST_State after the end */
  int rewind;                /* 1: rewind once and check the second pass equals the first */
  int rewind_ok;
} walk;

/* Field-wise frame equality (padding bytes of ASGST_Frame are unspecified). */
static inline int same_frame(const ASGST_Frame *a, const ASGST_Frame *b) {
  return a->type == b->type && a->comp_level == b->comp_level && a->bci == b->bci &&
         a->method == b->method && a->pc == b->pc && a->sp == b->sp && a->fp == b->fp;
}

/* Collects every frame; never more than MAX_WALK calls (a walk that would go on forever
 * fails the test instead of hanging it). */
static inline void collect(ASGST_Iterator *it, void *arg) {
  walk *w = arg;
  w->state_before = ASGST_State(it);
  w->n = 0;
  w->last = 1;
  for (int i = 0; i < MAX_WALK; i++) {
    ASGST_Frame f;
    memset(&f, 0xa5, sizeof f);
    int r = ASGST_NextFrame(it, &f);
    if (r != 1) {
      w->last = r;
      w->last_frame = f;
      break;
    }
    w->frames[w->n] = f;
    w->states[w->n] = ASGST_State(it);
    w->n++;
  }
  w->state_after = ASGST_State(it);
  if (w->rewind) {
    ASGST_RewindIterator(it);
    w->rewind_ok = 1;
    for (int i = 0; i < w->n; i++) {
      ASGST_Frame f;
      if (ASGST_NextFrame(it, &f) != 1 || !same_frame(&f, &w->frames[i]))
        w->rewind_ok = 0;
    }
    ASGST_Frame f;
    if (ASGST_NextFrame(it, &f) != w->last) w->rewind_ok = 0;
  }
}

/* Walks the stack's top context with the given options. Returns the RunWithIterator
 * result. */
static inline int walk_stack(const ASGST_SynthStack *s, int options, walk *w) {
  ucontext_t uc;
  assert_int_equal(ASGST_SynthContext(s, &uc), 0);
  use_guard(NULL);
  return ASGST_RunWithIterator(&uc, options, collect, w);
}

static ASGST_MethodLineNumberEntry default_lines[] = {{0, 10}, {5, 11}, {12, 13}};

/* A method of k named `name` with signature "()V" and a three-entry line table. */
static inline ASGST_Method simple_method(ASGST_SynthVM *vm, ASGST_Class k, const char *name,
                                  jint idnum) {
  ASGST_Method m = ASGST_SynthDeclareMethod(vm, k, name, "()V", NULL, 0x0001, idnum,
                                            default_lines, 3);
  assert_non_null(m);
  return m;
}

#endif
