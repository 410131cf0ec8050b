/*
 * summary_walk_mode.c - the summary's walk-mode part: which mode ran, its own counters
 * (thread: requests, targets that did not answer; queue: enqueued, handled, stale, full,
 * folded, dropped, and the accounting of every sample), the agreement with the in-handler walk (compare), the time from event to walk, the cost
 * per sample on each side, and one "stats:" line of key=value pairs for tools
 * (profiler-demo/eval/eval.sh reads it). Event-to-walk times come from the period's
 * histogram (core/time_hist.h): samples counted in the call-trace store keep none.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/records.h"
#include "core/state.h"
#include "output/output.h"

typedef struct {
  uint64_t records, ok; /* samples kept, and of those walked with frames */
} mode_data;

/* N. Counts samples and successful walks. */
static void collect(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi,
                    void *arg) {
  (void)f, (void)fdi;
  mode_data *d = arg;
  d->records += r->count;
  if (r->walk_result > 0 && r->nframes > 0) d->ok += r->count;
}

/* N. a / b, 0 when b is 0. */
static double ratio(uint64_t a, uint64_t b) {
  return b ? (double)a / (double)b : 0.0;
}

#define ST(name) ((unsigned long long)prof.stats.name)

/* N. Samples of threads that are not Java threads (cputhreads=all): walked in the handler
 * whatever the mode, since they have no safe point to queue for. */
static unsigned long long other_thread_samples(void) {
  unsigned long long n = 0;
  for (int i = 0; i < prof.opts.nevents; i++) n += prof.stats.other[i];
  return n;
}

/* N. walk=queue: where each sample went. Every handler call takes one sample; it is
 * enqueued (then handled, dropped at deregistration, or still waiting), folded into a
 * queued element (which is then handled, dropped or waiting likewise), or not enqueued
 * (full, no queue, no Java frame, other), or walked in the handler: on a thread without a
 * queue, or one that is not a Java thread.
 * Once profiling has stopped nothing waits, and the line says whether the identity holds
 * exactly. */
static void write_queue_accounting(FILE *out) {
  long long waiting = (long long)(ST(enqueued) - ST(handled) - ST(dropped));
  long long waiting_folds = (long long)(ST(folded) - ST(folded_handled) - ST(dropped_folds));
  long long off = (long long)ST(handler_calls) -
                  (long long)(ST(handled) + ST(folded_handled) + ST(dropped) + ST(dropped_folds) +
                              ST(enqueue_full) + ST(enqueue_no_queue) + ST(enqueue_no_java) +
                              ST(enqueue_failed) + ST(queue_walked_here) +
                              other_thread_samples()) -
                  waiting - waiting_folds;
  fprintf(out, "  folded into the youngest queued element (same frame and event) %llu: in "
          "handled elements %llu, in dropped ones %llu; dropped at deregistration %llu "
          "elements; waiting %lld elements (+%lld folded)\n", ST(folded), ST(folded_handled),
          ST(dropped_folds), ST(dropped), waiting, waiting_folds);
  fprintf(out, "  accounting: samples %llu = handled %llu + folded-handled %llu + dropped %llu "
          "+ dropped-folds %llu + full %llu + no queue %llu + no Java frame %llu + other %llu + "
          "waiting %lld + walked in the handler (no queue) %llu + walked in the handler (not Java "
          "threads) %llu: %s (off by %lld)\n",
          ST(handler_calls), ST(handled), ST(folded_handled), ST(dropped), ST(dropped_folds),
          ST(enqueue_full), ST(enqueue_no_queue), ST(enqueue_no_java), ST(enqueue_failed),
          waiting + waiting_folds, ST(queue_walked_here),
          other_thread_samples(), off == 0 ? "exact" : "NOT exact", off);
}

/* N. The mode's own counters. */
static void write_counters(FILE *out) {
  if (prof.opts.walk == WALK_THREAD)
    fprintf(out, "  walker requests %llu (dropped, request ring full: %llu; dropped, older "
            "than 50 ms when their turn came: %llu), out-of-thread walks %llu, targets not "
            "answering %llu\n", ST(requests), ST(request_full), ST(request_late),
            ST(sampler_walks), ST(not_answering));
  if (prof.opts.walk == WALK_QUEUE)
    fprintf(out, "  enqueued %llu, handled %llu (stale %llu), not enqueued: queue full %llu, "
            "no queue %llu, no Java frame %llu, other %llu; walked in the handler for want of "
            "a queue %llu\n", ST(enqueued), ST(handled), ST(stale), ST(enqueue_full),
            ST(enqueue_no_queue), ST(enqueue_no_java), ST(enqueue_failed), ST(queue_walked_here));
  if (prof.opts.walk == WALK_QUEUE) write_queue_accounting(out);
  if (prof.opts.compare)
    fprintf(out, "  compare (the in-handler walk of the same sample): %llu compared, "
            "identical %.1f%%, same top frame %.1f%%, frames equal %.1f%%\n", ST(compared),
            100 * ratio(ST(compare_same), ST(compared)),
            100 * ratio(ST(compare_top_same), ST(compared)),
            100 * ratio(ST(compare_frames_same), ST(compare_frames)));
}

/* N. The 99th percentile of our signal handler's time per call (0 if none). */
static double handler_p99_us(void) {
  return prof_hist_rank(&prof.stats.handler_hist, 99, 100) / 1e3;
}

/* N. The key=value line for tools. */
static void write_stats_line(FILE *out, const mode_data *d, double lag_med, double lag_p90) {
  static const char *const modes[] = {"signal", "thread", "queue"};
  uint64_t events = 0;
  for (int i = 0; i < prof.opts.nevents; i++) events += prof.stats.signals[i];
  fprintf(out, "stats: mode=%s events=%llu records=%llu ok=%llu requests=%llu "
          "request_full=%llu request_late=%llu not_answering=%llu enqueued=%llu handled=%llu stale=%llu "
          "full=%llu no_queue=%llu no_java=%llu enqueue_failed=%llu compared=%llu same=%llu top_same=%llu "
          "lag_median_us=%.2f lag_p90_us=%.2f handler_us=%.3f sampler_us=%.3f held_us=%.3f "
          "handler_p99_us=%.3f handler_max_us=%.3f samples=%llu folded=%llu folded_handled=%llu dropped=%llu "
          "dropped_folds=%llu other_threads=%llu walked_here=%llu\n",
          modes[prof.opts.walk], (unsigned long long)events, (unsigned long long)d->records,
          (unsigned long long)d->ok, ST(requests), ST(request_full), ST(request_late), ST(not_answering),
          ST(enqueued), ST(handled), ST(stale), ST(enqueue_full), ST(enqueue_no_queue),
          ST(enqueue_no_java), ST(enqueue_failed), ST(compared), ST(compare_same), ST(compare_top_same), lag_med,
          lag_p90, ratio(ST(handler_ns), ST(handler_calls)) / 1e3,
          ratio(ST(sampler_ns), ST(sampler_walks)) / 1e3,
          ratio(ST(held_ns), ST(sampler_walks)) / 1e3, handler_p99_us(),
          prof_hist_max(&prof.stats.handler_hist) / 1e3, ST(handler_calls),
          ST(folded), ST(folded_handled), ST(dropped), ST(dropped_folds), other_thread_samples(),
          ST(queue_walked_here));
}

/* N. */
void prof_write_walk_mode(FILE *out) {
  static const char *const what[] = {
      "signal (walked in the signal handler)",
      "thread (walked out of thread by a sampler thread, ASGST_RunWithIteratorOnThread)",
      "queue (enqueued in the handler, walked at the thread's next safe point)"};
  fprintf(out, "walk mode: %s\n", what[prof.opts.walk]);
  write_counters(out);
  mode_data d = {0};
  prof_samples_each(collect, &d);
  prof_period_figures pf;
  prof_buffer_figures(&pf);
  double med = 0, p90 = 0;
  if (prof_hist_total(pf.lag_ns)) {
    med = prof_hist_rank(pf.lag_ns, 1, 2) / 1e3, p90 = prof_hist_rank(pf.lag_ns, 9, 10) / 1e3;
    fprintf(out, "  event to walk: median %.2f us, p90 %.2f us, max %.2f us\n", med, p90,
            prof_hist_max(pf.lag_ns) / 1e3);
  }
  fprintf(out, "  cost per sample: sampled thread %.2f us in our handler (p99 %.2f us, max "
          "%.2f us, %llu calls)%s", ratio(ST(handler_ns), ST(handler_calls)) / 1e3,
          handler_p99_us(), prof_hist_max(&prof.stats.handler_hist) / 1e3, ST(handler_calls),
          prof.opts.walk == WALK_THREAD ? "" : "\n");
  if (prof.opts.walk == WALK_THREAD)
    fprintf(out, " + held up to %.2f us while walked; sampler thread %.2f us a walk\n",
            ratio(ST(held_ns), ST(sampler_walks)) / 1e3,
            ratio(ST(sampler_ns), ST(sampler_walks)) / 1e3);
  if (prof.opts.walk == WALK_QUEUE)
    fprintf(out, "  queue handler: %.2f us a sample (plus the library's processing)\n",
            ratio(ST(sampler_ns), ST(sampler_walks)) / 1e3);
  write_stats_line(out, &d, med, p90);
}
