/*
 * queue_agent.c - JVMTI test agent for safepoint queues on a live JVM.
 *
 * Every Java thread registers a queue at ThreadStart (and deregisters it at ThreadEnd),
 * with start and end hooks. A sampler thread sends SIGPROF to the registered threads in
 * turn every interval_us; the handler notes the method of the top Java frame (a one-frame
 * ASGST walk) in a per-thread slot and enqueues with that slot as element argument. The
 * queue handler, run later by the library's processing thread with the owner stopped,
 * checks that its iterator starts at that method, or counts the element stale.
 *
 * At VMDeath it prints "QUEUE ok|not ok - ..." checks and "QUEUE # figure: ..." lines:
 * every enqueued element handled, stale or dropped (counts add up exactly), iterators at
 * the element's method, stale rate, hooks once per processing, suspend-to-resume time, and
 * each current element's whole stack (method and bci of every frame, as a hash) against
 * the walk the signal handler did of the same sample; the owner's time in ASGST_Enqueue
 * and the sample-to-handler latency (p50, p99).
 * Options: interval_us=N (1000), size=N (queue capacity, 64), stale_max_pct=N (stale
 * elements checked, % of enqueued, 1; those behind rounds the machine held up not counted),
 * stale_all_max_pct=N (all stale elements, % of enqueued, 100).
 */
#include <errno.h>
#include <stdarg.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "impl/test_build.h" /* asgst__hs_queue_stats_get, asgst__hs_queue_median_ns */

#define MAX_THREADS 64
#define SLOTS 4096 /* per thread: method at sample time, indexed by element */

typedef struct {
  void *method;  /* top Java method at sample time */
  uint64_t t;    /* sample time (CLOCK_MONOTONIC ns) */
  uint64_t hash; /* of the in-handler walk's frames (method + bci) */
  int frames;    /* how many, -1 if that walk failed */
  uint64_t behind; /* the round the owner's wait gave up behind, 0: none (one processing thread) */
} slot;

/* What a full walk saw, frame by frame (method and bci), folded into one hash. */
typedef struct {
  uint64_t hash;
  int frames;
} trace_sum;

typedef struct {
  atomic_int tid;
  ASGST_Queue *_Atomic q;
  slot slots[SLOTS];
  atomic_uint next;
} per_thread;

static per_thread threads[MAX_THREADS];
static __thread per_thread *mine __attribute__((tls_model("initial-exec")));
static int interval_us = 1000, queue_size = 64, stale_max_pct = 1, stale_all_max_pct = 100;
static atomic_long sent, enqueued, full, other_error, no_queue, handled, stale, at_method,
    not_at_method, walk_error, hooks_start, hooks_end, dropped;
static atomic_ulong latency_sum, latency_n, latency_stale_sum, enqueue_ns;
static atomic_long agree, disagree, not_compared;
/* Stale elements whose owner gave up behind a round the machine held up: its owner and
 * the processing thread waited on the run queue, during that round, for at least as
 * long as an owner waits behind a round (so it would have given up had the library's
 * own work taken no time); and the same rounds' run-queue wait in all, ns. */
static atomic_long stale_machine;
static atomic_ulong stale_machine_owner_ns, stale_machine_processing_ns;
#define COSTS 65536
static uint32_t costs[COSTS]; /* the owner's time in ASGST_Enqueue per sample, ns */
static uint32_t cpu_costs[COSTS]; /* of which it ran (thread CPU time), ns: the rest is preemption */
static atomic_uint ncosts;
static uint32_t waits[COSTS];  /* sample to handler per element, ns */
static atomic_uint nwaits;
static atomic_int walk_error_code; /* what the last failing walk said (its iterator's state) */
static atomic_int running;
static pthread_t sampler;
static JavaVM *jvm;

/* SS. Monotonic nanoseconds (vDSO). */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. The calling thread's CPU time in nanoseconds (a syscall). */
static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. */
static void first_java(ASGST_Iterator *it, void *arg) {
  ASGST_Frame f;
  *(void **)arg = ASGST_NextFrame(it, &f) == 1 ? f.method : NULL;
}

#define FNV_BASIS 1469598103934665603u
#define FNV_PRIME 1099511628211u

/* SS/SP. Folds one frame's method and bci into *t. */
static void add_frame(trace_sum *t, const ASGST_Frame *f) {
  t->hash = (t->hash ^ (uint64_t)(uintptr_t)f->method) * FNV_PRIME;
  t->hash = (t->hash ^ (uint64_t)(uint32_t)f->bci) * FNV_PRIME;
  t->frames++;
}

/* SS/SP. Folds the iterator's remaining frames into *t; 0 at a clean end, else the error. */
static int add_rest(ASGST_Iterator *it, trace_sum *t) {
  ASGST_Frame f;
  int rc;
  while ((rc = ASGST_NextFrame(it, &f)) == 1) add_frame(t, &f);
  return rc;
}

/* SS. Iterator handler: the whole walk into *arg (a trace_sum); frames -1 if it failed. */
static void sum_frames(ASGST_Iterator *it, void *arg) {
  trace_sum *t = arg;
  *t = (trace_sum){FNV_BASIS, 0};
  if (add_rest(it, t) != 0 || t->frames == 0) t->frames = -1;
}

/* SS. Notes the top method and the whole in-handler walk, and enqueues. */
static void on_sample(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  per_thread *p = mine;
  ASGST_Queue *q = p ? atomic_load(&p->q) : NULL;
  if (q != NULL) {
    slot *s = &p->slots[atomic_fetch_add(&p->next, 1) % SLOTS];
    s->method = NULL;
    s->t = now_ns();
    ASGST_RunWithIterator(uc, ASGST_END_ON_FIRST_JAVA_FRAME, first_java, &s->method);
    trace_sum sum = {0, -1};
    ASGST_RunWithIterator(uc, 0, sum_frames, &sum);
    s->hash = sum.hash;
    s->frames = sum.frames;
    s->behind = 0;
    uint64_t c0 = cpu_ns(), t0 = now_ns();
    int r = ASGST_Enqueue(q, uc, s);
    /* Before the handler returns, so before the owner can stop and be processed. */
    s->behind = asgst__hs_queue_last_behind();
    uint64_t cost = now_ns() - t0, cpu = cpu_ns() - c0;
    atomic_fetch_add(&enqueue_ns, cost);
    unsigned k = atomic_fetch_add(&ncosts, 1) % COSTS;
    costs[k] = (uint32_t)(cost > UINT32_MAX ? UINT32_MAX : cost);
    cpu_costs[k] = (uint32_t)(cpu > UINT32_MAX ? UINT32_MAX : cpu);
    if (r > 0) atomic_fetch_add(&enqueued, 1);
    else if (r == ASGST_ENQUEUE_FULL_QUEUE) atomic_fetch_add(&full, 1);
    else if (r == ASGST_ENQUEUE_NO_QUEUE) atomic_fetch_add(&no_queue, 1);
    else atomic_fetch_add(&other_error, 1);
  }
  errno = saved;
}

/* SP. The queue handler: at the element's method, or stale. */
static void on_element(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  (void)queue_arg;
  atomic_fetch_add(&handled, 1);
  const slot *s = element_arg;
  uint64_t waited = now_ns() - s->t;
  waits[atomic_fetch_add(&nwaits, 1) % COSTS] = (uint32_t)(waited > UINT32_MAX ? UINT32_MAX : waited);
  atomic_fetch_add(&latency_sum, waited);
  atomic_fetch_add(&latency_n, 1);
  int state = ASGST_State(it);
  if (state == ASGST_STALE_FRAME) {
    atomic_fetch_add(&stale, 1);
    atomic_fetch_add(&latency_stale_sum, waited);
    uint64_t ow = 0, pr = 0;
    int64_t held = s->behind ? asgst__hs_queue_round_machine_ns(s->behind, &ow, &pr) : -1;
    if (held >= 0 && (uint64_t)held >= asgst__hs_queue_give_up_ns()) {
      atomic_fetch_add(&stale_machine, 1);
      atomic_fetch_add(&stale_machine_owner_ns, ow);
      atomic_fetch_add(&stale_machine_processing_ns, pr);
    }
    return;
  }
  ASGST_Frame f;
  int rc = ASGST_NextFrame(it, &f);
  if (rc != 1) {
    atomic_fetch_add(&walk_error, 1);
    atomic_store(&walk_error_code, rc < 0 ? rc : ASGST_State(it));
    return;
  }
  void *want = s->method;
  atomic_fetch_add(want == NULL || f.method == want ? &at_method : &not_at_method, 1);
  /* The whole walk, frame by frame, against the in-handler walk of the same sample. */
  trace_sum sum = {FNV_BASIS, 0};
  add_frame(&sum, &f);
  if (s->frames < 0 || add_rest(it, &sum) != 0) {
    atomic_fetch_add(&not_compared, 1);
    return;
  }
  atomic_fetch_add(sum.hash == s->hash && sum.frames == s->frames ? &agree : &disagree, 1);
}

/* SP. */
static void on_start(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  (void)q, (void)it, (void)arg;
  atomic_fetch_add(&hooks_start, 1);
}

/* SP. */
static void on_end(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  (void)q, (void)it, (void)arg;
  atomic_fetch_add(&hooks_end, 1);
}

/* N. True for the library's own threads (asgst-queues, asgst-classes): no Java frames. */
static bool library_thread(jvmtiEnv *j, jthread t) {
  jvmtiThreadInfo info;
  memset(&info, 0, sizeof info);
  if (t == NULL || (*j)->GetThreadInfo(j, t, &info) != JVMTI_ERROR_NONE) return false;
  bool ours = info.name && strncmp(info.name, "asgst-", 6) == 0;
  (*j)->Deallocate(j, (unsigned char *)info.name);
  return ours;
}

/* N. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  if (library_thread(j, t)) return;
  for (int i = 0; i < MAX_THREADS; i++) {
    int expect = 0;
    if (!atomic_compare_exchange_strong(&threads[i].tid, &expect, -1)) continue;
    ASGST_Queue *q = ASGST_RegisterQueue(env, queue_size, 0, on_element, NULL);
    if (q == NULL) {
      atomic_store(&threads[i].tid, 0);
      return;
    }
    ASGST_SetOnQueueProcessingStart(q, 0, false, on_start, NULL);
    ASGST_SetOnQueueProcessingEnd(q, 0, false, on_end, NULL);
    atomic_store(&threads[i].next, 0);
    atomic_store(&threads[i].q, q);
    mine = &threads[i];
    atomic_store(&threads[i].tid, (int)syscall(SYS_gettid));
    return;
  }
}

/* N. Deregisters: what is still queued then is dropped (counted). */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)t;
  per_thread *p = mine;
  if (p == NULL) return;
  mine = NULL;
  atomic_store(&p->tid, -1);
  ASGST_Queue *q = atomic_exchange(&p->q, NULL);
  if (q) {
    ASGST_QueueSizeInfo info = ASGST_GetQueueSizeInfo(q);
    atomic_fetch_add(&dropped, info.size);
    ASGST_DeregisterQueue(env, q);
  }
  atomic_store(&p->tid, 0);
}

/* N. */
static void *sampler_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, (long)interval_us * 1000};
  int next = 0;
  while (atomic_load(&running)) {
    for (int k = 0; k < MAX_THREADS; k++) {
      int i = (next + k) % MAX_THREADS, tid = atomic_load(&threads[i].tid);
      if (tid <= 0) continue;
      next = i + 1;
      if (syscall(SYS_tgkill, getpid(), tid, SIGPROF) == 0) atomic_fetch_add(&sent, 1);
      break;
    }
    nanosleep(&iv, NULL);
  }
  return NULL;
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    printf("QUEUE not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  on_thread_start(j, env, t);
  atomic_store(&running, 1);
  pthread_create(&sampler, NULL, sampler_main, NULL);
}

/* N. */
static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("QUEUE %s - ", ok ? "ok" : "not ok");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

/* N. qsort order. */
static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* N. The q-quantile (0..1) of the first n (at most COSTS) values of v, in us; sorts v. */
static double quantile_us(uint32_t *v, unsigned n, double q) {
  if (n > COSTS) n = COSTS;
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, by_value);
  return v[(unsigned)(q * (n - 1))] / 1000.0;
}

/* N. Waits until the processing thread has emptied every queue (or 2 s passed). */
static void settle(void) {
  for (int k = 0; k < 200; k++) {
    long in = atomic_load(&enqueued), out = atomic_load(&handled) + atomic_load(&dropped);
    long live = 0;
    for (int i = 0; i < MAX_THREADS; i++) {
      ASGST_Queue *q = atomic_load(&threads[i].q);
      if (q) live += ASGST_GetQueueSizeInfo(q).size;
    }
    if (in == out + live && live == 0) return;
    usleep(10000);
  }
}

/* N. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  settle();
  long in = atomic_load(&enqueued), h = atomic_load(&handled), st = atomic_load(&stale),
       dr = atomic_load(&dropped), at = atomic_load(&at_method), off = atomic_load(&not_at_method);
  long left = 0;
  for (int i = 0; i < MAX_THREADS; i++) {
    ASGST_Queue *q = atomic_load(&threads[i].q);
    if (q) left += ASGST_GetQueueSizeInfo(q).size;
  }
  asgst__hs_queue_stats qs = asgst__hs_queue_stats_get();
  double median_us = (double)asgst__hs_queue_median_ns() / 1000.0;
  printf("QUEUE # figure: signals=%ld enqueued=%ld full=%ld no_java_frame=%ld handled=%ld (stale %ld, walk errors %ld) dropped=%ld still_queued=%ld\n",
         atomic_load(&sent), in, atomic_load(&full), atomic_load(&other_error), h, st,
         atomic_load(&walk_error), dr, left);
  printf("QUEUE # figure: processing rounds=%lu elements=%lu not_suspended=%lu no_java_frame_left=%lu suspend_to_resume_median_us=%.1f p99_us=%.1f mean_us=%.1f\n",
         (unsigned long)qs.rounds, (unsigned long)qs.elements, (unsigned long)qs.not_suspended,
         (unsigned long)qs.no_java, median_us,
         (double)asgst__hs_queue_quantile_ns(0.99) / 1000.0,
         qs.rounds ? (double)qs.stopped_ns / (double)qs.rounds / 1000.0 : 0.0);
  long sig = atomic_load(&sent);
  unsigned nc = atomic_load(&ncosts), nw = atomic_load(&nwaits);
  double c50 = quantile_us(costs, nc, 0.5), c99 = quantile_us(costs, nc, 0.99),
         cmax = quantile_us(costs, nc, 1.0);
  double u50 = quantile_us(cpu_costs, nc, 0.5), u99 = quantile_us(cpu_costs, nc, 0.99),
         umax = quantile_us(cpu_costs, nc, 1.0);
  double w50 = quantile_us(waits, nw, 0.5), w99 = quantile_us(waits, nw, 0.99);
  long ag = atomic_load(&agree), dis = atomic_load(&disagree), nco = atomic_load(&not_compared);
  printf("QUEUE # figure: owner's time in ASGST_Enqueue per sample p50 %.1f us, p99 %.1f us, max %.1f us; sample to handler p50 %.1f us, p99 %.1f us\n",
         c50, c99, cmax, w50, w99);
  printf("QUEUE # figure: owner's CPU time in ASGST_Enqueue per sample p50 %.1f us, p99 %.1f us, max %.1f us (the rest of the time above: preempted)\n",
         u50, u99, umax);
  printf("QUEUE # figure: stacks agreeing with the in-handler walk of the same sample %ld of %ld (%ld not compared: a walk failed)\n",
         ag, ag + dis, nco);
  printf("QUEUE # figure: owner's cost per sample (ASGST_Enqueue) %.1f us mean; waits for the poll %lu: armed %lu, gave up %lu (%lu while every processing thread was in another owner's round), at real-time priority %lu (gave up %lu), %.1f us mean; features off: %s\n",
         sig ? (double)atomic_load(&enqueue_ns) / (double)sig / 1000.0 : 0.0, (unsigned long)qs.waits,
         (unsigned long)qs.armed, (unsigned long)qs.gave_up, (unsigned long)qs.gave_up_behind,
         (unsigned long)(qs.raised + qs.raised_gave_up), (unsigned long)qs.raised_gave_up,
         qs.waits ? (double)qs.wait_ns / (double)qs.waits / 1000.0 : 0.0, ASGST_DisabledFeatures());
  printf("QUEUE # figure: stale rate %.3f%%, iterators at the element's method %ld of %ld, sample to handler %.1f us mean (stale ones %.1f us)\n",
         h ? 100.0 * (double)st / (double)h : 0.0, at, at + off,
         latency_n ? (double)latency_sum / (double)latency_n / 1000.0 : 0.0,
         st ? (double)latency_stale_sum / (double)st / 1000.0 : 0.0);
  check(in > 1000, "more than 1000 elements enqueued (%ld)", in);
  /* dropped is the queue's size read at ThreadEnd just before deregistering: an element
   * the queue thread processes in between (the owner is in native code there, so its
   * queue may be processed) counts in both. Nothing lost: in <= h + dr + left; nothing
   * handled twice: h + left <= in. Exact on x86_64 in every run so far; once 1 over
   * under qemu, whose slower owners widen that window. */
  check(h + left <= in && in <= h + dr + left,
        "every enqueued element is handled, stale or dropped: %ld <= %ld handled + %ld dropped + %ld left, "
        "%ld handled + %ld left <= %ld", in, h, dr, left, h, left, in);
  check(at > 0 && off == 0, "every current element's iterator starts at its method (%ld of %ld)",
        at, at + off);
  /* Stale elements the machine made (an owner gave up behind a round whose threads the
   * scheduler kept from a CPU) are a figure; the library's own are held to the limit. */
  long sm = atomic_load(&stale_machine);
  printf("QUEUE # figure: stale behind rounds the machine held up %ld (in those rounds the owner waited for a CPU %.0f us, "
         "the processing thread %.0f us, mean; an owner gives up behind a round after %.0f us)\n",
         sm, sm ? (double)atomic_load(&stale_machine_owner_ns) / (double)sm / 1000.0 : 0.0,
         sm ? (double)atomic_load(&stale_machine_processing_ns) / (double)sm / 1000.0 : 0.0,
         (double)asgst__hs_queue_give_up_ns() / 1000.0);
  check(in > 0 && (double)(st - sm) / (double)in < stale_max_pct / 100.0,
        "stale below %d%% of enqueued (%ld of %ld, not counting %ld behind rounds the machine held up)",
        stale_max_pct, st - sm, in, sm);
  check(in > 0 && (double)st / (double)in < stale_all_max_pct / 100.0, "stale in all below %d%% of enqueued (%ld of %ld)",
        stale_all_max_pct, st, in);
  check(in > 0 && h * 10 >= in * 9, "handled (current + stale) at least 90%% of enqueued (%ld of %ld)", h, in);
  check(ag + dis > 1000 && dis * 100 <= ag + dis, "stacks agree with the in-handler walk of the same sample in at least 99%% (%ld of %ld)",
        ag, ag + dis);
  check(atomic_load(&hooks_start) == atomic_load(&hooks_end) && atomic_load(&hooks_start) > 0 &&
            atomic_load(&hooks_start) <= h,
        "start and end hooks run once per processing (%ld start, %ld end, %ld elements)",
        atomic_load(&hooks_start), atomic_load(&hooks_end), h);
  /* A current element whose own frame fails to decode ends in an error code, never a wrong
   * frame (the check above). On a loaded 2-core machine about 1 in 10,000 elements did
   * (ASGST_BAD_FRAME, on JDK 17 and 25; cause not found yet): at most 1 in 1,000 passes,
   * and the code is printed. */
  /* Without the opt-in no thread's scheduling changes (test_queues.sh also watches /proc). */
  unsigned long raised = (unsigned long)(qs.raised + qs.raised_gave_up);
  bool opted_in = (agent_init_flags() & ASGST_INIT_REALTIME_QUEUES) != 0;
  check(opted_in || raised == 0, "owners raised to real-time priority only with the opt-in (%lu raised)", raised);
  long we = atomic_load(&walk_error);
  check(h > 0 && we * 1000 <= h, "current elements' walks fail at most once per 1,000 (%ld of %ld%s%s)", we, h,
        we ? ", the last with " : "", we ? ASGST_ErrorName(atomic_load(&walk_error_code)) : "");
  fflush(stdout);
}

static bool parse(const char *s) {
  while (s && *s) {
    if (sscanf(s, "interval_us=%d", &interval_us) != 1 && sscanf(s, "size=%d", &queue_size) != 1 &&
        sscanf(s, "stale_max_pct=%d", &stale_max_pct) != 1 &&
        sscanf(s, "stale_all_max_pct=%d", &stale_all_max_pct) != 1)
      return false;
    s = strchr(s, ',');
    if (s) s++;
  }
  return interval_us > 0 && queue_size > 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  jvmtiEnv *jvmti = NULL;
  if (!parse(options)) return JNI_ERR;
  agent_handle_signal(SIGPROF, on_sample);
  jvmtiEventCallbacks cb = {.VMInit = on_vm_init, .VMDeath = on_vm_death,
                            .ThreadStart = on_thread_start, .ThreadEnd = on_thread_end};
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END};
  return agent_setup(vm, &jvmti, &cb, ev, 4) == 0 ? JNI_OK : JNI_ERR;
}
