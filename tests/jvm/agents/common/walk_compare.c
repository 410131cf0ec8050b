/*
 * walk_compare.c - the sampler thread's half of the walk test agent: compares the ASGST
 * and AsyncGetCallTrace traces of each sample, keeps per-method statistics (levels,
 * inlining) and prints the figures and checks at the end. Self-contained (the agents'
 * common/ files are linked into every agent of this directory).
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asgst.h"
#include "../walk_agent.h"
#include "walk_stats.h"

opts walk_opts = {.interval_us = 200, .label = "walk", .oracle = 1};

/* ---- options ---------------------------------------------------------------------------- */

/* N. */
void walk_parse_options(const char *s) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", s ? s : "");
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *v = strchr(t, '=');
    if (!v) continue;
    *v++ = '\0';
    if (!strcmp(t, "interval_us")) walk_opts.interval_us = atoi(v);
    else if (!strcmp(t, "nonjava")) walk_opts.nonjava = atoi(v);
    else if (!strcmp(t, "nodebug")) walk_opts.nodebug = atoi(v);
    else if (!strcmp(t, "jni")) walk_opts.jni = atoi(v);
    else if (!strcmp(t, "bench")) walk_opts.bench = atoi(v);
    else if (!strcmp(t, "diag")) walk_opts.diag = atoi(v);
    else if (!strcmp(t, "slow")) walk_opts.slow = atoi(v);
    else if (!strcmp(t, "lines")) walk_opts.lines = atoi(v);
    else if (!strcmp(t, "oracle")) walk_opts.oracle = atoi(v);
    else if (!strcmp(t, "trans")) walk_opts.trans = atoi(v);
    else if (!strcmp(t, "profile_reps")) walk_opts.profile_reps = atoi(v);
    else if (!strcmp(t, "label")) snprintf(walk_opts.label, sizeof walk_opts.label, "%s", v);
    else if (!strcmp(t, "levels")) {
      for (char *p = v; *p; p++) if (*p >= '0' && *p <= '4') walk_opts.levels_mask |= 1u << (*p - '0');
    } else if (!strcmp(t, "lvl") && walk_opts.nlvl < MAX_EXPECT) {
      char *c = strrchr(v, ':');
      if (!c) continue;
      *c = '\0';
      snprintf(walk_opts.lvl_name[walk_opts.nlvl], 96, "%s", v);
      walk_opts.lvl_level[walk_opts.nlvl++] = atoi(c + 1);
    } else if (!strcmp(t, "noinl") && walk_opts.nnoinl < MAX_EXPECT) {
      snprintf(walk_opts.noinl[walk_opts.nnoinl++], 96, "%s", v);
    } else if (!strcmp(t, "inl") && walk_opts.ninl < MAX_EXPECT) {
      snprintf(walk_opts.inl[walk_opts.ninl++], 96, "%s", v);
    }
  }
}

/* N. */
void walk_set_debug_non_safepoints(bool on) {
  extern int asgst__hs_set_bool_flag(const char *name, bool value);
  asgst__hs_set_bool_flag("DebugNonSafepoints", on);
}

/* ---- per-method statistics -------------------------------------------------------------- */

#define MTAB 16384
typedef struct {
  uintptr_t method;
  unsigned levels;   /* bit L: seen at comp level L (bit 5: unknown) */
  long inlined, outer, native;
  char name[96];
} mstat;
static mstat mtab[MTAB];

/* N. "Class.method" of m (simple class name), from the library's accessors. */
void walk_method_name(uintptr_t m, char *out, size_t cap) {
  char name[128] = "", cls[256] = "";
  ASGST_MethodInfo mi;
  memset(&mi, 0, sizeof mi);
  mi.method_name = name, mi.method_name_length = sizeof name;
  ASGST_GetMethodInfo((ASGST_Method)m, &mi);
  ASGST_ClassInfo ci;
  memset(&ci, 0, sizeof ci);
  ci.class_name = cls, ci.class_name_length = sizeof cls;
  ASGST_Class k = ASGST_GetClass((ASGST_Method)m);
  if (k) ASGST_GetClassInfo(k, &ci);
  const char *simple = strrchr(cls, '/');
  simple = simple ? simple + 1 : cls;
  size_t l = strlen(simple);
  if (l && simple[l - 1] == ';') l--;
  if (*simple == 'L' && strchr(cls, '/') == NULL) simple++, l--;
  snprintf(out, cap, "%.*s.%s", (int)l, simple, name[0] ? name : "?");
}

/* N. */
static mstat *stat_of(uintptr_t m) {
  size_t h = (m >> 3) * 0x9E3779B97F4A7C15ull >> 50;
  for (size_t i = 0; i < MTAB; i++) {
    mstat *e = &mtab[(h + i) % MTAB];
    if (e->method == m) return e;
    if (e->method == 0) {
      e->method = m;
      walk_method_name(m, e->name, sizeof e->name);
      return e;
    }
  }
  return NULL;
}

/* ---- comparison ------------------------------------------------------------------------- */

static walk_stats ws;
static uintptr_t jni_lo, jni_hi;
#define MAXT 400000

/* N. */
const walk_stats *walk_get_stats(void) { return &ws; }

/* N. Records a disagreement of class `name`. */
static void disagree(const char *name, const sample *s) {
  for (int i = 0; i < ws.nclasses; i++)
    if (!strcmp(ws.classes[i].name, name)) { ws.classes[i].count++; return; }
  if (ws.nclasses == MAXCLASS) return;
  dclass *c = &ws.classes[ws.nclasses++];
  snprintf(c->name, sizeof c->name, "%s", name);
  c->count = 1;
  c->example = *s;
}

/* N. Short name of what frame f is: interp, c1, c2, inl, native. */
static const char *frame_kind(const wframe *f) {
  if (f->type == ASGST_FRAME_JAVA_INLINED) return "inlined";
  if (f->type == ASGST_FRAME_JAVA_NATIVE) return "native";
  if (f->level == 0) return "interp";
  return f->level == 4 ? "c2" : "c1";
}

/* N. */
static bool same_trace(const wframe *a, int na, const wframe *b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (a[i].method != b[i].method || a[i].bci != b[i].bci) return false;
  return true;
}

/* N. True if the first n frames agree, a bci of -1 (no debug information at an
 * interrupted pc) matching ASGCT's placeholder 0. */
static bool same_top_frames(const wframe *a, const wframe *g, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].method != g[i].method || (a[i].bci != g[i].bci && !(a[i].bci == -1 && g[i].bci == 0)))
      return false;
  return true;
}

/* N. True if the traces differ only in Java frames that ASGCT reports without a method
 * (NULL jmethodID) and ASGST with one, at the same bci. */
static bool only_null_ids_differ(const sample *s, int n) {
  int nulls = 0;
  if (s->a_n != n) return false;
  for (int i = 0; i < n; i++) {
    if (s->a[i].method == s->g[i].method && s->a[i].bci == s->g[i].bci) continue;
    if (s->gct[i].method_id != NULL || s->a[i].type == ASGST_FRAME_NON_JAVA || s->a[i].bci != s->g[i].bci)
      return false;
    nulls++;
  }
  return nulls > 0;
}

/* N. True if ASGST's walk of s ends at a thread's root method: a main(), or the run() of
 * a Thread or a Runnable the thread was started with. */
static bool ends_at_root(const sample *s) {
  const mstat *st = stat_of(s->a[s->a_n - 1].method);
  if (st == NULL) return false;
  const char *dot = strrchr(st->name, '.');
  return dot && (strcmp(dot, ".main") == 0 || strcmp(dot, ".run") == 0);
}

/* The (method, bci) pairs ASGST named from a stub's way back (lines=1 prints them): at an
 * interrupted pc where ASGCT has its placeholder 0 (stab), and the top Java frames at a
 * return address without a PcDesc under a non-Java frame (sample.top_stub STUB_CALLER:
 * C1's G1 barrier stubs' calls of the runtime's slow path, where ASGCT fails), ctab. */
#define STAB 64
typedef struct { uintptr_t method; int bci; long count; } stub_pair;
static stub_pair stab[STAB], ctab[STAB];

/* N. */
static void record_pair(stub_pair *t, const sample *s) {
  for (int i = 0; i < STAB; i++) {
    if (t[i].method == s->a[0].method && t[i].bci == s->a[0].bci) { t[i].count++; return; }
    if (t[i].method == 0) { t[i].method = s->a[0].method, t[i].bci = s->a[0].bci, t[i].count = 1; return; }
  }
}

/* N. */
static void record_stub_bci(const sample *s) { record_pair(stab, s); }

/* N. Prints "WALK # WHAT NAME bci BCI line LINE COUNT" for each pair of table t. */
static void report_pairs(const stub_pair *t, const char *what) {
  for (int i = 0; i < STAB && t[i].method; i++) {
    char name[128];
    walk_method_name(t[i].method, name, sizeof name);
    fprintf(stderr, "WALK # %s %s bci %d line %d %ld\n", what, name, t[i].bci,
            (int)ASGST_GetMethodLineNumber((ASGST_Method)t[i].method, t[i].bci), t[i].count);
  }
}

/* N. The pairs of both tables: "WALK # stub ..." and "WALK # stub_call ...". */
static void walk_report_stub_bcis(void) {
  report_pairs(stab, "stub");
  report_pairs(ctab, "stub_call");
}

/* N. */
static void compare(const sample *s) {
  int n = s->gct_n < MAXF ? s->gct_n : MAXF;
  int m = s->a_n < n ? s->a_n : n;
  char cls[48];
  /* Explained class 1: stopped in the safepoint handler (at a poll) or in a runtime stub
   * (at a call), AsyncGetCallTrace takes the PcDesc after the compiled frame's pc (its
   * rule for interrupted pcs) where the VM uses the one at the pc; proven per sample by a
   * re-walk with ASGCT's rule giving ASGCT's trace exactly. */
  if (s->c_n >= 0 && s->c_rc == 0 && same_trace(s->c, s->c_n, s->g, n)) {
    ws.explained_safepoint++;
    disagree(s->anchor == 2 ? "asgct_pcdesc_after_safepoint_poll" : "asgct_pcdesc_after_stub_call", s);
    return;
  }
  /* Explained class 3: ASGCT reports a Java frame with a NULL method (its method has no
   * jmethodID) where ASGST has a method with the same bci, and every other frame agrees.
   * The agent creates jmethodIDs at ClassPrepare, but HotSpot posts no ClassPrepare for a
   * class prepared inside a virtual thread's temporary switch to its carrier (JDK 21's
   * VirtualThread.scheduleUnpark loads the unparker's executor classes there:
   * ThreadPoolExecutor$Worker.run, FutureTask.run, ... on the "VirtualThread-unparker"
   * thread), with or without can_support_virtual_threads (tried). ASGCT is wrong there,
   * not ASGST: proven per sample by the rest of the trace. */
  if (only_null_ids_differ(s, n)) {
    ws.explained_null_id++;
    disagree("asgct_frame_without_jmethodid", s);
    return;
  }
  /* Explained class 2: no debug information covers an interrupted pc: ASGCT reports the
   * compiled method with its placeholder bci 0 ("a zero bci will do", forte/vframe), ASGST
   * with bci -1 (unknown). Same frames otherwise: counted as agreement. Proven per sample:
   * the first PcDesc after the pc carries no scope (sample.top_nodebug). On JDK 24+ with G1
   * about 1% of the samples of store-heavy C2 code: the barriers' slow paths are out-of-line
   * stubs after the method's last PcDesc (JEP 475), where 17 and 21 had them inline. */
  if (m > 0 && s->a[0].bci == -1 && s->g[0].bci == 0 && s->a[0].method == s->g[0].method &&
      s->a[0].type == ASGST_FRAME_JAVA && s->a[0].level > 0 && s->a_n == n &&
      s->top_nodebug != NODEBUG_COVERED && same_trace(s->a + 1, s->a_n - 1, s->g + 1, n - 1)) {
    ws.agree++;
    ws.unknown_bci++;
    ws.unknown_bci_out_of_line += s->top_nodebug == NODEBUG_OUT_OF_LINE;
    return;
  }
  /* Explained class 2b: the same pc, no debug information covering it, but ASGST names
   * the scopes of the instruction an out-of-line stub serves (found from the stub's jump
   * back into the main code, stub_exit.h) where ASGCT has its placeholder bci 0 without
   * inlining: ASGCT's top frame is the outermost method of ASGST's first physical frame,
   * and the frames below agree. Counted as agreement, and apart (stub_bci). */
  int t = s->top_n;
  if (m > 0 && t > 0 && t <= s->a_n && s->g[0].bci == 0 && s->a[t - 1].method == s->g[0].method &&
      s->a[t - 1].type == ASGST_FRAME_JAVA && s->a[t - 1].level > 0 && s->top_nodebug != NODEBUG_COVERED &&
      s->a[0].bci >= 0 && same_trace(s->a + t, s->a_n - t, s->g + 1, n - 1)) {
    ws.agree++;
    ws.stub_bci++;
    record_stub_bci(s);
    return;
  }
  /* Explained class 5 (arm64): the interrupted frame had not allocated its frame yet or
   * had released it already (in its prologue, or at its return poll or ret: the return
   * address in the link register), so its sender's frame starts at the same sp.
   * AsyncGetCallTrace sizes the interrupted frame as if it were whole, which skips that
   * sender: its trace is ASGST's without the sender's frames (the top frames compared as
   * class 2 does, bci -1 against ASGCT's placeholder 0). Proven per sample by that
   * equality. */
  int top = s->top_n, rel = s->released_n;
  if (rel > 0 && s->a_n < MAXF && n < MAXF && top + rel <= s->a_n && n == s->a_n - rel &&
      same_top_frames(s->a, s->g, top) &&
      same_trace(s->a + top + rel, s->a_n - top - rel, s->g + top, n - top)) {
    ws.explained_released++;
    disagree("asgct_skips_sender_at_same_sp", s);
    return;
  }
  for (int i = 0; i < m; i++) {
    bool meth = s->a[i].method != s->g[i].method, bci = s->a[i].bci != s->g[i].bci;
    if (!meth && !bci) continue;
    static const char *anchors[] = {"", "@anchor", "@safepoint", "@stub", "@c"};
    snprintf(cls, sizeof cls, "%s_%s/%s%s", i == 0 ? "top" : "caller", meth ? "method" : "bci",
             frame_kind(&s->a[i]), anchors[s->anchor <= 4 ? s->anchor : 0]);
    disagree(cls, s);
    static int shown;
    if (walk_opts.diag && i == 0 && bci && shown++ < 20)
      fprintf(stderr, "WALK # diag %s asgst=%d asgct=%d %s\n", cls, s->a[0].bci, s->g[0].bci, s->diag);
    return;
  }
  if (s->a_n == n || (n == MAXF && s->a_n >= MAXF)) { ws.agree++; return; }
  /* Explained class 4: AsyncGetCallTrace stops early (JDK 8 and 11 stop below some
   * interpreted frames of method handle adapters and at some JVMTI callbacks): its frames
   * are ASGST's first ones exactly, and ASGST's walk goes on to the thread's root method
   * (main, or a run() at the bottom). Proven per sample by the complete chain. */
  if (s->a_n > n && n < MAXF && s->a_n < MAXF && ends_at_root(s)) {
    ws.explained_truncated++;
    disagree("asgct_stops_early", s);
    return;
  }
  snprintf(cls, sizeof cls, "%s%s", s->a_n > n ? "asgst_more_frames" : "asgst_fewer_frames",
           s->anchor == 2 ? "@safepoint" : s->anchor ? "@anchor" : "");
  disagree(cls, s);
}

/* N. dl_iterate_phdr callback: the address range of libwalk_jni.so. */
static int find_jni(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size, (void)data;
  if (!strstr(info->dlpi_name, "libwalk_jni.so")) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    jni_lo = info->dlpi_addr + p->p_vaddr;
    jni_hi = jni_lo + p->p_memsz;
  }
  return 1;
}

/* N. The non-Java walk: its Java frames must be the Java walk's, in order; below each
 * Workload.nativeCall frame that called back into Java, the JNI C function's frame. */
static void check_nonjava(const sample *s) {
  if (s->n_rc != 0 || s->a_rc != 0) return;
  ws.nj_checked++;
  int j = 0;
  bool same = true;
  for (int i = 0; i < s->n_n && same; i++) {
    if (s->nj[i].type == ASGST_FRAME_NON_JAVA) continue;
    same = j < s->a_n && s->nj[i].method == s->a[j].method && s->nj[i].bci == s->a[j].bci;
    j++;
  }
  if (same && j == s->a_n) ws.nj_consistent++;
  else if (ws.nj_bad.count++ == 0) ws.nj_bad.example = *s;
  if (!walk_opts.jni) return;
  if (jni_lo == 0) dl_iterate_phdr(find_jni, NULL);
  bool c_seen = false;
  const wframe *above = NULL; /* the Java frame above the C frames seen since */
  for (int i = 0; i < s->n_n; i++) {
    const wframe *f = &s->nj[i];
    if (f->type == ASGST_FRAME_NON_JAVA) {
      c_seen |= f->method >= jni_lo && f->method < jni_hi;
      continue;
    }
    mstat *st = f->type == ASGST_FRAME_JAVA_NATIVE && above ? stat_of(f->method) : NULL;
    if (st && strstr(st->name, "nativeCall")) {
      /* Only the workload's callback is called by the JNI function. The VM calls Java on
       * its own while it links a native method (ClassLoader.findNative, from libjvm's
       * native lookup under nativeCall's frame), with no JNI C frame in between: a slow
       * path under qemu that samples find several times a run. */
      mstat *cb = stat_of(above->method);
      if (cb && strstr(cb->name, "callback")) {
        ws.jni_pairs++;
        ws.jni_c_found += c_seen;
      } else {
        ws.jni_linking++;
      }
    }
    above = f;
    c_seen = false;
  }
}

/* N. */
static void record_stats(const sample *s) {
  for (int i = 0; i < s->a_n; i++) {
    mstat *st = stat_of(s->a[i].method);
    if (!st) continue;
    st->levels |= s->a[i].level >= 0 && s->a[i].level <= 4 ? 1u << s->a[i].level : 1u << 5;
    if (s->a[i].type == ASGST_FRAME_JAVA_INLINED) st->inlined++;
    else if (s->a[i].type == ASGST_FRAME_JAVA_NATIVE) st->native++;
    else st->outer++;
  }
}

/* N. Index of the first frame of f[0..n) named `name` ("Class.method"), -1 if none. */
static int find_frame(const wframe *f, int n, const char *name) {
  for (int i = 0; i < n && i < MAXF; i++) {
    if (f[i].type == ASGST_FRAME_NON_JAVA || f[i].method == 0) continue;
    const mstat *st = stat_of(f[i].method);
    if (st && strcmp(st->name, name) == 0) return i;
  }
  return -1;
}

/* N. What the sampled thread was doing, from either trace: a carrier with a mounted
 * virtual thread has Continuation.enterSpecial between the virtual thread's frames and
 * its own; a carrier in scheduler code has ForkJoinWorkerThread.run without it. */
static int thread_kind(const sample *s) {
  int gn = s->gct_n > 0 ? s->gct_n : 0;
  if (find_frame(s->a, s->a_n, "Continuation.enterSpecial") >= 0 ||
      find_frame(s->g, gn, "Continuation.enterSpecial") >= 0)
    return TK_MOUNTED;
  if (find_frame(s->a, s->a_n, "ForkJoinWorkerThread.run") >= 0 ||
      find_frame(s->g, gn, "ForkJoinWorkerThread.run") >= 0)
    return TK_CARRIER;
  return TK_OTHER;
}

/* N. The figures by thread kind; `agree` and `explained` are what compare() added. */
static void count_kind(const sample *s, bool a_ok, bool g_ok, long agree, long explained) {
  kind_stats *k = &ws.kinds[thread_kind(s)];
  k->samples++;
  k->asgst_ok += a_ok;
  k->asgct_ok += g_ok;
  k->both += a_ok && g_ok;
  k->agree += agree;
  k->explained += explained;
  /* A sample set apart as a proven ASGCT error is not ASGST's shortfall: ASGCT's misread
   * PcDesc at a stub call can name more inlined scopes than the pc has (Thread.sleep
   * inlined at the top against an older call's three scopes, in the VM's sleep). Nor is a
   * walk that parts from ASGCT's before its end: that is a disagreement, which the
   * agreement check counts (one such on JDK 25: ASGCT gave a virtual thread's
   * getAndClearInterrupt ten Workload.recurse callers under Thread.sleep, frames of
   * another moment of that thread, where ASGST gave sleepNanos and Thread.sleep). A
   * shortfall is ASGST stopping early: its methods are ASGCT's first ones. */
  int gn = s->gct_n < MAXF ? s->gct_n : MAXF;
  bool shorter = a_ok && g_ok && !explained && s->a_n < gn;
  for (int i = 0; shorter && i < s->a_n; i++) shorter = s->a[i].method == s->g[i].method;
  k->shorter += shorter;
  if (shorter && k == &ws.kinds[TK_MOUNTED] && ws.vt_shorter.count++ == 0) ws.vt_shorter.example = *s;
  int e = a_ok && k == &ws.kinds[TK_MOUNTED] ? find_frame(s->a, s->a_n, "Continuation.enterSpecial") : -1;
  k->into_carrier += e >= 0 && e + 1 < s->a_n;
}

/* N. Keeps the walk times of every sample, failed walks included (bench=1). */
static void record_all_times(const sample *s) {
  if (ws.all_a == NULL) ws.all_a = calloc(MAXT, 4), ws.all_g = calloc(MAXT, 4);
  if (ws.all_a == NULL || ws.all_g == NULL || ws.nall >= MAXT) return;
  ws.nall++;
  /* Only walks that succeeded: a failed walk's fast return (ASGCT's -3 for a thread not in
   * Java is a third of javac's samples) is no walk time. */
  if (s->a_rc == 0 && s->a_n > 0) ws.all_a[ws.nall_a++] = (uint32_t)s->t_asgst;
  if (s->gct_n > 0) ws.all_g[ws.nall_g++] = (uint32_t)s->t_asgct;
}

/* slow=1: what the walks over 20 us had in common. */
static long slow_n, slow_fault, slow_preempt, slow_rewalk_fast, slow_deep, all_fault;
static uint64_t slow_fault_ns;
/* Per sample: the walk's thread CPU time, and its wall time if it was not descheduled (0). */
static uint32_t *slow_cpu, *slow_ran;
static long slow_nall;

/* N. Sorts v[0..n) and returns its q-quantile (0..1), of the non-zero values only with
 * skip_zero; 0 if there are none. */
static uint32_t quantile(uint32_t *v, long n, double q, bool skip_zero) {
  qsort(v, (size_t)n, sizeof *v, walk_cmp_u32);
  long first = 0;
  while (skip_zero && first < n && v[first] == 0) first++;
  if (first >= n) return 0;
  long i = first + (long)(q * (double)(n - first)); /* as print_percentiles: n * 99 / 100 */
  return v[i < n ? i : n - 1];
}

/* N. Classifies a slow walk (over 20 us): page faults in it, descheduled (thread CPU time
 * well under the wall time), a second walk right after it fast (cold state the first
 * walk warmed), deep. */
static void record_slow(const sample *s) {
  all_fault += s->faults > 0;
  if (slow_cpu == NULL) slow_cpu = calloc(MAXT, 4), slow_ran = calloc(MAXT, 4);
  if (slow_cpu && slow_ran && slow_nall < MAXT && s->a_rc == 0 && s->a_n > 0) {
    slow_cpu[slow_nall] = (uint32_t)(s->t_cpu < UINT32_MAX ? s->t_cpu : UINT32_MAX);
    /* Wall time of the walks that kept their CPU (not descheduled halfway). */
    slow_ran[slow_nall++] = s->t_cpu * 2 < s->t_asgst ? 0 : (uint32_t)s->t_asgst;
  }
  if (s->t_asgst <= 20000) return;
  slow_n++;
  if (s->faults > 0) slow_fault++, slow_fault_ns += s->t_asgst;
  if (s->t_cpu * 2 < s->t_asgst) slow_preempt++;
  if (s->t_rewalk * 4 < s->t_asgst) slow_rewalk_fast++;
  if (s->a_n > 100) slow_deep++;
  static int shown;
  if (shown++ < 30)
    fprintf(stderr, "WALK # slow walk %lu ns cpu %lu ns faults %ld rewalk %lu ns frames %d rc %d\n",
            (unsigned long)s->t_asgst, (unsigned long)s->t_cpu, s->faults, (unsigned long)s->t_rewalk, s->a_n, s->a_rc);
}

/* N. */
void walk_report_slow(void) {
  fprintf(stderr, "WALK # figure: slow=%s walks_over_20us=%ld with_faults=%ld descheduled=%ld rewalk_4x_faster=%ld over_100_frames=%ld "
          "(walks with faults overall: %ld)\n", walk_opts.label, slow_n, slow_fault, slow_preempt, slow_rewalk_fast, slow_deep, all_fault);
  if (slow_nall == 0) return;
  /* The walker's own cost without the machine's: CPU time (a walk descheduled by a busy
   * neighbour keeps its wall time, not its CPU time), and the wall time of the walks that
   * were not descheduled. CPU times include the clock reads around the walk (a system
   * call each, about 1 us here). */
  fprintf(stderr, "WALK # figure: cputimes=%s samples=%ld asgst_cpu_median_ns=%u asgst_cpu_p99_ns=%u asgst_cpu_max_ns=%u "
          "not_descheduled_p99_ns=%u not_descheduled_max_ns=%u\n", walk_opts.label, slow_nall,
          quantile(slow_cpu, slow_nall, 0.5, false), quantile(slow_cpu, slow_nall, 0.99, false),
          quantile(slow_cpu, slow_nall, 1.0, false), quantile(slow_ran, slow_nall, 0.99, true),
          quantile(slow_ran, slow_nall, 1.0, true));
}

/* ---- per-line histogram of the top Java frame (lines=1) -------------------------------- */

#define LTAB 4096
typedef struct {
  uintptr_t method;
  int line; /* -1: bci unknown (-1), or no line table */
  long count;
  long stub; /* of count, those whose pc lies in stub code (sample.top_stub) */
} lstat;
static lstat ltab[LTAB];
static long lines_total, lines_unknown_bci;
/* The top frames with bci -1, by method and compilation level (line holds the level). */
#define UTAB 64
static lstat utab[UTAB];

/* N. Counts the top Java frame of a successful ASGST walk under its source line. */
static void record_line(const sample *s) {
  uintptr_t m = s->a[0].method;
  int line = s->a[0].bci >= 0 ? (int)ASGST_GetMethodLineNumber((ASGST_Method)m, s->a[0].bci) : -1;
  lines_total++;
  lines_unknown_bci += s->a[0].bci == -1;
  if (s->top_stub == STUB_CALLER) record_pair(ctab, s);
  for (int i = 0; s->a[0].bci == -1 && i < UTAB; i++) {
    lstat *e = &utab[i];
    if (e->method == m && e->line == s->a[0].level) { e->count++; break; }
    if (e->method == 0) { e->method = m, e->line = s->a[0].level, e->count = 1; break; }
  }
  size_t h = ((m >> 3) * 0x9E3779B97F4A7C15ull + (size_t)line * 0x85EBCA6Bu) >> 52;
  for (size_t i = 0; i < LTAB; i++) {
    lstat *e = &ltab[(h + i) % LTAB];
    if (e->method == 0) e->method = m, e->line = line;
    if (e->method == m && e->line == line) {
      e->count++;
      e->stub += s->top_stub != STUB_NONE;
      return;
    }
  }
}

/* N. */
static int by_count(const void *a, const void *b) {
  long x = ((const lstat *)a)->count, y = ((const lstat *)b)->count;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* N. Prints the lines=1 histogram: the share of top frames with bci -1, then the 25
 * hottest (method, line) pairs as "WALK # line NAME:LINE COUNT PERCENT stub=K", K of
 * COUNT with the pc in stub code (sample.top_stub). */
void walk_report_lines(void) {
  if (!walk_opts.lines || lines_total == 0) return;
  walk_report_stub_bcis();
  fprintf(stderr, "WALK # figure: workload=%s top_frames=%ld top_bci_unknown=%ld (%.3f%%)\n", walk_opts.label,
          lines_total, lines_unknown_bci, 100.0 * (double)lines_unknown_bci / (double)lines_total);
  qsort(utab, UTAB, sizeof utab[0], by_count);
  for (int i = 0; i < 10 && utab[i].count > 0; i++) {
    char name[128];
    walk_method_name(utab[i].method, name, sizeof name);
    fprintf(stderr, "WALK # unknown_bci %s level %d %ld\n", name, utab[i].line, utab[i].count);
  }
  qsort(ltab, LTAB, sizeof ltab[0], by_count);
  for (int i = 0; i < 25 && ltab[i].count > 0; i++) {
    char name[128];
    walk_method_name(ltab[i].method, name, sizeof name);
    fprintf(stderr, "WALK # line %s:%d %ld %.2f stub=%ld\n", name, ltab[i].line, ltab[i].count,
            100.0 * (double)ltab[i].count / (double)lines_total, ltab[i].stub);
  }
}

/* N. */
static void process(const sample *s) {
  if (walk_opts.slow) record_slow(s);
  long agree0 = ws.agree;
  long explained0 = ws.explained_safepoint + ws.explained_null_id + ws.explained_truncated + ws.explained_released;
  ws.samples++;
  bool a_ok = s->a_rc == 0 && s->a_n > 0, g_ok = s->gct_n > 0;
  if (s->a_rc < 0) {
    static int shown;
    if (walk_opts.diag && shown++ < 200)
      fprintf(stderr, "WALK # diag %s pc=%lx sp=%lx fp=%lx asgct=%d %s\n", ASGST_ErrorName(s->a_rc),
              (unsigned long)s->regs[0], (unsigned long)s->regs[1], (unsigned long)s->regs[2], s->gct_n, s->diag);
    ws.asgst_err[-s->a_rc < 64 ? -s->a_rc : 63]++;
  }
  if (walk_opts.oracle && s->gct_n <= 0) ws.asgct_err[-s->gct_n < 16 ? -s->gct_n : 15]++;
  ws.asgst_ok += a_ok;
  ws.asgct_ok += g_ok;
  if (a_ok) record_stats(s);
  if (a_ok && walk_opts.lines && s->a[0].type != ASGST_FRAME_NON_JAVA) record_line(s);
  if (a_ok && s->tjf_rc > 0) {
    ws.tjf_checked++;
    ws.tjf_same += s->tjf_pc == s->first_java_pc;
    /* Only where the walk saw the whole stack (MAXF frames may end it early). */
    if (s->a_n < MAXF) ws.tjf_sender_same += s->tjf_sender_sp == s->second_java_sp;
    ws.tjf_sender_checked += s->a_n < MAXF;
  }
  for (int i = 0; i < s->a_n; i++) ws.nonjava_in_java_walk += s->a[i].type == ASGST_FRAME_NON_JAVA;
  if (a_ok && g_ok) {
    ws.both++;
    compare(s);
  }
  long explained = ws.explained_safepoint + ws.explained_null_id + ws.explained_truncated + ws.explained_released -
                   explained0;
  count_kind(s, a_ok, g_ok, ws.agree - agree0, explained);
  walk_states_count(s, a_ok, g_ok, ws.agree - agree0, explained);
  walk_call_stub_count(s);
  if (walk_opts.nonjava) check_nonjava(s);
  /* A sample of a thread with Java frames: either walker found some or failed. */
  ws.java_samples += s->a_rc < 0 || s->a_n > 0 || s->gct_n > 0 || (s->gct_n < 0 && s->gct_n != -3);
  if (walk_opts.bench) record_all_times(s);
  if (walk_opts.bench && a_ok && g_ok && s->a_n == (s->gct_n < MAXF ? s->gct_n : MAXF)) {
    if (ws.t_a == NULL) {
      ws.t_a = calloc(MAXT, 4), ws.t_g = calloc(MAXT, 4), ws.t_i = calloc(MAXT, 4), ws.t_f = calloc(MAXT, 4);
      ws.t_depth = calloc(MAXT, 2);
      ws.i_a = calloc(MAXT, 4), ws.i_g = calloc(MAXT, 4), ws.c_a = calloc(MAXT, 4), ws.c_g = calloc(MAXT, 4);
    }
    if (ws.nt < MAXT) {
      ws.t_a[ws.nt] = (uint32_t)s->t_asgst, ws.t_g[ws.nt] = (uint32_t)s->t_asgct;
      ws.t_i[ws.nt] = (uint32_t)s->t_info, ws.t_f[ws.nt] = (uint32_t)s->t_first;
      ws.i_a[ws.nt] = (uint32_t)s->i_asgst, ws.i_g[ws.nt] = (uint32_t)s->i_asgct;
      ws.c_a[ws.nt] = (uint32_t)s->c_asgst, ws.c_g[ws.nt] = (uint32_t)s->c_asgct;
      ws.t_depth[ws.nt++] = (uint16_t)s->a_n;
    }
  }
}

/* N. The calling thread is not a Java thread: a walk of it must be a non-Java trace of C
 * frames only. Counts walks and violations into ws. */
static void collect_c(ASGST_Iterator *it, void *arg) {
  int *bad = arg;
  ASGST_Frame f;
  int r, n = 0;
  while ((r = ASGST_NextFrame(it, &f)) == 1) {
    n++;
    *bad |= f.type != ASGST_FRAME_NON_JAVA;
  }
  *bad |= r < 0 || n == 0;
}

/* N. */
void walk_check_self(void) {
  for (int i = 0; i < 10; i++) {
    int bad = 0;
    int kind = ASGST_RunWithIterator(NULL, ASGST_INCLUDE_NON_JAVA_FRAMES, collect_c, &bad);
    ws.self_walks++;
    ws.self_bad += kind != ASGST_NON_JAVA_TRACE || bad;
  }
}

/* N. */
void walk_drain(sample *slots) {
  for (int i = 0; i < NSLOTS; i++) {
    if (atomic_load_explicit(&slots[i].state, memory_order_acquire) != SLOT_READY) continue;
    process(&slots[i]);
    atomic_store_explicit(&slots[i].state, SLOT_FREE, memory_order_release);
  }
}

/* N. */
void walk_method_levels(const char *name, unsigned *levels, long *seen, long *inlined, long *native) {
  for (size_t i = 0; i < MTAB; i++) {
    const mstat *e = &mtab[i];
    if (e->method == 0 || strcmp(e->name, name) != 0) continue;
    if (levels) *levels |= e->levels;
    if (seen) *seen += e->inlined + e->outer + e->native;
    if (inlined) *inlined += e->inlined;
    if (native) *native += e->native;
  }
}

/* N. */
unsigned walk_all_levels(void) {
  unsigned all = 0;
  for (size_t i = 0; i < MTAB; i++) all |= mtab[i].levels;
  return all;
}
