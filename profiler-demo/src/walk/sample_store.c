/*
 * sample_store.c - what every walk mode shares: collecting a walk's frames, counting its
 * result, comparing it with the in-handler walk of the same sample (compare), and
 * counting it in the call-trace store or appending its record to the sample buffer. Runs
 * in signal handlers (walk=signal, the reference walks), on the walker thread
 * (walk=thread) and in queue handlers at a safe point (walk=queue): everything here is
 * async-signal-safe, which covers all three.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/blob_names.h"
#include "core/state.h"
#include "walk/walk.h"

/* The taker of traced fd calls (prof_walk_set_fd_taker). */
static _Atomic(prof_fd_taker) fd_taker;

/* N. */
void prof_walk_set_fd_taker(prof_fd_taker taker) {
  atomic_store_explicit(&fd_taker, taker, memory_order_release);
}

/* SS. */
int prof_walk_options(void) {
  return prof.opts.cstack ? ASGST_INCLUDE_NON_JAVA_FRAMES : 0;
}

/* SS. The blob name id (core/blob_names.h) of a C frame whose pc is in VM code (a stub,
 * an adapter, a runtime blob), taken now: by the dump the blob may be freed and its
 * address reused. -1 for C code of a library (no blob), as for any frame without a bci. */
static int vm_code_name(void *pc) {
  char name[PROF_BLOB_NAME_CAP];
  const void *blob;
  if (ASGST_GetCodeBlobName(pc, name, sizeof name, &blob) <= 0) return -1;
  int id = prof_blob_name_intern(blob, name);
  return id > 0 ? id : -1;
}

/* SS. */
void prof_walk_collect(ASGST_Iterator *it, void *arg) {
  prof_walk *w = arg;
  ASGST_Frame f;
  int r = 0;
  while (w->n < PROF_MAX_FRAMES && (r = ASGST_NextFrame(it, &f)) == 1) {
    prof_frame *o = &w->frames[w->n++];
    o->type = f.type;
    o->comp_level = (int8_t)f.comp_level;
    o->pad = 0;
    if (f.type == ASGST_FRAME_NON_JAVA) {
      o->method = f.pc;
      o->bci = vm_code_name(f.pc);
    } else {
      o->method = (void *)f.method;
      o->bci = f.bci;
    }
  }
  /* An iterator that starts in error (a stale queue element) fails its first NextFrame. */
  if (w->n < PROF_MAX_FRAMES && r < 0) w->error = r;
}

/* SS. Copies the top frames of the walk into ref; walks on the handler's stack. */
void prof_ref_take(void *ucontext, prof_ref_walk *ref) {
  prof_walk w;
  w.n = 0;
  w.error = 0;
  w.other = false;
  int r = ASGST_RunWithIterator(ucontext, prof_walk_options(), prof_walk_collect, &w);
  if (r > 0 && w.error < 0) r = w.error;
  ref->result = r;
  ref->n = w.n < PROF_COMPARE_FRAMES ? w.n : PROF_COMPARE_FRAMES;
  memcpy(ref->frames, w.frames, (size_t)ref->n * sizeof ref->frames[0]);
}

/* SS. Same method and bci (frame types may differ: an inlined frame stays inlined). */
static bool same_frame(const prof_frame *a, const prof_frame *b) {
  return a->method == b->method && a->bci == b->bci;
}

/* SS. Agreement of walk w with the reference walk, over the reference's frames. Only
 * successful walks on both sides are compared: failures are counted as walk results. */
static void compare(const prof_walk *w, int r, const prof_ref_walk *ref) {
  if (!ref || ref->n < 0 || ref->result <= 0 || r <= 0) return;
  int n = ref->n < w->n ? ref->n : w->n, same = 0;
  while (same < n && same_frame(&ref->frames[same], &w->frames[same])) same++;
  bool identical = same == ref->n && (w->n == ref->n || ref->n == PROF_COMPARE_FRAMES);
  atomic_fetch_add_explicit(&prof.stats.compared, 1, memory_order_relaxed);
  if (identical) atomic_fetch_add_explicit(&prof.stats.compare_same, 1, memory_order_relaxed);
  if (n > 0 && same > 0)
    atomic_fetch_add_explicit(&prof.stats.compare_top_same, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.compare_frames, (uint64_t)ref->n, memory_order_relaxed);
  atomic_fetch_add_explicit(&prof.stats.compare_frames_same, (uint64_t)same,
                            memory_order_relaxed);
}

/* SS. Clamps to what a record's 32-bit field holds. */
static uint32_t u32(uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* SS. CLOCK_MONOTONIC now, less the walk and the lag before it: about when the event
 * happened, wherever the walk ran (clock_gettime is async-signal-safe). */
static uint64_t event_time(uint64_t walk_ns, uint64_t lag_ns) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return now > walk_ns + lag_ns ? now - walk_ns - lag_ns : now;
}

/* SS. Whether a sample needs a record of its own in the sample buffer, or is counted in
 * the call-trace store under its key (frames, event, walk result, thread if `threads`):
 * a store keeps each distinct key once, so memory grows with distinct stacks, not with
 * samples. Kept whole: every sample while a .jfr output is asked (a JFR event carries its
 * sample's time and fd fields; control/ says so in prof.keep_each_sample, also when a dump
 * names new files: asgst-attach dump,file=...). A file named later meets the samples
 * counted so far (jfr_writer.c). A traced fd call goes to the live fd table besides
 * (fd/fd_events.c), which keeps what the fd report needs. */
static bool needs_own_record(void) {
  return atomic_load_explicit(&prof.keep_each_sample, memory_order_relaxed);
}

/* SS. */
void prof_store_walk(int ev, pid_t tid, int r, const prof_walk *w, uint64_t walk_ns,
                     uint64_t lag_ns, const prof_fdinfo *fdi, const prof_ref_walk *ref,
                     uint32_t weight) {
  if (r > 0 && w->error < 0) r = w->error;
  int slot = r + PROF_WALK_CODES / 2;
  if (slot < 0) slot = 0;
  if (slot >= PROF_WALK_CODES) slot = PROF_WALK_CODES - 1;
  atomic_fetch_add_explicit(&prof.stats.walk_results[slot], weight, memory_order_relaxed);
  bool java = false;
  for (int i = 0; i < w->n && !java; i++) java = prof_frame_is_java(&w->frames[i]);
  if (w->other) atomic_fetch_add_explicit(&prof.stats.other[ev], weight, memory_order_relaxed);
  else if (!java) atomic_fetch_add_explicit(&prof.stats.no_java[ev], weight, memory_order_relaxed);
  /* Agreement is per walk: the samples folded into it share the one reference walk. */
  compare(w, r, ref);

  prof_record h;
  memset(&h, 0, sizeof h);
  h.event = (uint16_t)ev;
  h.nframes = (uint16_t)w->n;
  h.tid = (int32_t)tid;
  h.walk_result = r;
  h.state = w->state;
  h.walk_ns = u32(walk_ns);
  h.lag_ns = u32(lag_ns);
  h.time_ns = event_time(walk_ns, lag_ns);
  h.seq = atomic_fetch_add_explicit(&prof.stats.seq, 1, memory_order_relaxed);
  h.count = weight;
  h.keep_tid = w->other;
  bool own = needs_own_record();
  /* A traced fd call the fd table cannot take (its ring full) is lost as to a full buffer. */
  prof_fd_taker take = atomic_load_explicit(&fd_taker, memory_order_acquire);
  bool noted = !fdi || !take || take(&h, w->frames, fdi);
  bool kept = noted && (own ? prof_buffer_append(&h, w->frames, fdi)
                            : prof_buffer_count(&h, w->frames, prof.opts.threads));
  if (kept)
    atomic_fetch_add_explicit(&prof.stats.stored[ev], weight, memory_order_relaxed);
  else if (own || !noted)
    atomic_fetch_add_explicit(&prof.stats.lost_buffer[ev], weight, memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&prof.stats.lost_store[ev], weight, memory_order_relaxed);
}
