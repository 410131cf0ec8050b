/*
 * remote_walk.c - ASGST_RunWithIteratorOnThread: walking another thread of this process.
 *
 * The walker signals the target with the library's own real-time signal. The target's
 * handler captures the backend's view of itself (current_thread), publishes its registers
 * and spins until the walker releases it; the walker walks the now-frozen stack under its
 * own crash guard. So no walking code runs on the sampled thread, and results equal those
 * of an in-handler walk of the same context.
 *
 * One remote walk runs at a time (a mutex on the walker side); the handshake is a small
 * state machine in one shared slot, with a sequence number so that a target that answers
 * after the walker gave up cannot be confused with the next request.
 *
 * With ASGST_COPY_STACK (experimental) the walker copies the target's stack, releases it
 * at once and walks the copy (impl/stack_copy.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "../impl/arch/arch.h"
#include "../impl/guard.h"
#include "../impl/stack_copy.h"
#include "../impl/test_build.h"

/* IDLE -> REQUESTED (walker) -> CLAIMED (target) -> PUBLISHED (target) -> RELEASED
 * (walker) -> IDLE (target). A target claims the request before it writes the slot, so only
 * the thread the walker is waiting for writes it; the walker cancels only a request nobody
 * claimed (REQUESTED -> CANCELLED) or a claim that did not publish for TARGET_MAX_WAIT_NS
 * (CLAIMED -> CANCELLED). */
enum { IDLE, REQUESTED, CLAIMED, PUBLISHED, RELEASED, CANCELLED };

/* How long a target waits for its release before it gives up and returns (the walker
 * never holds a target longer than its own walk; this only bounds a walker that died). */
#define TARGET_MAX_WAIT_NS 2000000000LL
/* The most of a target's stack an ASGST_COPY_STACK walk copies (from its sp up). */
#define COPY_CAP (1u << 20)

static struct {
  atomic_int phase;
  atomic_uint seq;
  atomic_int target;       /* OS thread id asked to answer */
  asgst__regs top;         /* the target's registers where the signal stopped it */
  asgst__thread thread;    /* the target's own view of itself */
  volatile int kind;       /* current_thread's result on the target */
  volatile int state;      /* its thread state (backend thread_state), 0 if not known */
} slot;

static pthread_mutex_t walker_lock = PTHREAD_MUTEX_INITIALIZER;
static int walk_signal;
static asgst__stack_copy copy; /* of ASGST_COPY_STACK walks, under walker_lock */

/* SS. Nanoseconds of CLOCK_MONOTONIC. */
static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* SS. The target side. */
static void on_walk_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  int saved_errno = errno;
  unsigned seq = atomic_load(&slot.seq);
  int self = (int)syscall(SYS_gettid);
  if (atomic_load(&slot.target) != self ||
      atomic_load(&slot.phase) != REQUESTED) {
    errno = saved_errno;
    return;
  }
  int expected = REQUESTED;
  if (!atomic_compare_exchange_strong(&slot.phase, &expected, CLAIMED)) {
    errno = saved_errno;
    return;
  }
  /* The claim is ours only if it is still the request checked above: the walker may have
   * given that one up and asked another thread meanwhile (a real-time signal stays queued
   * after its request was cancelled). Then give it back for its real target. */
  if (seq != atomic_load(&slot.seq) || atomic_load(&slot.target) != self) {
    int mine = CLAIMED; /* unless the walker cancelled the claim meanwhile */
    atomic_compare_exchange_strong(&slot.phase, &mine, REQUESTED);
    errno = saved_errno;
    return;
  }
  const asgst__backend *be = asgst__active_backend();
  slot.kind = be ? be->current_thread(&slot.thread) : asgst__unbound_error();
  /* The state is the target's own: only it can ask (ASGST_IteratorThreadState). */
  slot.state = slot.kind > 0 && be->thread_state ? be->thread_state() : 0;
  asgst__regs_from_ucontext(uc, &slot.top);
  expected = CLAIMED;
  if (atomic_compare_exchange_strong(&slot.phase, &expected, PUBLISHED)) {
    int64_t deadline = now_ns() + TARGET_MAX_WAIT_NS;
    while (atomic_load(&slot.phase) == PUBLISHED && now_ns() < deadline) {
      asgst__cpu_relax();
    }
    /* Tell the walker we are leaving the handler: our stack changes from here on. */
    atomic_store(&slot.phase, IDLE);
  }
  errno = saved_errno;
}

/* N. True if signal `sig` has no handler and can be ours. */
static bool signal_free(int sig) {
  struct sigaction old;
  return sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
         old.sa_handler == SIG_DFL;
}

/* N. Chooses the walk signal (ASGST_WALK_SIGNAL=<n> overrides; otherwise the first free
 * real-time signal from SIGRTMIN+3 on, leaving the lowest ones to the C library and to
 * profilers) and installs the target-side handler. */
int asgst__remote_init(void) {
  if (walk_signal) return 0;
  const char *env = getenv("ASGST_WALK_SIGNAL");
  int sig = env ? atoi(env) : 0;
  for (int s = SIGRTMIN + 3; sig == 0 && s <= SIGRTMAX; s++)
    if (signal_free(s)) sig = s;
  if (sig <= 0 || sig > SIGRTMAX) return ASGST_UNSUPPORTED;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_walk_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, NULL) != 0) return ASGST_UNSUPPORTED;
  walk_signal = sig;
  return 0;
}

/* N. Waits until slot.phase leaves `from` or the deadline passes; returns the phase.
 * Spins briefly (a target on another core answers within microseconds), then sleeps in
 * 20 us steps: sched_yield here left a target woken on the walker's own core waiting for
 * the next scheduler tick, milliseconds per walk on a machine with few cores, where short
 * sleeps let it run at once. */
static int wait_phase_change(int from, int64_t deadline) {
  const struct timespec step = {0, 20000};
  int p;
  for (int i = 0; (p = atomic_load(&slot.phase)) == from && now_ns() < deadline; i++) {
    if (i < 200) asgst__cpu_relax();
    else nanosleep(&step, NULL);
  }
  return p;
}

/* N. Asks the target to stop in its handler; returns 0 when it published its context. */
static int request(pid_t tid, int32_t timeout_us) {
  atomic_fetch_add(&slot.seq, 1);
  atomic_store(&slot.target, tid);
  atomic_store(&slot.phase, REQUESTED);
  if (syscall(SYS_tgkill, getpid(), tid, walk_signal) != 0) {
    /* EAGAIN: a real-time signal needs a slot of the user's queue quota and none is left. */
    int e = errno;
    atomic_store(&slot.phase, IDLE);
    return e == EAGAIN ? ASGST_SIGNAL_NOT_DELIVERED : ASGST_THREAD_NOT_FOUND;
  }
  int64_t deadline = now_ns() + (timeout_us > 0 ? timeout_us : 100000) * 1000LL;
  for (;;) {
    int p = wait_phase_change(REQUESTED, deadline);
    /* A claimer publishes (or gives a stale claim back) within microseconds of running. */
    if (p == CLAIMED) p = wait_phase_change(CLAIMED, now_ns() + TARGET_MAX_WAIT_NS);
    if (p == PUBLISHED) return 0;
    if (p == REQUESTED && now_ns() < deadline) continue; /* a stale claim was given back */
    int expected = p;
    if ((p == REQUESTED || p == CLAIMED) &&
        atomic_compare_exchange_strong(&slot.phase, &expected, CANCELLED)) {
      atomic_store(&slot.target, 0);
      return ASGST_THREAD_NOT_ANSWERING;
    }
    /* The phase moved as we gave up (claimed or published): look again. */
  }
}

/* The caller's handler of a walk of another thread, and the state the target read. */
typedef struct {
  ASGST_IteratorHandler fun;
  void *arg;
  int state;
} remote_call;

/* N (walker side). Gives the iterator the target's state, then calls the caller's handler. */
static void with_state(ASGST_Iterator *it, void *arg) {
  remote_call *c = arg;
  it->walked_state = c->state;
  if (c->fun) c->fun(it, c->arg);
}

/* N (walker side, target held). An ASGST_COPY_STACK walk: copies the target's stack,
 * releases the target and walks the copy. With ASGST__OPT_COPY_CHECK (the test build's,
 * impl/test_build.h; 0 in the product) fun first walks the held target itself, the
 * blocking walk of the same moment. */
static int walk_copy(const asgst__backend *be, const asgst__thread *t, const asgst__regs *top,
                     int32_t options, ASGST_IteratorHandler fun, void *arg) {
  int32_t plain = options & ~(ASGST_COPY_STACK | ASGST__OPT_COPY_CHECK);
  if (options & ASGST__OPT_COPY_CHECK) asgst__run_with_iterator(be, t, top, plain, fun, arg);
  if (copy.buf == NULL && asgst__stack_copy_init(&copy, COPY_CAP) != 0) return ASGST_UNSUPPORTED;
  asgst__stack_copy_take(&copy, top->sp, t->stack_base);
  atomic_store(&slot.phase, RELEASED);
  asgst__stack_copy_use(&copy);
  int r = asgst__run_with_iterator(be, t, top, plain, fun, arg);
  asgst__stack_copy_use(NULL);
  return r;
}

/* N (walker side). The walk of another thread, with the guard's signals let through. */
static int walk_other(pid_t tid, int32_t options, int32_t timeout_us,
                      ASGST_IteratorHandler fun, void *arg) {
  const asgst__backend *be = asgst__active_backend();
  if (be == NULL) return asgst__unbound_error();
  if (asgst__guard_install() != 0 || asgst__remote_init() != 0) return ASGST_UNSUPPORTED;
  pthread_mutex_lock(&walker_lock);
  int r = request(tid, timeout_us);
  if (r == 0) {
    asgst__regs top = slot.top;
    asgst__thread thread = slot.thread;
    remote_call call = {fun, arg, slot.state};
    r = slot.kind;
    if (r > 0 && (options & ASGST_COPY_STACK)) {
      r = walk_copy(be, &thread, &top, options, with_state, &call);
    } else if (r > 0) {
      r = asgst__run_with_iterator(be, &thread, &top, options, with_state, &call);
    } else {
      ASGST_Iterator it;
      asgst__iterator_fail(&it, r);
      if (fun) fun(&it, arg);
    }
    /* Release the target unless a copy walk did so already, then wait for it to leave its
     * handler so the slot is free for the next walk. */
    int held = PUBLISHED;
    atomic_compare_exchange_strong(&slot.phase, &held, RELEASED);
    wait_phase_change(RELEASED, now_ns() + TARGET_MAX_WAIT_NS);
    atomic_store(&slot.phase, IDLE);
    atomic_store(&slot.target, 0);
  }
  pthread_mutex_unlock(&walker_lock);
  return r;
}

/* N (walker side). */
int ASGST_RunWithIteratorOnThread(int64_t os_thread_id, int32_t options, int32_t timeout_us,
                                  ASGST_IteratorHandler fun, void *arg) {
  /* Above INT32_MAX it is no tid: cut to a pid_t, tid + 2^32 would walk thread tid. */
  if (os_thread_id <= 0 || os_thread_id > INT32_MAX) return ASGST_INVALID_ARGUMENT;
  /* A sampler thread often blocks every signal; the walk's guard needs SIGSEGV (the soak
   * test's walker thread died on the first fault its guard should have caught). */
  sigset_t saved_mask;
  bool unblocked = asgst__guard_let_through(&saved_mask);
  int r;
  if (os_thread_id == (int64_t)syscall(SYS_gettid))
    r = ASGST_RunWithIterator(NULL, options & ~(ASGST_COPY_STACK | ASGST__OPT_COPY_CHECK),
                              fun, arg);
  else
    r = walk_other((pid_t)os_thread_id, options, timeout_us, fun, arg);
  if (unblocked) pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
  return r;
}
