/* agree.h - one sample of the unwind agent (tests/jvm/agents/unwind_agent.c): the C frames
 * ASGST walks (ASGST_INCLUDE_NON_JAVA_FRAMES) and those libunwind walks from the same
 * signal context, compared frame by frame, and the tally of all samples. */
#ifndef ASGST_TEST_AGREE_H
#define ASGST_TEST_AGREE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind_agent/elf_maps.h"

#define AGREE_MAXC 128      /* C frames kept per unwinder and sample */
#define AGREE_EXAMPLES 4    /* disagreeing samples kept for the report */
#define AGREE_EX_FRAMES 24  /* frames of each unwinder kept per example */

/* How an unwinder's run of C frames ended. */
enum { END_LEFT_ELF, END_OUTERMOST, END_ERROR, END_FULL };

/* A sample where the two disagree (written once by the handler that claimed it). */
typedef struct {
  pid_t tid;
  int at;             /* the first position where they differ */
  int na, nu;         /* C frames of ASGST, of libunwind */
  int a_end, u_end;   /* END_* of each */
  int a_kind;         /* ASGST_RunWithIterator's result (a trace kind or an error) */
  int a_rc, u_rc;     /* ASGST's NextFrame error (0: none), libunwind's last result */
  uintptr_t a[AGREE_EX_FRAMES], u[AGREE_EX_FRAMES];
} agree_example;

typedef struct {
  atomic_long samples;     /* handler runs */
  atomic_long with_c;      /* ... where either unwinder found a C frame */
  atomic_long non_java;    /* ... on threads the VM does not know (ASGST_NON_JAVA_TRACE) */
  atomic_long agreeing;    /* ... with C frames where every compared frame is equal */
  atomic_long compared;    /* frames compared */
  atomic_long equal;       /* ... of which equal */
  atomic_long asgst_past;  /* C frames ASGST walked past where libunwind stopped in C code */
  atomic_long unw_past;    /* C frames libunwind walked past where ASGST's walk ended */
  atomic_long compared_in[LIB_COUNT], equal_in[LIB_COUNT]; /* by ASGST's pc's library */
  atomic_int examples;     /* claimed slots of ex (may exceed AGREE_EXAMPLES) */
  agree_example ex[AGREE_EXAMPLES];
} agree_tally;

extern agree_tally agree;

/* N. Once, before the first sample: libunwind without caches (see agree.c). */
void agree_init(void);
/* SS. Both unwinds from signal context uc and the comparison, into `agree`. */
void agree_sample(void *uc);

#endif
