/*
 * replay.h - a recording (impl/record/format.h) walked again without a JVM: what
 * ASGST_ReplayWalk (api/record.c) uses. The replay backend is HotSpot's walker over the
 * recorded memory, so it lives with HotSpot: impl/hotspot/replay_backend.c.
 */
#ifndef ASGST_IMPL_REPLAY_H
#define ASGST_IMPL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "record/format.h"

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
