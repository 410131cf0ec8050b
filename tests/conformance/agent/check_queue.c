/*
 * check_queue.c - safepoint queues (E03, Q01-Q04), only where ASGST_Capabilities offers
 * ASGST_REGISTER_QUEUE; without it, E03 checks that the queue functions fail cleanly.
 * An implementation may process a queue as soon as its owner is at a safe point, and a
 * thread in native code (inside conf.Native.probe) already is one. So the elements are
 * enqueued where no processing can start: in a signal handler that interrupted the main
 * thread while it spins in Java (conf.Workload.queueRound), sent by a helper thread until
 * one lands there. The main thread then polls (sleeping) until its queue was processed.
 */
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conf_agent.h"

static ASGST_Queue *queue;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[64];  /* "S", element args, "E" in the order the hooks ran */
static int element_states_ok = 1;
static int queue_arg;
static atomic_int owner_tid, filled;

/* SP. Appends to the processing log. */
static void log_event(const char *what) {
  pthread_mutex_lock(&lock);
  if (strlen(log_text) + strlen(what) + 2 < sizeof log_text) {
    strcat(log_text, what);
    strcat(log_text, " ");
  }
  pthread_mutex_unlock(&lock);
}

/* SP. The element handler: its iterator starts at the element's frame, or reports a
 * documented error when that frame has gone (the owner has left probe by now). */
static void on_element(ASGST_Iterator *it, void *qarg, void *earg) {
  char buf[24];
  int s = api.State(it);
  if (qarg != &queue_arg || s == 0 || (s < 0 && s >= -16 && s < -7)) element_states_ok = 0;
  snprintf(buf, sizeof buf, "%d", (int)(intptr_t)earg);
  log_event(buf);
}

/* SP. */
static void on_start(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  (void)q, (void)it, (void)arg;
  log_event("S");
}

/* SP. */
static void on_end(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  (void)q, (void)it, (void)arg;
  log_event("E");
}

/* N. Without the capability: registration fails and enqueueing is an error. */
static void check_absent_capability(void) {
  ASGST_Queue *q = api.RegisterQueue ? api.RegisterQueue(NULL, 4, 0, on_element, NULL) : NULL;
  int rc = api.Enqueue ? api.Enqueue(NULL, NULL, NULL) : -1;
  if (q == NULL && rc < 0) point_pass(CONF_E03);
  else point_fail(CONF_E03, "no queue capability, yet RegisterQueue gave %p, Enqueue %d", (void *)q, rc);
  const char *why = "the implementation does not offer ASGST_REGISTER_QUEUE";
  point_skip(CONF_Q01, why);
  point_skip(CONF_Q02, why);
  point_skip(CONF_Q03, why);
  point_skip(CONF_Q04, why);
}

/* SS. Q01, Q02, Q04 on a queue of capacity 2 owned by this thread, from the signal
 * context uc (point_pass/point_fail only store results). */
static void fill_queue(void *uc) {
  int r1 = api.Enqueue(queue, uc, (void *)1), r2 = api.Enqueue(queue, uc, (void *)2);
  ASGST_QueueSizeInfo s2 = api.GetQueueSizeInfo(queue);
  ASGST_QueueElement *old = api.GetQueueElement(queue, 0), *young = api.GetQueueElement(queue, -1);
  bool ok = r1 == ASGST_JAVA_TRACE && r2 == ASGST_JAVA_TRACE && old && young && old->arg == (void *)1 &&
            young->arg == (void *)2 && api.GetQueueElement(queue, 1) == young &&
            !api.GetQueueElement(queue, 2) && !api.GetQueueElement(queue, -3) &&
            s2.size == 2 && s2.capacity == 2 && s2.attempts == 2;
  if (ok) point_pass(CONF_Q01);
  else point_fail(CONF_Q01, "enqueue %d %d, size %d capacity %d attempts %d", r1, r2, s2.size, s2.capacity, s2.attempts);
  int r3 = api.Enqueue(queue, NULL, (void *)3);
  ASGST_QueueSizeInfo s3 = api.GetQueueSizeInfo(queue);
  if (r3 == ASGST_ENQUEUE_FULL_QUEUE && s3.size == 2 && s3.attempts == 3) point_pass(CONF_Q02);
  else point_fail(CONF_Q02, "third enqueue %d, size %d attempts %d", r3, s3.size, s3.attempts);
  ASGST_QueueElement e;
  memset(&e, 0xff, sizeof e);
  int r = api.GetEnqueuableElement(uc, &e);
  if (r > 0 && young && e.arg == NULL && e.pc == young->pc && e.sp == young->sp && e.fp == young->fp)
    point_pass(CONF_Q04);
  else
    point_fail(CONF_Q04, "returned %d, arg %p, same frame as element -1: %d", r, e.arg,
               young && e.pc == young->pc && e.sp == young->sp && e.fp == young->fp);
  if (young) young->arg = (void *)22; /* queue compression: the handler must see 22 */
}

/* SS. The helper's signal: fills the queue once the owner was interrupted running Java
 * code (not in native code or blocked, where processing could start at once). */
static void on_kick(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int st = api.ThreadState ? api.ThreadState() : 0;
  bool in_java = (st & JVMTI_THREAD_STATE_RUNNABLE) && !(st & JVMTI_THREAD_STATE_IN_NATIVE);
  if (atomic_load(&filled) || !in_java) return;
  fill_queue(uc);
  atomic_store(&filled, 1);
}

/* N. Signals the owner every millisecond (for 3 s at most) until its queue is filled. */
static void *kicker(void *arg) {
  (void)arg;
  for (int i = 0; i < 3000 && !atomic_load(&filled); i++) {
    syscall(SYS_tgkill, getpid(), atomic_load(&owner_tid), SIGUSR2);
    usleep(1000);
  }
  return NULL;
}

/* N. PROBE_QUEUE. */
void check_queue(void) {
  if (!NEED(E03, Capabilities)) return;
  if (!(api.Capabilities() & ASGST_REGISTER_QUEUE)) {
    check_absent_capability();
    return;
  }
  int rc = api.Enqueue(NULL, NULL, NULL);
  if (rc == ASGST_ENQUEUE_NO_QUEUE) point_pass(CONF_E03);
  else point_fail(CONF_E03, "Enqueue(NULL) returned %d", rc);
  queue = api.RegisterQueue(NULL, 2, 0, on_element, &queue_arg);
  if (!queue) {
    point_fail(CONF_Q01, "RegisterQueue failed");
    return;
  }
  api.SetOnQueueProcessingStart(queue, 0, false, on_start, NULL);
  api.SetOnQueueProcessingEnd(queue, 0, false, on_end, NULL);
  atomic_store(&owner_tid, (int)syscall(SYS_gettid));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_kick;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGUSR2, &sa, NULL);
  pthread_t t;
  if (pthread_create(&t, NULL, kicker, NULL) == 0) pthread_detach(t);
}

/* N. PROBE_QUEUE_FILLED: the owner spins in Java until then. Without a queue (no
 * capability, or RegisterQueue failed) nothing will fill, so it need not spin. */
int queue_filled(void) {
  return !queue || atomic_load(&filled);
}

/* N. PROBE_QUEUE_DONE: 1 once the end hook ran (or at once without a queue: nothing to
 * wait for). With `final`, decides Q03. */
int queue_poll(bool final) {
  pthread_mutex_lock(&lock);
  char seen[64];
  snprintf(seen, sizeof seen, "%s", log_text);
  pthread_mutex_unlock(&lock);
  int done = strstr(seen, "E") != NULL;
  if (!final) return done || !queue;
  if (!queue) return done;
  if (!atomic_load(&filled)) {
    point_fail(CONF_Q01, "no signal reached the owner while it ran Java code in 3 s");
    point_fail(CONF_Q03, "the queue was never filled");
    api.DeregisterQueue(NULL, queue);
    queue = NULL;
    return done;
  }
  ASGST_QueueSizeInfo s = api.GetQueueSizeInfo(queue);
  if (strcmp(seen, "S 1 22 E ") == 0 && element_states_ok && s.size == 0)
    point_pass(CONF_Q03);
  else
    point_fail(CONF_Q03, "hooks ran as \"%s\" (want \"S 1 22 E \"), element iterator states ok %d, size after %d",
               seen, element_states_ok, s.size);
  api.DeregisterQueue(NULL, queue);
  queue = NULL;
  return done;
}
