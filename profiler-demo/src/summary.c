/*
 * summary.c - the run summary: samples by event, walk results by error code, walk times,
 * lost and unattributed events.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"

typedef struct {
  uint32_t *ns;
  size_t n, cap;
} times;

/* N. Collects every record's walk time. */
static void collect_time(const prof_record *r, const prof_frame *f, const prof_fdinfo *fdi,
                         void *arg) {
  (void)f, (void)fdi;
  times *t = arg;
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 4096;
    t->ns = realloc(t->ns, t->cap * sizeof *t->ns);
  }
  t->ns[t->n++] = r->walk_ns;
}

/* N. */
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* N. A walk result's name: trace kinds for > 0, error names otherwise. */
static const char *result_name(int r) {
  if (r == ASGST_JAVA_TRACE) return "ASGST_JAVA_TRACE";
  if (r == ASGST_NON_JAVA_TRACE) return "ASGST_NON_JAVA_TRACE";
  return ASGST_ErrorName(r);
}

/* N. One line per event. */
static void write_events(FILE *out) {
  fprintf(out, "events:\n");
  for (int i = 0; i < prof_opts.nevents; i++) {
    const prof_event *ev = &prof_opts.events[i];
    fprintf(out, "  %-32s samples %llu (signals %llu, lost to full buffer %llu, "
            "without Java frames %llu)\n", ev->name,
            (unsigned long long)prof_stats.stored[i], (unsigned long long)prof_stats.signals[i],
            (unsigned long long)prof_stats.lost_buffer[i], (unsigned long long)prof_stats.no_java[i]);
    unsigned long long k = prof_stats.kernel_count[i];
    if (ev->kind == EV_TRACEPOINT)
      fprintf(out, "  %-32s kernel counted %llu events (filter: %s), every %llu sampled: "
              "expected %llu samples\n", "", k, ev->filter[0] ? ev->filter : "none",
              (unsigned long long)ev->interval, k / ev->interval);
    else if (ev->kind == EV_CPU && k)
      fprintf(out, "  %-32s kernel counted %.3f s of CPU: expected about %llu samples "
              "(interval %llu ns)\n", "", k / 1e9, k / ev->interval, (unsigned long long)ev->interval);
    else if (ev->kind != EV_TRACEPOINT)
      fprintf(out, "  %-32s interval %llu ns\n", "", (unsigned long long)ev->interval);
  }
}

/* N. */
void prof_write_summary(FILE *out) {
  fprintf(out, "=== asgst-prof summary (pid %d) ===\n", (int)getpid());
  if (prof_init_error[0]) fprintf(out, "ASGST_Initialize failed: %s\n", prof_init_error);
  write_events(out);
  fprintf(out, "walk results:\n");
  for (int s = 0; s < PROF_WALK_CODES; s++)
    if (prof_stats.walk_results[s])
      fprintf(out, "  %-28s %llu\n", result_name(s - PROF_WALK_CODES / 2),
              (unsigned long long)prof_stats.walk_results[s]);
  times t = {0};
  prof_buffer_each(collect_time, &t);
  if (t.n) {
    qsort(t.ns, t.n, sizeof *t.ns, cmp_u32);
    fprintf(out, "walk time: median %.2f us, p90 %.2f us, max %.2f us over %zu walks\n",
            t.ns[t.n / 2] / 1e3, t.ns[t.n * 9 / 10] / 1e3, t.ns[t.n - 1] / 1e3, t.n);
  }
  free(t.ns);
  fprintf(out, "lost: %llu signals (real-time queue full), %llu signals of unknown events\n",
          (unsigned long long)prof_stats.lost_signals,
          (unsigned long long)prof_stats.unknown_signal);
}
