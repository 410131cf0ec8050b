/*
 * fd.h - fd tracing: which Java code created which file descriptor. The signal handler
 * reads what a traced syscall did (fd_capture.c) and hands the call, its stack interned,
 * to the live fd table through a fixed ring (fd_events.c); a thread reads the ring into
 * the table every few milliseconds (fd_live.c, fd_table.c), which keeps the open fds whole
 * and the closed ones counted per creating stack; at dump time, on an interval and on
 * request the table becomes the fd report (fd_report.c, fd_format.c; their shared parts in
 * fd_table.h).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_FD_FD_H
#define ASGSTPROF_FD_FD_H

#include <stdbool.h>
#include <stdio.h>

#include "core/records.h"

/* SS. Fills fi from the registers of a traced fd syscall that just returned (ucontext of
 * the signal); false if nothing can be claimed (fd_capture.c). */
bool prof_fd_capture(const prof_event *ev, const void *ucontext, prof_fdinfo *fi);

/* N. The fd report; match ("" = all) keeps the entries whose fd number, port, address or
 * path it names (fd_report.c). */
void prof_write_fd_report(FILE *out, const char *match);
/* N. Writes the fd report to path (whole file replaced at once); 0 or -1 with err. */
int prof_fd_write_file(const char *path, char *err, size_t errlen);
/* N. Starts the thread that reads the handlers' fd calls into the table, and rewrites fds=
 * every fds_interval while profiling (fd_live.c); once per process, if fd calls are
 * traced. */
void prof_fd_interval_start(void);
/* N. Answers asgst-attach's "fds [match]": the report goes to the reply file (stderr if
 * none). 0 or -1 with err. */
int prof_fd_query(const char *match, const char *reply, char *err, size_t errlen);

/* One traced fd call on its way from a handler to the live table (fd_events.c). */
typedef struct {
  uint16_t event;
  int32_t tid;
  int32_t walk_result;
  uint32_t stack;  /* id in the fd stack store (prof_fd_stack), 0 if not kept (store full) */
  uint64_t seq;
  prof_fdinfo fi;
} prof_fd_event;

/* The fd side's figures, for the summary. */
typedef struct {
  size_t stacks, max_stacks;   /* distinct stacks interned, and room for */
  uint64_t stacks_full;        /* calls kept without a stack: the store was full */
  size_t ring_cells;
} prof_fd_figures;

/* N. Maps the ring and the fd stack store (address space). 0 or -1. */
int prof_fd_events_map(void);
/* N. Forgets every call and stack (profiling start; no handler is sampling). */
void prof_fd_events_reset(void);
/* SS. Hands a traced fd call (h: event, tid, walk result, seq, nframes; its frames and fd
 * info) to the live table; false if the ring is full (the caller counts it lost). */
bool prof_fd_note(const prof_record *h, const prof_frame *frames, const prof_fdinfo *fi);
/* N. The oldest call not read yet; false if none. One reader at a time (the table's lock). */
bool prof_fd_events_pop(prof_fd_event *out);
/* N. The frames of stack id (NULL, 0 frames, if none). */
const prof_frame *prof_fd_stack(uint32_t id, int *nframes);
/* N. */
void prof_fd_events_figures(prof_fd_figures *f);
/* N. Starts a profile's fd tracing: maps, forgets the last profile's calls and table.
 * 0 or -1 (fd_table.c). */
int prof_fd_start(void);
/* N. Reads the calls the handlers left in the ring into the table (fd_table.c). */
void prof_fd_drain(void);
/* N. The summary's fd lines: calls applied, open, closed, histories (fd_table.c). */
void prof_fd_write_summary(FILE *out);

#endif /* ASGSTPROF_FD_FD_H */
