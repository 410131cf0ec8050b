/*
 * control.h - control and attach: the JVMTI agent (agent.c) parses its options
 * (options.c), binds the ASGST library (asgst_binding.c) and starts, stops and dumps runs
 * (profiler.c), which switch the rooms below on and off and write the outputs.
 * asgst-attach (attach.c) is a program of its own and includes none of this.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_CONTROL_CONTROL_H
#define ASGSTPROF_CONTROL_CONTROL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asgst.h"
#include "core/options.h"

/* N. Parses "a,b=c,..." into *o. Returns 0, or -1 with a message naming the bad part in
 * err. Checks tracepoints (and their filters) against the kernel and output files for
 * writability, so a bad option fails here. */
int prof_parse_options(const char *text, prof_options *o, char *err, size_t errlen);
/* N. Parses "10ms" and friends (ns, us, ms, s, m, h) into nanoseconds; -1 if malformed or
 * zero. */
int64_t prof_parse_duration(const char *s);

/* N. on_attach: the caller is the attach listener thread, which is not profiled. */
int prof_start(bool on_attach, char *err, size_t errlen);
int prof_stop(char *err, size_t errlen);  /* N: stop and write the outputs */
int prof_dump(char *err, size_t errlen);  /* N: write the outputs, keep sampling */
/* N. stop/dump with file= or fds=: the run's files become o's (not while a loop= period
 * is being written). */
void prof_replace_files(const prof_options *o);
/* N. Tells the handlers whether the current files need every sample's own record. */
void prof_note_files(void);
/* One profile's span: the run, or with loop= one period of it. */
typedef struct {
  uint64_t start_ns, end_ns; /* CLOCK_REALTIME */
  uint64_t n;                /* the period's number, from 0 */
} prof_period;

/* N. Ends the current period (loop=): the outputs get the period's records, named after it,
 * and a new period starts; sampling goes on. */
int prof_period_end(char *err, size_t errlen);
/* N. Starts the loop= thread (loop.c) if the run asks for one, which calls end (that is
 * prof_period_end) at every period's end; 0 or -1. */
int prof_loop_start(int (*end)(char *err, size_t errlen));
/* N. Stops it; a period being written is finished first. */
void prof_loop_stop(void);
/* N. The file name of period p for file=pattern (period_names.c). */
void prof_period_name(const char *pattern, bool looping, const prof_period *p, char *buf,
                      size_t len);
/* N. Writes a chunk of every streamed file (output/writer.h: streams) from the samples
 * since the last, and drops those samples' records (prof_buffer_fold); 0 or -1. */
int prof_stream_chunk(char *err, size_t errlen);
/* N. Starts the thread that calls chunk (prof_stream_chunk) every ASGST_JFR_CHUNK_MS
 * milliseconds (10000) or once the sample buffer holds ASGST_JFR_CHUNK_KB kB (4096),
 * whichever comes first (stream.c); 0 or -1. */
int prof_stream_start(int (*chunk)(char *err, size_t errlen));
/* N. Returns once the thread has ended (a chunk being written is finished first). */
void prof_stream_stop(void);
/* N. The hidden temporary name a file is written to before it is renamed into place. */
void prof_temp_name(const char *path, char *buf, size_t len);

/* N. A condition variable whose timed waits are on the monotonic clock (loop.c). */
void prof_cond_init_monotonic(pthread_cond_t *c);

/* N. Binds the ASGST library to the JVM; the reason goes to prof.init_error on failure. */
int prof_bind_asgst(JavaVM *vm);
/* N. Waits (at most max_ms) until walks work after the binding (asgst_binding.c). */
void prof_wait_bound(int max_ms);
/* N. The ASGST_Initialize flags the options ask for. */
int prof_init_flags(void);

#endif /* ASGSTPROF_CONTROL_CONTROL_H */
