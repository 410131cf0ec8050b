/*
 * fd_report.c - which Java code created which file descriptor: every descriptor of the
 * traced fd calls (fd_table.c), open ones first by number, then closed ones newest first,
 * each with its kind and addresses or path, a one-line stack, and every traced call on it
 * (create, bind, listen, connect, close; a failed one with its errno) with its time,
 * thread and full stack.
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

#define FULL_CLOSED 100 /* closed entries shown in full; older ones are only counted */

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
static void write_entry(FILE *out, const fd_table *t, const fd_entry *e) {
  char fds[96], what[400], when[32], state[128] = "open", line[2048];
  fd_numbers(e, fds, sizeof fds);
  fd_describe(t, e, what, sizeof what);
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
static bool matches(const fd_table *t, const fd_entry *e, const char *match) {
  if (!match || !match[0]) return true;
  char what[400];
  fd_describe(t, e, what, sizeof what);
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

/* Sort orders. */
static const fd_table *sort_table;
/* N. Open ones by fd number, then closed ones newest close first. */
static int by_state(const void *a, const void *b) {
  const fd_entry *x = &sort_table->e[*(const size_t *)a], *y = &sort_table->e[*(const size_t *)b];
  bool ox = fd_entry_is_open(x), oy = fd_entry_is_open(y);
  if (ox != oy) return ox ? -1 : 1;
  if (ox) return x->fd[0] - y->fd[0];
  uint64_t cx = x->closed_ns[0] > x->closed_ns[1] ? x->closed_ns[0] : x->closed_ns[1];
  uint64_t cy = y->closed_ns[0] > y->closed_ns[1] ? y->closed_ns[0] : y->closed_ns[1];
  return cx < cy ? 1 : cx > cy ? -1 : 0;
}

/* N. */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* N. The closed entries beyond those shown in full: one line per distinct (call, stack)
 * with a count (lines made once, sorted, equal neighbours counted). */
static void write_rest(FILE *out, const fd_table *t, const size_t *idx, size_t n) {
  if (n == 0) return;
  char **lines = calloc(n, sizeof *lines), stack[2048], line[2200];
  for (size_t i = 0; i < n; i++) {
    const fd_call *c = fd_entry_first(&t->e[idx[i]]);
    fd_oneline_stack(c, stack, sizeof stack);
    snprintf(line, sizeof line, "%s at %s", prof.opts.events[c->r->event].syscall, stack);
    lines[i] = strdup(line);
  }
  qsort(lines, n, sizeof *lines, cmp_str);
  fprintf(out, "older closed descriptors (%zu), by call and stack:\n", n);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i; j < n && strcmp(lines[i], lines[j]) == 0; j++) {}
    fprintf(out, "  %zu x %s\n", j - i, lines[i]);
  }
  for (size_t i = 0; i < n; i++) free(lines[i]);
  free(lines);
}

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. Serialised: the table's memory of sightings and the symbol table are shared by the
 * interval thread, asgst-attach requests and the final dump. */
void prof_write_fd_report(FILE *out, const char *match) {
  pthread_mutex_lock(&report_lock);
  fd_table t;
  fd_table_build(&t);
  size_t *idx = calloc(t.n + 1, sizeof *idx), m = 0, nopen = 0;
  for (size_t i = 0; i < t.n; i++)
    if (matches(&t, &t.e[i], match)) idx[m++] = i, nopen += fd_entry_is_open(&t.e[i]);
  sort_table = &t;
  qsort(idx, m, sizeof *idx, by_state);
  char now[32];
  fd_format_time(t.now_ns, now, sizeof now);
  fprintf(out, "=== file descriptors of traced calls (pid %d, %s)%s%s: %zu, %zu open ===\n"
          "(* marks the first frame outside the JDK: not java., javax., jdk., sun., com.sun.)\n",
          (int)getpid(), now, match && match[0] ? " matching " : "", match ? match : "", m, nopen);
  for (size_t i = 0; i < m && i < nopen + FULL_CLOSED; i++) {
    if (i == nopen) fprintf(out, "--- closed (%zu, newest first) ---\n", m - nopen);
    write_entry(out, &t, &t.e[idx[i]]);
  }
  if (m > nopen + FULL_CLOSED) write_rest(out, &t, idx + nopen + FULL_CLOSED, m - nopen - FULL_CLOSED);
  if (t.n == 0)
    fprintf(out, "no fd calls traced: trace them with event=fds (or event=syscalls:sys_enter_"
            "socket and friends)\n");
  free(idx);
  fd_table_free(&t);
  pthread_mutex_unlock(&report_lock);
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
