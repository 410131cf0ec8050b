/*
 * guard.h - the crash guard: a memory fault inside a guarded region returns control to the
 * region's start instead of killing the process.
 *
 * Usage (the macros must be in the function whose frame stays live during the region):
 *
 *     ASGST__GUARDED(call, fallback);
 *
 * runs the statement `call` (reads through safe_read.h, or a function making them) and, if
 * it faulted, the statement `fallback` instead of the rest of it. It is made of three
 * macros, for a region that needs its guard by name (a test comparing asgst__guard_top
 * with it):
 *
 *     ASGST__GUARD_BEGIN(g) { ...reads through safe_read.h... }
 *     ASGST__GUARD_FAULTED(g) { ...recover: the reads faulted... }
 *     ASGST__GUARD_END(g);
 *
 * The guard's SIGSEGV/SIGBUS handler sits in front of whatever handler was installed before
 * (a JVM's, for its implicit null checks and safepoint polls) and hands every fault that is
 * not its own on to it, exactly as if the library were not there.
 *
 * Which faults are the guard's: the faulting thread is inside a guarded region, the kernel
 * raised the signal (si_code > 0: not a kill or raise), and either
 *   - the faulting pc lies in the text of the ELF object the library is part of
 *     (libasgst.so, or the program or shared object it is linked into statically), or
 *   - the faulting address lies in the range the thread announced for a copy by libc
 *     (asgst__guard_copying: the page copies of the stack copy and of the recorder call
 *     memcpy, which faults with a pc inside libc).
 * A region is open while other code runs on its thread: a signal handler of another agent
 * that interrupted the walk (async-profiler's own safe reads, AsyncGetCallTrace called by
 * another profiler), or code of someone else the region calls. Their faults are theirs;
 * taking one would jump into our walk and abandon that code half-way. Their pc is outside
 * our text, and they do not read our announced range.
 * Why the pc and not the address of every load: the loads are inlined (safe_read.h) into
 * every walking function, and announcing each load's address would be a TLS store per load
 * on the hot path; the pc test costs nothing until a fault. Why the whole ELF object and
 * not a section of the library's own: the compiler places functions in .text, .text.hot,
 * .text.unlikely..., and no option of GCC moves a whole translation unit into a named
 * section, so exact bounds of only our code would need a section attribute on every
 * function (or a linker script in every program that links the static library). The
 * object's executable segment, found once at install with dl_iterate_phdr from one of our
 * functions, is exact for libasgst.so and works unchanged where the library is linked
 * statically (the unit tests' programs, the test agents); there the host's own code
 * counts as ours too, which only matters if the host faults in its own signal handler
 * while it interrupted one of our walks on the same thread.
 * Why a range for memcpy rather than our own copy loop: libc's vectorized copy is the fast
 * way over the tens of KiB of a stack (docs/budgets.md has the figure), and one TLS
 * pair per page copied is all the range costs.
 * A fault passed on reaches the previous handler with every asynchronous signal blocked
 * (block_async_signals in guard.c says why); an agent's handler that recovers its own read
 * by siglongjmp to a sigsetjmp(buf, 1) gets its own mask back, as it would without us.
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

/* Runs the statement `call` under a guard of its own; on a fault, the statement `fallback`
 * (which may be empty). Costs what the three macros written out cost: a macro, not a
 * function, because sigsetjmp must be in the frame that stays live while `call` runs.
 * sigsetjmp's rule holds: a local that `call` writes and `fallback` or later code reads
 * must be volatile (the jump back may leave a register copy stale). Neither statement may
 * leave the region by break, continue, goto or return: the region's guard would stay
 * installed after its frame is gone (and a break only leaves this macro's own loop). A
 * comma outside parentheses splits a macro argument: put such code in a function. */
#define ASGST__GUARDED(call, fallback)         \
  do {                                         \
    asgst__guard asgst__g;                     \
    ASGST__GUARD_BEGIN(asgst__g)               \
      call;                                    \
    ASGST__GUARD_FAULTED(asgst__g)             \
      fallback;                                \
    ASGST__GUARD_END(asgst__g);                \
  } while (0)

/* The range [lo, hi) the calling thread copies with libc inside a guarded region, empty
 * (hi 0) otherwise. initial-exec TLS, volatile: read by the fault handler. */
extern __thread volatile uintptr_t asgst__guard_copy_lo __attribute__((tls_model("initial-exec")));
extern __thread volatile uintptr_t asgst__guard_copy_hi __attribute__((tls_model("initial-exec")));

/* SS. Announces that the calling thread's guarded region now reads [lo, hi) with code
 * outside the library (libc's memcpy): a fault at an address in it is the guard's
 * whatever its pc. asgst__guard_copying(0, 0) ends that; so does the region's fault. */
static inline void asgst__guard_copying(uintptr_t lo, uintptr_t hi) {
  asgst__guard_copy_hi = 0;
  asgst__guard_copy_lo = lo;
  asgst__guard_copy_hi = hi;
}

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
