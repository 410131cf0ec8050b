/*
 * profile_tree.c - aggregating samples into a call tree (root = all samples), so outputs
 * are written from distinct paths, not from every sample: a 100,000-sample flame graph
 * stays small and opens fast.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "asgst.h"
#include "core/records.h"
#include "core/state.h"
#include "core/thread_names.h"
#include "core/thread_state.h"
#include "output/output.h"
#include "symbols/symbols.h"

/* N. */
void prof_tree_init(prof_tree *t) {
  memset(t, 0, sizeof *t);
  t->cap = 1024;
  t->nodes = calloc((size_t)t->cap, sizeof *t->nodes);
  t->nodes[0] = (prof_node){.frame = -1, .first_child = -1, .next_sibling = -1};
  t->n = 1;
  t->hcap = 4096;
  t->hash = malloc((size_t)t->hcap * sizeof *t->hash);
  memset(t->hash, -1, (size_t)t->hcap * sizeof *t->hash);
}

/* N. */
void prof_tree_free(prof_tree *t) {
  free(t->nodes);
  free(t->hash);
  memset(t, 0, sizeof *t);
}

/* N. Hash slot of (parent, frame). */
static size_t slot_of(const prof_tree *t, int parent, int frame) {
  uint64_t h = ((uint64_t)(uint32_t)parent << 32 | (uint32_t)frame) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (size_t)(t->hcap - 1);
}

/* N. Doubles the hash table and reinserts every non-root node. */
static void grow_hash(prof_tree *t, const int *parent_of) {
  free(t->hash);
  t->hcap *= 2;
  t->hash = malloc((size_t)t->hcap * sizeof *t->hash);
  memset(t->hash, -1, (size_t)t->hcap * sizeof *t->hash);
  for (int i = 1; i < t->n; i++) {
    size_t s = slot_of(t, parent_of[i], t->nodes[i].frame);
    while (t->hash[s] >= 0) s = (s + 1) & (size_t)(t->hcap - 1);
    t->hash[s] = i;
  }
}

/* Parents of nodes, kept beside the tree for hashing (the node keeps no parent). */
static int *parents;
static int parents_cap;

/* N. The child of parent for frame, created if absent. */
static int child(prof_tree *t, int parent, int frame) {
  size_t s = slot_of(t, parent, frame);
  for (; t->hash[s] >= 0; s = (s + 1) & (size_t)(t->hcap - 1)) {
    int i = t->hash[s];
    if (t->nodes[i].frame == frame && parents[i] == parent) return i;
  }
  if (t->n == t->cap) {
    t->cap *= 2;
    t->nodes = realloc(t->nodes, (size_t)t->cap * sizeof *t->nodes);
  }
  if (t->n >= parents_cap) {
    parents_cap = t->cap;
    parents = realloc(parents, (size_t)parents_cap * sizeof *parents);
  }
  int i = t->n++;
  t->nodes[i] = (prof_node){.frame = frame, .first_child = -1,
                            .next_sibling = t->nodes[parent].first_child};
  t->nodes[parent].first_child = i;
  parents[i] = parent;
  t->hash[s] = i;
  if (t->n * 2 > t->hcap) grow_hash(t, parents);
  return i;
}

/* N. */
void prof_tree_add(prof_tree *t, const int *ids, int n, uint64_t count) {
  int cur = 0;
  t->nodes[0].total += count;
  for (int i = 0; i < n; i++) {
    cur = child(t, cur, ids[i]);
    t->nodes[cur].total += count;
  }
  t->nodes[cur].self += count;
}

typedef struct {
  prof_tree *t;
  uint32_t mask;
  bool threads;
  bool event_roots;
  int event_ids[PROF_MAX_EVENTS];
  pid_t tids[256];
  int tid_ids[256];
  int ntids;
  pid_t group_tids[256]; /* other threads' group frames, by tid */
  int group_ids[256];
  int ngroups;
  int err_ids[2][PROF_WALK_CODES]; /* [truncated][code]: label ids + 1, 0 if not made yet */
  int state_ids[TS_COUNT];         /* "[state=...]" label ids + 1, 0 if not made yet */
} build_ctx;

/* N. The "[thread name]" frame of tid. */
static int thread_frame(build_ctx *c, pid_t tid) {
  for (int i = 0; i < c->ntids; i++)
    if (c->tids[i] == tid) return c->tid_ids[i];
  char name[64], label[96];
  prof_thread_name(tid, name, sizeof name);
  snprintf(label, sizeof label, "[%s tid=%d]", name, (int)tid);
  int id = prof_sym_named(label, FT_THREAD);
  if (c->ntids < 256) c->tids[c->ntids] = tid, c->tid_ids[c->ntids++] = id;
  return id;
}

/* N. The root frame of the group of an other thread (JIT, GC, VM, native: a thread that is
 * not a Java thread), "[C2 CompilerThread*]"; its Java threads' samples have none. */
static int group_frame(build_ctx *c, pid_t tid) {
  for (int i = 0; i < c->ngroups; i++)
    if (c->group_tids[i] == tid) return c->group_ids[i];
  char label[96];
  if (!prof_thread_group(tid, label, sizeof label)) snprintf(label, sizeof label, "[tid %d]", (int)tid);
  int id = prof_sym_named(label, FT_THREAD);
  if (c->ngroups < 256) c->group_tids[c->ngroups] = tid, c->group_ids[c->ngroups++] = id;
  return id;
}

/* N. The "[state=word]" frame of a state (option states). */
static int state_frame(build_ctx *c, uint8_t s) {
  if (s >= TS_COUNT) s = TS_UNKNOWN;
  if (c->state_ids[s] == 0) {
    char label[48];
    snprintf(label, sizeof label, "[state=%s]", prof_tstate_word(s));
    c->state_ids[s] = prof_sym_named(label, FT_THREAD) + 1;
  }
  return c->state_ids[s] - 1;
}

/* N. Adds one record (r->count samples) to the tree: root first, with a marker frame for failed walks. */
static void add_record(const prof_record *r, const prof_frame *frames, const prof_fdinfo *fdi,
                       void *arg) {
  (void)fdi;
  build_ctx *c = arg;
  if (!(c->mask & (1u << r->event))) return;
  int ids[PROF_MAX_FRAMES + 4];
  int n = 0;
  if (c->event_roots) {
    if (c->event_ids[r->event] == 0) {
      char label[160];
      snprintf(label, sizeof label, "[%s]", prof.opts.events[r->event].name);
      c->event_ids[r->event] = prof_sym_named(label, FT_THREAD) + 1;
    }
    ids[n++] = c->event_ids[r->event] - 1;
  }
  if (c->threads) ids[n++] = thread_frame(c, r->tid);
  else if (r->keep_tid) ids[n++] = group_frame(c, r->tid);
  if (r->walk_result <= 0) {
    int code = -r->walk_result < PROF_WALK_CODES ? -r->walk_result : PROF_WALK_CODES - 1;
    int *cached = &c->err_ids[r->nframes ? 1 : 0][code];
    if (*cached == 0) {
      char label[96];
      snprintf(label, sizeof label, "[%s%s]", r->nframes ? "truncated: " : "",
               ASGST_ErrorName(r->walk_result));
      *cached = prof_sym_named(label, FT_THREAD) + 1;
    }
    ids[n++] = *cached - 1;
  }
  for (int i = r->nframes - 1; i >= 0; i--) ids[n++] = prof_sym_frame(&frames[i]);
  if (prof.opts.states) ids[n++] = state_frame(c, r->state);
  prof_tree_add(c->t, ids, n, r->count);
}

/* N. */
void prof_tree_build(prof_tree *t, uint32_t event_mask, bool threads, bool event_roots) {
  build_ctx *c = calloc(1, sizeof *c);
  c->t = t;
  c->mask = event_mask;
  c->threads = threads;
  c->event_roots = event_roots;
  prof_samples_each(add_record, c);
  free(c);
}
