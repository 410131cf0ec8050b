/*
 * recorder.h - recording one walk of a live VM (recorder.c) into the file format of
 * format.h. ASGST_RecordWalk (api/record.c) drives it; the walk itself is an ordinary
 * walk of the active backend, whose loads the recorder logs through the read layer's
 * hook (impl/safe_read.h).
 */
#ifndef ASGST_RECORD_RECORDER_H
#define ASGST_RECORD_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../backend.h"
#include "format.h"

/* What the API layer collected during a recording walk, for the writer. */
typedef struct {
  int32_t options, kind, end;
  asgst__regs top;
  asgst__thread thread;
  const char *layout;           /* the backend's layout text */
  size_t layout_len;
  const asgst__rec_frame *frames;
  size_t nframes;
  const char *strings;
  size_t strings_len;
} asgst__record_walk;

/* SS. Starts a recording on the calling thread: from now on its guarded loads read a
 * snapshot of each page, taken at the page's first read. False if another recording runs
 * (or the snapshot cannot be mapped). The thread's loads are logged (asgst__relearn() is
 * true there, impl/safe_read.h) until asgst__record_end. */
bool asgst__record_begin(void);
/* SS. Ends the recording and writes it into buf (format.h). Returns its size, or
 * ASGST_INVALID_ARGUMENT when it does not fit in cap or the walk read more pages than a
 * recording holds. */
int64_t asgst__record_end(const asgst__record_walk *r, void *buf, size_t cap);

#endif
