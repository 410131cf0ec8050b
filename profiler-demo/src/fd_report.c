/*
 * fd_report.c - which Java code created which file descriptor. The signal handler noted
 * the fds (and their inodes) each traced syscall produced; here every noted fd is checked
 * against the process's open files: same fd number and same inode means it is still the
 * descriptor that call created. Open ones are listed with their kind and address and the
 * creating Java stack (newest frame first); closed ones are summarised.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "prof.h"

typedef struct {
  const prof_record *r;
  const prof_frame *frames;
  const prof_fdinfo *fi;
} entry;

typedef struct {
  entry *e;
  size_t n, cap;
} entries;

/* N. */
static void collect(const prof_record *r, const prof_frame *f, const prof_fdinfo *fi, void *arg) {
  if (!fi) return;
  entries *es = arg;
  if (es->n == es->cap) {
    es->cap = es->cap ? es->cap * 2 : 256;
    es->e = realloc(es->e, es->cap * sizeof *es->e);
  }
  es->e[es->n++] = (entry){r, f, fi};
}

/* N. Newest first. */
static int by_seq_desc(const void *a, const void *b) {
  uint64_t x = ((const entry *)a)->r->seq, y = ((const entry *)b)->r->seq;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* N. True if fd is open and still the file with inode ino. */
static bool still_open(int fd, uint64_t ino) {
  struct stat st;
  return fd >= 0 && ino && fstat(fd, &st) == 0 && (uint64_t)st.st_ino == ino;
}

/* N. "127.0.0.1:8080", "[::1]:80", "/path" or "@abstract" for a socket address. */
static void format_addr(const struct sockaddr *sa, socklen_t len, char *buf, size_t n) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const void *)sa;
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    snprintf(buf, n, "%s:%d", ip, ntohs(in->sin_port));
  } else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const void *)sa;
    bool mapped = IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr); /* Java's dual-stack sockets */
    if (mapped) inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], ip, sizeof ip);
    else inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    snprintf(buf, n, mapped ? "%s:%d" : "[%s]:%d", ip, ntohs(in6->sin6_port));
  } else if (sa->sa_family == AF_UNIX) {
    const struct sockaddr_un *un = (const void *)sa;
    size_t plen = len > offsetof(struct sockaddr_un, sun_path)
                      ? len - offsetof(struct sockaddr_un, sun_path) : 0;
    if (plen == 0 || (un->sun_path[0] == 0 && plen == 1)) snprintf(buf, n, "unnamed");
    else if (un->sun_path[0] == 0) snprintf(buf, n, "@%.*s", (int)plen - 1, un->sun_path + 1);
    else snprintf(buf, n, "%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
  } else {
    snprintf(buf, n, "family %d", sa->sa_family);
  }
}

/* N. Kind and address of an open fd: "tcp listening 127.0.0.1:5000", "unix stream
 * /tmp/x.sock", a path, "pipe:[123]"... */
static void describe(int fd, char *buf, size_t n) {
  char link[256], path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t l = readlink(path, link, sizeof link - 1);
  link[l > 0 ? l : 0] = 0;
  int domain = 0, type = 0, listening = 0;
  socklen_t sl = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &sl) != 0) {
    snprintf(buf, n, "%s", link[0] ? link : "?");
    return;
  }
  sl = sizeof type;
  getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl);
  sl = sizeof listening;
  getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &sl);
  struct sockaddr_storage ss;
  socklen_t alen = sizeof ss;
  char local[160] = "", peer[160] = "";
  if (getsockname(fd, (struct sockaddr *)&ss, &alen) == 0)
    format_addr((struct sockaddr *)&ss, alen, local, sizeof local);
  alen = sizeof ss;
  if (getpeername(fd, (struct sockaddr *)&ss, &alen) == 0)
    format_addr((struct sockaddr *)&ss, alen, peer, sizeof peer);
  const char *proto = domain == AF_UNIX ? (type == SOCK_STREAM ? "unix stream" : "unix dgram")
                      : domain == AF_INET || domain == AF_INET6
                          ? (type == SOCK_STREAM ? "tcp" : type == SOCK_DGRAM ? "udp" : "ip")
                      : domain == AF_NETLINK ? "netlink" : "socket";
  snprintf(buf, n, "%s%s%s%s%s%s%s", proto, domain == AF_INET6 ? "6" : "",
           listening ? " listening" : "", local[0] ? " " : "", local, peer[0] ? " -> " : "",
           peer);
}

/* N. The bind call (newest) that bound this very socket, if traced. */
static const entry *find_bind(const entries *es, int fd, uint64_t ino) {
  for (size_t i = 0; i < es->n; i++) {
    const entry *e = &es->e[i];
    const prof_event *ev = &prof_opts.events[e->r->event];
    if (ev->fd_call == FDC_BIND && e->fi->fd[0] == fd && e->fi->ino[0] == ino) return e;
  }
  return NULL;
}

/* N. Lists one still-open creation entry (and its bind). */
static void report_open(FILE *out, const entries *es, const entry *e) {
  const prof_event *ev = &prof_opts.events[e->r->event];
  const prof_fdinfo *fi = e->fi;
  char what[256], stack[4096];
  describe(fi->fd[0], what, sizeof what);
  prof_format_stack(e->r, e->frames, stack, sizeof stack, 12);
  if (fi->fd[1] >= 0)
    fprintf(out, "fd %d,%d %s (%s) created at %s\n", fi->fd[0], fi->fd[1], ev->syscall, what,
            stack);
  else if (ev->fd_call == FDC_BIND)
    fprintf(out, "fd %d (%s) bound at %s\n", fi->fd[0], what, stack);
  else
    fprintf(out, "fd %d %s (%s) created at %s\n", fi->fd[0], ev->syscall, what, stack);
  if (ev->fd_call == FDC_BIND) return;
  const entry *b = find_bind(es, fi->fd[0], fi->ino[0]);
  if (b) {
    char addr[160];
    format_addr((const struct sockaddr *)b->fi->addr, b->fi->addrlen, addr, sizeof addr);
    prof_format_stack(b->r, b->frames, stack, sizeof stack, 12);
    fprintf(out, "    bind(%s) at %s\n", addr, stack);
  }
}

/* N. True if a creation entry for this bind's socket exists (then the bind is shown
 * under it). */
static bool has_creator(const entries *es, const entry *b) {
  for (size_t i = 0; i < es->n; i++) {
    const entry *e = &es->e[i];
    if (prof_opts.events[e->r->event].fd_call == FDC_BIND) continue;
    for (int k = 0; k < 2; k++)
      if (e->fi->fd[k] == b->fi->fd[0] && e->fi->ino[k] == b->fi->ino[0]) return true;
  }
  return false;
}

/* N. */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* N. One line per distinct (call, stack) among closed descriptors, with a count: the
 * lines are made once, sorted, and equal neighbours counted. */
static void report_closed(FILE *out, const entries *es, const bool *open) {
  char **lines = calloc(es->n + 1, sizeof *lines);
  size_t n = 0;
  char stack[2048], line[2200];
  for (size_t i = 0; i < es->n; i++) {
    if (open[i]) continue;
    prof_format_stack(es->e[i].r, es->e[i].frames, stack, sizeof stack, 4);
    snprintf(line, sizeof line, "%s at %s", prof_opts.events[es->e[i].r->event].syscall, stack);
    lines[n++] = strdup(line);
  }
  qsort(lines, n, sizeof *lines, cmp_str);
  size_t sites = 0;
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i; j < n && strcmp(lines[i], lines[j]) == 0; j++) {}
    if (sites++ < 20) fprintf(out, "  %zu x %s\n", j - i, lines[i]);
  }
  if (sites > 20) fprintf(out, "  ... and %zu more call sites\n", sites - 20);
  for (size_t i = 0; i < n; i++) free(lines[i]);
  free(lines);
}

/* N. */
void prof_write_fd_report(FILE *out) {
  entries es = {0};
  prof_buffer_each(collect, &es);
  qsort(es.e, es.n, sizeof *es.e, by_seq_desc);
  bool *open = calloc(es.n + 1, sizeof *open);
  size_t nopen = 0;
  for (size_t i = 0; i < es.n; i++) {
    const prof_fdinfo *fi = es.e[i].fi;
    open[i] = still_open(fi->fd[0], fi->ino[0]) || still_open(fi->fd[1], fi->ino[1]);
    /* An older entry for the same open file (a second bind) is not listed twice. */
    bool bind = prof_opts.events[es.e[i].r->event].fd_call == FDC_BIND;
    for (size_t j = 0; bind && j < i && open[i]; j++)
      if (open[j] && es.e[j].fi->fd[0] == fi->fd[0] && es.e[j].fi->ino[0] == fi->ino[0] &&
          prof_opts.events[es.e[j].r->event].fd_call == prof_opts.events[es.e[i].r->event].fd_call)
        open[i] = false;
    nopen += open[i];
  }
  fprintf(out, "=== file descriptors created by traced calls (pid %d): %zu calls, %zu still "
          "open ===\n", (int)getpid(), es.n, nopen);
  for (size_t i = 0; i < es.n; i++) {
    const entry *e = &es.e[i];
    if (!open[i]) continue;
    if (prof_opts.events[e->r->event].fd_call == FDC_BIND && has_creator(&es, e)) continue;
    report_open(out, &es, e);
  }
  if (nopen < es.n) {
    fprintf(out, "closed since (%zu calls):\n", es.n - nopen);
    report_closed(out, &es, open);
  }
  free(open);
  free(es.e);
}
