/*
 * guard.h - the crash guard: a memory fault inside a guarded region returns control to the
 * region's start instead of killing the process.
 *
 * Usage (the macros must be in the function whose frame stays live during the region):
 *
 *     ASGST__GUARD_BEGIN(g) { ...reads through safe_read.h... }
 *     ASGST__GUARD_FAULTED(g) { ...recover: the reads faulted... }
 *     ASGST__GUARD_END(g);
 *
 * The guard's SIGSEGV/SIGBUS handler sits in front of whatever handler was installed before
 * (a JVM's, for its implicit null checks and safepoint polls) and hands every fault that is
 * not inside a guarded region of the faulting thread on to it.
 *
 * Why sigsetjmp(buf, 0): saving the signal mask costs a sigprocmask system call on every
 * guarded region (hundreds of ns per frame). Instead the handler restores the mask of the
 * interrupted code from the fault's ucontext before it jumps back, which gives the same
 * result on the (rare) fault path only.
 */
#ifndef ASGST_IMPL_GUARD_H
#define ASGST_IMPL_GUARD_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The innermost guarded region of this thread (NULL outside one). initial-exec TLS so a
 * signal handler never triggers a lazy TLS allocation; volatile so that GCC keeps the
 * stores (GCC dropped the store of a plain pointer). */
extern __thread sigjmp_buf *volatile asgst__guard_top __attribute__((tls_model("initial-exec")));

typedef struct {
  sigjmp_buf buf;
  sigjmp_buf *volatile prev;
} asgst__guard;

#define ASGST__GUARD_BEGIN(g)                  \
  (g).prev = asgst__guard_top;                 \
  if (sigsetjmp((g).buf, 0) == 0) {            \
    asgst__guard_top = &(g).buf;
#define ASGST__GUARD_FAULTED(g)                \
    asgst__guard_top = (g).prev;               \
  } else {                                     \
    asgst__guard_top = (g).prev;
#define ASGST__GUARD_END(g) }

/* N. Installs the guard's SIGSEGV and SIGBUS handlers in front of the current ones (once;
 * later calls do nothing). Returns 0 or -1 (sigaction failed). */
int asgst__guard_install(void);
/* N. Lets the guard's signals (SIGSEGV, SIGBUS) through on the calling thread; the mask
 * it had goes to *saved. True if that changed the mask: the caller then puts *saved back
 * with pthread_sigmask(SIG_SETMASK) when its guarded work is done. A synchronous fault that
 * is blocked is not delivered, the kernel kills the process: for N entry points that may
 * run on a thread blocking every signal (a profiler's sampler thread). SS paths cannot
 * afford the system call; their callers must leave these signals unblocked (asgst.h). */
bool asgst__guard_let_through(sigset_t *saved);
/* SS. A pointer-sized load of `a` under a guard of its own: 0 when the address is
 * implausible or the load faulted. For code outside a walk (N code, one-off reads). */
uintptr_t asgst__guarded_ptr(uintptr_t a);
/* SS. Faults caught by the guard since the process started. */
uint64_t asgst__guard_faults(void);

#endif
