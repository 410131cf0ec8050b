/*
 * report.c - per-point results inside the JVM. A point fails on its first failure (the
 * reason is kept), passes if something passed it and nothing failed it. The results go to
 * stdout as "POINT <id> pass|fail|skip <reason>" lines, which the runner turns into TAP.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf_agent.h"

enum { UNSET, PASS, FAIL, SKIP };

#define CONF_POINT_NAME(id, text) #id,
static const char *const ids[] = {CONF_POINTS(CONF_POINT_NAME)};
#undef CONF_POINT_NAME

static int status[CONF_NPOINTS];
static char reason[CONF_NPOINTS][200];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* N. */
void point_pass(int id) {
  pthread_mutex_lock(&lock);
  if (status[id] == UNSET || status[id] == SKIP) status[id] = PASS;
  pthread_mutex_unlock(&lock);
}

/* N. */
void point_fail(int id, const char *fmt, ...) {
  pthread_mutex_lock(&lock);
  if (status[id] != FAIL) {
    status[id] = FAIL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason[id], sizeof reason[id], fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
void point_skip(int id, const char *why) {
  pthread_mutex_lock(&lock);
  if (status[id] == UNSET) {
    status[id] = SKIP;
    snprintf(reason[id], sizeof reason[id], "%s", why);
  }
  pthread_mutex_unlock(&lock);
}

/* N. Fails point id when the implementation lacks function `name`; true if present. */
bool point_need(int id, const void *fn, const char *name) {
  if (!fn) point_fail(id, "ASGST_%s is missing", name);
  return fn != NULL;
}

/* N. I13: trace kinds are 1 or 2 (or > 2, implementation specific), errors 0..-7 or below
 * -16 (the contract reserves -8..-16). */
void point_check_code(int code, const char *where) {
  if (code >= -7 || code < -16)
    point_pass(CONF_I13);
  else
    point_fail(CONF_I13, "%s returned %d, in the reserved range -8..-16", where, code);
}

/* N. */
void points_print(void) {
  static const char *const words[] = {"", "pass", "fail", "skip"};
  pthread_mutex_lock(&lock);
  for (int i = 0; i < CONF_NPOINTS; i++)
    if (status[i] != UNSET) printf("POINT %s %s %s\n", ids[i], words[status[i]], reason[i]);
  memset(status, 0, sizeof status);
  pthread_mutex_unlock(&lock);
  fflush(stdout);
}
