/*
 * text_writer.c - the .txt output: the run summary, then the hottest frames.
 */
#include <stdio.h>

#include "output/writer.h"

/* N. */
static int write_text(const prof_dump_view *d, FILE *out) {
  prof_write_summary(out);
  prof_write_hot_frames(out, d->tree, d->event_roots);
  return ferror(out) ? -1 : 0;
}

const prof_writer prof_text_writer = {".txt", write_text, false, false};
