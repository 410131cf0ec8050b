/*
 * fd_report.c - which Java code created which file descriptor, from the live fd table
 * (fd_table.c): every open descriptor, by number, then the newest closed ones, each with
 * its kind and addresses or path, a one-line stack, and every traced call on it (create,
 * bind, listen, connect, close; a failed one with its errno) with its time, thread and
 * full stack; then every closed one counted by creating call, stack and kind.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/say.h"
#include "core/thread_names.h"
#include "fd/fd_table.h"

/* N. The entry's fds: "12" or "5,6", and which end of an open pair is closed already. */
static void fd_numbers(const fd_entry *e, char *buf, size_t n) {
  if (e->fd[1] < 0) {
    snprintf(buf, n, "%d", e->fd[0]);
    return;
  }
  int k = !e->open[0] && e->open[1] ? 0 : e->open[0] && !e->open[1] ? 1 : -1;
  char when[32] = "";
  if (k >= 0) fd_format_time(e->closed_ns[k], when, sizeof when);
  if (k >= 0)
    snprintf(buf, n, "%d,%d (%d closed %s %s)", e->fd[0], e->fd[1], e->fd[k],
             e->closed_exact[k] ? "at" : "by", when);
  else
    snprintf(buf, n, "%d,%d", e->fd[0], e->fd[1]);
}

/* N. When the entry was closed: exactly, or the window the sightings leave. */
static void closed_words(const fd_entry *e, char *buf, size_t n) {
  int k = e->fd[1] >= 0 && e->closed_ns[1] > e->closed_ns[0] ? 1 : 0;
  char a[32], b[32];
  fd_format_time(e->closed_ns[k], b, sizeof b);
  if (e->closed_exact[k]) {
    snprintf(buf, n, "closed at %s", b);
    return;
  }
  fd_format_time(e->seen_open_ns[k], a, sizeof a);
  snprintf(buf, n, "closed between %s and %s (close not traced)", a, b);
}

/* N. One traced call: name, argument, time, thread, then its full stack. */
static void write_call(FILE *out, const char *what, const fd_call *c) {
  if (!c->r) return;
  char when[32], thread[64], words[PROF_ADDR_MAX + 64];
  fd_format_time(c->fi->time_ns, when, sizeof when);
  prof_thread_name(c->r->tid, thread, sizeof thread);
  fd_call_words(c, what, words, sizeof words);
  bool going = c->fi->ret == -EINPROGRESS; /* only a connect is kept with it */
  fprintf(out, "    %s %s in \"%s\"%s:\n", words, when, thread, going ? " (in progress)" : "");
  fd_full_stack(out, c);
}

/* N. One entry: a headline, the one-line stack, then every call in full. */
static void write_entry(FILE *out, const fd_entry *e) {
  char fds[96], what[400], when[32], state[128] = "open", line[2048];
  fd_numbers(e, fds, sizeof fds);
  fd_describe(e, what, sizeof what);
  const fd_call *first = fd_entry_first(e);
  fd_format_time(first->fi->time_ns, when, sizeof when);
  if (!fd_entry_is_open(e)) closed_words(e, state, sizeof state);
  fprintf(out, "fd %s %s: %s, %s %s\n", fds, state, what,
          e->create.r ? "created" : "first seen (created by an untraced call)", when);
  fd_oneline_stack(first, line, sizeof line);
  fprintf(out, "  at %s\n", line);
  write_call(out, "", &e->create);
  write_call(out, "bind", &e->bind);
  write_call(out, "listen", &e->listen);
  write_call(out, "connect", &e->connect);
  write_call(out, "close", &e->close[0]);
  write_call(out, "close", &e->close[1]);
}

/* N. True if match names the entry: its fd number, a port of it (":N"), or a part of its
 * description (address, path, kind). */
static bool matches(const fd_entry *e, const char *match) {
  if (!match || !match[0]) return true;
  char what[400];
  fd_describe(e, what, sizeof what);
  bool number = true;
  for (const char *p = match; *p; p++) number &= isdigit((unsigned char)*p) != 0;
  if (!number) return strstr(what, match) != NULL;
  int n = atoi(match);
  if (e->fd[0] == n || e->fd[1] == n) return true;
  size_t ml = strlen(match);
  for (const char *p = what; (p = strchr(p, ':')) != NULL; p++)
    if (strncmp(p + 1, match, ml) == 0 && !isdigit((unsigned char)p[1 + ml])) return true;
  return false;
}

/* N. True if match names a history: its last fd number, or a part of its kind or last
 * description (a port, an address, a path). */
static bool history_matches(const fd_history *h, const char *match) {
  if (!match || !match[0]) return true;
  char fd[16];
  snprintf(fd, sizeof fd, "%d", h->last_fd);
  return strcmp(fd, match) == 0 || strstr(h->last_what, match) || strstr(h->kind, match);
}

/* N. One history: how many, what, the last one, the creating stack on one line. */
static void write_history(FILE *out, const fd_history *h) {
  char when[32], line[2048];
  fd_format_time(h->last_closed_ns, when, sizeof when);
  fd_oneline_stack(&h->first, line, sizeof line);
  fprintf(out, "%llu x %s() %s created and closed (%llu with close traced); last fd %d "
          "closed %s: %s\n  at %s\n", (unsigned long long)h->count,
          prof.opts.events[h->event].syscall, h->kind, (unsigned long long)h->exact,
          h->last_fd, when, h->last_what, line);
}

/* N. Serialised by the table's lock: the interval thread, asgst-attach requests and the
 * final dump share the table and the symbol table. */
void prof_write_fd_report(FILE *out, const char *match) {
  fd_view v;
  fd_view_take(&v);
  size_t nopen = 0, nrecent = 0;
  for (size_t i = 0; i < v.nopen; i++)
    if (matches(v.open[i], match)) v.open[nopen++] = v.open[i];
  for (size_t i = 0; i < v.nrecent; i++)
    if (matches(v.recent[i], match)) v.recent[nrecent++] = v.recent[i];
  char now[32];
  fd_format_time(v.now_ns, now, sizeof now);
  bool some = match && match[0];
  fprintf(out, "=== file descriptors of traced calls (pid %d, %s)%s%s: %zu open, %llu closed "
          "===\n(* marks the first frame outside the JDK: not java., javax., jdk., sun., "
          "com.sun.)\n", (int)getpid(), now, some ? " matching " : "", some ? match : "",
          nopen, (unsigned long long)v.closed);
  for (size_t i = 0; i < nopen; i++) write_entry(out, v.open[i]);
  if (nrecent) fprintf(out, "--- closed (the newest %zu, newest first) ---\n", nrecent);
  for (size_t i = 0; i < nrecent; i++) write_entry(out, v.recent[i]);
  size_t shown = 0;
  for (size_t i = 0; i < v.nhist; i++) shown += history_matches(v.hist[i], match);
  if (shown || v.other)
    fprintf(out, "--- closed, counted by creating call, stack and kind (%llu closed, %zu "
            "histories of at most %d) ---\n", (unsigned long long)v.closed, v.nhist,
            FD_HISTORIES);
  for (size_t i = 0; i < v.nhist; i++)
    if (history_matches(v.hist[i], match)) write_history(out, v.hist[i]);
  if (v.other)
    fprintf(out, "%llu x other: closed beyond the %d histories\n", (unsigned long long)v.other,
            FD_HISTORIES);
  if (v.calls == 0)
    fprintf(out, "no fd calls traced: trace them with event=fds (or event=syscalls:sys_enter_"
            "socket and friends)\n");
  fd_view_release(&v);
}

/* N. Written next to path and renamed over it, so a reader never sees half a report. */
int prof_fd_write_file(const char *path, char *err, size_t errlen) {
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return prof_fail(err, errlen, "fds=%s: %s", path, strerror(errno));
  prof_write_fd_report(f, "");
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return prof_fail(err, errlen, "fds=%s: %s", path, strerror(e));
  }
  return 0;
}
