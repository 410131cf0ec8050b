/*
 * walk_report.c - the end-of-run report of the walk test agent: figures, checks and one
 * example per class of disagreement (see walk_compare.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asgst.h"
#include "../walk_agent.h"
#include "walk_stats.h"
#include "agent_setup.h"

/* N. Prints one trace with method names. */
static void print_trace(const char *side, const wframe *f, int n) {
  fprintf(stderr, "WALK #   %s (%d frames):", side, n);
  for (int i = 0; i < n && i < 12; i++) {
    char name[96] = "C";
    if (f[i].type != ASGST_FRAME_NON_JAVA && f[i].method) walk_method_name(f[i].method, name, sizeof name);
    fprintf(stderr, " %s@%d%s", name, f[i].bci,
            f[i].type == ASGST_FRAME_JAVA_INLINED ? "[inl]" : f[i].type == ASGST_FRAME_JAVA_NATIVE ? "[nat]" : "");
  }
  fprintf(stderr, n > 12 ? " ...\n" : "\n");
}

/* N. walk_stats.h. */
int walk_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* N. Median of the values whose depth is in [lo, hi]. */
static uint32_t median(const uint32_t *v, const uint16_t *d, long n, int lo, int hi, long *count) {
  uint32_t *tmp = malloc(sizeof *tmp * (size_t)(n ? n : 1));
  long k = 0;
  for (long i = 0; i < n; i++)
    if (d[i] >= lo && d[i] <= hi) tmp[k++] = v[i];
  *count = k;
  qsort(tmp, (size_t)k, sizeof *tmp, walk_cmp_u32);
  uint32_t r = k ? tmp[k / 2] : 0;
  free(tmp);
  return r;
}

/* N. */
static void report_bench(const walk_stats *st) {
  static const int buckets[][2] = {{5, 20}, {35, 75}, {150, 320}};
  for (int b = 0; b < 3; b++) {
    long n;
    uint32_t ma = median(st->t_a, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t mg = median(st->t_g, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t mi = median(st->t_i, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t mf = median(st->t_f, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    if (n == 0) continue;
    fprintf(stderr, "WALK # figure: bench=%s frames=%d-%d samples=%ld asgst_median_ns=%u asgct_median_ns=%u "
            "ratio=%.2f method_info_median_ns=%u asgst_first_frame_median_ns=%u\n", walk_opts.label, buckets[b][0],
            buckets[b][1], n, ma, mg, mg ? (double)ma / mg : 0.0, mi, mf);
    /* Hardware counts of the same walks (0 where the machine has no counters). */
    uint32_t ia = median(st->i_a, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t ig = median(st->i_g, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t ca = median(st->c_a, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    uint32_t cg = median(st->c_g, st->t_depth, st->nt, buckets[b][0], buckets[b][1], &n);
    if (ig && cg)
      fprintf(stderr, "WALK # figure: bench=%s frames=%d-%d asgst_median_instructions=%u asgct_median_instructions=%u "
              "ratio=%.2f asgst_median_cycles=%u asgct_median_cycles=%u ratio=%.2f\n", walk_opts.label,
              buckets[b][0], buckets[b][1], ia, ig, (double)ia / ig, ca, cg, (double)ca / cg);
  }
}

/* N. Prints median/p90/p99/p99.9/max and the mean of n walk times (sorts v). The mean is
 * what a machine's stall rate multiplies (javac_bench.sh); the p99.9 is the javac tail
 * budget's figure (the max is one sample). */
static void print_percentiles(const char *side, uint32_t *v, long n) {
  double sum = 0;
  for (long i = 0; i < n; i++) sum += v[i];
  qsort(v, (size_t)n, sizeof *v, walk_cmp_u32);
  fprintf(stderr, " %s_median_ns=%u %s_p90_ns=%u %s_p99_ns=%u %s_p999_ns=%u %s_max_ns=%u %s_mean_ns=%.0f", side,
          v[n / 2], side, v[n * 90 / 100], side, v[n * 99 / 100], side, v[n * 999 / 1000], side, v[n - 1], side,
          sum / (double)n);
}

/* N. Walk time percentiles over the walks that succeeded, per walker, and the error shares
 * of both walkers, over all samples and over those of threads with Java frames. */
static void report_all(const walk_stats *st) {
  if (st->nall > 0) {
    fprintf(stderr, "WALK # figure: times=%s samples=%ld asgst_walks=%ld", walk_opts.label, st->nall,
            st->nall_a);
    if (st->nall_a > 0) print_percentiles("asgst", st->all_a, st->nall_a);
    fprintf(stderr, " asgct_walks=%ld", st->nall_g);
    if (st->nall_g > 0) print_percentiles("asgct", st->all_g, st->nall_g);
    fprintf(stderr, "\n");
  }
  double all = st->samples ? (double)st->samples : 1, java = st->java_samples ? (double)st->java_samples : 1;
  long ea = 0, eg = 0;
  for (int i = 1; i < 64; i++) ea += st->asgst_err[i];
  for (int i = 1; i < 16; i++) eg += i == 3 ? 0 : st->asgct_err[i];
  fprintf(stderr, "WALK # figure: errors=%s samples=%ld java_samples=%ld asgst_errors=%ld (%.2f%% of java samples)",
          walk_opts.label, st->samples, st->java_samples, ea, 100.0 * (double)ea / java);
  for (int i = 1; i < 64; i++)
    if (st->asgst_err[i]) fprintf(stderr, " %s=%.2f%%", ASGST_ErrorName(-i), 100.0 * (double)st->asgst_err[i] / java);
  fprintf(stderr, " asgct_errors=%ld (%.2f%%, -3 not_Java left out)", eg, 100.0 * (double)eg / java);
  for (int i = 1; i < 16; i++)
    if (st->asgct_err[i]) fprintf(stderr, " %d=%.2f%%", -i, 100.0 * (double)st->asgct_err[i] / (i == 3 ? all : java));
  fprintf(stderr, "\n");
}

/* N. One TAP-ish check line; the script numbers them. */
static void check(bool ok, const char *what) {
  fprintf(stderr, "WALK %s - %s: %s\n", ok ? "ok" : "not ok", walk_opts.label, what);
}

/* N. A check against AsyncGetCallTrace: with oracle=0 (no ASGCT walk) a skip line, which
 * the script turns into a TAP skip naming why the oracle was left out. */
static void oracle_check(bool ok, const char *what) {
  if (walk_opts.oracle) check(ok, what);
  else fprintf(stderr, "WALK skip - %s: %s\n", walk_opts.label, what);
}

/* N. Level / inlining expectations of the options. */
static void report_expectations(const walk_stats *st) {
  char msg[256];
  for (int k = 0; k < walk_opts.nlvl; k++) {
    unsigned levels = 0;
    long seen = 0;
    walk_method_levels(walk_opts.lvl_name[k], &levels, &seen, NULL, NULL);
    snprintf(msg, sizeof msg, "%s seen %ld times, levels mask 0x%x, expected only level %d",
             walk_opts.lvl_name[k], seen, levels, walk_opts.lvl_level[k]);
    check(seen > 0 && levels == 1u << walk_opts.lvl_level[k], msg);
  }
  for (int k = 0; k < walk_opts.nnoinl; k++) {
    long seen = 0, inl = 0;
    walk_method_levels(walk_opts.noinl[k], NULL, &seen, &inl, NULL);
    snprintf(msg, sizeof msg, "%s seen %ld times, inlined %ld times, expected never inlined", walk_opts.noinl[k], seen, inl);
    check(seen > 0 && inl == 0, msg);
  }
  for (int k = 0; k < walk_opts.ninl; k++) {
    long seen = 0, inl = 0;
    walk_method_levels(walk_opts.inl[k], NULL, &seen, &inl, NULL);
    snprintf(msg, sizeof msg, "%s seen %ld times, inlined %ld times, expected inlined", walk_opts.inl[k], seen, inl);
    check(inl > 0, msg);
  }
  if (walk_opts.levels_mask) {
    unsigned all = walk_all_levels();
    snprintf(msg, sizeof msg, "levels seen 0x%x within allowed 0x%x", all, walk_opts.levels_mask);
    check((all & ~walk_opts.levels_mask) == 0, msg);
  }
  (void)st;
}

/* N. The virtual-thread figures and the check of the boundary, when a carrier was
 * sampled with a virtual thread mounted. */
static void report_vthreads(const walk_stats *st) {
  static const char *names[TK_N] = {"mounted", "carrier_scheduler", "other_threads"};
  const kind_stats *m = &st->kinds[TK_MOUNTED];
  if (m->samples == 0) return;
  for (int i = 0; i < TK_N; i++) {
    const kind_stats *k = &st->kinds[i];
    long comparable = k->both - k->explained;
    fprintf(stderr, "WALK # figure: vthreads=%s kind=%s samples=%ld asgst_ok=%ld asgct_ok=%ld both=%ld "
            "agree=%ld (%.3f%% of %ld compared; %ld set apart as proven ASGCT errors) asgst_shorter=%ld\n",
            walk_opts.label, names[i], k->samples, k->asgst_ok, k->asgct_ok, k->both, k->agree,
            comparable ? 100.0 * (double)k->agree / (double)comparable : 0.0, comparable, k->explained,
            k->shorter);
  }
  fprintf(stderr, "WALK # figure: vthreads=%s boundary: %ld of %ld mounted ASGST walks go on past "
          "Continuation.enterSpecial into the carrier's frames\n", walk_opts.label, m->into_carrier, m->asgst_ok);
  if (st->vt_shorter.count) {
    const sample *s = &st->vt_shorter.example;
    fprintf(stderr, "WALK # example mounted_shorter (thread state %d):\n", s->vmstate);
    print_trace("asgst", s->a, s->a_n);
    print_trace("asgct", s->g, s->gct_n < MAXF ? s->gct_n : MAXF);
  }
  char msg[200];
  snprintf(msg, sizeof msg, "a mounted virtual thread walks at least as far as AsyncGetCallTrace "
           "(ok %ld vs %ld, %ld shorter)", m->asgst_ok, m->asgct_ok, m->shorter);
  oracle_check(m->asgst_ok >= m->asgct_ok && m->shorter == 0, msg);
}

/* N. */
void walk_report(long signals, long dropped) {
  const walk_stats *st = walk_get_stats();
  double pct = st->both ? 100.0 * (double)st->agree / (double)st->both : 0;
  long comparable = st->both - st->explained_safepoint - st->explained_null_id - st->explained_truncated -
                    st->explained_released;
  double adj = comparable ? 100.0 * (double)st->agree / (double)comparable : 0;
  fprintf(stderr, "WALK # figure: workload=%s samples=%ld asgst_ok=%ld asgct_ok=%ld both=%ld agree=%ld (%.3f%%; "
          "%.3f%% without the %ld proven ASGCT PcDesc misreads at safepoint polls/stub calls and the %ld "
          "proven ASGCT frames without jmethodID and the %ld proven early stops of ASGCT and the %ld proven "
          "skips of a sender at the interrupted frame's sp (arm64); %ld agreeing with "
          "ASGCT's placeholder bci 0 at a pc no debug information covers, %ld of them after the method's "
          "last PcDesc; %ld where ASGST names a bci from an out-of-line stub's way back and ASGCT its "
          "placeholder 0) disagreements:",
          walk_opts.label, st->samples, st->asgst_ok, st->asgct_ok, st->both, st->agree, pct, adj,
          st->explained_safepoint, st->explained_null_id, st->explained_truncated, st->explained_released,
          st->unknown_bci,
          st->unknown_bci_out_of_line, st->stub_bci);
  for (int i = 0; i < st->nclasses; i++) fprintf(stderr, " %s=%ld", st->classes[i].name, st->classes[i].count);
  fprintf(stderr, "%s\n", st->nclasses ? "" : " none");
  fprintf(stderr, "WALK # signals=%ld dropped=%ld asgst errors:", signals, dropped);
  for (int i = 0; i < 64; i++) if (st->asgst_err[i]) fprintf(stderr, " %s=%ld", ASGST_ErrorName(-i), st->asgst_err[i]);
  fprintf(stderr, " asgct errors:");
  for (int i = 0; i < 16; i++) if (st->asgct_err[i]) fprintf(stderr, " %d=%ld", -i, st->asgct_err[i]);
  fprintf(stderr, "\n");
  for (int i = 0; i < st->nclasses; i++) {
    const sample *s = &st->classes[i].example;
    fprintf(stderr, "WALK # example %s:\n", st->classes[i].name);
    print_trace("asgst", s->a, s->a_n);
    print_trace("asgct", s->g, s->gct_n < MAXF ? s->gct_n : MAXF);
  }
  check(st->samples >= 100, "enough samples taken");
  oracle_check(comparable <= 0 || adj >= 99.5, "ASGST agrees with AsyncGetCallTrace on >= 99.5% of samples both walked "
        "(proven ASGCT PcDesc misreads and frames without jmethodID set apart)");
  report_vthreads(st);
  walk_states_report();
  walk_call_stub_report();
  /* Under qemu the rare ASGST_BAD_FRAME of arm64 (about 2 in 10,000 signals, mostly inside
   * the deoptimization handler, where AsyncGetCallTrace answers -9; docs/arm64.md)
   * can leave ASGST one or two samples behind on a workload where both walk nearly every
   * sample (interpreted: 3,150 against 3,151 once): there it may trail by its BAD_FRAMEs,
   * at most 1 in 1,000 signals. */
  long behind = st->asgct_ok - st->asgst_ok, bad = st->asgst_err[-ASGST_BAD_FRAME];
  long slack = agent_under_qemu() ? (bad < signals / 1000 + 1 ? bad : signals / 1000 + 1) : 0;
  char m1[200];
  snprintf(m1, sizeof m1, "ASGST succeeds on at least as many samples as AsyncGetCallTrace%s (%ld, %ld)",
           slack ? " but its BAD_FRAMEs (qemu)" : "", st->asgst_ok, st->asgct_ok);
  oracle_check(behind <= slack, m1);
  report_expectations(st);
  char m2[160];
  snprintf(m2, sizeof m2, "walks without ASGST_INCLUDE_NON_JAVA_FRAMES report no C frames (%ld seen)", st->nonjava_in_java_walk);
  check(st->nonjava_in_java_walk == 0, m2);
  snprintf(m2, sizeof m2, "the sampler (a non-Java thread) walks as a non-Java trace of C frames (%ld of %ld)",
           st->self_walks - st->self_bad, st->self_walks);
  check(st->self_walks > 0 && st->self_bad == 0, m2);
  snprintf(m2, sizeof m2, "top_java_frame finds the physical frame of the walk's first Java frame (%ld of %ld)",
           st->tjf_same, st->tjf_checked);
  check(st->tjf_checked > 0 && st->tjf_same == st->tjf_checked, m2);
  snprintf(m2, sizeof m2, "top_java_frame finds the sender the walk shows (%ld of %ld)",
           st->tjf_sender_same, st->tjf_sender_checked);
  check(st->tjf_sender_checked > 0 && st->tjf_sender_same == st->tjf_sender_checked, m2);
  if (walk_opts.nonjava) {
    char msg[160];
    snprintf(msg, sizeof msg, "non-Java walk keeps the Java frames in order (%ld of %ld)", st->nj_consistent, st->nj_checked);
    /* On arm64 under qemu too. Before the walker stepped a stub called from C by its link
     * register: 1 in 8,535 on JDK 25, 11 in 12,451 on 21, 3 in 6,987 on 25 with pauth off,
     * each a native method's frame reported twice (Unsafe's compareAndSet* calling an
     * atomic stub); none in some 230,000 since (stress and JNI runs on 17, 21 and 25). */
    check(st->nj_checked > 0 && st->nj_consistent == st->nj_checked, msg);
    if (st->nj_consistent != st->nj_checked) {
      print_trace("asgst", st->nj_bad.example.a, st->nj_bad.example.a_n);
      print_trace("asgst+c", st->nj_bad.example.nj, st->nj_bad.example.n_n);
    }
  }
  if (walk_opts.jni) {
    char msg[160];
    fprintf(stderr, "WALK # figure: jni=%s chains=%ld c_frame_found=%ld (left out: %ld under the VM's linking of nativeCall)\n",
            walk_opts.label, st->jni_pairs, st->jni_c_found, st->jni_linking);
    snprintf(msg, sizeof msg, "JNI C frame between callback and nativeCall in %ld of %ld chains", st->jni_c_found, st->jni_pairs);
    check(st->jni_pairs > 0 && st->jni_c_found * 100 >= st->jni_pairs * 99, msg);
  }
  if (walk_opts.bench) report_bench(st), report_all(st);
  if (walk_opts.slow) walk_report_slow();
}
