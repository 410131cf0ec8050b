/*
 * summary_short.c - the summary the terminal shows at the end of a run (stderr): for each
 * event with samples, how many and what one stands for, then its ten hottest methods by
 * self samples with their share of the event's samples; the events without samples named
 * on one line; one line of counts in words. The detailed figures (walk results by code,
 * walk times, the walk mode's counters, the tools' "stats:" line) are the detailed
 * summary's (summary.c): in a .txt output, and on stderr before this with the option
 * verbose.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "asgst.h"
#include "core/state.h"
#include "output/output.h"

#define TOP_METHODS 10

/* N. A duration in ns as a person writes it: "1 ms", "250 us", "1.5 s". */
static void duration(char *buf, size_t len, uint64_t ns) {
  if (ns >= 1000000000ull) snprintf(buf, len, "%g s", (double)ns / 1e9);
  else if (ns >= 1000000ull) snprintf(buf, len, "%g ms", (double)ns / 1e6);
  else if (ns >= 1000ull) snprintf(buf, len, "%g us", (double)ns / 1e3);
  else snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

/* N. Event i's heading: its samples and what one stands for. */
static void write_heading(FILE *out, int i) {
  const prof_event *ev = &prof.opts.events[i];
  unsigned long long n = prof.stats.stored[i], thr = prof.stats.throttled[i];
  unsigned long long k = prof.stats.kernel_count[i] + prof.stats.kernel_live[i];
  char iv[32];
  duration(iv, sizeof iv, ev->interval);
  fprintf(out, "%s: %llu sample%s", ev->name, n, n == 1 ? "" : "s");
  if (ev->kind == EV_CPU && k)
    fprintf(out, ", one per %s of CPU (the kernel counted %.3f s of CPU in the sampled "
            "threads)", iv, k / 1e9);
  else if (ev->kind == EV_CPU || ev->kind == EV_CPU_TIMER)
    fprintf(out, ", one per %s of CPU", iv);
  else if (ev->kind == EV_WALL)
    fprintf(out, ", one per thread every %s", iv);
  else if (ev->kind == EV_TRACEPOINT && ev->interval == 1)
    fprintf(out, " of %llu event%s (each sampled)", k, k == 1 ? "" : "s");
  else if (ev->kind == EV_TRACEPOINT)
    fprintf(out, " of %llu events (one in %llu sampled)", k, (unsigned long long)ev->interval);
  if (thr)
    fprintf(out, "; %llu left out to keep sampling under %d%% of the threads' time (option "
            "overhead)", thr, prof.opts.max_overhead);
  fputc('\n', out);
}

/* N. Event i's hottest methods, from a tree of its samples alone (the period's, which is the
 * run's unless loop=). */
static void write_event(FILE *out, int i) {
  write_heading(out, i);
  prof_tree t;
  prof_tree_init(&t);
  prof_tree_build(&t, 1u << i, false, false);
  if (t.n > 0 && t.nodes[0].total > 0) {
    /* With loop= the samples of earlier periods are in their files only. */
    fprintf(out, "  hottest methods%s (self samples, share of the event's %llu%s):\n",
            prof.opts.loop_ns ? " of the last period" : "", (unsigned long long)t.nodes[0].total,
            prof.opts.loop_ns ? " in it" : "");
    prof_write_top_methods(out, &t, TOP_METHODS);
  }
  prof_tree_free(&t);
}

/* N. The events without samples, on one line. */
static void write_empty_events(FILE *out) {
  int n = 0;
  for (int i = 0; i < prof.opts.nevents; i++) n += prof.stats.stored[i] == 0;
  if (n == 0) return;
  fprintf(out, "no samples (%d event%s):", n, n == 1 ? "" : "s");
  for (int i = 0, first = 1; i < prof.opts.nevents; i++)
    if (prof.stats.stored[i] == 0)
      fprintf(out, "%s %s", first ? "" : ",", prof.opts.events[i].name), first = 0;
  fputc('\n', out);
}

/* N. One line of counts: samples, with and without Java frames, walks that failed (by
 * error name), samples lost and why. */
static void write_counts(FILE *out) {
  unsigned long long all = 0, no_java = 0, buf = 0, store = 0, failed = 0;
  for (int i = 0; i < prof.opts.nevents; i++) {
    all += prof.stats.stored[i], no_java += prof.stats.no_java[i];
    buf += prof.stats.lost_buffer[i], store += prof.stats.lost_store[i];
  }
  for (int s = 0; s <= PROF_WALK_CODES / 2; s++) failed += prof.stats.walk_results[s];
  unsigned long long quota = prof.stats.lost_signals - prof.stats.via_sigio;
  fprintf(out, "in all: %llu samples, %llu with Java frames, %llu without (the thread was "
          "in the VM, GC or native code, or the walk failed)", all,
          all > no_java ? all - no_java : 0, no_java);
  if (failed) {
    fprintf(out, "; walks that failed %llu (", failed);
    for (int s = 0, first = 1; s <= PROF_WALK_CODES / 2; s++)
      if (prof.stats.walk_results[s])
        fprintf(out, "%s%s %llu", first ? "" : ", ", ASGST_ErrorName(s - PROF_WALK_CODES / 2),
                (unsigned long long)prof.stats.walk_results[s]), first = 0;
    fputc(')', out);
  }
  unsigned long long lost = buf + store + quota + prof.stats.unknown_signal;
  fprintf(out, "; lost %llu", lost);
  if (lost)
    fprintf(out, " (sample buffer full %llu, call-trace store full %llu, signal queue "
            "full %llu, unknown events %llu)", buf, store, quota,
            (unsigned long long)prof.stats.unknown_signal);
  fputc('\n', out);
}

/* N. */
void prof_write_short_summary(FILE *out) {
  if (prof.opts.verbose) prof_write_summary(out);
  else fprintf(out, "=== asgst-prof summary (pid %d) ===\n", (int)getpid());
  if (!prof.opts.verbose && prof.init_error[0])
    fprintf(out, "ASGST_Initialize failed: %s\n", prof.init_error);
  else if (!prof.opts.verbose && ASGST_DisabledFeatures()[0])
    fprintf(out, "ASGST features off on this JVM: %s\n", ASGST_DisabledFeatures());
  for (int i = 0; i < prof.opts.nevents; i++)
    if (prof.stats.stored[i]) write_event(out, i);
  write_empty_events(out);
  write_counts(out);
  if (!prof.opts.verbose)
    fprintf(out, "(the detailed figures: option verbose, or a file=<name>.txt output)\n");
}
