/*
 * check_threads.c - walks of other threads and of threads in other states: a Java thread
 * spinning in conf.Spinner.spinLoop sampled with SIGPROF (I12, I13) and walked with the
 * out-of-thread extension (X02), the thread state of a Java thread in native (I09), and a
 * thread the VM does not know (I10, I11).
 */
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf_agent.h"

enum { NSAMPLES = 20 };

static atomic_int spinner_tid;
static atomic_int pending = -1; /* the slot the next signal fills */
static conf_trace samples[NSAMPLES];
static atomic_int sample_done[NSAMPLES];

/* SS. The SIGPROF handler: walks the spinner from the interrupted context. */
static void on_sigprof(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int k = atomic_load(&pending);
  if (k < 0 || (int)syscall(SYS_gettid) != atomic_load(&spinner_tid)) return;
  conf_trace *t = &samples[k];
  t->end = 1;
  t->kind = api.RunWithIterator(uc, 0, trace_collect, t);
  atomic_store(&pending, -1);
  atomic_store(&sample_done[k], 1);
}

/* N. Called by the spinner thread before it starts spinning. */
void spinner_register(void) {
  atomic_store(&spinner_tid, (int)syscall(SYS_gettid));
}

/* N. */
static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* N. Whether t shows spinLoop with Spinner.run below it. */
static bool shows_spinner(const conf_trace *t) {
  int s = find_method(t, "spinLoop", 0);
  return t->kind == ASGST_JAVA_TRACE && s >= 0 && find_method(t, "run", s + 1) > s;
}

/* N. I12 and I13: NSAMPLES signals, each waited for (up to 500 ms: the machine is shared);
 * at least half of the answered walks, and at least 5, must show the spinner's stack (a
 * walk may legitimately fail in a state the implementation cannot walk). */
static void sample_spinner(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  int answered = 0, good = 0, first_bad = 1;
  for (int k = 0; k < NSAMPLES; k++) {
    atomic_store(&pending, k);
    syscall(SYS_tgkill, getpid(), atomic_load(&spinner_tid), SIGPROF);
    for (int w = 0; w < 500 && !atomic_load(&sample_done[k]); w++) sleep_ms(1);
    atomic_store(&pending, -1);
    if (!atomic_load(&sample_done[k])) continue;
    answered++;
    point_check_code(samples[k].kind, "RunWithIterator in a signal handler");
    if (samples[k].end < 0) point_check_code(samples[k].end, "NextFrame in a signal handler");
    if (shows_spinner(&samples[k])) good++;
    else if (first_bad == 1) first_bad = samples[k].kind;
    sleep_ms(2);
  }
  if (answered >= 5 && good * 2 >= answered)
    point_pass(CONF_I12);
  else
    point_fail(CONF_I12, "%d of %d signals answered, %d walks show spinLoop <- run (first other kind %d)",
               answered, NSAMPLES, good, first_bad);
}

/* N. X02: three tries (the spinner may be in a state the walk refuses), and a thread id
 * that does not exist. */
static void walk_spinner_from_outside(void) {
  if (!api.RunWithIteratorOnThread) {
    point_skip(CONF_X02, "ASGST_RunWithIteratorOnThread is not exported (extension)");
    return;
  }
  static conf_trace t;
  bool good = false;
  for (int i = 0; i < 3 && !good; i++) {
    memset(&t, 0, sizeof t);
    t.kind = api.RunWithIteratorOnThread(atomic_load(&spinner_tid), 0, 200000, trace_collect, &t);
    point_check_code(t.kind, "RunWithIteratorOnThread");
    good = shows_spinner(&t);
  }
  int bad = api.RunWithIteratorOnThread(0x7ffffff0, 0, 200000, trace_collect, &t);
  if (good && bad < 0)
    point_pass(CONF_X02);
  else
    point_fail(CONF_X02, "walk of the spinner: kind %d, %d frames; unknown thread id: %d", t.kind, t.n, bad);
}

/* N. PROBE_SIGNALS. */
void check_signals(JNIEnv *env) {
  (void)env;
  if (!NEED(I12, RunWithIterator)) return;
  if (atomic_load(&spinner_tid) == 0) {
    point_fail(CONF_I12, "the spinner thread did not register");
    return;
  }
  sample_spinner();
  walk_spinner_from_outside();
}

typedef struct {
  conf_trace plain, full;
  int state;
} unknown_ctx;

/* N. A thread the VM does not know walks itself. */
static void *unknown_thread(void *arg) {
  unknown_ctx *c = arg;
  trace_here(&c->plain, 0);
  trace_here(&c->full, ASGST_INCLUDE_NON_JAVA_FRAMES);
  c->state = api.ThreadState();
  return NULL;
}

/* N. I09 on the calling Java thread (in native), I10 and I11 on a new pthread. */
void check_threads(void) {
  if (NEED(I09, ThreadState)) {
    jint js = 0;
    (*jvmti)->GetThreadState(jvmti, NULL, &js);
    int st = api.ThreadState();
    /* JVMTI reports the current thread as in the VM while it runs GetThreadState, so it
     * never shows IN_NATIVE for the caller; the thread is in native all the same. */
    int allowed = js | JVMTI_THREAD_STATE_IN_NATIVE;
    if (st > 0 && (st & JVMTI_THREAD_STATE_ALIVE) && (st & ~allowed) == 0) point_pass(CONF_I09);
    else point_fail(CONF_I09, "ThreadState 0x%x, JVMTI 0x%x", (unsigned)st, (unsigned)js);
  }
  if (!NEED(I10, RunWithIterator) || !NEED(I10, ThreadState)) return;
  static unknown_ctx c;
  pthread_t t;
  if (pthread_create(&t, NULL, unknown_thread, &c) != 0) return;
  pthread_join(t, NULL);
  int javas = 0;
  for (int i = 0; i < c.plain.n; i++) javas += frame_is_java(&c.plain.f[i]);
  if ((c.plain.kind == ASGST_NON_JAVA_TRACE || c.plain.kind == ASGST_NO_THREAD) && javas == 0 && c.state == 0)
    point_pass(CONF_I10);
  else
    point_fail(CONF_I10, "kind %d, %d Java frames, ThreadState %d", c.plain.kind, javas, c.state);
  int cframes = 0;
  for (int i = 0; i < c.full.n; i++) cframes += c.full.f[i].type == ASGST_FRAME_NON_JAVA;
  if (c.full.kind == ASGST_NON_JAVA_TRACE && cframes > 0 && cframes == c.full.n)
    point_pass(CONF_I11);
  else
    point_fail(CONF_I11, "kind %d, %d frames of which %d C frames", c.full.kind, c.full.n, cframes);
}
