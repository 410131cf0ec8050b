/*
 * shadow_compare.c - see shadow.h. Runs on the agent's sampler thread (and at VMDeath),
 * never in a signal handler: it mallocs and locks.
 *
 * A walk's frames are reduced to the instrumented ones (a method the instrumenting agent
 * defined, matched by class, name and descriptor) in order, top first, and compared with
 * the shadow stack. A sample that differs falls in the first class that describes it:
 *   window-helper   the walk's top frames are in Shadow's helpers, or the helper's
 *                   "under way" word is set: the push or pop is half done
 *   window-entry    the walk has one more frame on top, at a bci before the end of that
 *                   method's entry sequence (entered, not yet pushed)
 *   window-exit     the same at a bci of an exit sequence (popped, not yet returned)
 *   error           the walk ended with an error code (counted per code)
 *   too-deep        deeper than the agent keeps (SH_MAXF)
 *   extra-top / missing-top, extra-bottom / missing-bottom, extra-middle /
 *   missing-middle (one frame; "recursive" when a neighbour is the same method),
 *   wrong-method (same length, a frame differs), other.
 * For ASGST each disagreement also says whether an inlined frame is at the first
 * difference.
 */
#include "shadow.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asgst.h"
#include "impl/guard.h"
#include "impl/arch/call_stub.h"
#include "impl/hotspot/walking/codecache.h"
#include "impl/hotspot/walking/walker_code.h"

FILE *sh_out;

#define MAX_IDS 65536
#define MCACHE (1u << 16)

typedef struct {
  char *key;
  int *w;
  int nw;
} sh_def;

static sh_def defs[MAX_IDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Method* -> id (> 0), 0 not instrumented, -1 Shadow's helper; open addressing. */
static struct {
  uintptr_t m;
  int id;
} mcache[MCACHE];

enum {
  C_AGREE, C_WIN_HELPER, C_WIN_ENTRY, C_WIN_EXIT, C_ERROR, C_TOO_DEEP, C_EXTRA_TOP, C_MISSING_TOP,
  C_EXTRA_BOTTOM, C_MISSING_BOTTOM, C_EXTRA_MIDDLE, C_MISSING_MIDDLE, C_EXTRA_REC, C_MISSING_REC,
  C_WIN_NOBCI, C_MISSING_TOPK, C_EXTRA_TOPK, C_WRONG, C_OTHER, C_JIT_TOP, NCLASS
};
static const char *class_names[NCLASS] = {
  "agree", "window-helper", "window-entry", "window-exit", "error", "too-deep", "extra-top",
  "missing-top", "extra-bottom", "missing-bottom", "extra-middle", "missing-middle",
  "extra-middle-recursive", "missing-middle-recursive", "window-no-bci", "missing-top-several",
  "extra-top-several", "wrong-method", "other", "compiled-top"};

enum { W_ASGST, W_ASGCT, NWALKER };
static const char *walker_names[NWALKER] = {"ASGST", "ASGCT"};
static long counts[NWALKER][NCLASS], inlined_at[NCLASS], errors[NWALKER][64];
static long both_agree, only_asgst, only_asgct, samples, shared, jit_top_of[NWALKER][NCLASS];
/* ASGST's own disagreements (not a window, not compiled-top, not an error) by what ASGCT
 * made of the same sample: agreed, failed, or gave ASGST's frames. */
static long own_vs_asgct[3];
static int examples[NWALKER][NCLASS];

/* N. */
void sh_define(int id, const char *key, const int *w, int nw) {
  if (id <= 0 || id >= MAX_IDS) return;
  int *copy = malloc(sizeof *copy * (size_t)(nw > 0 ? nw : 1));
  if (copy == NULL) return;
  memcpy(copy, w, sizeof *copy * (size_t)nw);
  pthread_mutex_lock(&lock);
  if (defs[id].key == NULL) defs[id] = (sh_def){strdup(key), copy, nw};
  else free(copy);
  pthread_mutex_unlock(&lock);
}

/* N. "class.name+descriptor" of a method into buf ("" when unknown). */
static void method_key(uintptr_t m, char *buf, size_t len) {
  char cls[256] = "", name[256] = "", sig[512] = "";
  ASGST_MethodInfo mi = {0};
  mi.method_name = name, mi.method_name_length = sizeof name;
  mi.signature = sig, mi.signature_length = sizeof sig;
  ASGST_GetMethodInfo((ASGST_Method)m, &mi);
  ASGST_ClassInfo ci = {0};
  ci.class_name = cls, ci.class_name_length = sizeof cls;
  if (mi.klass) ASGST_GetClassInfo(mi.klass, &ci);
  /* Class names may come as "LWorkload;" (a signature) or "Workload". */
  const char *c = cls;
  size_t cl = strlen(c);
  if (cl > 2 && c[0] == 'L' && c[cl - 1] == ';') c++, cl -= 2;
  snprintf(buf, len, "%.*s.%s%s", (int)cl, c, name, sig);
}

/* N. The id of a Method* (see mcache). */
static int method_id(uintptr_t m) {
  if (m == 0) return 0;
  size_t h = (size_t)((m * 0x9E3779B97F4A7C15ull) >> 48) & (MCACHE - 1);
  for (size_t n = 0; n < MCACHE; n++, h = (h + 1) & (MCACHE - 1)) {
    if (mcache[h].m == m) return mcache[h].id;
    if (mcache[h].m != 0) continue;
    char key[1024];
    method_key(m, key, sizeof key);
    int id = 0;
    if (strncmp(key, "Shadow.", 7) == 0 || strncmp(key, "Shadow$", 7) == 0) id = -1;
    pthread_mutex_lock(&lock);
    for (int i = 1; i < MAX_IDS && id == 0; i++)
      if (defs[i].key && strcmp(defs[i].key, key) == 0) id = i;
    pthread_mutex_unlock(&lock);
    /* A class is defined (transformed) before any of its methods can run, so a method
     * not defined now never will be. */
    mcache[h].m = m, mcache[h].id = id;
    return id;
  }
  return 0;
}

typedef struct {
  int id, bci, inlined;
} iframe;

/* N. The instrumented frames of a walk, top first; *helper when Shadow's helper is above
 * the first of them. */
static int reduce(const sh_frame *f, int n, iframe *out, int *helper) {
  int k = 0;
  *helper = 0;
  for (int i = 0; i < n; i++) {
    int id = method_id(f[i].method);
    if (id == -1 && k == 0) *helper = 1;
    if (id > 0) out[k++] = (iframe){id, f[i].bci, f[i].type == ASGST_FRAME_JAVA_INLINED};
  }
  return k;
}

/* N. True when a[ai..ai+n) and shadow s[si..si+n) hold the same ids. */
static int same(const iframe *a, int ai, const int32_t *s, int si, int n) {
  for (int i = 0; i < n; i++)
    if (a[ai + i].id != s[si + i]) return 0;
  return 1;
}

/* N. Whether bci is in a window of method id: 1 entry, 2 exit, 0 neither. */
static int window_of(int id, int bci) {
  pthread_mutex_lock(&lock);
  const sh_def *d = &defs[id];
  int r = 0;
  if (d->w && d->nw > 0 && bci >= 0 && bci < d->w[0]) r = 1;
  for (int i = 1; d->w && i + 1 < d->nw && r == 0; i += 2)
    if (bci >= d->w[i] && bci <= d->w[i + 1]) r = 2;
  pthread_mutex_unlock(&lock);
  return r;
}

/* N. The class of one walk against the shadow stack; *inl: an inlined frame at the first
 * difference. */
static int classify(const iframe *w, int nw, int helper, const sh_sample *s, int *inl) {
  int ns = s->s_depth;
  *inl = 0;
  if (nw == ns && same(w, 0, s->s, 0, nw)) return C_AGREE;
  if (helper || s->s_flag) return C_WIN_HELPER;
  int first = 0;
  while (first < nw && first < ns && w[first].id == s->s[first]) first++;
  *inl = first < nw && w[first].inlined;
  if (nw == ns + 1 && same(w, 1, s->s, 0, ns)) {
    int win = window_of(w[0].id, w[0].bci);
    if (win == 1) return C_WIN_ENTRY;
    if (win == 2) return C_WIN_EXIT;
    /* No bci: a compiled frame's pc before its first or past its last PcDesc, i.e. in the
     * prologue or the epilogue, on the far side of the push or the pop. */
    if (w[0].bci == -1 && !w[0].inlined) return C_WIN_NOBCI;
    return C_EXTRA_TOP;
  }
  if (nw + 1 == ns && same(w, 0, s->s, 1, nw)) return C_MISSING_TOP;
  if (nw < ns && same(w, 0, s->s, 0, nw)) return C_MISSING_BOTTOM;
  if (nw < ns && same(w, 0, s->s, ns - nw, nw)) return C_MISSING_TOPK;
  if (nw > ns && same(w, nw - ns, s->s, 0, ns)) return C_EXTRA_TOPK;
  if (nw > ns && same(w, 0, s->s, 0, ns)) return C_EXTRA_BOTTOM;
  if (nw + 1 == ns && same(w, first, s->s, first + 1, nw - first))
    return (first + 1 < ns && s->s[first] == s->s[first + 1]) || (first > 0 && s->s[first] == s->s[first - 1])
               ? C_MISSING_REC : C_MISSING_MIDDLE;
  if (nw == ns + 1 && same(w, first + 1, s->s, first, ns - first))
    return (first + 1 < nw && w[first].id == w[first + 1].id) || (first > 0 && w[first].id == w[first - 1].id)
               ? C_EXTRA_REC : C_EXTRA_MIDDLE;
  if (nw == ns) return C_WRONG;
  return C_OTHER;
}

/* N. One example of a class: both stacks as ids, top first. */
static void method_key(uintptr_t m, char *buf, size_t len);
static void print_example(int walker, int cls, const iframe *w, int nw, const sh_sample *s) {
  char line[600];
  int o = snprintf(line, sizeof line, "%s %s: walk", walker_names[walker], class_names[cls]);
  for (int i = 0; i < nw && i < 12 && o < 400; i++)
    o += snprintf(line + o, sizeof line - (size_t)o, " %d@%d%s", w[i].id, w[i].bci, w[i].inlined ? "i" : "");
  if (nw > 12) o += snprintf(line + o, sizeof line - (size_t)o, " ...(%d)", nw);
  o += snprintf(line + o, sizeof line - (size_t)o, " | shadow");
  for (int i = 0; i < s->s_depth && i < 12 && i < SH_MAXF && o < 560; i++)
    o += snprintf(line + o, sizeof line - (size_t)o, " %d", s->s[i]);
  if (s->s_depth > 12) snprintf(line + o, sizeof line - (size_t)o, " ...(%d)", s->s_depth);
  fprintf(sh_out, "SHADOW # example %s (ASGST kind %d end %d, ASGCT frames %d, thread state 0x%x)\n", line,
          s->a_kind, s->a_rc, s->g_n, (unsigned)s->thread_state);
  char code[128] = "";
  Dl_info di;
  volatile int named = 0, kind = -1;
  ASGST__GUARDED({
    uintptr_t blob = 0;
    kind = asgst__hs_classify(s->uc_pc, &blob);
    named = asgst__hs_code_blob_name(s->uc_pc, code, sizeof code, &blob) > 0;
  }, { named = 0; code[0] = 0; });
  if (asgst__hs_in_interpreter(s->uc_pc)) snprintf(code, sizeof code, "the interpreter");
  else if (!named && dladdr((void *)s->uc_pc, &di) && di.dli_sname)
    snprintf(code, sizeof code, "%s+%#lx (%s)", di.dli_sname, (unsigned long)(s->uc_pc - (uintptr_t)di.dli_saddr),
             di.dli_fname ? strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname : "?");
  else if (!named && dladdr((void *)s->uc_pc, &di) && di.dli_fname)
    snprintf(code, sizeof code, "%s+%#lx", strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname,
             (unsigned long)(s->uc_pc - (uintptr_t)di.dli_fbase));
  fprintf(sh_out, "SHADOW #   interrupted pc %#lx in %s (code kind %d)\n", (unsigned long)s->uc_pc,
          code[0] ? code : "?", kind);
  const sh_frame *raw = walker == W_ASGST ? s->a : s->g;
  int nraw = walker == W_ASGST ? s->a_n : s->g_n;
  for (int i = 0; i < nraw && i < 6; i++) {
    char key[300];
    method_key(raw[i].method, key, sizeof key);
    fprintf(sh_out, "SHADOW #   raw %d: %s @%d type %d level %d method %#lx pc %#lx\n", i, key, raw[i].bci,
            raw[i].type, raw[i].level, (unsigned long)raw[i].method, (unsigned long)raw[i].pc);
  }
  for (int i = 0; i < nw && i < 3; i++) {
    pthread_mutex_lock(&lock);
    const char *k = defs[w[i].id].key;
    fprintf(sh_out, "SHADOW #   %d = %s\n", w[i].id, k ? k : "?");
    pthread_mutex_unlock(&lock);
  }
}

/* N. The number of instrumented frames in the top physical frame of ASGST's walk: the
 * leading inlined ones and the first physical one. */
static int top_physical(const iframe *w, int n) {
  int k = 0;
  while (k < n && w[k].inlined) k++;
  return k < n ? k + 1 : n;
}

/* N. A difference confined to the top physical frame while that frame is compiled code
 * (as ASGST saw it) is set apart as compiled-top: the walk below that frame (the first
 * `top` instrumented frames left out) equals the bottom of the shadow stack, so every
 * frame that stands at a call site agrees. Inside one compiled frame the JIT schedules an
 * inlined callee's instructions across the helper's stores and a pc's debug information
 * names the nearest recorded scope, so the instant a pc stands for is not the program
 * order the shadow stack follows. The classes it replaces are counted in jit_top_of. */
static int set_apart(int walker, int cls, const sh_sample *s, const iframe *w, int n, int top) {
  if (!s->top_compiled || cls == C_AGREE || cls == C_ERROR || cls == C_TOO_DEEP || cls == C_WIN_HELPER ||
      cls == C_WIN_ENTRY || cls == C_WIN_EXIT || cls == C_WIN_NOBCI || top > n)
    return cls;
  int below = n - top;
  if (below > s->s_depth || !same(w, top, s->s, s->s_depth - below, below)) return cls;
  jit_top_of[walker][cls]++;
  return C_JIT_TOP;
}

/* N. */
/* Samples whose interrupted pc is in the call stub outside its call (call_stub.h), by
 * ASGST's class: the new Java call has no frame there yet (or none any more), so the
 * shadow holds the previous segment's frames, which AsyncGetCallTrace cannot walk to. */
static long cs_samples, cs_class[NCLASS];

/* N. True if pc is in the call stub outside its call (the stub's code never goes away). */
static bool in_call_stub(uintptr_t pc) {
  volatile int phase = ASGST__CS_NONE;
  ASGST__GUARDED({
    uintptr_t blob = 0;
    if (asgst__hs_classify(pc, &blob) == ASGST__HK_STUB) phase = asgst__hs_call_stub_phase(blob, pc);
  }, phase = ASGST__CS_NONE);
  return phase != ASGST__CS_NONE;
}

void sh_compare(const sh_sample *s) {
  static iframe wa[SH_MAXF], wg[SH_MAXF];
  int ha, hg, ia, ig, ca, cg;
  samples++;
  int na = reduce(s->a, s->a_n, wa, &ha);
  if (s->a_rc < 0) ca = C_ERROR, ia = 0;
  else if (s->s_depth >= SH_MAXF || s->a_n >= SH_MAXF) ca = C_TOO_DEEP, ia = 0;
  else ca = classify(wa, na, ha, s, &ia);
  int top = top_physical(wa, na);
  ca = set_apart(W_ASGST, ca, s, wa, na, top);
  counts[W_ASGST][ca]++;
  if (ca == C_ERROR) errors[W_ASGST][-s->a_rc & 63]++;
  if (ia && ca != C_AGREE) inlined_at[ca]++;
  if (ca != C_AGREE && ca != C_ERROR && examples[W_ASGST][ca]++ < 2) print_example(W_ASGST, ca, wa, na, s);
  if (in_call_stub(s->uc_pc)) cs_samples++, cs_class[ca]++;
  if (s->g_n == -100) return;
  int ng = reduce(s->g, s->g_n > 0 ? s->g_n : 0, wg, &hg);
  if (s->g_n <= 0) cg = C_ERROR;
  else if (s->s_depth >= SH_MAXF || s->g_n >= SH_MAXF) cg = C_TOO_DEEP;
  else cg = classify(wg, ng, hg, s, &ig);
  cg = set_apart(W_ASGCT, cg, s, wg, ng, top);
  counts[W_ASGCT][cg]++;
  if (cg == C_ERROR) errors[W_ASGCT][-s->g_n & 63]++;
  if (cg != C_AGREE && cg != C_ERROR && examples[W_ASGCT][cg]++ < 2) print_example(W_ASGCT, cg, wg, ng, s);
  both_agree += ca == C_AGREE && cg == C_AGREE;
  if (ca > C_TOO_DEEP && ca != C_WIN_NOBCI && ca != C_JIT_TOP) {
    int k = 0;
    while (k < na && k < ng && wa[k].id == wg[k].id) k++;
    own_vs_asgct[cg == C_AGREE ? 0 : cg == C_ERROR ? 1 : 2] += cg == C_AGREE || cg == C_ERROR || (k == na && na == ng);
  }
  if (ca != C_AGREE && ca != C_ERROR && na == ng) {
    int k = 0;
    while (k < na && wa[k].id == wg[k].id) k++;
    shared += k == na;
  }
  only_asgst += ca == C_AGREE && cg != C_AGREE;
  only_asgct += ca != C_AGREE && cg == C_AGREE;
}

/* N. ASGCT's error codes by name (its own numbering, not ASGST's). */
static const char *asgct_error(int code) {
  switch (code) {
    case 0: return "no_Java_frame";
    case -1: return "no_class_load";
    case -2: return "GC_active";
    case -3: return "unknown_not_Java";
    case -4: return "not_walkable_not_Java";
    case -5: return "unknown_Java";
    case -6: return "not_walkable_Java";
    case -7: return "unknown_state";
    case -8: return "thread_exit";
    case -9: return "deopt";
    case -10: return "safepoint";
    default: return "other";
  }
}

/* N. */
void sh_report(long signals, long dropped, long unregistered, int min_agree_pm, int asgct_on) {
  fprintf(sh_out, "SHADOW # figure: samples=%ld signals=%ld dropped=%ld not_registered=%ld methods_seen=",
          samples, signals, dropped, unregistered);
  int nd = 0;
  for (int i = 1; i < MAX_IDS; i++) nd += defs[i].key != NULL;
  fprintf(sh_out, "%d\n", nd);
  if (cs_samples) {
    fprintf(sh_out, "SHADOW # figure: ASGST in the call stub samples=%ld", cs_samples);
    for (int c = 0; c < NCLASS; c++)
      if (cs_class[c]) fprintf(sh_out, " %s=%ld", class_names[c], cs_class[c]);
    fprintf(sh_out, "\n");
  }
  double pct[NWALKER] = {0}, raw[NWALKER] = {0}, err_pct[NWALKER] = {0};
  for (int w = 0; w < (asgct_on ? NWALKER : 1); w++) {
    long tot = 0, win = counts[w][C_WIN_HELPER] + counts[w][C_WIN_ENTRY] + counts[w][C_WIN_EXIT] +
                       counts[w][C_WIN_NOBCI], jit = counts[w][C_JIT_TOP];
    for (int c = 0; c < NCLASS; c++) tot += counts[w][c];
    long err = counts[w][C_ERROR];
    long base = tot - win - jit - err;
    err_pct[w] = tot ? 100.0 * (double)err / (double)tot : 0;
    pct[w] = base > 0 ? 100.0 * (double)counts[w][C_AGREE] / (double)base : 0;
    raw[w] = tot - win > 0 ? 100.0 * (double)counts[w][C_AGREE] / (double)(tot - win) : 0;
    fprintf(sh_out, "SHADOW # figure: %s agreement=%.3f%% (%ld of %ld traces outside the windows and the "
            "compiled-top class; %ld in windows, %ld compiled-top, %ld errors=%.3f%%) "
            "agreement_all=%.3f%% (errors and compiled-top counted as disagreement)\n",
            walker_names[w], pct[w], counts[w][C_AGREE], base, win, jit, err, err_pct[w], raw[w]);
    for (int c = 0; c < NCLASS; c++)
      if (jit_top_of[w][c])
        fprintf(sh_out, "SHADOW # figure: %s compiled-top from %s=%ld\n", walker_names[w], class_names[c],
                jit_top_of[w][c]);
    for (int c = 1; c < NCLASS; c++) {
      if (counts[w][c] == 0) continue;
      fprintf(sh_out, "SHADOW # figure: %s class %s=%ld (%.3f%%)", walker_names[w], class_names[c], counts[w][c],
             tot ? 100.0 * (double)counts[w][c] / (double)tot : 0);
      if (w == W_ASGST && inlined_at[c]) fprintf(sh_out, " inlined-frame-at-difference=%ld", inlined_at[c]);
      fprintf(sh_out, "\n");
    }
    for (int e = 0; e < 64; e++)
      if (errors[w][e])
        fprintf(sh_out, "SHADOW # figure: %s error %s=%ld\n", walker_names[w],
               w == W_ASGST ? ASGST_ErrorName(-e) : asgct_error(-e), errors[w][e]);
  }
  if (asgct_on)
    fprintf(sh_out, "SHADOW # figure: both agree=%ld, only ASGST agrees=%ld, only ASGCT agrees=%ld, "
            "ASGST disagreements (windows included) where ASGCT has the same frames=%ld\n", both_agree, only_asgst, only_asgct, shared);
  if (asgct_on)
    fprintf(sh_out, "SHADOW # figure: ASGST's own disagreements (outside windows, compiled-top, errors): "
            "ASGCT agreed=%ld, ASGCT failed=%ld, ASGCT gave the same frames=%ld\n", own_vs_asgct[0], own_vs_asgct[1],
            own_vs_asgct[2]);
  /* 750-2,500 seen in a 3 s run on a loaded 2-core machine (the sampler thread's 100 us
   * sleeps stretch to about 1 ms there). */
  int enough = samples >= 300;
  fprintf(sh_out, "SHADOW %s - at least 300 samples compared with the shadow stack (%ld)\n", enough ? "ok" : "not ok",
         samples);
  fprintf(sh_out, "SHADOW %s - ASGST's traces agree with the shadow stack in >= %.1f%% of the samples outside the windows "
          "and the compiled-top class (%.3f%%)\n", pct[W_ASGST] * 10 >= min_agree_pm ? "ok" : "not ok",
          min_agree_pm / 10.0, pct[W_ASGST]);
  fprintf(sh_out, "SHADOW %s - ASGST ends at most 2%% of its walks with an error (%.3f%%)\n",
          err_pct[W_ASGST] <= 2.0 ? "ok" : "not ok", err_pct[W_ASGST]);
  /* The shadow stack as judge: ASGST never further from it than AsyncGetCallTrace
   * (0.5 points of slack for the noise of a few thousand samples). */
  if (!asgct_on)
    fprintf(sh_out, "SHADOW ok - ASGST agrees with the shadow stack at least as often as AsyncGetCallTrace "
            "# SKIP no AsyncGetCallTrace walk in this run (asgct=0)\n");
  else
    fprintf(sh_out, "SHADOW %s - ASGST agrees with the shadow stack at least as often as AsyncGetCallTrace "
            "(%.3f%% vs %.3f%%, errors and compiled-top counted as disagreement)\n", raw[W_ASGST] + 0.5 >= raw[W_ASGCT] ? "ok" : "not ok",
            raw[W_ASGST], raw[W_ASGCT]);
}
