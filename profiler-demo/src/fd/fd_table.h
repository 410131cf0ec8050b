/*
 * fd_table.h - the live fd table of fd_table.c, shared by the fd report's writers
 * (fd_report.c, fd_format.c, fd_live.c). All N: ordinary code, never in a signal handler.
 */
#ifndef ASGSTPROF_FD_TABLE_H
#define ASGSTPROF_FD_TABLE_H

#include "core/state.h"
#include "fd/fd.h"

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

/* The closed descriptors of one creating call and stack, counted. */
typedef struct {
  uint16_t event;             /* the first call's (create, else bind/listen/connect) */
  uint32_t stack;             /* its id in the fd stack store */
  char kind[24];              /* "tcp", "file", "pipe"... (fd_kind) */
  uint64_t count;             /* created (or first seen) and closed */
  uint64_t exact;             /* of those, with their close traced */
  int last_fd;
  uint64_t last_closed_ns;
  char last_what[160];        /* the last one's description (address, path) */
  fd_call first;              /* the last one's first call, for its stack */
} fd_history;

/* What the report reads, under the table's lock (fd_table_lock). */
typedef struct {
  fd_entry **open;            /* the open entries (each once), by fd number */
  size_t nopen;
  fd_entry **recent;          /* the newest closed entries kept whole, newest first */
  size_t nrecent;
  fd_history **hist;          /* the histories, most closed first */
  size_t nhist;
  uint64_t other;             /* closed entries beyond the histories' cap */
  uint64_t closed, calls;     /* closed entries and calls applied since the start */
  uint64_t now_ns;            /* CLOCK_REALTIME of the view */
} fd_view;

#define FD_RECENT 100   /* closed entries kept whole, newest */
#define FD_HISTORIES 4096 /* distinct (call, stack, kind) histories of closed entries */

/* N. Takes the table's lock, reads the ring, checks the open entries against the process
 * (an fd number now closed or another file ends its entry: a close not traced) and fills
 * v (arrays v owns; the entries are the table's until fd_view_release). */
void fd_view_take(fd_view *v);
/* N. Frees v's arrays and releases the lock. */
void fd_view_release(fd_view *v);
/* N. The call an entry is known by: create, or the first traced use. */
const fd_call *fd_entry_first(const fd_entry *e);
bool fd_entry_is_open(const fd_entry *e); /* N */
/* N. True for a call that failed (EINPROGRESS, a connect going on, is not a failure). */
bool fd_call_failed(const fd_call *c);

/* N. "tcp listening 127.0.0.1:5000", "file /var/log/x.log", "pipe"..., and a failed bind
 * or connect: "unix stream, connect(/var/run/nscd/socket) failed: ENOENT" (fd_format.c) */
void fd_describe(const fd_entry *e, char *buf, size_t n);
/* N. The kind of a description, its addresses and path left out: "tcp listening",
 * "unix stream", "file", "pipe" (fd_format.c). */
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

#endif /* ASGSTPROF_FD_TABLE_H */
