/*
 * fuzz_agent.h - what the parts of the live-JVM fuzzer (fuzz_agent.c and the files in fuzz_agent/)
 * share: counters, the per-thread random generator, the address ranges and pools that
 * perturbed contexts draw from.
 *
 * Everything the signal handler touches is preallocated and updated with relaxed atomics:
 * the handler never allocates, locks or prints.
 */
#ifndef FUZZ_AGENT_H
#define FUZZ_AGENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "asgst.h"

/* How a walk's start was chosen (fuzz_agent/contexts.c). */
enum fuzz_ctx {
  CTX_REAL,       /* the signal's ucontext as it is */
  CTX_HERE,       /* ASGST_RunWithIterator(NULL): from the handler, through the signal frame */
  CTX_SPFP,       /* a copy of the ucontext with sp/fp moved by a few words */
  CTX_PC_DELTA,   /* the real pc moved by a few bytes */
  CTX_CODECACHE,  /* pc anywhere in a code heap */
  CTX_LIBJVM,     /* pc anywhere in libjvm's text */
  CTX_INTERP,     /* pc anywhere in the interpreter's code */
  CTX_POOL,       /* pc of a frame seen in an earlier walk (stubs, Java code), +- bytes */
  CTX_STACK,      /* sp/fp somewhere higher on the real stack, pc from a pool or the heap */
  CTX_GARBAGE,    /* random, NULL, non-canonical, kernel and misaligned values */
  CTX_REMOTE,     /* ASGST_RunWithIteratorOnThread (fuzz_agent/remote.c) */
  CTX_COPY,       /* the same with ASGST_COPY_STACK: the copy of a released thread's stack */
  CTX_COUNT
};

/* Invariants of the API a walk must keep whatever its start (fuzz_agent/walk_check.c). */
enum fuzz_violation {
  V_STATE,      /* ASGST_State disagreed with what ASGST_NextFrame returned next */
  V_ZERO,       /* an error from NextFrame left fields of the frame set */
  V_FRAME,      /* frame type or compilation level out of range */
  V_RUNAWAY,    /* more frames than the walker's depth limit allows */
  V_KIND,       /* RunWithIterator returned neither a kind nor the iterator's error */
  V_UNDOCUMENTED, /* an error code ASGST_ErrorName does not know */
  V_INFO,       /* an information accessor returned a malformed result */
  V_OPTIONS,    /* a C frame without ASGST_INCLUDE_NON_JAVA_FRAMES, or a frame after the
                 * first Java one with ASGST_END_ON_FIRST_JAVA_FRAME */
  V_COUNT
};

/* Codes -CODE_OFF..CODE_OFF-1 index the histograms directly. */
#define CODE_OFF 32
#define CODE_SLOTS (2 * CODE_OFF)

typedef struct {
  atomic_ulong walks, frames, methods, info_calls, random_info_calls;
  atomic_ulong by_code[CODE_SLOTS];  /* the walk's outcome: the first error or terminal code */
  atomic_ulong by_kind[3];           /* successful starts by trace kind */
  atomic_ulong remote_by_code[CODE_SLOTS]; /* the same, out-of-thread walks only */
  atomic_ulong by_ctx[CTX_COUNT];    /* walks per kind of start */
  atomic_ulong faults_by_ctx[CTX_COUNT];
  atomic_ulong violations[V_COUNT];
  atomic_ulong rewinds, rewind_mismatch, signals, handler_ns, handler_max_ns;
  atomic_ulong java_without_method; /* bytecode frames with a NULL method (allowed) */
  /* C frames (issue 28): walks asked for them (ASGST_INCLUDE_NON_JAVA_FRAMES), walks that
   * returned at least one, and the C frames returned. */
  atomic_ulong c_asked, c_walks, c_frames;
  atomic_long first_violation_code;
  /* Stack-copy walks checked against the blocking walk of the same moment (remote.c). */
  atomic_ulong copy_checked, copy_identical, copy_with_wrong, copy_wrong_frames, copy_frames;
} fuzz_counts;

extern fuzz_counts fuzz_n;
/* The walks that call the accessors on every method they return: 1 in fuzz_info_every
 * (0: none). The accessors cost more than the walk itself. */
extern int fuzz_info_every;
/* Percent of the out-of-thread walks that are stack-copy walks, and how long after the
 * target's release a checked one walks the copy (remote.c). */
extern int fuzz_copy_percent, fuzz_copy_delay_us;

/* Address ranges, found once by fuzz_agent/ranges.c (0,0 when unknown). */
typedef struct {
  uintptr_t lo, hi;
} fuzz_range;
#define MAX_HEAPS 4
extern fuzz_range fuzz_heaps[MAX_HEAPS], fuzz_libjvm;
extern atomic_int fuzz_nheaps;

/* Pools of addresses seen in walks, overwritten round robin (racy by design: any value is
 * a good fuzzing input). */
#define POOL_SIZE 512
enum fuzz_pool { POOL_NONJAVA_PC, POOL_JAVA_PC, POOL_METHOD, POOL_COUNT };
void fuzz_pool_put(enum fuzz_pool p, uintptr_t v);  /* SS */
uintptr_t fuzz_pool_get(enum fuzz_pool p, uint64_t r); /* SS, 0 while empty */

/* SS. Per-thread xorshift64*; seeds itself on first use. */
uint64_t fuzz_rand(void);
/* SS. A uniform value in [0, n) (n > 0). */
static inline uint64_t fuzz_below(uint64_t n) { return fuzz_rand() % n; }

/* SS. Walks once from a start of kind `ctx` built from the signal's ucontext `uc`. */
void fuzz_walk_ctx(enum fuzz_ctx ctx, void *uc);
/* SS. The iterator handler every fuzzed walk uses; arg is a fuzz_walk (walk_check.c). */
typedef struct {
  enum fuzz_ctx ctx;
  int frames, code;  /* out: frames returned, terminal NextFrame code */
  bool rewind;       /* walk once more after ASGST_RewindIterator and compare */
  int32_t options;   /* the walk's options, for the option checks */
  ASGST_Frame *keep; /* if not NULL: the first keep_cap frames are stored here */
  int keep_cap;
  int c_frames;      /* out: ASGST_FRAME_NON_JAVA frames among `frames` */
} fuzz_walk;
void fuzz_drain(ASGST_Iterator *it, void *arg);
/* SS. Counts the outcome of a walk that returned `kind` after fuzz_drain filled *w. */
void fuzz_count(fuzz_walk *w, int kind);
/* SS. Counts a broken invariant; the first one's code is kept for the report. */
void fuzz_violated(enum fuzz_violation v, int code);
/* SS. Calls every information accessor on a random pointer. */
void fuzz_random_info(void);
/* SS. A garbage pointer-sized value, sometimes near `near`. */
uintptr_t fuzz_garbage(uintptr_t near);

/* N. Finds the code heaps and libjvm's text (ranges.c). */
void fuzz_find_ranges(void);
/* N. Starts / stops the out-of-thread walker (remote.c). */
void fuzz_remote_start(atomic_int *tids, int ntids, int period_us);
void fuzz_remote_stop(void);
/* N. Prints the FUZZ lines of the final report (report.c). */
void fuzz_report(const char *label, double seconds, int ntids_seen);

#endif
