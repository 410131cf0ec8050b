/*
 * test_guard_handlers.h - keeps the crash guard's signal handlers in place under cmocka.
 * cmocka replaces the SIGSEGV/SIGBUS handlers around every test (and restores them with
 * signal(), which drops SA_SIGINFO), which would take faults away from the library's crash
 * guard. So the guard's handlers are captured right after it installed itself and put back
 * by use_guard(), called inside every test body that faults on purpose (a cmocka per-test
 * setup would not do: cmocka restores its handlers between setup and test).
 * Included by exactly one .c per program (static functions).
 */
#ifndef TEST_GUARD_HANDLERS_H
#define TEST_GUARD_HANDLERS_H

#include <signal.h>

static struct sigaction guard_segv, guard_bus;
static int guard_captured;

/* Captures the SIGSEGV/SIGBUS handlers installed now (the guard's, once it is installed). */
static inline void capture_guard(void) {
  sigaction(SIGSEGV, NULL, &guard_segv);
  sigaction(SIGBUS, NULL, &guard_bus);
  guard_captured = 1;
}

/* Puts the captured handlers back; -1 if none were captured. */
static inline int use_guard(void **state) {
  (void)state;
  if (!guard_captured) return -1;
  sigaction(SIGSEGV, &guard_segv, NULL);
  sigaction(SIGBUS, &guard_bus, NULL);
  return 0;
}

#endif
