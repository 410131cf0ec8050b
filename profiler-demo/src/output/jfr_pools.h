/*
 * jfr_pools.h - the constant pools of a JFR recording (jfr_pools.c): threads and stack
 * traces are interned as events are written; at the chunk's end, one checkpoint event
 * holds them and what they reference (methods, classes, packages, symbols, frame types,
 * thread states, thread groups), resolved then with the ASGST accessors and the demo's
 * symbol table. Each chunk has pools of its own (jfr_writer.c).
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_JFR_POOLS_H
#define ASGSTPROF_OUTPUT_JFR_POOLS_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/records.h"
#include "output/jfr_encode.h"

/* Type ids of the metadata (jfr_writer.c's table); 0 and 1 are the metadata and the
 * checkpoint events'. */
enum jfr_type_id {
  T_LONG = 20, T_INT, T_BOOLEAN, T_STRING, T_LABEL, T_TIMESTAMP,
  T_THREAD, T_STACK_TRACE, T_STACK_FRAME, T_METHOD, T_CLASS, T_PACKAGE, T_SYMBOL,
  T_FRAME_TYPE, T_THREAD_STATE,
  T_EXECUTION_SAMPLE, T_NATIVE_METHOD_SAMPLE, T_TRACEPOINT, T_FILE_DESCRIPTOR,
  T_THREAD_GROUP, T_CLASS_LOADER, T_ACTIVE_RECORDING, T_ACTIVE_SETTING, T_JVM_INFO, T_OS_INFO,
  T_PERF_SAMPLE
};

/* The thread state of a sample whose state is not known (the JDK's name for a running
 * thread); the others are core/thread_state.h's ids. */
#define JFR_STATE_RUNNABLE 1

typedef struct {
  jfr_map threads;  /* key: the tid */
  jfr_map stacks;   /* key: truncated byte, then the prof_frames, top first */
  jfr_map methods;  /* key: 'J' and the ASGST_Method, or 'C' and the C frame's name */
  jfr_map classes;  /* key: modifiers (4 bytes), then the class name ("pkg/Name") */
  jfr_map packages; /* key: the package name (dotted) */
  jfr_map symbols;  /* key: the string */
  jfr_map groups;   /* key: the thread group's name */
} jfr_pools;

/* N. The pool key of tid's java.lang.Thread. */
uint32_t jfr_pool_thread(jfr_pools *p, pid_t tid);
/* N. The pool key of the stack trace of frames[0..n) (top first). */
uint32_t jfr_pool_stack(jfr_pools *p, const prof_frame *frames, int n, bool truncated);
/* N. The checkpoint event with every pool, at time ticks. */
void jfr_pools_write(jfr_pools *p, jfr_buf *b, uint64_t ticks);
void jfr_pools_free(jfr_pools *p); /* N */

#endif /* ASGSTPROF_OUTPUT_JFR_POOLS_H */
