/*
 * record.h - recording one walk of a live VM into the file format of format.h, and walking
 * such a recording again without a JVM: what ASGST_RecordWalk and ASGST_ReplayWalk
 * (api/record.c) use.
 *
 * Recording (recorder.c): the walk itself is an ordinary walk of the active backend, whose
 * loads the recorder logs through the read layer's hook (impl/safe_read.h).
 * Replay: the replay backend is HotSpot's walker over the recorded memory, so it lives with
 * HotSpot (impl/hotspot/replay_backend.c).
 */
#ifndef ASGST_RECORD_RECORD_H
#define ASGST_RECORD_RECORD_H

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

/* A recording opened for replay: the backend to walk it with and where the walk starts. */
typedef struct {
  const asgst__backend *be;
  asgst__thread thread;
  asgst__regs top;
  int32_t options;
  const asgst__rec_header *header;
  const asgst__rec_frame *frames; /* the live walk's frames */
  const char *strings;
} asgst__replay;

/* N. Checks a recording, binds the HotSpot model from its layout and maps its pages at
 * their recorded addresses, making the replay backend the active one (the metadata
 * accessors then answer from the recorded memory). Returns 0, or ASGST_INVALID_ARGUMENT
 * for a damaged recording, ASGST_BUSY when a backend is active (a live VM is bound),
 * ASGST_UNSUPPORTED_VM when its layout does not build a model; asgst__replay_error()
 * says why. */
int asgst__replay_open(const void *rec, size_t len, asgst__replay *out);
/* N. Unmaps the pages and unbinds the replay backend. */
void asgst__replay_close(void);
/* N. Why the last asgst__replay_open failed ("" if it did not). */
const char *asgst__replay_error(void);

#endif
