/*
 * fd.h - fd tracing: which Java code created which file descriptor. The signal handler
 * reads what a traced syscall did (fd_capture.c); at dump time, on an interval and on
 * request the records become the fd report (fd_table.c, fd_format.c, fd_report.c,
 * fd_live.c; their shared parts in fd_table.h).
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
/* N. Starts the thread that rewrites fds= every fds_interval while profiling (fd_live.c). */
void prof_fd_interval_start(void);
/* N. Answers asgst-attach's "fds [match]": the report goes to the reply file (stderr if
 * none). 0 or -1 with err. */
int prof_fd_query(const char *match, const char *reply, char *err, size_t errlen);

#endif /* ASGSTPROF_FD_FD_H */
