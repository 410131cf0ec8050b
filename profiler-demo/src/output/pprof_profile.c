/*
 * pprof_profile.c - the tables of a pprof profile under construction (pprof_profile.h).
 * Strings, functions and locations are numbered as they are first seen; functions and
 * locations are encoded into the profile at once, the string table and the samples at the
 * end, when every string is known and every sample counted.
 */
#include <stdlib.h>
#include <string.h>

#include "output/pprof_profile.h"

/* N. */
static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t h = (a ^ (b * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/* N. The slot of (a, b): its own, or the empty one it would take. */
static struct pp_slot *slot_of(const pp_map *m, uint64_t a, uint64_t b) {
  size_t i = (size_t)mix(a, b) & (m->cap - 1);
  while (m->slots[i].id && !(m->slots[i].a == a && m->slots[i].b == b)) i = (i + 1) & (m->cap - 1);
  return &m->slots[i];
}

/* N. */
uint32_t pp_map_get(const pp_map *m, uint64_t a, uint64_t b) {
  return m->cap ? slot_of(m, a, b)->id : 0;
}

/* N. Keeps the table at most half full, doubling it (and reinserting) when it is not. */
void pp_map_put(pp_map *m, uint64_t a, uint64_t b, uint32_t id) {
  if ((m->n + 1) * 2 > m->cap) {
    pp_map bigger = {calloc(m->cap ? m->cap * 2 : 1024, sizeof *m->slots),
                     m->cap ? m->cap * 2 : 1024, m->n};
    if (!bigger.slots) return; /* the caller finds the key absent and makes it again */
    for (size_t i = 0; i < m->cap; i++)
      if (m->slots[i].id) *slot_of(&bigger, m->slots[i].a, m->slots[i].b) = m->slots[i];
    free(m->slots);
    *m = bigger;
  }
  struct pp_slot *s = slot_of(m, a, b);
  if (!s->id) m->n++;
  *s = (struct pp_slot){a, b, id};
}

/* N. */
void pp_init(pp_profile *p) {
  memset(p, 0, sizeof *p);
  pp_str(p, ""); /* profile.proto: string_table[0] must be "" */
}

/* N. */
void pp_free(pp_profile *p) {
  for (uint32_t i = 0; i < p->nstrs; i++) free(p->strs[i]);
  free(p->strs);
  free(p->strmap.slots), free(p->funcs.slots), free(p->locs.slots), free(p->samplemap.slots);
  free(p->samples);
  free(p->pool);
  pb_free(&p->out);
  memset(p, 0, sizeof *p);
}

/* N. FNV-1a: a string's key in the string map (with its length beside it). */
static uint64_t str_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

/* N. Adds s to the string table under key (h, len). */
static int64_t add_string(pp_profile *p, const char *s, uint64_t h, uint64_t len) {
  if (p->nstrs == p->strcap) {
    uint32_t cap = p->strcap ? p->strcap * 2 : 1024;
    char **n = realloc(p->strs, cap * sizeof *n);
    if (!n) return p->out.failed = true, 0;
    p->strs = n, p->strcap = cap;
  }
  char *copy = strdup(s);
  if (!copy) return p->out.failed = true, 0;
  p->strs[p->nstrs++] = copy;
  pp_map_put(&p->strmap, h, len, p->nstrs);
  return p->nstrs - 1;
}

/* N. Strings of one hash and length are told apart by trying the keys (hash + k, length),
 * k = 0, 1, ...: a string that collides takes the first free one. */
int64_t pp_str(pp_profile *p, const char *s) {
  uint64_t h = str_hash(s), len = strlen(s);
  for (uint64_t k = 0;; k++) {
    uint32_t id = pp_map_get(&p->strmap, h + k, len);
    if (!id) return add_string(p, s, h + k, len);
    if (strcmp(p->strs[id - 1], s) == 0) return id - 1;
  }
}

/* N. */
void pp_value_type(pp_profile *p, int field, const char *type, const char *unit) {
  pb_buf m = {0};
  pb_varint(&m, 1, (uint64_t)pp_str(p, type));
  pb_varint(&m, 2, (uint64_t)pp_str(p, unit));
  pb_message(&p->out, field, &m);
  pb_free(&m);
}

/* N. Function: id 1, name 2, system_name 3, filename 4 (string indices). */
uint64_t pp_function(pp_profile *p, const char *name, const char *system_name, const char *file) {
  int64_t n = pp_str(p, name), f = pp_str(p, file);
  uint32_t id = pp_map_get(&p->funcs, (uint64_t)n, (uint64_t)f);
  if (id) return id;
  id = ++p->nfuncs;
  pp_map_put(&p->funcs, (uint64_t)n, (uint64_t)f, id);
  pb_buf m = {0};
  pb_varint(&m, 1, id);
  pb_varint(&m, 2, (uint64_t)n);
  pb_varint(&m, 3, (uint64_t)pp_str(p, system_name));
  pb_varint(&m, 4, (uint64_t)f);
  pb_message(&p->out, PP_FUNCTION, &m);
  pb_free(&m);
  return id;
}

/* N. Location: id 1, mapping_id 2 (the one mapping, pp_mapping), line 4 (a Line:
 * function_id 1, line 2). No address: the frames are symbolized already. */
uint64_t pp_location(pp_profile *p, uint64_t a, uint64_t b, uint64_t fn, int64_t line) {
  uint32_t id = ++p->nlocs;
  pp_map_put(&p->locs, a, b, id);
  pb_buf l = {0}, m = {0};
  pb_varint(&l, 1, fn);
  pb_varint(&l, 2, (uint64_t)line);
  pb_varint(&m, 1, id);
  pb_varint(&m, 2, 1);
  pb_message(&m, 4, &l);
  pb_message(&p->out, PP_LOCATION, &m);
  pb_free(&l), pb_free(&m);
  return id;
}

/* N. */
static uint64_t stack_hash(const uint64_t *locs, uint32_t n, int event, int tid, int state) {
  uint64_t h = mix((uint64_t)event | (uint64_t)(uint32_t)state << 32, (uint64_t)(uint32_t)tid);
  for (uint32_t i = 0; i < n; i++) h = mix(h, locs[i]);
  return h;
}

/* N. True if sample s is the stack locs[0..n) of event, tid and state. */
static bool same(const pp_profile *p, const pp_sample *s, const uint64_t *locs, uint32_t n,
                 int event, int tid, int state) {
  return s->n == n && s->event == event && s->tid == tid && s->state == state &&
         memcmp(p->pool + s->off, locs, n * sizeof *locs) == 0;
}

/* N. A new sample with count 0; NULL if out of memory. */
static pp_sample *new_sample(pp_profile *p, const uint64_t *locs, uint32_t n,
                             int event, int tid, int state) {
  if (p->nsamples == p->samplecap) {
    uint32_t cap = p->samplecap ? p->samplecap * 2 : 1024;
    pp_sample *s = realloc(p->samples, cap * sizeof *s);
    if (!s) return NULL;
    p->samples = s, p->samplecap = cap;
  }
  while (p->npool + n > p->poolcap) {
    size_t cap = p->poolcap ? p->poolcap * 2 : 16384;
    uint64_t *pool = realloc(p->pool, cap * sizeof *pool);
    if (!pool) return NULL;
    p->pool = pool, p->poolcap = cap;
  }
  memcpy(p->pool + p->npool, locs, n * sizeof *locs);
  pp_sample *s = &p->samples[p->nsamples++];
  *s = (pp_sample){.off = (uint32_t)p->npool, .n = n, .event = event, .tid = tid,
                          .state = state};
  p->npool += n;
  return s;
}

/* N. Stacks of one hash (rare) are told apart the way strings are (pp_str). */
void pp_add_sample(pp_profile *p, const uint64_t *locs, uint32_t n, int event, int tid, int state,
                   uint64_t count) {
  uint64_t h = stack_hash(locs, n, event, tid, state);
  for (uint64_t k = 0;; k++) {
    uint32_t id = pp_map_get(&p->samplemap, h + k, 0);
    pp_sample *s = id ? &p->samples[id - 1] : new_sample(p, locs, n, event, tid, state);
    if (!s) {
      p->out.failed = true;
      return;
    }
    if (!id) pp_map_put(&p->samplemap, h + k, 0, p->nsamples);
    if (!id || same(p, s, locs, n, event, tid, state)) {
      s->count += count;
      return;
    }
  }
}

/* N. Mapping: id 1, filename 5, has_functions 7, has_filenames 8, has_line_numbers 9. One
 * mapping for the whole process, marked symbolized, so pprof neither looks for binaries
 * nor warns that the main binary is unknown. */
void pp_mapping(pp_profile *p, const char *file) {
  pb_buf m = {0};
  pb_varint(&m, 1, 1);
  pb_varint(&m, 5, (uint64_t)pp_str(p, file));
  for (int field = 7; field <= 9; field++) pb_varint(&m, field, 1);
  pb_message(&p->out, PP_MAPPING, &m);
  pb_free(&m);
}
