/*
 * writers.c - the registry of output formats (writer.h). Each format is one line of
 * WRITERS: the name of the prof_writer its own file defines.
 */
#include <stdio.h>
#include <string.h>

#include "output/writer.h"

#define WRITERS(X)          \
  X(prof_flamegraph_writer) /* flamegraph.c */ \
  X(prof_collapsed_writer)  /* collapsed.c */  \
  X(prof_text_writer)       /* text_writer.c */  \
  X(prof_pprof_writer)      /* pprof_writer.c */ \
  X(prof_jfr_writer)        /* jfr_writer.c */

#define DECLARE(w) extern const prof_writer w;
WRITERS(DECLARE)
#define ENTRY(w) &w,
static const prof_writer *const writers[] = {WRITERS(ENTRY)};
#define NWRITERS (sizeof writers / sizeof writers[0])

/* N. An ending may hold dots of its own (".pb.gz"), so the whole ending is compared. */
const prof_writer *prof_writer_for(const char *path) {
  size_t len = strlen(path);
  for (size_t i = 0; i < NWRITERS; i++) {
    size_t el = strlen(writers[i]->ext);
    if (len > el && strcmp(path + len - el, writers[i]->ext) == 0) return writers[i];
  }
  return NULL;
}

/* N. */
bool prof_writer_streams(const char *path) {
  const prof_writer *w = prof_writer_for(path);
  return w && w->streams;
}

/* N. */
bool prof_writers_need_each_sample(const prof_options *o) {
  for (int i = 0; i < o->nfiles && i < PROF_MAX_FILES; i++) {
    const prof_writer *w = prof_writer_for(o->files[i]);
    if (w && w->needs_each_sample) return true;
  }
  return false;
}

/* N. */
void prof_writer_endings(char *buf, size_t len) {
  size_t l = 0;
  buf[0] = 0;
  for (size_t i = 0; i < NWRITERS && l < len; i++) {
    const char *sep = i == 0 ? "" : i + 1 == NWRITERS ? " or " : ", ";
    int n = snprintf(buf + l, len - l, "%s%s", sep, writers[i]->ext);
    if (n > 0) l += (size_t)n;
  }
}
