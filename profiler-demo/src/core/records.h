/*
 * records.h - the samples of a run: what a walk leaves in the lock-free sample buffer
 * (sample_buffer.c) as a record of its own, or counts in the period's call-trace store
 * (trace_store.c) under its key, from signal handlers and walkers; read at dump time by
 * the outputs and the fd report, both kinds through one callback (prof_samples_each).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_RECORDS_H
#define ASGSTPROF_CORE_RECORDS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/options.h"
#include "core/time_hist.h"

/* A frame's type beyond ASGST's (enum ASGST_FrameTypeId, 1-4): a kernel frame of a perf
 * event's callchain (sampling/kernel_chain.c), its method the kernel address. */
#define PROF_FRAME_KERNEL 5

typedef struct {
  void *method; /* ASGST_Method, or the pc for a C or kernel frame */
  int32_t bci;  /* a C frame's: the id of its VM code blob's name (core/blob_names.h),
                   -1 for C code of a library */
  uint8_t type; /* enum ASGST_FrameTypeId */
  int8_t comp_level;
  uint16_t pad;
} prof_frame;

/* SS. A Java frame (interpreted, compiled, inlined or a native method's), as opposed to C
 * and kernel frames. */
static inline bool prof_frame_is_java(const prof_frame *f) {
  return f->type >= 1 && f->type <= 3; /* ASGST_FRAME_JAVA .. ASGST_FRAME_JAVA_NATIVE */
}

/* File descriptors a traced syscall produced or used, filled in the handler
 * (fd/fd_capture.c). */
typedef struct {
  int32_t fd[2];     /* -1 if absent */
  uint64_t ino[2];   /* inode at creation time, to recognise the same open file later */
  uint64_t time_ns;  /* CLOCK_REALTIME when the call returned */
  int64_t ret;       /* the syscall's result */
  int64_t args[2];   /* socket: domain, type; accept: the listening fd */
  uint16_t addrlen;  /* bytes of addr: a sockaddr (bind, connect, accept's peer) or a path */
  uint16_t locallen; /* bytes of local: the socket's own address after bind, connect, accept */
  uint8_t addr[PROF_ADDR_MAX];
  uint8_t local[112]; /* the port the kernel picked for port 0 or an outgoing connection */
} prof_fdinfo;

typedef struct {
  _Atomic uint32_t size; /* total record size; written last (0: not committed) */
  uint16_t event;
  uint16_t nframes;
  int32_t tid;
  int32_t walk_result;   /* ASGST_RunWithIterator's result */
  uint32_t walk_ns;     /* the walk's own time, wherever it ran */
  uint8_t has_fdinfo;
  uint8_t streamed;     /* already written to a streamed output's file (a JFR chunk):
                           kept past its chunk only for the fd report (prof_buffer_fold) */
  uint8_t keep_tid;     /* a sample of a thread that is not a Java thread: its tid stays
                           part of its key in the call-trace store whatever `threads` says,
                           so outputs can group it under its thread's kind */
  uint8_t state;        /* enum prof_tstate (core/thread_state.h): the thread's at the event */
  uint64_t seq;
  uint32_t lag_ns;      /* from the handler's entry (the event) to the walk's start */
  uint32_t pad2;
  uint64_t time_ns;     /* CLOCK_MONOTONIC at the event (the handler's entry), for outputs
                           that keep each sample's time (JFR) */
  uint64_t count;       /* samples it stands for: the walk's weight for a record of the
                           buffer (1 unless walk=queue folded samples into it), the key's
                           count for one made from the call-trace store (whose seq, times
                           are 0 and which has no fd info). Given to append/count as the
                           weight, 0 read as 1. */
  /* prof_frame frames[nframes]; then prof_fdinfo if has_fdinfo */
} prof_record;

/* What readers are called with for every sample record (fdi NULL if none). */
typedef void (*prof_sample_fn)(const prof_record *r, const prof_frame *frames,
                               const prof_fdinfo *fdi, void *arg);

/* N. Maps the buffer (bytes of address space, touched lazily). 0 or -1. */
int prof_buffer_init(size_t bytes);
/* N. Forgets every record and stored trace (profiling restart). */
void prof_buffer_reset(void);
/* SS. Appends a record (of hdr->count samples, 0 read as 1); false if the buffer is full
 * (counted as lost by the caller). */
bool prof_buffer_append(const prof_record *hdr, const prof_frame *frames,
                        const prof_fdinfo *fdi);
/* SS. Counts a sample (hdr->count samples, 0 read as 1) in the current period's call-trace
 * store under its key (tid part of it if by_thread); false if its key is new and the store is full (counted as lost by the
 * caller). */
bool prof_buffer_count(const prof_record *hdr, const prof_frame *frames, bool by_thread);
/* N. Starts a new period (loop=): appends go to the other buffer from now on, and
 * prof_buffer_each reads the ended period's records alone (none is still being written)
 * until prof_buffer_rotated. 0, or -1 if the other buffer cannot be mapped. */
int prof_buffer_rotate(void);
/* N. The ended period is written: its records are dropped, prof_buffer_each reads the
 * current period again. */
void prof_buffer_rotated(void);
/* N. After a streamed output wrote the ended period (prof_buffer_rotate) as a chunk:
 * its samples become counts in the current period's call-trace store (records with fd
 * info are appended again, marked streamed, for the fd report), its walk and lag times
 * are added to the current period's; prof_buffer_rotated then gives its pages back.
 * by_thread: the store's keys hold the thread (prof_buffer_count's). So
 * the tree-based outputs still count every sample, and memory is the distinct stacks. */
void prof_buffer_fold(bool by_thread);
/* N. Bytes of records in the current period's buffer. */
size_t prof_buffer_used(void);
/* N. Calls fn for every committed record, oldest first. */
void prof_buffer_each(prof_sample_fn fn, void *arg);
/* N. Calls fn for every sample of the period read (as prof_buffer_each): the buffer's
 * records (count: their weight), then one made for each key of the call-trace store (count: its
 * samples). Readers add r->count, never 1. */
void prof_samples_each(prof_sample_fn fn, void *arg);

/* What the period read holds besides its records: its call-trace store, and the walk and
 * lag times of all its samples (records and counted alike). */
typedef struct {
  size_t traces, max_traces;          /* distinct keys in the store, and room for */
  size_t arena_bytes, max_arena_bytes; /* their frames' bytes, and room for */
  const prof_hist *walk_ns;
  const prof_hist *lag_ns;
} prof_period_figures;

/* N. */
void prof_buffer_figures(prof_period_figures *f);

#endif /* ASGSTPROF_CORE_RECORDS_H */
