/*
 * jfr_writer.c - the .jfr output: a JFR recording of one chunk that the JDK's `jfr` tool
 * and JMC read. Every record of the sample buffer is one event at its own time:
 *  - cpu and cputimer samples: jdk.ExecutionSample, as the JDK's JFR names them;
 *  - wall samples: jdk.NativeMethodSample when the thread's top Java frame is a native
 *    method (the JDK's JFR samples threads in native code so), jdk.ExecutionSample else;
 *  - perf events by name (page-faults, context-switches...): asgst.PerfEventSample (the
 *    event's name);
 *  - tracepoint samples: asgst.Tracepoint (the tracepoint's name); those that caught a
 *    file descriptor (fd/fd_capture.c: event=fds and the fd syscalls' tracepoints)
 *    asgst.FileDescriptor (the tracepoint's name, call, fds, result, path or address).
 * Each with its thread and stack trace (jfr_pools.c), and in every chunk the recording's,
 * its settings', the JVM's and the OS's events (jfr_info.c). Streamed (control/profiler.c,
 * stream.c): the file is a chunk every few seconds, each standing alone (its own constant
 * pools, of what its events reference, and metadata), so memory holds one chunk's
 * samples, not the run's. Times are CLOCK_MONOTONIC
 * nanoseconds as ticks (1e9 a second); the chunk header ties them to the wall clock.
 * The fields of the types are in the JDK's order (async-profiler's converter reads threads,
 * classes, methods and samples by position).
 * While a .jfr output is asked every sample is a record (walk/sample_store.c); samples
 * counted in the call-trace store before one was asked (asgst-attach dump,file=x.jfr)
 * have no time: each is one event at the chunk's start.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "asgst.h"
#include "core/records.h"
#include "core/state.h"
#include "core/thread_state.h"
#include "fd/fd_table.h"
#include "output/jfr_encode.h"
#include "output/jfr_info.h"
#include "output/jfr_pools.h"
#include "output/writer.h"

#define F(n, t) {n, t, false, false, NULL}
#define CP(n, t) {n, t, true, false, NULL}
#define START {"startTime", "long", false, false, "TICKS"}
#define MILLIS(n) {n, "long", false, false, "MILLISECONDS_SINCE_EPOCH"}

static const jfr_field annotation_fields[] = {F("value", "java.lang.String")};
/* Fields in the JDK's order: async-profiler's converter reads some pools by position. */
static const jfr_field thread_fields[] = {F("osName", "java.lang.String"),
                                          F("osThreadId", "long"),
                                          F("javaName", "java.lang.String"),
                                          F("javaThreadId", "long"),
                                          CP("group", "jdk.types.ThreadGroup")};
static const jfr_field group_fields[] = {CP("parent", "jdk.types.ThreadGroup"),
                                         F("name", "java.lang.String")};
static const jfr_field loader_fields[] = {CP("type", "java.lang.Class"),
                                          CP("name", "jdk.types.Symbol")};
static const jfr_field stack_fields[] = {F("truncated", "boolean"),
                                         {"frames", "jdk.types.StackFrame", false, true, false}};
static const jfr_field frame_fields[] = {CP("method", "jdk.types.Method"),
                                         F("lineNumber", "int"), F("bytecodeIndex", "int"),
                                         CP("type", "jdk.types.FrameType")};
static const jfr_field method_fields[] = {CP("type", "java.lang.Class"),
                                          CP("name", "jdk.types.Symbol"),
                                          CP("descriptor", "jdk.types.Symbol"),
                                          F("modifiers", "int"), F("hidden", "boolean")};
static const jfr_field class_fields[] = {CP("classLoader", "jdk.types.ClassLoader"),
                                         CP("name", "jdk.types.Symbol"),
                                         CP("package", "jdk.types.Package"),
                                         F("modifiers", "int"), F("hidden", "boolean")};
static const jfr_field package_fields[] = {CP("name", "jdk.types.Symbol")};
static const jfr_field symbol_fields[] = {F("string", "java.lang.String")};
static const jfr_field description_fields[] = {F("description", "java.lang.String")};
static const jfr_field state_fields[] = {F("name", "java.lang.String")};
static const jfr_field sample_fields[] = {START, CP("sampledThread", "java.lang.Thread"),
                                          CP("stackTrace", "jdk.types.StackTrace"),
                                          CP("state", "jdk.types.ThreadState")};
static const jfr_field tracepoint_fields[] = {START, CP("eventThread", "java.lang.Thread"),
                                              CP("stackTrace", "jdk.types.StackTrace"),
                                              F("name", "java.lang.String")};
static const jfr_field fd_fields[] = {START, CP("eventThread", "java.lang.Thread"),
                                      CP("stackTrace", "jdk.types.StackTrace"),
                                      F("name", "java.lang.String"),
                                      F("call", "java.lang.String"), F("fd", "int"),
                                      F("fd2", "int"), F("result", "long"),
                                      F("target", "java.lang.String")};
static const jfr_field recording_fields[] = {
    START, F("id", "long"), F("name", "java.lang.String"), F("destination", "java.lang.String"),
    F("maxAge", "long"), F("maxSize", "long"), MILLIS("recordingStart"),
    F("recordingDuration", "long")};
static const jfr_field setting_fields[] = {START, F("id", "long"), F("name", "java.lang.String"),
                                           F("value", "java.lang.String")};
static const jfr_field jvm_fields[] = {
    START, F("jvmName", "java.lang.String"), F("jvmVersion", "java.lang.String"),
    F("jvmArguments", "java.lang.String"), F("jvmFlags", "java.lang.String"),
    F("javaArguments", "java.lang.String"), MILLIS("jvmStartTime"), F("pid", "long")};
static const jfr_field os_fields[] = {START, F("osVersion", "java.lang.String")};

#define FIELDS(a) a, (int)(sizeof a / sizeof a[0])
#define ANNOTATION "java.lang.annotation.Annotation"
#define EVENT "jdk.jfr.Event"
static const jfr_type types[] = {
    {T_LONG, "long", NULL, NULL, NULL, 0, false},
    {T_INT, "int", NULL, NULL, NULL, 0, false},
    {T_BOOLEAN, "boolean", NULL, NULL, NULL, 0, false},
    {T_STRING, "java.lang.String", NULL, NULL, NULL, 0, false},
    {T_LABEL, "jdk.jfr.Label", ANNOTATION, NULL, FIELDS(annotation_fields), false},
    {T_TIMESTAMP, "jdk.jfr.Timestamp", ANNOTATION, NULL, FIELDS(annotation_fields), false},
    {T_THREAD, "java.lang.Thread", NULL, "Thread", FIELDS(thread_fields), false},
    {T_STACK_TRACE, "jdk.types.StackTrace", NULL, "Stacktrace", FIELDS(stack_fields), false},
    {T_STACK_FRAME, "jdk.types.StackFrame", NULL, NULL, FIELDS(frame_fields), false},
    {T_METHOD, "jdk.types.Method", NULL, "Java Method", FIELDS(method_fields), false},
    {T_CLASS, "java.lang.Class", NULL, "Java Class", FIELDS(class_fields), false},
    {T_PACKAGE, "jdk.types.Package", NULL, "Package", FIELDS(package_fields), false},
    {T_SYMBOL, "jdk.types.Symbol", NULL, "Symbol", FIELDS(symbol_fields), true},
    {T_FRAME_TYPE, "jdk.types.FrameType", NULL, "Frame type", FIELDS(description_fields), true},
    {T_THREAD_STATE, "jdk.types.ThreadState", NULL, "Java Thread State", FIELDS(state_fields),
     true},
    {T_EXECUTION_SAMPLE, "jdk.ExecutionSample", EVENT, "Method Profiling Sample",
     FIELDS(sample_fields), false},
    {T_NATIVE_METHOD_SAMPLE, "jdk.NativeMethodSample", EVENT, "Method Profiling Sample Native",
     FIELDS(sample_fields), false},
    {T_TRACEPOINT, "asgst.Tracepoint", EVENT, "Tracepoint", FIELDS(tracepoint_fields), false},
    {T_PERF_SAMPLE, "asgst.PerfEventSample", EVENT, "Perf Event Sample",
     FIELDS(tracepoint_fields), false},
    {T_FILE_DESCRIPTOR, "asgst.FileDescriptor", EVENT, "File Descriptor", FIELDS(fd_fields), false},
    {T_THREAD_GROUP, "jdk.types.ThreadGroup", NULL, "Thread Group", FIELDS(group_fields), false},
    {T_CLASS_LOADER, "jdk.types.ClassLoader", NULL, "Java Class Loader", FIELDS(loader_fields),
     false},
    {T_ACTIVE_RECORDING, "jdk.ActiveRecording", EVENT, "Flight Recording",
     FIELDS(recording_fields), false},
    {T_ACTIVE_SETTING, "jdk.ActiveSetting", EVENT, "Recording Setting", FIELDS(setting_fields),
     false},
    {T_JVM_INFO, "jdk.JVMInformation", EVENT, "JVM Information", FIELDS(jvm_fields), false},
    {T_OS_INFO, "jdk.OSInformation", EVENT, "OS Information", FIELDS(os_fields), false},
};

typedef struct {
  jfr_buf out;
  jfr_pools pools;
  bool streamed;        /* samples written to earlier chunks are counts or marked records */
  uint64_t first_ticks; /* the earliest record's time, UINT64_MAX before any */
  bool counted;         /* samples without a time (from the call-trace store) were met */
} jfr_ctx;

/* N. The event type of a record (see the top of the file). */
static enum jfr_type_id event_type(const prof_record *r, const prof_frame *frames,
                                   const prof_fdinfo *fdi) {
  const prof_event *ev = &prof.opts.events[r->event];
  if (fdi) return T_FILE_DESCRIPTOR;
  if (ev->kind == EV_TRACEPOINT) return T_TRACEPOINT;
  if (ev->kind == EV_PERF) return T_PERF_SAMPLE;
  if (ev->kind != EV_WALL) return T_EXECUTION_SAMPLE;
  for (int i = 0; i < r->nframes; i++)
    if (prof_frame_is_java(&frames[i]))
      return frames[i].type == ASGST_FRAME_JAVA_NATIVE ? T_NATIVE_METHOD_SAMPLE
                                                       : T_EXECUTION_SAMPLE;
  return T_EXECUTION_SAMPLE;
}

/* N. The fields of an fd event after its stack trace: the call, its fds, its result, and
 * the path it opened or the address it bound, connected to or accepted from. */
static void fd_fields_of(jfr_buf *b, const prof_event *ev, const prof_fdinfo *fdi) {
  char target[PROF_ADDR_MAX * 2] = "";
  bool path = ev->fd_call == FDC_PATH_ARG0 || ev->fd_call == FDC_PATH_ARG1;
  if (path)
    snprintf(target, sizeof target, "%.*s", (int)fdi->addrlen, (const char *)fdi->addr);
  else if (fdi->addrlen)
    fd_format_addr(fdi->addr, fdi->addrlen, target, sizeof target);
  jfr_put_string(b, ev->syscall[0] ? ev->syscall : ev->name);
  jfr_put_int(b, fdi->fd[0]);
  jfr_put_int(b, fdi->fd[1]);
  jfr_put_varint(b, (uint64_t)fdi->ret);
  jfr_put_string(b, target);
}

/* N. The event of a sample at time ticks. */
static void put_event(jfr_ctx *c, const prof_record *r, const prof_frame *frames,
                      const prof_fdinfo *fdi, uint64_t ticks) {
  const prof_event *ev = &prof.opts.events[r->event];
  enum jfr_type_id t = event_type(r, frames, fdi);
  bool truncated = r->walk_result <= 0 || r->nframes >= PROF_MAX_FRAMES;
  uint32_t thread = jfr_pool_thread(&c->pools, r->tid);
  uint32_t stack = jfr_pool_stack(&c->pools, frames, r->nframes, truncated);

  size_t start = jfr_event_begin(&c->out, t, ticks);
  jfr_put_varint(&c->out, thread);
  jfr_put_varint(&c->out, stack);
  /* The thread's state at the sample (core/thread_state.h's ids are the constants'). */
  if (t == T_EXECUTION_SAMPLE || t == T_NATIVE_METHOD_SAMPLE) {
    bool known = r->state != TS_UNKNOWN && r->state < TS_COUNT;
    jfr_put_varint(&c->out, known ? r->state : JFR_STATE_RUNNABLE);
  }
  if (t == T_TRACEPOINT || t == T_FILE_DESCRIPTOR || t == T_PERF_SAMPLE)
    jfr_put_string(&c->out, ev->name);
  if (t == T_FILE_DESCRIPTOR) fd_fields_of(&c->out, ev, fdi);
  jfr_event_end(&c->out, start);
}

/* N. One record, an event at its time for each sample it stands for (walk=queue folds
 * repeated samples into one record); samples without a time are left for add_counted. */
static void add_event(const prof_record *r, const prof_frame *frames, const prof_fdinfo *fdi,
                      void *arg) {
  jfr_ctx *c = arg;
  if (c->streamed && (r->streamed || !r->time_ns)) return; /* in an earlier chunk */
  if (!r->time_ns) {
    c->counted = true;
    return;
  }
  if (r->time_ns < c->first_ticks) c->first_ticks = r->time_ns;
  for (uint64_t i = 0; i < r->count; i++) put_event(c, r, frames, fdi, r->time_ns);
}

/* N. A key of the call-trace store: one event per sample, at the chunk's start. */
static void add_counted(const prof_record *r, const prof_frame *frames,
                        const prof_fdinfo *fdi, void *arg) {
  jfr_ctx *c = arg;
  if (r->time_ns) return;
  for (uint64_t i = 0; i < r->count; i++) put_event(c, r, frames, fdi, c->first_ticks);
}

/* N. */
static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N. A chunk: events, then the checkpoint and the metadata, then the header that points
 * at them. It starts at its earliest record (or now, if there is none). Streamed (d):
 * one chunk of the samples since the last, the final one or not; else the whole
 * recording, one chunk. */
/* The constant pools of a streamed file, kept from chunk to chunk: every chunk writes them
 * whole, so a constant keeps its id across the file's chunks. Readers may keep constants
 * of an earlier chunk by id (JDK 21's jfr print then took a method name for another
 * method's descriptor, with fresh ids in every chunk). Freed with the final chunk. */
static jfr_pools stream_pools;

static int write_jfr(const prof_dump_view *d, FILE *out) {
  jfr_ctx c = {.first_ticks = UINT64_MAX, .streamed = d->streamed};
  if (d->streamed) c.pools = stream_pools;
  jfr_header_reserve(&c.out);
  prof_samples_each(add_event, &c);
  uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
  if (c.first_ticks > mono) c.first_ticks = mono;
  if (c.counted) prof_samples_each(add_counted, &c);
  jfr_times t = {.start_ticks = c.first_ticks, .ticks_per_second = 1000000000u,
                 .duration_nanos = mono - c.first_ticks,
                 .start_nanos = real - (mono - c.first_ticks)};
  uint64_t rec_start = d->start_ns ? d->start_ns : t.start_nanos;
  jfr_info_events(&c.out, t.start_ticks, rec_start / 1000000,
                  real > rec_start ? real - rec_start : 0);
  size_t cp = c.out.len;
  jfr_pools_write(&c.pools, &c.out, t.start_ticks);
  size_t meta = c.out.len;
  jfr_write_metadata(&c.out, types, (int)(sizeof types / sizeof types[0]), t.start_ticks);
  jfr_header_finish(&c.out, &t, cp, meta, d->final_chunk || !d->streamed);
  bool whole = fwrite(c.out.data, 1, c.out.len, out) == c.out.len;
  if (d->streamed && !d->final_chunk) {
    stream_pools = c.pools;
  } else {
    jfr_pools_free(&c.pools);
    memset(&stream_pools, 0, sizeof stream_pools);
  }
  jfr_buf_free(&c.out);
  return whole && !ferror(out) ? 0 : -1;
}

const prof_writer prof_jfr_writer = {".jfr", write_jfr, true, true};
