/*
 * pprof_profile.h - a pprof profile (github.com/google/pprof, proto/profile.proto) under
 * construction: its string table, functions, locations and samples, each interned once,
 * encoded as they are made (proto_encode.h). pprof_writer.c feeds it the records of a
 * dump; pprof_profile_finish() adds the samples and the string table.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_PPROF_PROFILE_H
#define ASGSTPROF_OUTPUT_PPROF_PROFILE_H

#include <stdint.h>

#include "output/proto_encode.h"

/* profile.proto's field numbers, of the messages written here. */
enum {
  PP_SAMPLE_TYPE = 1, PP_SAMPLE = 2, PP_MAPPING = 3, PP_LOCATION = 4, PP_FUNCTION = 5,
  PP_STRING = 6,
  PP_TIME_NANOS = 9, PP_DURATION_NANOS = 10, PP_PERIOD_TYPE = 11, PP_PERIOD = 12,
  PP_COMMENT = 13, PP_DEFAULT_SAMPLE_TYPE = 14
};

/* (a, b) -> id (1-based; 0 is an empty slot), open addressing. */
typedef struct {
  struct pp_slot { uint64_t a, b; uint32_t id; } *slots;
  size_t cap, n;
} pp_map;

typedef struct {
  uint32_t off, n;  /* location ids in locs[off .. off + n), leaf first */
  int event, tid;   /* tid 0 unless samples are kept per thread */
  int state;        /* enum prof_tstate with option states, -1 else (no label) */
  uint64_t count;
} pp_sample;

typedef struct {
  pb_buf out;                 /* the Profile message so far */
  char **strs; uint32_t nstrs, strcap;
  pp_map strmap;              /* (hash, length) -> string index + 1 */
  pp_map funcs;               /* (name, file string indices) -> function id */
  pp_map locs;                /* the caller's key of a frame -> location id */
  uint32_t nfuncs, nlocs;
  pp_sample *samples; uint32_t nsamples, samplecap;
  pp_map samplemap;           /* (hash, 0) -> sample index + 1 */
  uint64_t *pool; size_t npool, poolcap; /* the samples' location ids */
} pp_profile;

void pp_init(pp_profile *p);                                    /* N */
void pp_free(pp_profile *p);                                    /* N */
/* N. The string's index in the string table (0 is ""). */
int64_t pp_str(pp_profile *p, const char *s);
/* N. Looks a key up: its id, 0 if absent. pp_map_put remembers an id for it. */
uint32_t pp_map_get(const pp_map *m, uint64_t a, uint64_t b);
void pp_map_put(pp_map *m, uint64_t a, uint64_t b, uint32_t id);  /* N */
/* N. The function (name, system name, file), made once per name and file. */
uint64_t pp_function(pp_profile *p, const char *name, const char *system_name, const char *file);
/* N. A new location of one line of function fn, under the caller's key (a, b). */
uint64_t pp_location(pp_profile *p, uint64_t a, uint64_t b, uint64_t fn, int64_t line);
/* N. Counts count samples of the stack locs[0..n) (leaf first) for event (and thread tid,
 * thread state state: -1 for none). */
void pp_add_sample(pp_profile *p, const uint64_t *locs, uint32_t n, int event, int tid, int state,
                   uint64_t count);
/* N. The one mapping (id 1) every location is in: the process's program, file. */
void pp_mapping(pp_profile *p, const char *file);
/* N. A ValueType (type, unit) message into field of the profile. */
void pp_value_type(pp_profile *p, int field, const char *type, const char *unit);

#endif /* ASGSTPROF_OUTPUT_PPROF_PROFILE_H */
