/*
 * fd_format.h - what one descriptor's record is (a traced call, an entry from creation to
 * close) and how fd_format.c puts it in words. The table (fd_table.c) and the report
 * stand on it; it needs nothing of them. All N.
 */
#ifndef ASGSTPROF_FD_FORMAT_H
#define ASGSTPROF_FD_FORMAT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/records.h"

/* One traced call: its header (event, tid, walk result, nframes, seq), its frames (the fd
 * stack store's) and what the handler read. */
typedef struct {
  const prof_record *r; /* NULL if not traced */
  const prof_frame *frames;
  const prof_fdinfo *fi;
} fd_call;

/* One descriptor (or a pipe / socketpair: two) from its creation to its close. */
typedef struct {
  fd_call create;             /* create.r NULL: created by an untraced call (bind seen) */
  fd_call bind, listen, connect;
  fd_call close[2];           /* the traced close of each end */
  int fd[2];                  /* -1 if absent */
  uint64_t ino[2];
  bool open[2];               /* still this descriptor */
  uint64_t seen_open_ns[2];   /* last time known open (creation at least) */
  uint64_t closed_ns[2];      /* exact (close traced) or the first time known closed */
  bool closed_exact[2];
} fd_entry;

/* N. The call an entry is known by: create, or the first traced use. */
static inline const fd_call *fd_entry_first(const fd_entry *e) {
  if (e->create.r) return &e->create;
  return e->bind.r ? &e->bind : e->listen.r ? &e->listen : &e->connect;
}
/* N. */
static inline bool fd_entry_is_open(const fd_entry *e) { return e->open[0] || e->open[1]; }
/* N. True for a call that failed (EINPROGRESS, a connect going on, is not a failure). */
static inline bool fd_call_failed(const fd_call *c) {
  return c->r && c->fi->ret < 0 && c->fi->ret != -EINPROGRESS;
}

/* N. "tcp listening 127.0.0.1:5000", "file /var/log/x.log", "pipe"..., and a failed bind
 * or connect: "unix stream, connect(/var/run/nscd/socket) failed: ENOENT" */
void fd_describe(const fd_entry *e, char *buf, size_t n);
/* N. The kind of a description, its addresses and path left out: "tcp listening",
 * "unix stream", "file", "pipe". */
void fd_kind(const char *what, char *buf, size_t n);
/* N. "127.0.0.1:8080", "[::1]:80", "/path" or "@abstract" for a socket address. */
void fd_format_addr(const uint8_t *sa, size_t len, char *buf, size_t n);
/* N. "connect(/var/run/nscd/socket)", with " failed: ENOENT" if it failed; what names the
 * call ("" = its syscall). */
void fd_call_words(const fd_call *c, const char *what, char *buf, size_t n);
/* N. "12:00:01.234" (local time) for a CLOCK_REALTIME ns value. */
void fd_format_time(uint64_t ns, char *buf, size_t n);
/* N. The Java frames newest first on one line, cut so that the first frame outside the
 * JDK stays visible, marked with '*'. */
void fd_oneline_stack(const fd_call *c, char *buf, size_t n);
/* N. Every frame, one per line, indented; the first frame outside the JDK marked. */
void fd_full_stack(FILE *out, const fd_call *c);

#endif /* ASGSTPROF_FD_FORMAT_H */
