/*
 * pprof_writer.c - file=X.pb.gz: the dump as a gzipped pprof profile (profile.proto, read
 * by `go tool pprof`, Pyroscope, Grafana). Each event has sample types of its own: cpu
 * "samples"/count and "cpu"/nanoseconds, wall "wall_samples"/count and "wall"/nanoseconds,
 * cputimer alike, a tracepoint its name/count. A Java frame is a location with its source
 * line (0 if the method has none) in a function named "pkg.Class.method" whose file is the
 * class's name (ASGST gives no source file name); a C frame's function names its library
 * as the file. Failed walks keep the tree's marker frames ("[ASGST_...]"), so the
 * profile counts every sample the .txt counts. With `threads`, each sample carries the
 * thread as a "thread" label; with `states`, the thread's state as a "state" label
 * (running, native, sleeping, ...: core/thread_state.h). Time values are samples times
 * the sampling period (the starting one: the overload throttle may have sampled less
 * often, see the .txt).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "asgst.h"
#include "core/records.h"
#include "core/state.h"
#include "core/thread_names.h"
#include "core/thread_state.h"
#include "output/pprof_profile.h"
#include "output/writer.h"
#include "symbols/symbols.h"

#define MARKER_KEY (1ull << 63) /* location keys of marker frames: (symbol id, MARKER_KEY) */

typedef struct {
  pp_profile p;
  int col[PROF_MAX_EVENTS]; /* each event's first value column */
  bool timed[PROF_MAX_EVENTS]; /* a second column: nanoseconds */
  uint64_t ns[PROF_MAX_EVENTS]; /* nanoseconds a sample stands for */
  int ncols;
} pprof_ctx;

/* N. The sample types of every event (see above); the first event's is the period type. */
static void sample_types(pprof_ctx *c) {
  for (int i = 0; i < prof.opts.nevents; i++) {
    const prof_event *ev = &prof.opts.events[i];
    c->col[i] = c->ncols++;
    if (ev->kind == EV_TRACEPOINT) {
      pp_value_type(&c->p, PP_SAMPLE_TYPE, ev->name, "count");
      continue;
    }
    char samples[160];
    snprintf(samples, sizeof samples, "%s_samples", ev->name);
    bool cpu = ev->kind == EV_CPU, perf = ev->kind == EV_PERF;
    pp_value_type(&c->p, PP_SAMPLE_TYPE, cpu ? "samples" : samples, "count");
    /* A perf event's second column: the events its samples stand for (every Nth). */
    pp_value_type(&c->p, PP_SAMPLE_TYPE, ev->name, perf ? "events" : "nanoseconds");
    c->timed[i] = true;
    c->ns[i] = cpu && ev->period > ev->interval ? ev->period : ev->interval;
    c->ncols++;
  }
}

/* N. period_type, period and the default sample type: the first event's. */
static void period(pprof_ctx *c) {
  const prof_event *ev = &prof.opts.events[0];
  bool timed = ev->kind != EV_TRACEPOINT && ev->kind != EV_PERF;
  pp_value_type(&c->p, PP_PERIOD_TYPE, ev->name, timed ? "nanoseconds"
                                                 : ev->kind == EV_PERF ? "events" : "count");
  pb_varint(&c->p.out, PP_PERIOD, c->timed[0] ? c->ns[0] : ev->interval);
  pb_varint(&c->p.out, PP_DEFAULT_SAMPLE_TYPE, (uint64_t)pp_str(&c->p, ev->name));
}

/* N. "pkg.Class.method" -> its file: the class name "pkg.Class". */
static void class_of(const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s", name);
  char *dot = strrchr(buf, '.');
  if (dot) *dot = 0;
}

/* N. The method's name with its JVM signature: "pkg.Class.method(I)V". */
static void system_name(const char *name, void *method, char *buf, size_t len) {
  char sig[512];
  ASGST_MethodInfo mi;
  memset(&mi, 0, sizeof mi);
  mi.signature = sig;
  mi.signature_length = sizeof sig;
  ASGST_GetMethodInfo((ASGST_Method)method, &mi);
  snprintf(buf, len, "%s%s", name, mi.signature && mi.signature_length > 0 ? sig : "");
}

/* N. The location of a recorded frame, made on first sight. */
static uint64_t frame_location(pprof_ctx *c, const prof_frame *f) {
  uint64_t a = (uint64_t)(uintptr_t)f->method;
  uint64_t b = (uint64_t)(uint32_t)f->bci << 16 | (uint64_t)f->type << 8 | (uint8_t)f->comp_level;
  uint32_t id = pp_map_get(&c->p.locs, a, b);
  if (id) return id;
  int sym = prof_sym_frame(f);
  const char *name = prof_sym_name(sym);
  char file[600], sys[1200];
  int64_t line = 0;
  if (prof_sym_type(sym) == FT_KERNEL) {
    snprintf(file, sizeof file, "[kernel.kallsyms]");
    snprintf(sys, sizeof sys, "%s", name);
  } else if (prof_sym_type(sym) == FT_C) {
    Dl_info di;
    bool vm_code = f->bci > 0; /* a blob name id: VM-generated code, no library */
    snprintf(file, sizeof file, "%s", !vm_code && dladdr(f->method, &di) && di.dli_fname
                                          ? di.dli_fname : "");
    snprintf(sys, sizeof sys, "%s", name);
  } else {
    class_of(name, file, sizeof file);
    system_name(name, f->method, sys, sizeof sys);
    line = ASGST_GetMethodLineNumber((ASGST_Method)f->method, f->bci);
    if (line < 0) line = 0;
  }
  return pp_location(&c->p, a, b, pp_function(&c->p, name, sys, file), line);
}

/* N. The location of a synthetic frame (a failed walk's marker). */
static uint64_t marker_location(pprof_ctx *c, const char *label) {
  int sym = prof_sym_named(label, FT_THREAD);
  uint32_t id = pp_map_get(&c->p.locs, (uint64_t)sym, MARKER_KEY);
  if (id) return id;
  return pp_location(&c->p, (uint64_t)sym, MARKER_KEY, pp_function(&c->p, label, label, ""), 0);
}

/* N. One record (r->count samples): its stack leaf first, the marker of a failed walk above it. */
static void add_record(const prof_record *r, const prof_frame *frames, const prof_fdinfo *fdi,
                       void *arg) {
  (void)fdi;
  pprof_ctx *c = arg;
  if (r->event >= prof.opts.nevents) return;
  uint64_t locs[PROF_MAX_FRAMES + 2];
  uint32_t n = 0;
  for (int i = 0; i < r->nframes && i < PROF_MAX_FRAMES; i++)
    locs[n++] = frame_location(c, &frames[i]);
  if (r->walk_result <= 0) {
    char label[96];
    snprintf(label, sizeof label, "[%s%s]", r->nframes ? "truncated: " : "",
             ASGST_ErrorName(r->walk_result));
    locs[n++] = marker_location(c, label);
  } else if (n == 0) {
    locs[n++] = marker_location(c, "[no frames]");
  }
  /* An other thread (JIT, GC, VM, native) under its group's root frame, as in the tree's
   * outputs; with `threads` its thread label says more. */
  char group[96];
  if (!prof.opts.threads && r->keep_tid && prof_thread_group(r->tid, group, sizeof group))
    locs[n++] = marker_location(c, group);
  pp_add_sample(&c->p, locs, n, r->event, prof.opts.threads ? r->tid : 0,
                prof.opts.states ? r->state : -1, r->count);
}

/* N. Sample: location_id 1 (packed), value 2 (packed), label 3 (Label: key 1, str 2). */
static void write_samples(pprof_ctx *c) {
  pb_buf s = {0}, packed = {0}, label = {0};
  for (uint32_t i = 0; i < c->p.nsamples; i++) {
    const pp_sample *sm = &c->p.samples[i];
    pb_clear(&s), pb_clear(&packed);
    for (uint32_t k = 0; k < sm->n; k++) pb_raw_varint(&packed, c->p.pool[sm->off + k]);
    pb_bytes(&s, 1, packed.data, packed.len);
    pb_clear(&packed);
    for (int col = 0; col < c->ncols; col++) {
      int first = c->col[sm->event];
      uint64_t v = col == first ? sm->count
                   : col == first + 1 && c->timed[sm->event] ? sm->count * c->ns[sm->event] : 0;
      pb_raw_varint(&packed, v);
    }
    pb_bytes(&s, 2, packed.data, packed.len);
    if (sm->tid) {
      char name[64], value[96];
      prof_thread_name(sm->tid, name, sizeof name);
      snprintf(value, sizeof value, "%s tid=%d", name, sm->tid);
      pb_clear(&label);
      pb_varint(&label, 1, (uint64_t)pp_str(&c->p, "thread"));
      pb_varint(&label, 2, (uint64_t)pp_str(&c->p, value));
      pb_message(&s, 3, &label);
    }
    if (sm->state >= 0) { /* option states: a label, as the thread's (pprof -tagfocus) */
      pb_clear(&label);
      pb_varint(&label, 1, (uint64_t)pp_str(&c->p, "state"));
      pb_varint(&label, 2, (uint64_t)pp_str(&c->p, prof_tstate_word(sm->state)));
      pb_message(&s, 3, &label);
    }
    pb_message(&c->p.out, PP_SAMPLE, &s);
  }
  pb_free(&s), pb_free(&packed), pb_free(&label);
}

/* N. Writes data gzipped (zlib's gzip wrapper: windowBits 15 + 16). */
static int write_gzip(const uint8_t *data, size_t len, FILE *out) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return -1;
  uLong cap = deflateBound(&z, (uLong)len);
  uint8_t *gz = malloc(cap);
  int rc = -1;
  if (gz) {
    z.next_in = (Bytef *)data, z.avail_in = (uInt)len;
    z.next_out = gz, z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) == Z_STREAM_END && fwrite(gz, 1, z.total_out, out) == z.total_out)
      rc = 0;
  }
  deflateEnd(&z);
  free(gz);
  return rc;
}

/* N. */
static int write_pprof(const prof_dump_view *d, FILE *out) {
  pprof_ctx *c = calloc(1, sizeof *c);
  if (!c) return -1;
  pp_init(&c->p);
  sample_types(c);
  char exe[512];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  pp_mapping(&c->p, exe[0] ? exe : "java");
  prof_samples_each(add_record, c);
  write_samples(c);
  pb_varint(&c->p.out, PP_TIME_NANOS, d->start_ns);
  pb_varint(&c->p.out, PP_DURATION_NANOS, d->end_ns > d->start_ns ? d->end_ns - d->start_ns : 0);
  period(c);
  pb_varint(&c->p.out, PP_COMMENT, (uint64_t)pp_str(&c->p, d->title));
  /* Last: the table holds every string the parts above used. */
  for (uint32_t i = 0; i < c->p.nstrs; i++) pb_string(&c->p.out, PP_STRING, c->p.strs[i]);
  int rc = c->p.out.failed ? -1 : write_gzip(c->p.out.data, c->p.out.len, out);
  pp_free(&c->p);
  free(c);
  return rc == 0 && !ferror(out) ? 0 : -1;
}

const prof_writer prof_pprof_writer = {".pb.gz", write_pprof, false, false};
