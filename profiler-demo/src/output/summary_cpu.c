/*
 * summary_cpu.c - the summary's account of CPU time: what the cpu samples stand for
 * against the process's CPU as the kernel counts it over the run (CLOCK_PROCESS_CPUTIME_ID:
 * utime + stime of every thread, ended ones too), split between Java threads and the
 * others (JIT compilers, GC, VM and native threads: cputhreads=all), and the profiler's own
 * threads' CPU apart, as its cost (sampling/thread_scan.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/state.h"
#include "output/output.h"

/* Where the figures come from (sampling/thread_scan.c's, set by the control room). */
static _Atomic(prof_cpu_figures_fn) figures_fn;

/* N. */
void prof_output_set_cpu_figures(prof_cpu_figures_fn fn) {
  atomic_store(&figures_fn, fn);
}

/* N. Percent of b that a is, 0 if b is 0. */
static double pct(double a, double b) {
  return b > 0 ? 100.0 * a / b : 0;
}

/* N. One cpu event's line. Throttled samples count: each sample taken at a raised period
 * stood for them (sampling/overload.c). */
static void write_event(FILE *out, int i, const prof_cpu_figures *f) {
  const prof_event *ev = &prof.opts.events[i];
  double iv = (double)ev->interval;
  uint64_t n = prof.stats.stored[i], thr = prof.stats.throttled[i];
  double all = (double)(n + thr) * iv, other = (double)prof.stats.other[i] * iv;
  double process = (double)f->process_ns, sampled = process - (double)f->own_ns;
  fprintf(out, "  %-32s samples %llu (+%llu throttled) stand for %.3f s of CPU (taken: Java "
          "threads %.3f s, other threads %.3f s): %.1f%% of the process's CPU as the kernel "
          "counts it (%.3f s, utime+stime over the run), %.1f%% of it without the profiler's "
          "own threads\n", ev->name, (unsigned long long)n, (unsigned long long)thr, all / 1e9,
          (double)(n - prof.stats.other[i]) * iv / 1e9, other / 1e9, pct(all, process),
          process / 1e9, pct(all, sampled));
}

/* N. */
void prof_write_cpu_threads(FILE *out) {
  prof_cpu_figures f;
  memset(&f, 0, sizeof f);
  prof_cpu_figures_fn fn = atomic_load(&figures_fn);
  if (fn) fn(&f);
  bool any = false;
  for (int i = 0; i < prof.opts.nevents; i++) {
    enum prof_event_kind k = prof.opts.events[i].kind;
    if (k != EV_CPU && k != EV_CPU_TIMER) continue;
    if (!any)
      fprintf(out, "cpu threads: %s\n", prof.opts.java_threads_only
                  ? "Java threads only (cputhreads=java): JIT compiler, GC, VM and native "
                    "threads are not sampled"
                  : "every thread (JIT compiler, GC, VM and native threads under a root "
                    "frame naming their kind; cputhreads=java for Java threads only)");
    any = true;
    write_event(out, i, &f);
  }
  fprintf(out, "profiler's own threads: %.0f ms of CPU (%d threads asgst-..., not sampled)\n",
          f.own_ns / 1e6, f.own_threads);
  if (!prof.opts.java_threads_only)
    fprintf(out, "thread scan: %llu looks at /proc took %.1f ms of CPU; %d threads found after the "
            "start, %.0f ms of their CPU before that not sampled\n",
            (unsigned long long)f.scans, f.scan_ns / 1e6, f.found_late, f.late_ns / 1e6);
}
