/*
 * init_timing.h - an optional breakdown of ASGST_Initialize's time by phase, printed to
 * stderr when the environment variable ASGST_INIT_TIMING is set to 1 (docs/budgets.md,
 * "Attach"). Off by default: then each mark is a single test of a static flag.
 */
#ifndef ASGST_HS_INIT_TIMING_H
#define ASGST_HS_INIT_TIMING_H

/* N. Starts a breakdown (reads ASGST_INIT_TIMING); `what` names it in the output. */
void asgst__init_timing_start(const char *what);
/* N. Ends the phase running since the last mark (or the start), naming it. */
void asgst__init_timing_mark(const char *phase);
/* N. Adds a phase that another thread of the library ran meanwhile (wall and that thread's
 * CPU time, in ns), printed apart from the binding's own phases. */
void asgst__init_timing_other(const char *phase, long long wall_ns, long long cpu_ns);
/* N. Prints the breakdown (wall and this thread's CPU time per phase) and ends it. */
void asgst__init_timing_report(void);

#endif
