/*
 * writer.h - the output formats behind one interface. A file=NAME option picks its writer
 * by NAME's ending. A new format is one new file that defines a prof_writer and one line
 * in writers.c's list; control/ and the option parser know no format by name.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_WRITER_H
#define ASGSTPROF_OUTPUT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/options.h"
#include "output/output.h"

/* What a writer is given at a dump. Writers that need more than the tree (every record
 * with its time and thread, say) read the sample buffer (core/records.h) and the
 * profiler context (core/state.h) themselves. */
typedef struct {
  const prof_tree *tree; /* every sample, aggregated (frame ids from symbols/symbols.h) */
  const char *title;     /* "asgst-prof: cpu" */
  uint64_t start_ns, end_ns; /* the profile's span, CLOCK_REALTIME (a loop= period's) */
  bool event_roots;      /* the tree's top frames are its events ("[cpu]"), each its own 100% */
  /* A streaming writer's file (streams below) took chunks while the run went: the
   * samples already written are counts now (prof_buffer_fold) or records marked streamed,
   * and this write adds one chunk of the records not yet written. final_chunk: the last. */
  bool streamed, final_chunk;
} prof_dump_view;

typedef struct {
  const char *ext;  /* the file name ending that selects it: ".html" */
  /* N. Writes the dump to out; 0, or -1 if it could not. */
  int (*write)(const prof_dump_view *d, FILE *out);
  /* It reads every sample's own record (JFR: each event carries its time), not the
   * call-trace store's counts: while such a file is asked, every sample keeps one. */
  bool needs_each_sample;
  /* It can write the samples so far as a part of its file that stands alone (a JFR
   * chunk), appended to what it wrote before: control/ then has it write one every few
   * seconds while the run goes, and drops the samples written (bounded memory). */
  bool streams;
} prof_writer;

/* N. Whether the writer of any of o's files needs every sample's own record. */
bool prof_writers_need_each_sample(const prof_options *o);

/* N. Whether path's writer streams (above). */
bool prof_writer_streams(const char *path);
/* N. The writer for path's ending, NULL if none. */
const prof_writer *prof_writer_for(const char *path);
/* N. The known endings for a message: ".html, .collapsed or .txt". */
void prof_writer_endings(char *buf, size_t len);

#endif /* ASGSTPROF_OUTPUT_WRITER_H */
