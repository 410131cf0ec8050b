/*
 * other_agent.h - another agent in the process, for test_guard_nested: it protects its own
 * reads of possibly bad memory with a SIGSEGV handler and sigsetjmp, as profilers do
 * (async-profiler's safe reads), and reads such memory from its own SIGUSR1 handler (its
 * "profiling signal"). Built as a shared object of its own so that its code lies outside
 * the text of the test program, which the crash guard counts as the library's.
 */
#ifndef TEST_OTHER_AGENT_H
#define TEST_OTHER_AGENT_H

#include <stdint.h>

/* What the agent saw. */
typedef struct {
  long recovered; /* faults of its own protected reads it caught */
  long unowned;   /* faults it got outside its protection (passed on) */
  long signals;   /* its SIGUSR1 handler's runs */
  long signal_faults; /* faults its SIGUSR1 handler's read recovered from */
} other_agent_stats;

/* N. Installs its SIGSEGV handler (in front of the current one, which it passes unowned
 * faults on to) and its SIGUSR1 handler. 0 or -1. */
int other_agent_install(void);
/* SS. The address its SIGUSR1 handler reads. */
void other_agent_set_target(const void *p);
/* SS. Reads the word at p under its own protection with a load of its own code: 1 and *out,
 * or 0 if the load faulted. */
int other_agent_read(const void *p, uintptr_t *out);
/* SS. The same with libc's memcpy doing the load. */
int other_agent_copy(const void *p, uintptr_t *out);
/* SS. */
other_agent_stats other_agent_seen(void);

#endif
