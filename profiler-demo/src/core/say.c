/*
 * say.c - messages for the user (stderr, and the reply file of asgst-attach) and error
 * strings. On the bottom floor so that every room may report without calling up.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/say.h"

static char reply_path[512];

/* N. */
void prof_set_reply(const char *path) {
  snprintf(reply_path, sizeof reply_path, "%s", path ? path : "");
}

/* N. */
void prof_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (!reply_path[0]) return;
  FILE *f = fopen(reply_path, "a");
  if (!f) return;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fclose(f);
}

/* N. */
void prof_reply_failed(void) {
  if (!reply_path[0]) return;
  char path[sizeof reply_path + 8];
  snprintf(path, sizeof path, "%s.failed", reply_path);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

/* N. */
int prof_fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}
