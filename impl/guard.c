/*
 * guard.c - SIGSEGV/SIGBUS handler of the crash guard (see guard.h).
 */
#include "guard.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <ucontext.h>

#include "safe_read.h"

__thread sigjmp_buf *volatile asgst__guard_top __attribute__((tls_model("initial-exec")));
__thread volatile uintptr_t asgst__guard_copy_lo __attribute__((tls_model("initial-exec")));
__thread volatile uintptr_t asgst__guard_copy_hi __attribute__((tls_model("initial-exec")));

/* The executable segment of the ELF object holding the library: [text_lo, text_hi), set
 * once at install (guard.h says why this range). */
static uintptr_t text_lo, text_hi;

static struct sigaction previous_segv;
static struct sigaction previous_bus;
static atomic_uint_fast64_t fault_count;
static atomic_int installed;

/* SS. Hands a fault that is not ours to the handler that was installed before us. */
static void chain(int sig, siginfo_t *info, void *uc) {
  const struct sigaction *old = sig == SIGBUS ? &previous_bus : &previous_segv;
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) old->sa_sigaction(sig, info, uc);
    return;
  }
  if (old->sa_handler == SIG_IGN || old->sa_handler == SIG_DFL) {
    /* Returning re-executes the faulting instruction, which now meets the default action:
     * the process dies exactly as it would have without us. */
    signal(sig, SIG_DFL);
    return;
  }
  old->sa_handler(sig);
}

/* SS. True if a fault of a thread inside a guarded region is the guard's (guard.h): the
 * kernel raised it, at a pc in our text or at an address of the announced copy. */
static bool ours(const siginfo_t *info, const ucontext_t *uc) {
  if (info == NULL || info->si_code <= 0) return false;
  uintptr_t pc = asgst__uc_pc(uc);
  if (pc >= text_lo && pc < text_hi) return true;
  uintptr_t a = (uintptr_t)info->si_addr;
  return a >= asgst__guard_copy_lo && a < asgst__guard_copy_hi;
}

/* SS. */
static void on_fault(int sig, siginfo_t *info, void *uc) {
  sigjmp_buf *top = asgst__guard_top;
  if (top == NULL || !ours(info, uc)) {
    chain(sig, info, uc);
    return;
  }
  asgst__guard_top = NULL;
  asgst__guard_copy_hi = 0;
  atomic_fetch_add_explicit(&fault_count, 1, memory_order_relaxed);
  /* sigsetjmp(buf, 0) did not save the mask: put back the interrupted code's mask. */
  pthread_sigmask(SIG_SETMASK, &((ucontext_t *)uc)->uc_sigmask, NULL);
  siglongjmp(*top, 1);
}

/* SS. Every signal but the synchronous error signals, blocked while a fault is handled (as
 * the JVM's own handler does). Found by the live-JVM fuzzer: with an empty mask, a profiling
 * signal landed while this handler (or the JVM's, called from it) served an ordinary fault
 * such as a safepoint poll; SIGSEGV was still blocked there, so a guarded fault of the
 * nested walk could not be delivered and the kernel killed the process, and reset SIGSEGV
 * to its default action for every thread on the way. */
static void block_async_signals(sigset_t *set) {
  sigfillset(set);
  sigdelset(set, SIGSEGV);
  sigdelset(set, SIGBUS);
  sigdelset(set, SIGILL);
  sigdelset(set, SIGFPE);
  sigdelset(set, SIGTRAP);
}

/* N. dl_iterate_phdr's callback: the executable PT_LOAD segment holding *(uintptr_t *)data
 * goes to text_lo/hi. */
static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t at = *(const uintptr_t *)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (at >= lo && at - lo < ph->p_memsz) {
      text_lo = lo;
      text_hi = lo + ph->p_memsz;
      return 1;
    }
  }
  return 0;
}

/* N. Sets our text range from a function of ours. Should the loader not know it (it always
 * does on Linux), every address counts as ours: the guard then takes every fault inside a
 * guarded region, as it did before it tested the pc, rather than none. */
static void learn_text(void) {
  uintptr_t at = (uintptr_t)&on_fault;
  if (dl_iterate_phdr(find_text, &at) == 0 || text_hi <= text_lo) {
    text_lo = 0;
    text_hi = UINTPTR_MAX;
  }
}

/* N. */
int asgst__guard_install(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&installed, &expected, 1)) return 0;
  learn_text(); /* before the handler can run */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  /* SA_NODEFER is not set: a fault in our own handler must not recurse. SA_ONSTACK so a
   * stack overflow handled by the JVM on its alternate stack still gets there. */
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  block_async_signals(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &previous_segv) != 0 || sigaction(SIGBUS, &sa, &previous_bus) != 0) {
    atomic_store(&installed, 0);
    return -1;
  }
  return 0;
}

/* N. */
bool asgst__guard_let_through(sigset_t *saved) {
  sigset_t sync;
  sigemptyset(&sync);
  sigaddset(&sync, SIGSEGV);
  sigaddset(&sync, SIGBUS);
  if (pthread_sigmask(SIG_UNBLOCK, &sync, saved) != 0) return false;
  return sigismember(saved, SIGSEGV) || sigismember(saved, SIGBUS);
}

/* SS. */
uint64_t asgst__guard_faults(void) {
  return atomic_load_explicit(&fault_count, memory_order_relaxed);
}

/* SS. */
uintptr_t asgst__guarded_ptr(uintptr_t a) {
  volatile uintptr_t v = 0;
  volatile uintptr_t at = a; /* not a register a fault's longjmp could leave stale */
  ASGST__GUARDED({
    uintptr_t x = 0;
    if (asgst__load_ptr(at, &x)) v = x;
  }, v = 0);
  return v;
}
