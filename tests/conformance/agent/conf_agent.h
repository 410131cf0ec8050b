/*
 * conf_agent.h - the conformance test agent's shared state and helpers. The agent is a
 * JVMTI agent loaded with -agentpath:libconformance_agent.so=impl=PATH,run=LABEL; it
 * dlopens the implementation under test, and the Java workload (tests/conformance/java)
 * calls conf.Native.probe(what) at the places where the checks must run.
 */
#ifndef ASGST_CONF_AGENT_H
#define ASGST_CONF_AGENT_H

#include <jvmti.h>
#include <stdbool.h>

#include "../api_table.h"
#include "../points.h"

/* What the Java workload asks for (conf.Native's constants). */
enum {
  PROBE_NOTHING = 0,   /* warm-up call: returns at once */
  PROBE_STACK = 1,     /* the stack checks, called from conf.Chain */
  PROBE_SPINNER = 2,   /* the calling thread is the spinner: record its id, then it spins */
  PROBE_SIGNALS = 3,   /* sample the spinner with signals; walk it from outside */
  PROBE_THREADS = 4,   /* a thread unknown to the VM; thread state */
  PROBE_INFO = 5,      /* error inputs, extensions, capabilities */
  PROBE_UNLOADED = 6,  /* 1 once the unload handlers saw the noted class */
  PROBE_QUEUE = 7,     /* the queue checks that need no safe point; enqueue two elements */
  PROBE_QUEUE_DONE = 8,/* 1 once the two elements were processed, or when there is no queue */
  PROBE_FINISH = 9,    /* print the results */
  PROBE_QUEUE_FILLED = 10, /* 1 once the queue holds its elements, or when there is no queue */
};

enum { MAXF = 128 };

/* One walk's result. */
typedef struct {
  ASGST_Frame f[MAXF];
  int n;      /* frames read */
  int kind;   /* RunWithIterator's return */
  int end;    /* NextFrame's last return (0 end, < 0 error) */
  int calls;  /* how often fun ran */
  int states_ok; /* State() was 1 before every frame */
  int end_state; /* State() after the last NextFrame */
} conf_trace;

/* A method as text, for comparing ASGST with JVMTI. */
typedef struct {
  char cls[128], name[96], sig[160];
  int bci;
} conf_name;

extern conf_api api;
extern jvmtiEnv *jvmti;
extern char run_label[16];

/* report.c */
void point_pass(int id);
void point_fail(int id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void point_skip(int id, const char *reason);
bool point_need(int id, const void *fn, const char *name);
void point_check_code(int code, const char *where);
void points_print(void);
#define NEED(id, fn) point_need(CONF_##id, (const void *)(uintptr_t)api.fn, #fn)

/* trace.c */
void trace_collect(ASGST_Iterator *it, void *arg);
int trace_here(conf_trace *t, int options);
bool frame_is_java(const ASGST_Frame *f);
int trace_java(const conf_trace *t, const ASGST_Frame **out, int max);
void name_of_method(ASGST_Method m, int bci, conf_name *out);
int jvmti_stack(jthread thread, conf_name *out, jmethodID *ids, int max);
bool names_equal(const conf_name *a, const conf_name *b);
int find_method(const conf_trace *t, const char *name, int from);

/* check_*.c */
void check_stack(JNIEnv *env);
void check_stack_finish(void);
void check_info_frames(JNIEnv *env, const conf_trace *t);
void check_errors_and_extensions(void);
void spinner_register(void);
void check_signals(JNIEnv *env);
void check_threads(void);
void unload_note(JNIEnv *env, jclass c);
int unload_poll(bool final);
void check_queue(void);
int queue_poll(bool final);
int queue_filled(void);

#endif
