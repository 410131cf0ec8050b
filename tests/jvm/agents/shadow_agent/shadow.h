/*
 * shadow.h - the shadow-stack oracle's sample (shadow_agent.c fills it in the SIGPROF
 * handler) and its comparison (shadow_compare.c, on the agent's sampler thread).
 */
#ifndef ASGST_TESTS_SHADOW_H
#define ASGST_TESTS_SHADOW_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/asgct_oracle.h"

/* Where the agent's lines go (its out= option, else stdout). */
extern FILE *sh_out;

#define SH_MAXF 512 /* frames a walk or a shadow stack keeps; deeper samples are a class */

enum { SLOT_FREE, SLOT_WRITING, SLOT_READY };

typedef struct {
  uintptr_t method; /* Method* (ASGCT's jmethodID already mapped) */
  int32_t bci;
  uint8_t type; /* ASGST frame type; 0 for ASGCT's frames */
  int8_t level; /* ASGST's comp_level */
  uintptr_t pc; /* ASGST's pc */
} sh_frame;

typedef struct {
  atomic_int state;
  int a_n, a_rc;  /* ASGST: Java frames, and the walk's end (0 or an error code) */
  int a_kind;     /* what ASGST_RunWithIterator returned */
  int g_n;        /* ASGCT's num_frames (<= 0: its error code), -100 when not called */
  int s_depth;    /* shadow stack depth */
  int s_flag;     /* the helper's "push or pop under way" word */
  int top_compiled; /* ASGST's first Java frame is compiled code (level >= 1) */
  int thread_state; /* ASGST_ThreadState() in the handler */
  uintptr_t uc_pc;  /* the interrupted pc */
  sh_frame a[SH_MAXF];
  sh_frame g[SH_MAXF];
  ASGCT_CallFrame gct[SH_MAXF];
  int32_t s[SH_MAXF]; /* shadow ids, top first */
} sh_sample;

/* N. Records a method the instrumenting agent defined: id, "class.name+descriptor", and its
 * windows (w[0] the entry sequence's end bci, then [from, to] pairs of exit sequences). */
void sh_define(int id, const char *key, const int *w, int nw);
/* N. Compares one sample's two walks with its shadow stack and counts the classes. */
void sh_compare(const sh_sample *s);
/* N. Prints the classes, figures and the check (prefix "SHADOW"); min_agree_pm is the
 * bound on ASGST's agreement outside the windows, per mille. */
void sh_report(long signals, long dropped, long unregistered, int min_agree_pm, int asgct_on);

#endif
