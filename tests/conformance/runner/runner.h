/*
 * runner.h - the conformance runner's pieces: options, one JVM run, the merged results.
 */
#ifndef ASGST_CONF_RUNNER_H
#define ASGST_CONF_RUNNER_H

#include "../points.h"

typedef struct {
  const char *impl, *java_home, *agent, *work, *java_src, *runs;
  int timeout_s;
} conf_options;

enum { R_UNSET, R_PASS, R_FAIL, R_SKIP };

/* The merged result of one point over every run. */
typedef struct {
  int status;
  char reason[240];
} conf_result;

/* run_jvm.c (N) */
int compile_workload(const conf_options *o);
int run_jvm(const conf_options *o, const char *label, conf_result *results, char *note, int cap);

/* results.c (N) */
void result_merge(conf_result *r, int status, const char *run, const char *reason);
int point_index(const char *id);
int print_tap(const conf_result *results, const char *runs_note);

#endif
