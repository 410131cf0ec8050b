/*
 * output.h - what a dump writes: the samples aggregated into a call tree
 * (profile_tree.c), the run summary (summary.c, summary_walk_mode.c), and the file
 * formats behind one writer interface (writer.h).
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_OUTPUT_H
#define ASGSTPROF_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct prof_node {
  int frame;      /* symbol id, -1 for the root */
  uint64_t total; /* samples at or below */
  uint64_t self;  /* samples ending here */
  int first_child, next_sibling; /* indices into the node array, -1 if none */
} prof_node;

typedef struct {
  prof_node *nodes;
  int n, cap;
  int *hash; int hcap; /* (parent, frame) -> node index */
} prof_tree;

void prof_tree_init(prof_tree *t);                               /* N */
void prof_tree_free(prof_tree *t);                               /* N */
/* N. Adds one sample; ids[] root first. */
void prof_tree_add(prof_tree *t, const int *ids, int n, uint64_t count);
/* N. Builds the tree of every record of the given events (mask) from the buffer; with
 * event_roots each event is a root frame "[name]", with threads each thread below it. */
void prof_tree_build(prof_tree *t, uint32_t event_mask, bool threads, bool event_roots);

/* N. The run summary (also written to stderr at every dump). */
void prof_write_summary(FILE *out);
/* N. Its CPU part: cpu samples against the process's CPU, the profiler's own threads'
 * (summary_cpu.c). */
void prof_write_cpu_threads(FILE *out);
/* N. Its walk-mode part (summary_walk_mode.c). */
void prof_write_walk_mode(FILE *out);
/* N. The hottest methods by self samples, one line each, frame types merged with a
 * breakdown (hot_frames.c); with event_roots (the tree's top frames are its events) one
 * list per event. */
void prof_write_hot_frames(FILE *out, const prof_tree *t, bool event_roots);
/* N. The first `lines` of that list for a tree without event roots, shares of its samples,
 * no heading (hot_frames.c). */
void prof_write_top_methods(FILE *out, const prof_tree *t, int lines);
/* N. The summary for the terminal (summary_short.c): per event with samples its count and
 * its hottest methods, the events without samples on one line, then one line of counts; the
 * detailed summary before it with the option verbose. */
void prof_write_short_summary(FILE *out);

/* What the run's CPU was, for the summary (ns); the sampling room, above this one, knows it
 * and the control room hands its function over at start (prof_output_set_cpu_figures). */
typedef struct {
  uint64_t process_ns;   /* CLOCK_PROCESS_CPUTIME_ID over the run (to now if running) */
  uint64_t own_ns;       /* the profiler's own threads (asgst-...), over the run */
  uint64_t late_ns;      /* other threads' CPU before the scan found them */
  int own_threads;       /* own threads seen */
  int found_late;        /* other threads the scan found after the start */
  uint64_t scans, scan_ns; /* looks at /proc and the CPU they took */
} prof_cpu_figures;
typedef void (*prof_cpu_figures_fn)(prof_cpu_figures *f);
/* N. Sets where the summary's CPU figures come from (NULL: none, all zero). */
void prof_output_set_cpu_figures(prof_cpu_figures_fn fn);

#endif /* ASGSTPROF_OUTPUT_OUTPUT_H */
