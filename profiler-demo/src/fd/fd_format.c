/*
 * fd_format.c - words for the fd report: what a descriptor is ("tcp listening
 * 127.0.0.1:5000"), addresses, times, and stacks (full, or one line cut around the first
 * frame outside the JDK, the one a user looks for).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "core/state.h"
#include "fd/fd_format.h"
#include "symbols/symbols.h"

/* N. True for a real IPv6 address: not AF_INET, not v4-mapped (Java's dual-stack sockets
 * bind and connect IPv4 peers as ::ffff:a.b.c.d). */
static bool is_v6(const uint8_t *sa, size_t len) {
  const struct sockaddr_in6 *in6 = (const void *)sa;
  return len >= sizeof *in6 && in6->sin6_family == AF_INET6 &&
         !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
}

/* N. */
void fd_format_addr(const uint8_t *p, size_t len, char *buf, size_t n) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  memcpy(&ss, p, len < sizeof ss ? len : sizeof ss);
  const struct sockaddr *sa = (const void *)&ss;
  char ip[INET6_ADDRSTRLEN] = "?";
  if (len < sizeof sa->sa_family) {
    snprintf(buf, n, "?");
  } else if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const void *)sa;
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    snprintf(buf, n, "%s:%d", ip, ntohs(in->sin_port));
  } else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const void *)sa;
    bool mapped = IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
    if (mapped) inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], ip, sizeof ip);
    else inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    snprintf(buf, n, mapped ? "%s:%d" : "[%s]:%d", ip, ntohs(in6->sin6_port));
  } else if (sa->sa_family == AF_UNIX) {
    const struct sockaddr_un *un = (const void *)sa;
    size_t off = offsetof(struct sockaddr_un, sun_path);
    size_t plen = len > off ? len - off : 0;
    if (plen > sizeof un->sun_path) plen = sizeof un->sun_path;
    if (plen == 0 || (un->sun_path[0] == 0 && plen == 1)) snprintf(buf, n, "unnamed");
    else if (un->sun_path[0] == 0) snprintf(buf, n, "@%.*s", (int)plen - 1, un->sun_path + 1);
    else snprintf(buf, n, "%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
  } else {
    snprintf(buf, n, "family %d", sa->sa_family);
  }
}

/* N. The symbol of an errno a bind or connect gives ("errno 99" for one not listed). */
static void errno_name(int e, char *buf, size_t n) {
  static const struct {
    int e;
    const char *name;
  } names[] = {{ENOENT, "ENOENT"}, {ECONNREFUSED, "ECONNREFUSED"}, {EACCES, "EACCES"},
               {EPERM, "EPERM"}, {EADDRINUSE, "EADDRINUSE"}, {EADDRNOTAVAIL, "EADDRNOTAVAIL"},
               {ENETUNREACH, "ENETUNREACH"}, {EHOSTUNREACH, "EHOSTUNREACH"},
               {ETIMEDOUT, "ETIMEDOUT"}, {EAGAIN, "EAGAIN"}, {EINTR, "EINTR"},
               {ECONNRESET, "ECONNRESET"}, {EAFNOSUPPORT, "EAFNOSUPPORT"}, {EINVAL, "EINVAL"},
               {EPROTOTYPE, "EPROTOTYPE"}, {ENOTDIR, "ENOTDIR"}, {ELOOP, "ELOOP"},
               {ENAMETOOLONG, "ENAMETOOLONG"}, {ENETDOWN, "ENETDOWN"}, {0, NULL}};
  for (int i = 0; names[i].name; i++)
    if (names[i].e == e) {
      snprintf(buf, n, "%s", names[i].name);
      return;
    }
  snprintf(buf, n, "errno %d", e);
}

/* N. */
void fd_call_words(const fd_call *c, const char *what, char *buf, size_t n) {
  char arg[PROF_ADDR_MAX + 8] = "", why[48] = "";
  enum prof_fd_call call = prof.opts.events[c->r->event].fd_call;
  if (call == FDC_BIND || call == FDC_CONNECT || (call == FDC_ACCEPT && c->fi->addrlen))
    fd_format_addr(c->fi->addr, c->fi->addrlen, arg, sizeof arg);
  else if (call == FDC_PATH_ARG0 || call == FDC_PATH_ARG1)
    snprintf(arg, sizeof arg, "%s", (const char *)c->fi->addr);
  if (fd_call_failed(c)) {
    memcpy(why, " failed: ", 10);
    errno_name((int)-c->fi->ret, why + 9, sizeof why - 9);
  }
  snprintf(buf, n, "%s(%s)%s", what[0] ? what : prof.opts.events[c->r->event].syscall, arg, why);
}

/* N. */
void fd_format_time(uint64_t ns, char *buf, size_t n) {
  time_t s = (time_t)(ns / 1000000000u);
  struct tm tm;
  localtime_r(&s, &tm);
  char hms[32];
  strftime(hms, sizeof hms, "%H:%M:%S", &tm);
  snprintf(buf, n, "%s.%03u", hms, (unsigned)(ns / 1000000u % 1000u));
}

/* N. "tcp", "tcp6", "udp", "unix stream"... */
static const char *proto(int domain, int type, bool v6) {
  type &= 0xf; /* SOCK_NONBLOCK / SOCK_CLOEXEC are or-ed into socket()'s type */
  if (domain == AF_UNIX) return type == SOCK_STREAM ? "unix stream" : "unix dgram";
  if (domain == AF_INET || domain == AF_INET6)
    return type == SOCK_STREAM ? (v6 ? "tcp6" : "tcp") : type == SOCK_DGRAM ? (v6 ? "udp6" : "udp")
                                                                              : "ip";
  return domain == AF_NETLINK ? "netlink" : "socket";
}

/* Addresses of a socket, from the process now or from the traced calls. */
typedef struct {
  int domain, type;
  bool listening, v6;
  char local[160], peer[160];
} sock_view;

/* N. The socket's state now; false if fd is not a socket. */
static bool live_socket(int fd, sock_view *v) {
  socklen_t sl = sizeof v->domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v->domain, &sl) != 0) return false;
  int listening = 0;
  sl = sizeof v->type;
  getsockopt(fd, SOL_SOCKET, SO_TYPE, &v->type, &sl);
  sl = sizeof listening;
  getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &sl);
  v->listening = listening;
  struct sockaddr_storage ss;
  socklen_t alen = sizeof ss;
  bool v6l = false, v6p = false;
  if (getsockname(fd, (struct sockaddr *)&ss, &alen) == 0 && alen > sizeof(sa_family_t)) {
    fd_format_addr((const uint8_t *)&ss, alen, v->local, sizeof v->local);
    v6l = is_v6((const uint8_t *)&ss, alen);
  }
  alen = sizeof ss;
  if (getpeername(fd, (struct sockaddr *)&ss, &alen) == 0) {
    fd_format_addr((const uint8_t *)&ss, alen, v->peer, sizeof v->peer);
    v6p = is_v6((const uint8_t *)&ss, alen);
  }
  v->v6 = v->domain == AF_INET6 && (v6l || v6p || !v->local[0]);
  return true;
}

/* N. The socket as the traced calls saw it. */
static void traced_socket(const fd_entry *e, sock_view *v) {
  const fd_call *c = &e->create;
  enum prof_fd_call call = c->r ? prof.opts.events[c->r->event].fd_call : FDC_NONE;
  /* A failed bind or connect still tells the family; its addresses were never the
   * socket's (the headline names the failure). */
  bool bound = e->bind.r && !fd_call_failed(&e->bind);
  bool connected = e->connect.r && !fd_call_failed(&e->connect);
  const fd_call *addr = e->bind.r ? &e->bind : e->connect.r ? &e->connect
                        : call == FDC_ACCEPT ? c : NULL;
  if (call == FDC_SOCKET) v->domain = (int)c->fi->args[0], v->type = (int)c->fi->args[1];
  else v->type = SOCK_STREAM;
  if (addr && addr->fi->addrlen >= sizeof(sa_family_t)) {
    if (call != FDC_SOCKET) v->domain = ((const struct sockaddr *)(const void *)addr->fi->addr)->sa_family;
    v->v6 = is_v6(addr->fi->addr, addr->fi->addrlen);
  } else {
    v->v6 = v->domain == AF_INET6;
  }
  v->listening = e->listen.r != NULL;
  /* The local address as the kernel reported it after the call (port 0 resolved). */
  const fd_call *own = bound && e->bind.fi->locallen ? &e->bind
                       : connected && e->connect.fi->locallen ? &e->connect
                       : call == FDC_ACCEPT ? c : NULL;
  if (own && own->fi->locallen)
    fd_format_addr(own->fi->local, own->fi->locallen, v->local, sizeof v->local);
  else if (bound)
    fd_format_addr(e->bind.fi->addr, e->bind.fi->addrlen, v->local, sizeof v->local);
  if (connected)
    fd_format_addr(e->connect.fi->addr, e->connect.fi->addrlen, v->peer, sizeof v->peer);
  if (call == FDC_ACCEPT) fd_format_addr(c->fi->addr, c->fi->addrlen, v->peer, sizeof v->peer);
}

/* N. Writes a socket's words. */
static void socket_words(const sock_view *v, const char *extra, char *buf, size_t n) {
  snprintf(buf, n, "%s%s%s%s%s%s%s", proto(v->domain, v->type, v->v6),
           v->listening ? " listening" : "", v->local[0] ? " " : "", v->local,
           v->peer[0] ? " -> " : "", v->peer, extra);
}

/* N. Appends the entry's failed bind and connect: what the fd was meant for. */
static void failure_words(const fd_entry *e, char *buf, size_t n) {
  const fd_call *tried[] = {&e->bind, &e->connect};
  for (int i = 0; i < 2; i++) {
    if (!fd_call_failed(tried[i])) continue;
    char words[PROF_ADDR_MAX + 64];
    size_t l = strlen(buf);
    fd_call_words(tried[i], i ? "connect" : "bind", words, sizeof words);
    snprintf(buf + l, n - l, ", %s", words);
  }
}

/* N. */
void fd_describe(const fd_entry *e, char *buf, size_t n) {
  const fd_call *c = fd_entry_first(e);
  enum prof_fd_call call = e->create.r ? prof.opts.events[c->r->event].fd_call : FDC_NONE;
  const char *sys = prof.opts.events[c->r->event].syscall;
  char extra[96] = "";
  if (call == FDC_ACCEPT)
    snprintf(extra, sizeof extra, " (accepted on fd %d)", (int)c->fi->args[0]);
  sock_view v;
  memset(&v, 0, sizeof v);
  int live_fd = e->open[0] ? e->fd[0] : e->open[1] ? e->fd[1] : -1;
  if (live_fd >= 0 && live_socket(live_fd, &v)) {
    socket_words(&v, extra, buf, n);
    if (call == FDC_PAIR_ARG3) snprintf(buf, n, "socketpair (%s)", proto(v.domain, v.type, 0));
  } else if (call == FDC_PATH_ARG0 || call == FDC_PATH_ARG1) {
    char link[512] = "", path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", live_fd);
    ssize_t l = live_fd >= 0 ? readlink(path, link, sizeof link - 1) : -1;
    link[l > 0 ? l : 0] = 0;
    snprintf(buf, n, "file %s", link[0] ? link : (const char *)c->fi->addr);
  } else if (call == FDC_SOCKET || call == FDC_ACCEPT || call == FDC_NONE) {
    traced_socket(e, &v);
    socket_words(&v, extra, buf, n);
  } else if (call == FDC_PAIR_ARG0) {
    snprintf(buf, n, "pipe (read end %d, write end %d)", e->fd[0], e->fd[1]);
  } else if (call == FDC_PAIR_ARG3) {
    snprintf(buf, n, "socketpair");
  } else {
    /* eventfd2 -> eventfd, epoll_create1 -> epoll, inotify_init1 -> inotify */
    size_t l = strcspn(sys, "_12");
    snprintf(buf, n, "%.*s", (int)l, sys);
  }
  failure_words(e, buf, n);
}

/* N. */
void fd_kind(const char *what, char *buf, size_t n) {
  /* Up to the first address, path or parenthesis ("tcp6" keeps its 6); a file's path,
   * relative or not, is all left out. */
  if (strncmp(what, "file ", 5) == 0) {
    snprintf(buf, n, "file");
    return;
  }
  size_t l = 0;
  while (what[l] && !strchr("/@[(,", what[l]) &&
         !(what[l] >= '0' && what[l] <= '9' && (l == 0 || what[l - 1] == ' ')))
    l++;
  while (l > 0 && (what[l - 1] == ' ' || what[l - 1] == '>' || what[l - 1] == '-')) l--;
  snprintf(buf, n, "%.*s", (int)l, what);
}

/* ---- Stacks ---- */

/* N. True for a frame of the JDK's own packages. */
static bool is_jdk(const char *name) {
  static const char *const pre[] = {"java.", "javax.", "jdk.", "sun.", "com.sun.", NULL};
  for (int i = 0; pre[i]; i++)
    if (strncmp(name, pre[i], strlen(pre[i])) == 0) return true;
  return false;
}

/* N. Names of the Java frames, newest first (C frames left out); returns the count. */
static int java_names(const fd_call *c, const char **names, int max) {
  int n = 0;
  for (int i = 0; i < c->r->nframes && n < max; i++)
    if (prof_frame_is_java(&c->frames[i]))
      names[n++] = prof_sym_name(prof_sym_frame(&c->frames[i]));
  return n;
}

/* N. Appends text to buf (cut at its end). */
static void put(char *buf, size_t n, size_t *l, const char *a, const char *b) {
  int w = snprintf(buf + *l, n - *l, "%s%s", a, b);
  if (w > 0) *l = *l + (size_t)w >= n ? n - 1 : *l + (size_t)w;
}

/* N. */
void fd_oneline_stack(const fd_call *c, char *buf, size_t n) {
  const char *names[PROF_MAX_FRAMES];
  int k = java_names(c, names, PROF_MAX_FRAMES), app = -1;
  size_t l = 0;
  buf[0] = 0;
  for (int i = 0; i < k && app < 0; i++)
    if (!is_jdk(names[i])) app = i;
  if (k == 0) {
    snprintf(buf, n, "[no Java frames: %s]", c->r->walk_result <= 0
                                                 ? ASGST_ErrorName(c->r->walk_result) : "only C frames");
    return;
  }
  /* Two frames of the call itself, then (after a gap) the first application frame and
   * its caller; without an application frame, the first six. */
  int head = app < 0 ? 6 : app <= 3 ? app : 2, shown = 0;
  for (int i = 0; i < k && i < head; i++, shown++) put(buf, n, &l, i ? " <- " : "", names[i]);
  if (app >= 0) {
    if (app > head) {
      char gap[32];
      snprintf(gap, sizeof gap, " <- ...%d...", app - head);
      put(buf, n, &l, gap, "");
    }
    put(buf, n, &l, shown ? " <- *" : "*", names[app]);
    if (app + 1 < k) put(buf, n, &l, " <- ", names[app + 1]);
    shown = app + 2;
  }
  if (shown < k) put(buf, n, &l, " <- ...", "");
}

/* N. */
void fd_full_stack(FILE *out, const fd_call *c) {
  bool marked = false;
  for (int i = 0; i < c->r->nframes; i++) {
    int id = prof_sym_frame(&c->frames[i]);
    const char *name = prof_sym_name(id);
    bool java = prof_frame_is_java(&c->frames[i]);
    bool mark = java && !marked && !is_jdk(name);
    marked |= mark;
    bool kernel = c->frames[i].type == PROF_FRAME_KERNEL;
    fprintf(out, "      %s %s%s\n", mark ? "*" : " ", name, java || kernel ? "" : " (C)");
  }
  if (c->r->nframes == 0)
    fprintf(out, "        [no frames: %s]\n", ASGST_ErrorName(c->r->walk_result));
}
