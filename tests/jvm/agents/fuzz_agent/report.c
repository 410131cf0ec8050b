/*
 * report.c - the fuzzer's final report: "FUZZ # figure: ..." lines with the counts, the
 * outcome histograms by ASGST_ErrorName and the faults the crash guard caught, then
 * "FUZZ ok|not ok - ..." checks (tests/fuzz/fuzz.sh numbers them as TAP). N code.
 */
#include <stdio.h>

#include "../fuzz_agent.h"
#include "impl/guard.h"

static const char *const ctx_names[CTX_COUNT] = {
  "real", "here", "spfp", "pc_delta", "codecache", "libjvm", "interp", "pool", "stack",
  "garbage", "remote", "copy"};
static const char *const violation_names[V_COUNT] = {
  "state_mismatch", "error_frame_not_zeroed", "bad_frame_field", "runaway",
  "kind_vs_state", "undocumented_code", "bad_info", "options_ignored"};

/* N. */
static unsigned long get(atomic_ulong *c) {
  return atomic_load(c);
}

/* N. One histogram line: NAME=count for every code seen. */
static void histogram(const char *label, const char *what, atomic_ulong *codes) {
  printf("FUZZ # figure: fuzz=%s %s:", label, what);
  for (int i = 0; i < CODE_SLOTS; i++)
    if (get(&codes[i])) printf(" %s=%lu", ASGST_ErrorName(i - CODE_OFF), get(&codes[i]));
  printf("\n");
}

/* N. Walks and faults by kind of start. */
static void by_start(const char *label) {
  printf("FUZZ # figure: fuzz=%s walks_by_start:", label);
  for (int c = 0; c < CTX_COUNT; c++)
    printf(" %s=%lu/%lu", ctx_names[c], get(&fuzz_n.by_ctx[c]), get(&fuzz_n.faults_by_ctx[c]));
  printf(" (walks/faulted)\n");
}

/* N. ok, or not ok with every broken invariant's count. */
static void violations(void) {
  unsigned long total = 0;
  for (int v = 0; v < V_COUNT; v++) total += get(&fuzz_n.violations[v]);
  if (total == 0) {
    printf("FUZZ ok - every walk kept the API's invariants\n");
    return;
  }
  printf("FUZZ not ok - %lu walks broke the API's invariants:", total);
  for (int v = 0; v < V_COUNT; v++)
    if (get(&fuzz_n.violations[v])) printf(" %s=%lu", violation_names[v], get(&fuzz_n.violations[v]));
  printf(" (first: %ld)\n", (long)atomic_load(&fuzz_n.first_violation_code));
}

/* N. */
void fuzz_report(const char *label, double secs, int threads) {
  unsigned long walks = get(&fuzz_n.walks), signals = get(&fuzz_n.signals);
  printf("FUZZ # figure: fuzz=%s seconds=%.1f walks=%lu walks_per_s=%.0f signals=%lu "
         "frames=%lu methods=%lu info_calls=%lu random_info_calls=%lu java_threads=%d\n",
         label, secs, walks, secs > 0 ? walks / secs : 0.0, signals, get(&fuzz_n.frames),
         get(&fuzz_n.methods), get(&fuzz_n.info_calls), get(&fuzz_n.random_info_calls), threads);
  printf("FUZZ # figure: fuzz=%s guard_faults=%llu walk_faulted=%lu handler_cpu_avg_us=%.1f "
         "handler_cpu_max_us=%.0f rewinds=%lu rewind_mismatch=%lu java_trace=%lu non_java_trace=%lu "
         "java_frames_without_method=%lu\n",
         label, (unsigned long long)asgst__guard_faults(),
         get(&fuzz_n.by_code[ASGST_WALK_FAULTED + CODE_OFF]),
         signals ? get(&fuzz_n.handler_ns) / 1e3 / signals : 0.0,
         get(&fuzz_n.handler_max_ns) / 1e3, get(&fuzz_n.rewinds), get(&fuzz_n.rewind_mismatch),
         get(&fuzz_n.by_kind[ASGST_JAVA_TRACE]), get(&fuzz_n.by_kind[ASGST_NON_JAVA_TRACE]),
         get(&fuzz_n.java_without_method));
  printf("FUZZ # figure: fuzz=%s c_frames: walks_asking=%lu walks_with_c_frames=%lu c_frames=%lu\n", label,
         get(&fuzz_n.c_asked), get(&fuzz_n.c_walks), get(&fuzz_n.c_frames));
  histogram(label, "outcomes", fuzz_n.by_code);
  histogram(label, "remote_outcomes", fuzz_n.remote_by_code);
  by_start(label);
  printf("FUZZ # figure: fuzz=%s copy_walks=%lu copy_faulted=%lu checked_against_blocking=%lu "
         "identical=%lu with_wrong_frames=%lu wrong_frames=%lu of %lu\n",
         label, get(&fuzz_n.by_ctx[CTX_COPY]), get(&fuzz_n.faults_by_ctx[CTX_COPY]),
         get(&fuzz_n.copy_checked), get(&fuzz_n.copy_identical), get(&fuzz_n.copy_with_wrong),
         get(&fuzz_n.copy_wrong_frames), get(&fuzz_n.copy_frames));
  violations();
  /* Issue 28: the C frame stepping must be among what is fuzzed. */
  printf("FUZZ %s - walks with C frames were fuzzed (%lu walks, %lu C frames)\n",
         get(&fuzz_n.c_walks) > 0 ? "ok" : "not ok", get(&fuzz_n.c_walks), get(&fuzz_n.c_frames));
  if (get(&fuzz_n.violations[V_UNDOCUMENTED]) == 0)
    printf("FUZZ ok - every error code is a documented one\n");
  else
    printf("FUZZ not ok - undocumented error codes returned\n");
  fflush(stdout);
}
