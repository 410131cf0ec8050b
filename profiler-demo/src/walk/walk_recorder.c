/*
 * walk_recorder.c - the record= option: walks recorded with ASGST_RecordWalk, so that a
 * user can send us a walk that went wrong. By default the first record_n (20) walks that
 * end in an error are recorded; record_walks=all records the first walks whatever their
 * outcome. The recordings are appended to the record= file one after the other (each
 * starts with its own header and size); `asgst-replay FILE` walks them again without the
 * JVM, `asgst-replay --check FILE` compares each with what the live walk returned.
 *
 * The handler records into a free buffer of a small pool (recording copies every page the
 * walk read, so it is much slower than a walk: it happens for the first few walks only);
 * a writer thread appends full buffers to the file.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/say.h"
#include "core/state.h"
#include "walk/walk.h"

#define POOL 4
#define BUF_SIZE (4u << 20) /* several times the largest recordings seen so far */

enum { FREE, BUSY, FULL };
static struct {
  atomic_int state;
  int64_t size;
  uint8_t *buf;
} pool[POOL];
static atomic_int taken, written, failed;
static atomic_int stop_writer;
static pthread_t writer;
static bool started;

/* SS. */
void prof_recorder_walk(void *ucontext, int options, int walk_result) {
  if (!prof.opts.record[0] || (walk_result > 0 && !prof.opts.record_all)) return;
  if (atomic_load_explicit(&taken, memory_order_relaxed) >= prof.opts.record_n) return;
  for (int i = 0; i < POOL; i++) {
    int expect = FREE;
    if (!atomic_compare_exchange_strong(&pool[i].state, &expect, BUSY)) continue;
    if (atomic_fetch_add(&taken, 1) >= prof.opts.record_n) {
      atomic_store(&pool[i].state, FREE);
      return;
    }
    pool[i].size = ASGST_RecordWalk(ucontext, options, pool[i].buf, BUF_SIZE);
    if (pool[i].size == ASGST_BUSY) {
      /* Another thread's recording runs (one at a time per process): this walk gives its
       * turn back to a later one instead of using up one of the record_n. */
      atomic_fetch_sub(&taken, 1);
      atomic_store(&pool[i].state, FREE);
      return;
    }
    atomic_store(&pool[i].state, FULL);
    return;
  }
}

/* N. Appends the full buffers to the file. */
static void flush(void) {
  for (int i = 0; i < POOL; i++) {
    if (atomic_load(&pool[i].state) != FULL) continue;
    FILE *f = pool[i].size > 0 ? fopen(prof.opts.record, "ab") : NULL;
    if (f && fwrite(pool[i].buf, 1, (size_t)pool[i].size, f) == (size_t)pool[i].size) atomic_fetch_add(&written, 1);
    else atomic_fetch_add(&failed, 1);
    if (f) fclose(f);
    atomic_store(&pool[i].state, FREE);
  }
}

/* N. */
static void *write_loop(void *arg) {
  (void)arg;
  struct timespec pause = {0, 50 * 1000 * 1000};
  while (!atomic_load(&stop_writer)) {
    flush();
    nanosleep(&pause, NULL);
  }
  return NULL;
}

/* N. */
int prof_recorder_start(char *err, size_t errlen) {
  if (!prof.opts.record[0] || started) return 0;
  for (int i = 0; i < POOL; i++) {
    if (pool[i].buf == NULL && (pool[i].buf = malloc(BUF_SIZE)) == NULL)
      return snprintf(err, errlen, "record=%s: out of memory", prof.opts.record), -1;
    atomic_store(&pool[i].state, FREE);
  }
  FILE *f = fopen(prof.opts.record, "wb"); /* a new file per profiling run */
  if (f) fclose(f);
  atomic_store(&taken, 0), atomic_store(&written, 0), atomic_store(&failed, 0);
  atomic_store(&stop_writer, 0);
  if (pthread_create(&writer, NULL, write_loop, NULL) != 0)
    return snprintf(err, errlen, "record=%s: cannot start the writer thread", prof.opts.record), -1;
  pthread_setname_np(writer, "asgst-record"); /* ours: not profiled (threads.c) */
  started = true;
  return 0;
}

/* N. Call after the handlers have finished. */
void prof_recorder_stop(void) {
  if (!started) return;
  atomic_store(&stop_writer, 1);
  pthread_join(writer, NULL);
  flush();
  started = false;
  prof_say("asgst-prof: %d walk%s recorded into %s (%s; replay: asgst-replay %s)%s\n",
           atomic_load(&written), atomic_load(&written) == 1 ? "" : "s", prof.opts.record,
           prof.opts.record_all ? "the first walks" : "walks that ended in an error", prof.opts.record,
           atomic_load(&failed) ? " some could not be recorded" : "");
}
