/*
 * walk_agent.c - JVMTI test agent: samples Java threads with SIGPROF (sent by its own
 * sampler thread with tgkill, so the interval can be far below the kernel's timer tick)
 * and, in the same handler on the same ucontext, walks the stack with ASGST and with
 * AsyncGetCallTrace (the oracle). The traces go into preallocated slots; the sampler
 * thread compares them frame by frame afterwards and prints the figures at VMDeath.
 *
 * Options (comma separated): interval_us=N, nonjava=1 (a second ASGST walk with
 * ASGST_INCLUDE_NON_JAVA_FRAMES, checked against the first), nodebug=1 (switch
 * DebugNonSafepoints back off after ASGST_Initialize switched it on), levels=0:1 (the only
 * compilation levels Java frames may have), lvl=Class.method:L (every frame of the method
 * has level L), noinl=Class.method (never inlined), inl=Class.method (seen inlined),
 * jni=1 (expect the C frame of libwalk_jni between Java frames in the nonjava walk),
 * bench=1 (time both walks, print medians by stack depth, and median/p90/p99/max and the
 * error shares of both over every sample), label=NAME, profile_reps=N (N more ASGST walks
 * per sample, so that a profiler sees the walker), diag=1 (for each failed walk, the thread
 * state and the physical frames up to the failing decode or step), slow=1 (ASGST walks
 * first; thread CPU time, page faults and a second walk's time of every walk over 20 us),
 * oracle=0 (no AsyncGetCallTrace walk: ASGST's own checks only, the comparisons reported as
 * skips; tests/jvm/test_walk.sh runs a workload again so when the oracle crashed its JVM).
 *
 * The handler turns ASGCT's jmethodIDs into Method* (asgct_oracle_method: one load up to
 * JDK 25, where a jmethodID is a Method**; a map filled at ClassPrepare from 26 on) and the
 * two traces compare as Method* + bci. jmethodIDs are preallocated at ClassPrepare
 * (GetClassMethods), as every ASGCT user must.
 */
#include <errno.h>
#include <jvmti.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "api/iterator.h"
#include "impl/guard.h"
#include "impl/safe_read.h"
#include "impl/arch/call_stub.h"
#include "impl/arch/stub_exit.h"
#include "impl/hotspot/walking/codecache.h"
#include "impl/hotspot/walking/walker_code.h"
#include "impl/hotspot/walking/scopes.h"
#include "impl/hotspot/model/vm_model.h"
#include "impl/hotspot/threads/threads.h"
#include "impl/hotspot/walking/walker.h"
#include "impl/hotspot/model/vmstructs.h"
#include "impl/test_build.h" /* ASGST__OPT_ASGCT_PCDESC_RULE */
_Static_assert(ASGST__OPT_ASGCT_PCDESC_RULE != 0, "the agent links the test build (impl/test_build.h)");
#include <ucontext.h>
#include "walk_agent.h"
#include "common/pmc.h"

static jvmtiEnv *jvmti;
static JavaVM *jvm;
static asgct_fn asgct;

static sample *slots;
static atomic_int threads_tid[MAX_THREADS];
static __thread JNIEnv *tl_env __attribute__((tls_model("initial-exec")));
static atomic_int running;
static pthread_t sampler;
static atomic_long dropped, signals_sent;

/* SS. CPU time of the calling thread (a system call). */
static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. Monotonic nanoseconds (vDSO). */
static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct {
  wframe *f;
  int n, max, rc, include_non_java;
  uintptr_t first_java_pc, first_java_sp, first_java_pc_any;
  uintptr_t second_java_sp; /* sp of the next physical frame with a Java frame (on arm64 it
                              may share the first one's sp: told apart by the pc) */
  uintptr_t fail[3]; /* the physical frame where the walk failed */
  /* The first physical frame's frame count, and that of a sender at the same sp (arm64:
   * the first frame had released its frame, its return address in the link register). */
  int top_n, released_n, phase;
  uintptr_t pc0, sp0, released_pc;
} walk_ctx;

/* SS. Counts the frames of the first physical frame (c->top_n) and of a sender at the
 * same sp (c->released_n), told apart by their pc: inlined frames share their physical
 * frame's pc and sp. Called before frame c->n is stored. */
static void note_released_caller(walk_ctx *c, const ASGST_Frame *fr) {
  uintptr_t pc = (uintptr_t)fr->pc, sp = (uintptr_t)fr->sp;
  if (c->n == 0) {
    c->pc0 = pc, c->sp0 = sp, c->top_n = 1, c->phase = 0;
  } else if (c->phase == 0 && pc == c->pc0 && sp == c->sp0) {
    c->top_n++;
  } else if (c->phase == 0 && sp == c->sp0) {
    c->released_pc = pc, c->released_n = 1, c->phase = 1;
  } else if (c->phase == 1 && pc == c->released_pc && sp == c->sp0) {
    c->released_n++;
  } else {
    c->phase = 2;
  }
}

/* SS. ASGST iterator handler: copies every frame. */
static void collect(ASGST_Iterator *it, void *arg) {
  walk_ctx *c = arg;
  ASGST_Frame fr;
  int r;
  while ((r = ASGST_NextFrame(it, &fr)) == 1) {
    if (c->n >= c->max) { r = 0; break; }
    if (fr.type != ASGST_FRAME_NON_JAVA) {
      if (c->first_java_sp == 0) {
        c->first_java_pc = c->n == 0 ? (uintptr_t)fr.pc : 0;
        c->first_java_pc_any = (uintptr_t)fr.pc;
        c->first_java_sp = (uintptr_t)fr.sp;
      } else if (c->second_java_sp == 0 && ((uintptr_t)fr.sp != c->first_java_sp ||
                                            (!ASGST__RET_AT_SP && (uintptr_t)fr.pc != c->first_java_pc_any))) {
        c->second_java_sp = (uintptr_t)fr.sp;
      }
    }
    note_released_caller(c, &fr);
    wframe *w = &c->f[c->n++];
    w->type = fr.type;
    w->level = (int8_t)fr.comp_level;
    w->bci = fr.type == ASGST_FRAME_JAVA_NATIVE ? -3 : fr.bci;
    w->method = fr.type == ASGST_FRAME_NON_JAVA ? (uintptr_t)fr.pc : (uintptr_t)fr.method;
  }
  c->rc = r;
  if (r < 0) c->fail[0] = it->wc.cur.pc, c->fail[1] = it->wc.cur.sp, c->fail[2] = it->wc.cur.fp;
}

/* SS. Grabs a free slot, NULL if all are busy. */
static sample *grab_slot(void) {
  static atomic_uint next;
  for (int i = 0; i < NSLOTS; i++) {
    unsigned k = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % NSLOTS;
    int expect = SLOT_FREE;
    if (atomic_compare_exchange_strong(&slots[k].state, &expect, SLOT_WRITING)) return &slots[k];
  }
  return NULL;
}

/* SS. One ASGST walk into s. */
static __thread uintptr_t tl_first_java_pc __attribute__((tls_model("initial-exec")));
static __thread uintptr_t tl_second_java_sp __attribute__((tls_model("initial-exec")));
static __thread int tl_top_n __attribute__((tls_model("initial-exec")));
static __thread int tl_released_n __attribute__((tls_model("initial-exec")));
static void walk_asgst(void *uc, int options, wframe *f, int *n, int *rc, uintptr_t *fail) {
  walk_ctx c = {.f = f, .max = MAXF, .rc = ASGST_NO_FRAME, .include_non_java = options};
  int kind = ASGST_RunWithIterator(uc, options, collect, &c);
  if (fail) memcpy(fail, c.fail, sizeof c.fail);
  tl_first_java_pc = c.first_java_pc;
  tl_second_java_sp = c.second_java_sp;
  tl_top_n = c.top_n;
  tl_released_n = c.released_n;
  *n = c.n;
  *rc = kind <= 0 ? kind : c.rc;
}

/* SS. One ASGCT walk into `frames` (jmethodIDs turned into Method* later, by
 * resolve_asgct); the frame count goes to s. With oracle=0 no walk: 0 frames. */
static int walk_asgct(void *uc, ASGCT_CallFrame *frames) {
  if (!walk_opts.oracle) return 0;
  ASGCT_CallTrace t = {tl_env, 0, frames};
  asgct(&t, MAXF, uc);
  return t.num_frames;
}

/* Where the timed walks of bench=1 write their frames: one buffer per thread, reused for
 * every sample, as a profiler keeps one. A sample's slot is cold memory (the ring of slots
 * is megabytes), and writing a trace into it cost more than a fast walk itself, so the
 * bench timed the slot more than the walker. Both walkers get the same buffer; the frames
 * are copied into the slot after the timed spans. */
typedef struct {
  wframe a[MAXF];
  ASGCT_CallFrame gct[MAXF];
} walk_buf;
static __thread walk_buf *tl_buf __attribute__((tls_model("initial-exec")));

/* SS. ASGCT's frames as Method* + bci. */
static void resolve_asgct(sample *s) {
  for (int i = 0; i < s->gct_n && i < MAXF; i++) {
    jmethodID id = s->gct[i].method_id;
    s->g[i].method = asgct_oracle_method(id);
    s->g[i].bci = s->gct[i].lineno;
  }
}

/* SS (under the guard). describe_pcdescs() without its guard. */
static void describe_pcdescs_unguarded(sample *s, const ucontext_t *u) {
  asgst__regs top;
  asgst__uc_regs(u, &top);
  uintptr_t pc = top.pc, blob = 0, code = 0;
  if (asgst__hs_classify(pc, &blob) != ASGST__HK_NMETHOD) return;
  uintptr_t a = 0, b = 0;
  asgst__vm_code_begin(blob, &code);
  asgst__vm_nm_pcs(blob, &a, &b);
  int len = snprintf(s->diag, sizeof s->diag, "pcoff=%ld:", (long)(pc - code));
  for (uintptr_t o = a; o < b && len < (int)sizeof s->diag - 16; o += 16) {
    uint32_t off, sc;
    asgst__load_u32(o, &off);
    asgst__load_u32(o + 4, &sc);
    if ((int32_t)off + 40 < (long)(pc - code) || (int32_t)off > (long)(pc - code) + 60) continue;
    len += snprintf(s->diag + len, sizeof s->diag - len, " %d:%u", (int32_t)off, sc);
  }
}

/* SS. With diag=1 and a top-frame bci mismatch in a compiled frame: the PcDescs around
 * the pc (offset:scope), to see which one each side chose; a fault ends the list. */
static void describe_pcdescs(sample *s, const ucontext_t *u) {
  ASGST__GUARDED(describe_pcdescs_unguarded(s, u), );
}

/* nmethod::_stub_offset (from the blob), -1 if the tables lack it; read at VMInit. */
static long nm_stub_offset = -1;

/* SS (under the guard). top_debug_info() without its guard. */
static int top_debug_info_unguarded(uintptr_t java_pc, const ucontext_t *u) {
  asgst__regs top;
  asgst__uc_regs(u, &top);
  uintptr_t nm = 0, code = 0, a = 0, b = 0;
  ASGST_Frame one[1];
  if (asgst__hs_classify(java_pc, &nm) != ASGST__HK_NMETHOD || !asgst__vm_code_begin(nm, &code) ||
      !asgst__vm_nm_pcs(nm, &a, &b) || b - a < 2 * (uintptr_t)asgst__vm.pcdesc_size)
    return NODEBUG_COVERED;
  /* An interrupted top frame at a deoptimization handler stands for its original pc. */
  uintptr_t pc = java_pc == top.pc ? asgst__hs_real_pc(nm, &top) : java_pc;
  if (asgst__hs_scopes(nm, pc, ASGST__PC_NEAR, one, 1) != 0) return NODEBUG_COVERED;
  /* The last PcDesc before the upper sentinel, and the stub section's start. */
  uint32_t last = 0, stub = 0;
  if (!asgst__load_u32(b - 2 * (uintptr_t)asgst__vm.pcdesc_size + asgst__vm.pcdesc_pc_offset, &last))
    return NODEBUG_COVERED;
  bool in_insts = nm_stub_offset >= 0 && asgst__load_u32(nm + (uintptr_t)nm_stub_offset, &stub) &&
                  pc < nm + (uintptr_t)(int32_t)stub;
  return (long)(pc - code) > (long)(int32_t)last && in_insts ? NODEBUG_OUT_OF_LINE : NODEBUG_OTHER;
}

/* SS. Where the pc of the walk's first Java frame (java_pc) lies when ASGST reports bci -1
 * and ASGCT its placeholder 0 (see sample.top_nodebug): the proof that no debug
 * information covers it, by the rule both walkers apply where no PcDesc is at exactly the
 * pc (the first PcDesc after it). */
static int top_debug_info(uintptr_t java_pc, const ucontext_t *u) {
  volatile int r = NODEBUG_COVERED;
  ASGST__GUARDED(r = top_debug_info_unguarded(java_pc, u), r = NODEBUG_COVERED);
  return r;
}

/* SS (under the guard). The STUB_* kind of the first Java frame's pc (java_pc) for the
 * lines=1 histogram: which samples a walker that does not follow a stub's way back would
 * lose the line of. */
static int top_stub_kind_unguarded(uintptr_t java_pc, const ucontext_t *u) {
  asgst__regs top;
  asgst__uc_regs(u, &top);
  uintptr_t nm = 0;
  ASGST_Frame one[1];
  if (asgst__hs_classify(java_pc, &nm) != ASGST__HK_NMETHOD) return STUB_NONE;
  if (java_pc == top.pc)
    return asgst__hs_scopes(nm, asgst__hs_real_pc(nm, &top), ASGST__PC_NEAR, one, 1) == 0 ? STUB_INTERRUPTED
                                                                                         : STUB_NONE;
  /* A call while the frame is being built (before its frame-complete offset) is the
   * prologue's: the nmethod entry barrier's call of its stub (arm64's C1 code), named by
   * the method's first PcDesc, not a stub serving a bytecode. */
  int32_t size, complete;
  uintptr_t code;
  if (asgst__vm_blob_frame(nm, &size, &complete) && asgst__vm_code_begin(nm, &code) && complete >= 0 &&
      java_pc < code + (uint32_t)complete)
    return STUB_NONE;
  if (asgst__hs_scopes(nm, java_pc, ASGST__PC_EXACT, one, 1) != 0) return STUB_NONE;
  /* In an OSR compilation, C1 places the entry code after the main code, before the
   * stubs: a call there that is not proven to lie in a stub is the entry's call of the
   * runtime (SharedRuntime::OSR_migration_end), named by the loop's bci
   * (test_osr_entry.sh checks it), not a stub serving a store. */
  int32_t osr_bci;
  uint32_t blob_size;
  uintptr_t osr_entry, back;
  if (asgst__vm_nm_osr(nm, &osr_bci, &osr_entry) && java_pc > osr_entry &&
      asgst__vm_code_begin(nm, &code) && asgst__vm_blob_size(nm, &blob_size) &&
      !asgst__hs_stub_call_way_back(java_pc, code, nm + blob_size, &back))
    return STUB_NONE;
  return STUB_CALLER;
}

/* SS. top_stub_kind_unguarded under the guard (STUB_NONE on a fault). */
static int top_stub_kind(uintptr_t java_pc, const ucontext_t *u) {
  volatile int r = STUB_NONE;
  ASGST__GUARDED(r = top_stub_kind_unguarded(java_pc, u), r = STUB_NONE);
  return r;
}

/* SS (under the guard). With diag=1, for a failed walk: re-walks the ucontext frame by
 * frame with the backend's begin/decode/step and writes the thread state, the anchor use
 * and the last physical frames (kind/top/pcmode, code offset) with the failing call into
 * s->diag. */
static __thread ASGST_Iterator *tl_diag_it __attribute__((tls_model("initial-exec")));
static void trace_failure_unguarded(sample *s, const ucontext_t *u) {
  static const char kc[] = "CIMNSE";
  if (tl_diag_it == NULL) return;
  ASGST_Iterator *itp = tl_diag_it;
#define it (itp->wc)
  memset(&it, 0, offsetof(asgst__cursor, pending));
  asgst__regs top;
  asgst__uc_regs(u, &top);
  if (asgst__hs_current_thread(&it.thread) <= 0) return;
  int32_t st = 0;
  asgst__load_u32((uintptr_t)it.thread.vm_thread + asgst__vm.jt_state, (uint32_t *)&st);
  int len = snprintf(s->diag, sizeof s->diag, "st=%d top=%c", st, kc[asgst__hs_classify(top.pc, &(uintptr_t){0})]);
  /* The code at the top pc and just before it (which instruction a decoder met). */
  uint8_t code[12];
  if (asgst__load_bytes(top.pc - 4, code, sizeof code)) {
    len += snprintf(s->diag + len, sizeof s->diag - len, " code=");
    for (int q = 0; q < (int)sizeof code; q++)
      len += snprintf(s->diag + len, sizeof s->diag - len, "%s%02x", q == 4 ? "|" : "", code[q]);
  }
  it.batch_limit = 1;
  int r = asgst__hs_begin(&it, &top);
  len += snprintf(s->diag + len, sizeof s->diag - len, "%s:", it.cur.sp != top.sp ? " anchor" : "");
  for (int d = 0; d < 4096 && r > 0; d++) {
    it.npending = 0;
    uint8_t *hs = (uint8_t *)it.scratch;
    r = asgst__hs_decode(&it);
    uintptr_t blob = 0, code = 0;
    int k = asgst__hs_classify(it.cur.pc, &blob);
    if (blob) asgst__vm_code_begin(blob, &code);
    if (d < 3 || r < 0 || len > (int)sizeof s->diag - 40) {
      if (len > (int)sizeof s->diag - 40) len = 40;
      len += snprintf(s->diag + len, sizeof s->diag - len, " %c%s%d@%ld", kc[k], hs[2] ? "t" : "", hs[1],
                      blob ? (long)(it.cur.pc - code) : 0L);
    }
    if (r < 0) { snprintf(s->diag + len, sizeof s->diag - len, " decode=%d", r); break; }
    uintptr_t old = it.cur.sp;
    r = asgst__hs_step(&it);
    if (r < 0 || (d == 0 && k == ASGST__HK_STUB)) {
      /* A stub: its name, what [sp] and [fp+8] are (kinds), fp - sp. */
      uintptr_t np = 0, a = 0, b = 0;
      char name[24] = "";
      if (blob) asgst__vm_blob_name(blob, &np);
      for (int q = 0; np && q < 23; q++) { uint8_t c; asgst__load_u8(np + q, &c); name[q] = (char)c; if (!c) break; }
      asgst__load_ptr(old, &a);
      if (top.fp >= old) asgst__load_ptr(top.fp + 8, &b);
      int32_t fsize = 0, complete = 0;
      if (blob) asgst__vm_blob_frame(blob, &fsize, &complete);
      len += snprintf(s->diag + len, sizeof s->diag - len, " [%s sp0=%c fp1=%c fp-sp=%ld size=%d complete=%d]", name,
                      kc[asgst__hs_classify(a, &(uintptr_t){0})], kc[asgst__hs_classify(b, &(uintptr_t){0})],
                      (long)(top.fp - old), (int)fsize, (int)complete);
    }
    if (r < 0) { snprintf(s->diag + len, sizeof s->diag - len, " step=%d", r); break; }
    if (r > 0 && it.cur.sp <= old) { snprintf(s->diag + len, sizeof s->diag - len, " loop"); break; }
    if (r > 0 && it.thread.stack_base && it.cur.sp >= it.thread.stack_base) {
      snprintf(s->diag + len, sizeof s->diag - len, " base(%c)", kc[asgst__hs_classify(it.cur.pc, &(uintptr_t){0})]);
      break;
    }
  }
#undef it
}

/* SS (under the guard). Where the top pc lies in the call stub (call_stub.h). */
static void call_stub_of_unguarded(sample *s, const ucontext_t *u) {
  asgst__regs top;
  uintptr_t blob, ret;
  asgst__uc_regs(u, &top);
  if (asgst__hs_classify(top.pc, &blob) != ASGST__HK_STUB) return;
  s->call_stub = (int8_t)asgst__hs_call_stub_phase(blob, top.pc);
  s->call_stub_after = asgst__load_ptr(asgst__vm.call_stub_return, &ret) && top.pc > ret;
}

/* SS. call_stub_of_unguarded() under the guard (none on a fault). */
static void call_stub_of(sample *s, const ucontext_t *u) {
  s->call_stub = ASGST__CS_NONE;
  s->call_stub_after = 0;
  ASGST__GUARDED(call_stub_of_unguarded(s, u), s->call_stub = ASGST__CS_NONE);
}

/* SS. trace_failure_unguarded() under the guard: a fault ends the diagnosis. */
static void trace_failure(sample *s, const ucontext_t *u) {
  s->diag[0] = 0;
  ASGST__GUARDED(trace_failure_unguarded(s, u), );
}

/* SS. True if the two traces differ in method or bci. */
static bool traces_differ(const sample *s) {
  int n = s->gct_n < MAXF ? s->gct_n : MAXF;
  if (s->a_n != n) return true;
  for (int i = 0; i < n; i++)
    if (s->a[i].method != s->g[i].method || s->a[i].bci != s->g[i].bci) return true;
  return false;
}

/* SS (under the guard). check_top_java_frame() without its guard. */
static void check_top_java_frame_unguarded(sample *s, const ucontext_t *u) {
  asgst__thread t = {0};
  asgst__regs top, out = {0, 0, 0, 0}, sender = {0, 0, 0, 0};
  asgst__uc_regs(u, &top);
  if (asgst__hs_current_thread(&t) <= 0) return;
  s->tjf_rc = asgst__hs_top_java_frame(&t, &top, &out, &sender, 1, NULL);
  s->tjf_pc = out.pc;
  s->tjf_sender_sp = sender.sp;
}

/* SS. The walker's top_java_frame (used for queue elements) on the same ucontext. */
static void check_top_java_frame(sample *s, const ucontext_t *u) {
  s->tjf_rc = 0;
  s->tjf_pc = 0;
  ASGST__GUARDED(check_top_java_frame_unguarded(s, u), s->tjf_rc = ASGST_WALK_FAULTED);
}

/* SS (under the guard). anchor_kind() without its guard; the state goes to *st as soon
 * as it is read (a later fault keeps it). */
static int anchor_kind_unguarded(volatile int8_t *st) {
  asgst__thread t = {0};
  uintptr_t sp = 0, pc = 0, blob = 0;
  if (asgst__hs_current_thread(&t) <= 0 || !t.vm_thread) return 0;
  uint32_t v;
  if (asgst__load_u32((uintptr_t)t.vm_thread + asgst__vm.jt_state, &v) && v < 64) *st = (int8_t)v;
  uintptr_t a = (uintptr_t)t.vm_thread + asgst__vm.jt_anchor;
  asgst__load_ptr(a + asgst__vm.anchor_sp, &sp);
  asgst__load_ptr(a + asgst__vm.anchor_pc, &pc);
  if (sp && !pc) asgst__load_ptr(sp - 8, &pc);
  if (!sp) return 0;
  int k = asgst__hs_classify(pc, &blob);
  return k == ASGST__HK_C ? 4 : k != ASGST__HK_STUB ? 1 : asgst__hs_blob_named(blob, "SafepointBlob") ? 2 : 3;
}

/* SS. What the thread's frame anchor points at (see sample.anchor); *state: its
 * JavaThread::_thread_state, -1 if not read. */
static int anchor_kind(int8_t *state) {
  volatile int r = 0;
  volatile int8_t st = -1;
  ASGST__GUARDED(r = anchor_kind_unguarded(&st), );
  *state = st;
  return r;
}

/* SS. The sampling signal: both walks on the same ucontext. */
static void on_sample(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  if (tl_env == NULL || !atomic_load_explicit(&running, memory_order_relaxed)) goto out;
  sample *s = grab_slot();
  if (s == NULL) {
    atomic_fetch_add(&dropped, 1);
    goto out;
  }
  s->order = walk_opts.bench ? (int)(now_ns() & 1) : 0;
  /* Counters are read outside the timed spans (a read() costs more than a walk); the cost
   * of one read, measured here, is taken off the counts. */
  uint64_t i[4] = {0}, c[4] = {0}, t0, t1, t2, t3;
  walk_buf *b = tl_buf;
  wframe *out_a = b ? b->a : s->a;
  ASGCT_CallFrame *out_gct = b ? b->gct : s->gct;
  if (walk_opts.bench) pmc_read(&i[3], &c[3]), pmc_read(&i[0], &c[0]);
  /* The timed walks write to the stack and to the thread's buffer, never to the slot, whose
   * pages are first touched at some sample (a page fault costs 10-20 us here). */
  int a_n = 0, a_rc = 0, g_n = 0;
  uintptr_t a_fail[3] = {0, 0, 0};
  struct rusage ru0, ru1;
  uint64_t cpu0 = 0;
  if (walk_opts.slow) {
    /* The first walk of this sample is the one measured (cold state); not signal safe in
     * general, getrusage and the thread CPU clock are plain system calls. */
    s->order = 0;
    getrusage(RUSAGE_THREAD, &ru0);
    cpu0 = thread_cpu_ns();
  }
  if (s->order == 0) {
    t0 = now_ns();
    walk_asgst(uc, 0, out_a, &a_n, &a_rc, a_fail);
    t1 = now_ns();
    if (walk_opts.slow) {
      s->t_cpu = thread_cpu_ns() - cpu0;
      getrusage(RUSAGE_THREAD, &ru1);
      s->faults = (ru1.ru_minflt - ru0.ru_minflt) + (ru1.ru_majflt - ru0.ru_majflt);
      int n2, rc2;
      uint64_t r0 = now_ns();
      walk_asgst(uc, 0, out_a, &n2, &rc2, NULL);
      s->t_rewalk = now_ns() - r0;
    }
    if (walk_opts.bench) pmc_read(&i[1], &c[1]);
    t2 = now_ns();
    g_n = walk_asgct(uc, out_gct);
    t3 = now_ns();
    if (walk_opts.bench) pmc_read(&i[2], &c[2]);
    s->t_asgst = t1 - t0;
    s->t_asgct = t3 - t2;
  } else {
    t0 = now_ns();
    g_n = walk_asgct(uc, out_gct);
    t1 = now_ns();
    if (walk_opts.bench) pmc_read(&i[1], &c[1]);
    t2 = now_ns();
    walk_asgst(uc, 0, out_a, &a_n, &a_rc, a_fail);
    t3 = now_ns();
    if (walk_opts.bench) pmc_read(&i[2], &c[2]);
    s->t_asgct = t1 - t0;
    s->t_asgst = t3 - t2;
  }
  s->a_n = a_n, s->a_rc = a_rc, s->gct_n = g_n;
  memcpy(s->regs, a_fail, sizeof a_fail);
  if (b) {
    memcpy(s->a, b->a, sizeof *s->a * (size_t)(s->a_n > 0 ? s->a_n : 0));
    memcpy(s->gct, b->gct, sizeof *s->gct * (size_t)(s->gct_n > 0 ? s->gct_n : 0));
  }
  uint64_t i_read = i[0] - i[3], c_read = c[0] - c[3];
  uint64_t i_first = i[1] - i[0] - i_read, c_first = c[1] - c[0] - c_read;
  uint64_t i_second = i[2] - i[1] - i_read, c_second = c[2] - c[1] - c_read;
  s->i_asgst = s->order == 0 ? i_first : i_second, s->c_asgst = s->order == 0 ? c_first : c_second;
  s->i_asgct = s->order == 0 ? i_second : i_first, s->c_asgct = s->order == 0 ? c_second : c_first;
  for (int k = 0; k < walk_opts.profile_reps; k++)
    walk_asgst(uc, 0, s->a, &s->a_n, &s->a_rc, s->regs);
  resolve_asgct(s);
  s->t_info = 0;
  if (walk_opts.bench && s->a_n > 0 && s->a[0].type != ASGST_FRAME_NON_JAVA) {
    char name[64], sig[128];
    ASGST_MethodInfo mi = {0};
    mi.method_name = name, mi.method_name_length = sizeof name;
    mi.signature = sig, mi.signature_length = sizeof sig;
    t2 = now_ns();
    ASGST_GetMethodInfo((ASGST_Method)s->a[0].method, &mi);
    t3 = now_ns();
    s->t_info = t3 - t2;
    /* The fixed part of a walk: thread lookup, begin, the first frame. */
    wframe one[2];
    walk_ctx c = {.f = one, .max = 2, .rc = ASGST_NO_FRAME};
    t2 = now_ns();
    ASGST_RunWithIterator(uc, ASGST_END_ON_FIRST_JAVA_FRAME, collect, &c);
    t3 = now_ns();
    s->t_first = t3 - t2;
  }
  if (walk_opts.diag && s->a_rc < 0) trace_failure(s, uc);
  s->first_java_pc = tl_first_java_pc;
  s->second_java_sp = tl_second_java_sp;
  s->top_n = tl_top_n;
  s->released_n = tl_released_n;
  check_top_java_frame(s, uc);
  s->anchor = anchor_kind(&s->vmstate);
  call_stub_of(s, uc);
  s->c_n = -1;
  if ((s->anchor == 2 || s->anchor == 3) && s->a_rc == 0 && s->gct_n > 0 && traces_differ(s)) {
    walk_asgst(uc, ASGST__OPT_ASGCT_PCDESC_RULE, s->c, &s->c_n, &s->c_rc, NULL);
  }
  s->top_nodebug = NODEBUG_COVERED;
  if (s->a_rc == 0 && s->a_n > 0 && s->gct_n > 0 && s->a[0].bci != 0 && s->g[0].bci == 0)
    s->top_nodebug = (int8_t)top_debug_info(s->first_java_pc, uc);
  s->top_stub = STUB_NONE;
  if (walk_opts.lines && s->a_rc == 0 && s->a_n > 0 && s->a[0].type != ASGST_FRAME_NON_JAVA)
    s->top_stub = (int8_t)top_stub_kind(s->first_java_pc, uc);
  if (walk_opts.diag && s->a_rc == 0 && s->a_n > 0 && s->gct_n > 0 && s->a[0].bci != s->g[0].bci)
    describe_pcdescs(s, uc);
  s->n_n = 0;
  s->n_rc = 0;
  if (walk_opts.nonjava) walk_asgst(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, s->nj, &s->n_n, &s->n_rc, NULL);
  atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
out:
  errno = saved;
}

/* N. Registers the calling Java thread for sampling. */
static void add_thread(JNIEnv *env) {
  tl_env = env;
  if (walk_opts.bench) {
    pmc_open_thread();
    tl_buf = calloc(1, sizeof *tl_buf);
    /* Maps its pages now: the timed walks write here and must not take page faults. */
    for (size_t o = 0; tl_buf && o < sizeof *tl_buf; o += 4096) ((volatile char *)tl_buf)[o] = 0;
  }
  if (walk_opts.diag) tl_diag_it = calloc(1, sizeof *tl_diag_it);
  int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < MAX_THREADS; i++) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&threads_tid[i], &expect, tid)) return;
  }
}

/* N. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)t;
  add_thread(env);
}

/* N. */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  walk_buf *b = tl_buf;
  tl_buf = NULL;
  atomic_signal_fence(memory_order_seq_cst); /* our own handler never sees it freed */
  free(b);
  int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < MAX_THREADS; i++) {
    int expect = tid;
    if (atomic_compare_exchange_strong(&threads_tid[i], &expect, 0)) return;
  }
}

/* N. The sampler thread: signals the registered threads round robin and compares. */
static void *sampler_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, (long)walk_opts.interval_us * 1000};
  int next = 0;
  /* Walks work from the start: on_vm_init waited for the binding (agent_initialize_live). */
  for (unsigned long ticks = 0; atomic_load(&running); ticks++) {
    if (agent_tids_signal_next(threads_tid, MAX_THREADS, &next, SIGPROF)) atomic_fetch_add(&signals_sent, 1);
    nanosleep(&iv, NULL);
    walk_drain(slots);
    if (ticks % 1000 == 0) walk_check_self();
  }
  return NULL;
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)t;
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    fprintf(stderr, "WALK not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  nm_stub_offset = asgst__vms_offset("nmethod", "_stub_offset");
  if (walk_opts.nodebug) walk_set_debug_non_safepoints(false);
  asgct_oracle_prepare_loaded(j);
  add_thread(env);
  atomic_store(&running, 1);
  pthread_create(&sampler, NULL, sampler_main, NULL);
}

/* N. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  usleep(20000); /* handlers in flight finish their slots */
  walk_drain(slots);
  walk_report(atomic_load(&signals_sent), atomic_load(&dropped));
  walk_report_lines();
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  walk_parse_options(options);
  asgct = asgct_oracle_lookup();
  if (asgct == NULL && walk_opts.oracle) {
    fprintf(stderr, "WALK not ok - AsyncGetCallTrace not found\n");
    return JNI_ERR;
  }
  slots = calloc(NSLOTS, sizeof *slots);
  if (slots == NULL || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  asgct_oracle_callbacks(&cb);
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START,
                     JVMTI_EVENT_THREAD_END};
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL);
  asgct_oracle_enable(jvmti);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
  return JNI_OK;
}
