/*
 * fd_table.h - the live fd table of fd_table.c, shared by the fd report's writers
 * (fd_report.c, fd_live.c). All N: ordinary code, never in a signal handler.
 */
#ifndef ASGSTPROF_FD_TABLE_H
#define ASGSTPROF_FD_TABLE_H

#include "core/state.h"
#include "fd/fd.h"
#include "fd/fd_format.h"

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
#endif /* ASGSTPROF_FD_TABLE_H */
