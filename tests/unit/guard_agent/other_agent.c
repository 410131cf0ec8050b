/*
 * other_agent.c - another agent with a crash protection of its own (other_agent.h).
 */
#include "other_agent.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static __thread sigjmp_buf *volatile protecting __attribute__((tls_model("initial-exec")));
static struct sigaction before;
static volatile const void *target;
static volatile long recovered, unowned, signals, signal_faults;

/* SS. Owns a fault only while one of its protected reads runs on the thread; passes any
 * other on to the handler it found, as if it were not there. */
static void on_segv(int sig, siginfo_t *info, void *uc) {
  sigjmp_buf *p = protecting;
  if (p != NULL) {
    protecting = NULL;
    recovered++;
    siglongjmp(*p, 1);
  }
  unowned++;
  if (before.sa_flags & SA_SIGINFO) {
    if (before.sa_sigaction) before.sa_sigaction(sig, info, uc);
  } else if (before.sa_handler == SIG_DFL || before.sa_handler == SIG_IGN) {
    signal(sig, SIG_DFL); /* the fault happens again and kills the process */
  } else {
    before.sa_handler(sig);
  }
}

/* SS. Its profiling signal: one protected read of the target. */
static void on_usr1(int sig) {
  (void)sig;
  signals++;
  uintptr_t v;
  if (!other_agent_read((const void *)target, &v)) signal_faults++;
}

/* N. */
int other_agent_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &before) != 0) return -1;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGUSR1, &sa, NULL);
}

/* SS. */
void other_agent_set_target(const void *p) { target = p; }

/* SS. */
int other_agent_read(const void *p, uintptr_t *out) {
  sigjmp_buf env;
  sigjmp_buf *volatile outer = protecting;
  if (sigsetjmp(env, 1) == 0) {
    protecting = &env;
    *out = *(const volatile uintptr_t *)p;
    protecting = outer;
    return 1;
  }
  protecting = outer;
  return 0;
}

/* SS. */
int other_agent_copy(const void *p, uintptr_t *out) {
  /* Through a volatile pointer: the compiler must call libc, not inline the copy. */
  void *(*volatile copy)(void *, const void *, size_t) = memcpy;
  sigjmp_buf env;
  sigjmp_buf *volatile outer = protecting;
  if (sigsetjmp(env, 1) == 0) {
    protecting = &env;
    copy(out, p, sizeof *out);
    protecting = outer;
    return 1;
  }
  protecting = outer;
  return 0;
}

/* SS. */
other_agent_stats other_agent_seen(void) {
  return (other_agent_stats){recovered, unowned, signals, signal_faults};
}
