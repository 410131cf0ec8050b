/*
 * period_names.c - the file names of a profile: file= patterns with %t (the period's
 * start, UTC yyyymmddThhmmssZ), %n (the period's number, from 0), %p (the pid) and %%.
 * With loop=, a name without any % gets "-%t" before its ending ("prof.pb.gz" ->
 * "prof-20260101T120000Z.pb.gz"), so periods never overwrite each other. Files are
 * written to a hidden temporary name in the same directory and renamed when complete, so
 * whoever picks them up never reads half a file.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control/control.h"
#include "output/writer.h"

/* N. Appends the expansion of one %c to buf (at *l). */
static void expand(char c, const prof_period *p, char *buf, size_t len, size_t *l) {
  char piece[32] = "";
  if (c == 't') {
    time_t t = (time_t)(p->start_ns / 1000000000u);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(piece, sizeof piece, "%Y%m%dT%H%M%SZ", &tm);
  } else if (c == 'n') {
    snprintf(piece, sizeof piece, "%llu", (unsigned long long)p->n);
  } else if (c == 'p') {
    snprintf(piece, sizeof piece, "%d", (int)getpid());
  } else {
    snprintf(piece, sizeof piece, "%%%c", c); /* %% gives "%", anything else stays */
    if (c == '%') piece[1] = 0;
  }
  int n = snprintf(buf + *l, len - *l, "%s", piece);
  if (n > 0) *l = *l + (size_t)n < len ? *l + (size_t)n : len - 1;
}

/* N. */
void prof_period_name(const char *pattern, bool looping, const prof_period *p, char *buf,
                      size_t len) {
  char with_time[600];
  if (looping && !strchr(pattern, '%')) {
    /* The ending is the writer's (".pb.gz" has two dots); the time goes before it. */
    const prof_writer *w = prof_writer_for(pattern);
    size_t el = w ? strlen(w->ext) : 0, pl = strlen(pattern);
    snprintf(with_time, sizeof with_time, "%.*s-%%t%s", (int)(pl - el), pattern, pattern + pl - el);
    pattern = with_time;
  }
  size_t l = 0;
  buf[0] = 0;
  for (const char *s = pattern; *s && l + 1 < len; s++) {
    if (*s == '%' && s[1]) expand(*++s, p, buf, len, &l);
    else buf[l++] = *s, buf[l] = 0;
  }
}

/* N. */
void prof_temp_name(const char *path, char *buf, size_t len) {
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  snprintf(buf, len, "%.*s.%s.tmp", dirlen, path, path + dirlen);
}
