/*
 * summary.c - the detailed run summary (a .txt output's head; on stderr with the option
 * verbose, summary_short.c): samples by event, walk results by error code, walk times,
 * the call-trace store's size, lost and unattributed events. Walk times come from the
 * period's histogram (core/time_hist.h), which every kept sample adds to: samples counted
 * in the call-trace store keep no time of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asgst.h"
#include "core/records.h"
#include "core/state.h"
#include "core/thread_state.h"
#include "fd/fd.h"
#include "output/output.h"

/* N. A walk result's name: trace kinds for > 0, error names otherwise. */
static const char *result_name(int r) {
  if (r == ASGST_JAVA_TRACE) return "ASGST_JAVA_TRACE";
  if (r == ASGST_NON_JAVA_TRACE) return "ASGST_NON_JAVA_TRACE";
  return ASGST_ErrorName(r);
}

/* N. What the overload throttle left out of event i, and why. */
static void write_throttle(FILE *out, int i) {
  const prof_event *ev = &prof.opts.events[i];
  bool floor = ev->kind == EV_CPU && ev->period > ev->interval;
  if (!prof.stats.throttle_steps[i] && !floor) return;
  fprintf(out, "  %-32s throttled %llu samples:", "",
          (unsigned long long)prof.stats.throttled[i]);
  if (floor)
    fprintf(out, " timer interrupts allow no shorter period than %.0f us here;",
            ev->period / 1e3);
  if (prof.stats.throttle_steps[i])
    fprintf(out, " samples cost more than %d%% of the sampled threads' time, period raised "
            "up to %.0f us;", prof.opts.max_overhead, prof.stats.max_period[i] / 1e3);
  fprintf(out, " requested %.0f us\n", ev->interval / 1e3);
}

/* N. Expected against taken, from the kernel's own count of the event. */
static void write_expected(FILE *out, int i) {
  const prof_event *ev = &prof.opts.events[i];
  unsigned long long k = prof.stats.kernel_count[i] + prof.stats.kernel_live[i];
  unsigned long long got = prof.stats.signals[i];
  unsigned long long expect = k / ev->interval, thr = prof.stats.throttled[i];
  if (ev->kind == EV_TRACEPOINT) {
    fprintf(out, "  %-32s kernel counted %llu events (filter: %s), every %llu sampled: "
            "expected %llu samples, not attributed %llu\n", "", k,
            ev->filter[0] ? ev->filter : "none", (unsigned long long)ev->interval, expect,
            expect > got ? expect - got : 0);
  } else if (ev->kind == EV_PERF) {
    fprintf(out, "  %-32s kernel counted %llu events, every %llu sampled: expected %llu "
            "samples, not taken %llu\n", "", k, (unsigned long long)ev->interval, expect,
            expect > got ? expect - got : 0);
  } else if (ev->kind == EV_CPU && k) {
    unsigned long long missed = expect > got + thr ? expect - got - thr : 0;
    fprintf(out, "  %-32s kernel counted %.3f s of CPU: expected about %llu samples "
            "(interval %llu ns), %llu neither taken nor throttled\n", "", k / 1e9, expect,
            (unsigned long long)ev->interval, missed);
  } else if (ev->kind == EV_WALL) {
    fprintf(out, "  %-32s interval %llu ns: sent %llu signals, %llu not taken\n", "",
            (unsigned long long)ev->interval, k, k > got ? k - got : 0);
  } else {
    fprintf(out, "  %-32s interval %llu ns\n", "", (unsigned long long)ev->interval);
  }
}

/* N. Adds a sample's count to its event's state (arg: uint64_t[PROF_MAX_EVENTS][TS_COUNT]). */
static void count_state(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi,
                        void *arg) {
  (void)f, (void)fdi;
  uint64_t (*by)[TS_COUNT] = arg;
  if (r->event < PROF_MAX_EVENTS && r->state < TS_COUNT) by[r->event][r->state] += r->count;
}

/* N. The threads' states in a cpu or wall event's samples, largest first. */
static void write_states(FILE *out, const uint64_t *by) {
  uint64_t all = 0;
  for (int s = 0; s < TS_COUNT; s++) all += by[s];
  if (!all) return;
  fprintf(out, "  %-32s thread states:", "");
  bool done[TS_COUNT] = {false};
  for (int k = 0; k < TS_COUNT; k++) {
    int best = -1;
    for (int s = 0; s < TS_COUNT; s++)
      if (!done[s] && by[s] && (best < 0 || by[s] > by[best])) best = s;
    if (best < 0) break;
    done[best] = true;
    fprintf(out, "%s %s %.1f%%", k ? "," : "", prof_tstate_word(best),
            100.0 * (double)by[best] / (double)all);
  }
  fprintf(out, "\n");
}

/* N. Lines per event. */
static void write_events(FILE *out) {
  uint64_t (*states)[TS_COUNT] = calloc(PROF_MAX_EVENTS, sizeof *states);
  if (states) prof_samples_each(count_state, states);
  fprintf(out, "events:\n");
  for (int i = 0; i < prof.opts.nevents; i++) {
    fprintf(out, "  %-32s samples %llu (signals %llu, lost to full buffer %llu, lost to full "
            "call-trace store %llu, without Java frames %llu)\n", prof.opts.events[i].name,
            (unsigned long long)prof.stats.stored[i], (unsigned long long)prof.stats.signals[i],
            (unsigned long long)prof.stats.lost_buffer[i],
            (unsigned long long)prof.stats.lost_store[i], (unsigned long long)prof.stats.no_java[i]);
    write_expected(out, i);
    write_throttle(out, i);
    enum prof_event_kind k = prof.opts.events[i].kind;
    if (states && (k == EV_WALL || k == EV_CPU || k == EV_CPU_TIMER)) write_states(out, states[i]);
  }
  free(states);
}

/* N. One line: how many cpu and perf event samples have kernel frames, or why none do
 * (nothing when no event could have them). */
static void write_kernel_frames(FILE *out) {
  if (!prof.kernel_frames) {
    if (prof.kernel_frames_off[0])
      fprintf(out, "kernel frames: none (%s)\n", prof.kernel_frames_off);
    return;
  }
  unsigned long long with = 0, of = 0;
  for (int i = 0; i < prof.opts.nevents; i++) {
    if (!prof_kchain_wanted(&prof.opts.events[i])) continue;
    with += prof.stats.with_kernel[i];
    of += prof.stats.signals[i];
  }
  fprintf(out, "kernel frames: %llu of %llu cpu, perf event and tracepoint samples (%.1f%%) "
          "were taken in the kernel %s", with, of, of ? 100.0 * (double)with / (double)of : 0.0,
          prof.opts.walk == WALK_SIGNAL ? "and carry its frames"
                                        : "(their kernel frames are kept with walk=signal only)");
  if (prof.stats.no_ring)
    fprintf(out, "; %llu threads' rings could not be mapped (locked-memory limit)",
            (unsigned long long)prof.stats.no_ring);
  fputc('\n', out);
}

/* N. The period's walk times (per walk, whether its sample is a record or counted). */
static void write_walk_time(FILE *out, const prof_hist *h) {
  uint64_t n = prof_hist_total(h);
  if (!n) return;
  fprintf(out, "walk time: median %.2f us, p90 %.2f us, max %.2f us over %llu walks\n",
          prof_hist_rank(h, 1, 2) / 1e3, prof_hist_rank(h, 9, 10) / 1e3,
          prof_hist_max(h) / 1e3, (unsigned long long)n);
}

/* N. Adds the samples of a record of the buffer (not one already streamed, kept only for
 * the fd report) to *arg. */
static void count_record(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi,
                         void *arg) {
  (void)f, (void)fdi;
  if (!r->streamed) *(uint64_t *)arg += r->count ? r->count : 1;
}

/* N. */
void prof_write_summary(FILE *out) {
  fprintf(out, "=== asgst-prof summary (pid %d) ===\n", (int)getpid());
  if (prof.init_error[0]) fprintf(out, "ASGST_Initialize failed: %s\n", prof.init_error);
  else if (ASGST_DisabledFeatures()[0])
    fprintf(out, "ASGST features off on this JVM: %s\n", ASGST_DisabledFeatures());
  write_events(out);
  write_kernel_frames(out);
  prof_write_cpu_threads(out);
  fprintf(out, "walk results:\n");
  for (int s = 0; s < PROF_WALK_CODES; s++)
    if (prof.stats.walk_results[s])
      fprintf(out, "  %-28s %llu\n", result_name(s - PROF_WALK_CODES / 2),
              (unsigned long long)prof.stats.walk_results[s]);
  prof_period_figures pf;
  prof_buffer_figures(&pf);
  write_walk_time(out, pf.walk_ns);
  /* Samples are counted by stack in the store unless an output keeps each one (a .jfr):
   * those are records, and a store of 0 traces then says nothing about the profile. */
  uint64_t own = 0;
  prof_buffer_each(count_record, &own);
  fprintf(out, "call-trace store: %zu distinct traces (room for %zu), frames %zu bytes (room "
          "for %zu MB)", pf.traces, pf.max_traces, pf.arena_bytes, pf.max_arena_bytes >> 20);
  if (own)
    fprintf(out, "; besides, %llu samples kept one by one with their time (for a .jfr "
            "output)", (unsigned long long)own);
  fputc('\n', out);
  prof_write_walk_mode(out);
  fprintf(out, "real-time signals the kernel could not queue (the user's queued-signal quota "
          "was full): %llu, of which sampled through SIGIO %llu\n",
          (unsigned long long)prof.stats.lost_signals, (unsigned long long)prof.stats.via_sigio);
  fprintf(out, "lost: %llu signals (the user's queued-signal quota was full), %llu signals of "
          "unknown events\n",
          (unsigned long long)(prof.stats.lost_signals - prof.stats.via_sigio),
          (unsigned long long)prof.stats.unknown_signal);
  prof_fd_write_summary(out);
}
