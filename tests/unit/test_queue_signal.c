/* test_queue_signal.c - safepoint queues fed from real signal handlers: one enqueue with
 * the handler's own ucontext, and a stress run where a thread is signalled at a high rate
 * while it processes its queue (no element may be lost, duplicated or reordered). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_queue_common.h"

static qrec rec;

/* ---- one real signal ------------------------------------------------------------------ */

static ASGST_Queue *sig_q;
static volatile int sig_result;

/* SS. Enqueues the interrupted context, as a profiler's sampling handler does. */
static void enqueue_on_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  sig_result = ASGST_Enqueue(sig_q, uc, (void *)42);
}

static void install(int sig, void (*fun)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fun;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(sig, &sa, NULL), 0);
}

/* SS. tgkill(pid, tid, sig) as one system call instruction in the caller's own code (no
 * libc frame between it and the signal). */
static inline void raw_tgkill(long pid, long tid, long sig) {
#if defined(__x86_64__)
  long ret = SYS_tgkill;
  __asm__ volatile("syscall" : "+a"(ret) : "D"(pid), "S"(tid), "d"(sig) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = SYS_tgkill;
  register long x0 __asm__("x0") = pid;
  register long x1 __asm__("x1") = tid;
  register long x2 __asm__("x2") = sig;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
#endif
}

/* Sends `sig` to this thread with a raw syscall while this frame poses as a callee of a
 * Java frame: its saved fp and return address (the frame record's two words on arm64)
 * point at the hand-made interpreted frame java_fp (restored before returning). The
 * signal is delivered when the syscall returns, so the handler's ucontext has its pc in
 * this function and fp = this frame, and the walk from it reaches the Java frame through
 * the fp chain exactly as in a JIT-ed caller. */
static __attribute__((noinline)) void raise_as_callee_of(uintptr_t *java_fp, void *java_pc,
                                                         int sig) {
  long pid = getpid(), tid = syscall(SYS_gettid);
  volatile uintptr_t *frame = (volatile uintptr_t *)__builtin_frame_address(0);
  uintptr_t saved_fp = frame[0], saved_ret = frame[1];
  frame[0] = (uintptr_t)java_fp;
  frame[1] = (uintptr_t)java_pc;
  raw_tgkill(pid, tid, sig);
  frame[0] = saved_fp;
  frame[1] = saved_ret;
}

static void enqueue_from_a_real_signal_handler(void **state) {
  (void)state;
#if !defined(__x86_64__)
  /* The synthetic backend steps by frame pointer with x86_64's rule, sender sp = fp + 16.
   * That holds for the hand-made frames, not for this real C frame on arm64, whose frame
   * record sits at the bottom of its frame: the Java frame's sp then lies below the
   * processing point on this stack, and the element is rightly called stale. */
  skip();
#endif
  memset(&rec, 0, sizeof rec);
  int sig = SIGRTMIN + 5;
  install(sig, enqueue_on_signal);
  sig_q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  uintptr_t slots[QFRAME_SLOTS];
  ucontext_t uc;
  qframe_build(slots, fx.foo, 9, &uc);
  sig_result = 0;
  raise_as_callee_of((uintptr_t *)uc_fp(&uc), (void *)uc_pc(&uc), sig);
  assert_int_equal(sig_result, ASGST_JAVA_TRACE);
  ASGST_QueueElement *e = ASGST_GetQueueElement(sig_q, -1);
  assert_non_null(e);
  assert_ptr_equal(e->fp, (void *)uc_fp(&uc));
  assert_ptr_equal(e->pc, (void *)uc_pc(&uc));
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_ptr_equal(rec.calls[0].arg, (void *)42);
  assert_int_equal(rec.calls[0].state, 1);
  assert_int_equal(rec.calls[0].nframes, 1);
  assert_ptr_equal(rec.calls[0].methods[0], fx.foo);
  assert_int_equal(rec.calls[0].bcis[0], 9);
  __asm__ volatile("" : : "r"(slots) : "memory");
  assert_true(ASGST_DeregisterQueue(NULL, sig_q));
  signal(sig, SIG_DFL);
}

/* ---- stress: signals at a high rate while the thread processes --------------------- */

#define STRESS_SIGNALS 20000

typedef struct {
  ASGST_Queue *q;
  pthread_t thread;
  atomic_int ready, stop;
  atomic_int in_processing; /* the producer is inside ASGST_ProcessQueues */
  atomic_long during;       /* signals that arrived while it was */
  /* written by the signal handler (on the producer thread only) */
  atomic_long delivered, ok, full, other;
  /* written by the element handler */
  long handled, misordered;
  long processings;
} stress;

static stress st;

/* SS. Each successful enqueue carries the next sequence number. */
static void stress_on_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  (void)uc;
  atomic_fetch_add(&st.delivered, 1);
  if (atomic_load(&st.in_processing)) atomic_fetch_add(&st.during, 1);
  long next = atomic_load(&st.ok) + 1;
  int r = ASGST_Enqueue(st.q, &fx.uc1, (void *)next);
  if (r == ASGST_JAVA_TRACE)
    atomic_store(&st.ok, next);
  else if (r == ASGST_ENQUEUE_FULL_QUEUE)
    atomic_fetch_add(&st.full, 1);
  else
    atomic_fetch_add(&st.other, 1);
}

/* SP. Elements must arrive as 1, 2, 3, ...: anything else is a loss or a duplicate. */
static void stress_handler(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  (void)queue_arg;
  ASGST_Frame f;
  if (ASGST_NextFrame(it, &f) != 1 || f.method != fx.bar) st.misordered++;
  if ((long)(uintptr_t)element_arg != st.handled + 1) st.misordered++;
  st.handled = (long)(uintptr_t)element_arg;
}

static void *stress_producer(void *p) {
  (void)p;
  ASGST_SynthAttachThread(fx.vm);
  st.q = ASGST_RegisterQueue(NULL, 32, 0, stress_handler, NULL);
  atomic_store(&st.ready, 1);
  while (!atomic_load(&st.stop)) {
    atomic_store(&st.in_processing, 1);
    ASGST_ProcessQueues();
    atomic_store(&st.in_processing, 0);
    /* Resizes swap the ring while signals keep coming. */
    if (++st.processings % 64 == 0) ASGST_ResizeQueue(st.q, st.processings % 128 ? 16 : 96);
    for (volatile int spin = 0; spin < 200; spin++) {
    }
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN + 6);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  ASGST_ProcessQueues();
  ASGST_DeregisterQueue(NULL, st.q);
  ASGST_SynthDetachThread();
  return NULL;
}

static void no_element_lost_under_signal_storm(void **state) {
  (void)state;
  memset(&st, 0, sizeof st);
  int sig = SIGRTMIN + 6;
  install(sig, stress_on_signal);
  assert_int_equal(pthread_create(&st.thread, NULL, stress_producer, NULL), 0);
  while (!atomic_load(&st.ready)) sched_yield();
  long sent = 0;
  while (sent < STRESS_SIGNALS) {
    int r = pthread_kill(st.thread, sig);
    if (r == EAGAIN) {
      sched_yield(); /* the real-time signal queue is full: let the producer drain it */
      continue;
    }
    if (r != 0) fail_msg("pthread_kill: %d", r);
    sent++;
    /* Pace: a burst of queued real-time signals would be delivered back to back before
     * the producer runs a single processing; a few in flight make them land anywhere in
     * its loop, in the middle of processing and resizing included. */
    while (sent - atomic_load(&st.delivered) > sent % 7) sched_yield();
  }
  while (atomic_load(&st.delivered) < sent) sched_yield();
  atomic_store(&st.stop, 1);
  pthread_join(st.thread, NULL);
  signal(sig, SIG_DFL);
  long ok = atomic_load(&st.ok), full = atomic_load(&st.full), other = atomic_load(&st.other);
  print_message("# figure: queue stress: %ld signals, %ld enqueued, %ld full, %ld other, "
                "%ld processings, %ld signals during processing\n", sent, ok, full, other,
                st.processings, atomic_load(&st.during));
  assert_int_equal(atomic_load(&st.delivered), sent);
  assert_int_equal(ok + full + other, sent);
  assert_int_equal(other, 0);
  assert_true(atomic_load(&st.during) > 0);
  assert_true(ok > 0);
  assert_int_equal(st.misordered, 0);
  assert_int_equal(st.handled, ok);
}

#define T(f) cmocka_unit_test_setup_teardown(f, qfix_setup, qfix_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(enqueue_from_a_real_signal_handler),
      T(no_element_lost_under_signal_storm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
