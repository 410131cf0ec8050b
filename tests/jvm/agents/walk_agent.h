/*
 * walk_agent.h - shared between walk_agent.c (JVMTI side, signal handler) and
 * common/walk_compare.c (comparison, statistics and the report).
 */
#ifndef WALK_AGENT_H
#define WALK_AGENT_H

#include <jni.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/asgct_oracle.h"

#define MAXF 384        /* frames kept per trace */
#define NSLOTS 128      /* samples in flight */
#define MAX_THREADS 4096
#define MAX_EXPECT 8

enum { SLOT_FREE = 0, SLOT_WRITING, SLOT_READY };
enum { NODEBUG_COVERED = 0, NODEBUG_OUT_OF_LINE, NODEBUG_OTHER };
/* Where the first Java frame's pc lies (lines=1, sample.top_stub): STUB_NONE (main code that
 * debug information covers, or not checked), STUB_INTERRUPTED (the interrupted top frame,
 * and no PcDesc after the pc has a scope: out-of-line stub code, whose bci the walker finds
 * from the stub's way back), STUB_CALLER (a return address under a non-Java frame with no
 * PcDesc at exactly it, past the prologue: a call without debug information, such as C1's
 * G1 barrier stubs' calls of the runtime's slow path). */
enum { STUB_NONE = 0, STUB_INTERRUPTED, STUB_CALLER };


/* One frame as both sides report it: Method* (pc for non-Java frames) and bci (-3 for
 * native methods, as ASGCT reports them). */
typedef struct {
  uintptr_t method;
  int32_t bci;
  uint8_t type;  /* ASGST frame type; 0 for ASGCT frames */
  int8_t level;
} wframe;

typedef struct {
  atomic_int state;
  int order;
  int a_rc, a_n;       /* ASGST, Java frames only */
  int gct_n;           /* ASGCT num_frames */
  int n_rc, n_n;       /* ASGST with non-Java frames */
  uint64_t t_asgst, t_asgct, t_info, t_first;
  uint64_t t_cpu, t_rewalk; /* slow=1: thread CPU time of the ASGST walk, time of an immediate second walk */
  long faults;              /* slow=1: minor + major page faults during the ASGST walk */
  uint64_t i_asgst, i_asgct, c_asgst, c_asgct; /* user-mode instructions and cycles (bench) */
  uintptr_t regs[3];   /* pc, sp, fp of the ucontext */
  char diag[240];
  uintptr_t first_java_pc; /* pc of the first Java frame of the ASGST walk */
  uintptr_t tjf_pc;        /* asgst__hs_top_java_frame's pc for the same ucontext */
  uintptr_t second_java_sp; /* sp of the walk's next physical frame with a Java frame */
  /* Frames of the walk's first physical frame, and of its sender when that has the same
   * sp (released_n > 0: arm64, the first frame had not allocated its frame yet or had
   * released it, its return address in the link register). */
  int top_n, released_n;
  uintptr_t tjf_sender_sp;  /* the sender's sp top_java_frame found, 0 if none */
  int tjf_rc;
  int8_t vmstate;      /* JavaThread::_thread_state at the sample, -1 if not read */
  int anchor;          /* where the thread's last Java frame anchor points: 0 none, 1 Java code, 2 SafepointBlob, 3 other stub, 4 C */      /* with diag=1: what the top pc is, when ASGST failed */
  wframe a[MAXF];
  wframe g[MAXF];
  wframe nj[MAXF];
  wframe c[MAXF];      /* re-walk with the ASGCT PcDesc rule (safepoint disagreements) */
  int c_n, c_rc;
  /* The first Java frame's pc when ASGST reports bci -1 and ASGCT 0: NODEBUG_COVERED (a
   * PcDesc with a scope covers it, or not checked), NODEBUG_OUT_OF_LINE (none does, and it
   * lies after the method's last PcDesc, before the nmethod's stub section: the compilers'
   * out-of-line stubs, such as C2's G1 barrier slow paths on JDK 24+, or main code past the
   * last call without DebugNonSafepoints), NODEBUG_OTHER (none does, elsewhere). */
  int8_t top_nodebug;
  int8_t top_stub; /* STUB_* */
  int8_t call_stub;       /* where the top pc lies in the call stub (ASGST__CS_*, call_stub.h) */
  int8_t call_stub_after; /* 1 if that is after the stub's call */
  ASGCT_CallFrame gct[MAXF];
} sample;

typedef struct {
  int interval_us;
  int nonjava, nodebug, jni, bench, diag, slow;
  int lines; /* 1: print the histogram of the top Java frames' source lines at the end */
  int trans; /* 1: check the samples of threads outside _thread_in_Java (walk_states.c) */
  int oracle; /* 1 (default): walk with AsyncGetCallTrace too and compare; 0: ASGST only */
  int profile_reps; /* extra ASGST walks per sample, for profiling the walker with perf */
  unsigned levels_mask; /* allowed levels (bit L), 0 = any */
  char label[64];
  char lvl_name[MAX_EXPECT][96];
  int lvl_level[MAX_EXPECT];
  int nlvl;
  char noinl[MAX_EXPECT][96];
  int nnoinl;
  char inl[MAX_EXPECT][96];
  int ninl;
} opts;

extern opts walk_opts;

/* N. Parses the agent options into walk_opts. */
void walk_parse_options(const char *s);
/* N. Prints the top frames' line histogram (lines=1). */
void walk_report_lines(void);
/* N. Compares every ready slot and frees it. */
void walk_drain(sample *slots);
/* N. Prints the figures and the checks ("WALK ok|not ok - ...", "WALK # figure: ..."). */
void walk_report(long signals, long dropped);
/* N. slow=1: prints what the slow walks had in common. */
void walk_report_slow(void);
/* N. Walks the calling (non-Java) thread: expects a non-Java trace of C frames. */
void walk_check_self(void);
/* N. Counts a processed sample by its thread state (walk_states.c); agree and explained:
 * what the comparison with AsyncGetCallTrace added for it. */
void walk_states_count(const sample *s, bool a_ok, bool g_ok, long agree, long explained);
/* N. The per-state figure line and, with trans=1, its checks. */
void walk_states_report(void);
/* N. Counts a processed sample whose top pc is in the call stub (walk_call_stub.c). */
void walk_call_stub_count(const sample *s);
/* N. The call stub's figure line and check, if any sample was there. */
void walk_call_stub_report(void);
/* N. Sets DebugNonSafepoints through the library's flag writer. */
void walk_set_debug_non_safepoints(bool on);

#endif
