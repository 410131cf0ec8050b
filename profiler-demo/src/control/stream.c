/*
 * stream.c - the chunk thread of streamed outputs (a .jfr file without loop=): it has the
 * samples so far written as one more chunk of the file (the function prof_stream_start
 * was given: control/profiler.c's prof_stream_chunk) every ASGST_JFR_CHUNK_MS
 * milliseconds, or sooner once the sample buffer holds ASGST_JFR_CHUNK_KB kB, so that the
 * run's resident memory stays near that many bytes of records however long it goes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "control/control.h"
#include "core/records.h"
#include "core/say.h"

#define LOOK_NS (50 * 1000 * 1000ull) /* how often the buffer's fill is looked at */

static pthread_t thread;
static bool started, stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static int (*write_chunk)(char *err, size_t errlen);
static uint64_t chunk_ns, chunk_bytes;

/* N. */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N. An environment knob's positive value, else fallback. */
static uint64_t knob(const char *name, uint64_t fallback) {
  const char *v = getenv(name);
  char *end;
  unsigned long long n = v ? strtoull(v, &end, 10) : 0;
  return v && *end == 0 && n > 0 ? n : fallback;
}

/* N. Looks every LOOK_NS; a chunk when it is due by time or by size. */
static void *streamer(void *arg) {
  (void)arg;
  uint64_t last = now_ns();
  pthread_mutex_lock(&lock);
  while (!stopping) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + LOOK_NS;
    until.tv_sec += (time_t)(ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    while (!stopping && pthread_cond_timedwait(&wake, &lock, &until) != ETIMEDOUT) {
    }
    if (stopping) break;
    if (now_ns() - last < chunk_ns && prof_buffer_used() < chunk_bytes) continue;
    pthread_mutex_unlock(&lock);
    char err[600];
    if (write_chunk(err, sizeof err) != 0) prof_say("asgst-prof: %s\n", err);
    last = now_ns();
    pthread_mutex_lock(&lock);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* N. */
int prof_stream_start(int (*chunk)(char *err, size_t errlen)) {
  if (started) return 0;
  write_chunk = chunk;
  chunk_ns = knob("ASGST_JFR_CHUNK_MS", 10000) * 1000000u;
  chunk_bytes = knob("ASGST_JFR_CHUNK_KB", 4096) * 1024u;
  static bool cond_made;
  if (!cond_made) prof_cond_init_monotonic(&wake), cond_made = true;
  stopping = false;
  if (pthread_create(&thread, NULL, streamer, NULL) != 0) return -1;
  pthread_setname_np(thread, "asgst-stream"); /* ours: not profiled (threads.c) */
  started = true;
  return 0;
}

/* N. */
void prof_stream_stop(void) {
  if (!started) return;
  pthread_mutex_lock(&lock);
  stopping = true;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  started = false;
}
