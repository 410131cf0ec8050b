/*
 * results.c - merging the agent's per-run results into one result per point, and the TAP
 * output: one line per point in points.h order, then a summary.
 */
#include <stdio.h>
#include <string.h>

#include "runner.h"

#define CONF_ROW(id, text) {#id, text},
static const struct {
  const char *id, *text;
} points[] = {CONF_POINTS(CONF_ROW)};
#undef CONF_ROW

/* N. A failure in any run wins (its reason is kept, tagged with the run); else a pass in
 * any run; else a skip. */
void result_merge(conf_result *r, int status, const char *run, const char *reason) {
  if (r->status == R_FAIL) return;
  if (status == R_FAIL || (status == R_PASS && r->status != R_PASS) || r->status == R_UNSET) {
    r->status = status;
    snprintf(r->reason, sizeof r->reason, status == R_SKIP ? "%s%s" : "[%s] %s",
             status == R_SKIP ? "" : run, reason);
  }
}

/* N. The index of a point id, -1 if unknown. */
int point_index(const char *id) {
  for (int i = 0; i < CONF_NPOINTS; i++)
    if (strcmp(points[i].id, id) == 0) return i;
  return -1;
}

/* N. Prints the TAP lines and the summary; returns the number of failed points. */
int print_tap(const conf_result *results, const char *runs_note) {
  int pass = 0, fail = 0, skip = 0;
  printf("1..%d\n", CONF_NPOINTS);
  for (int i = 0; i < CONF_NPOINTS; i++) {
    const conf_result *r = &results[i];
    if (r->status == R_PASS) {
      pass++;
      printf("ok %d - %s %s\n", i + 1, points[i].id, points[i].text);
    } else if (r->status == R_SKIP) {
      skip++;
      printf("ok %d - %s %s # SKIP %s\n", i + 1, points[i].id, points[i].text, r->reason);
    } else {
      fail++;
      printf("not ok %d - %s %s\n", i + 1, points[i].id, points[i].text);
      printf("# %s: %s\n", points[i].id, r->status == R_FAIL ? r->reason : "no result from any JVM run");
    }
  }
  printf("# runs: %s\n", runs_note);
  printf("# conformance summary: %d passed, %d failed, %d skipped\n", pass, fail, skip);
  return fail;
}
