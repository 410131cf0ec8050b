/*
 * pmc.h - per-thread hardware counters (user-mode instructions and cycles) for the walk
 * benchmark: instructions per walk do not depend on what else the machine runs, so they
 * compare two walkers even on a noisy machine where nanoseconds wander.
 */
#ifndef ASGST_TEST_PMC_H
#define ASGST_TEST_PMC_H

#include <stdbool.h>
#include <stdint.h>

/* N. Opens the counters of the calling thread; false where the machine has none. */
bool pmc_open_thread(void);
/* SS. Current counts of the calling thread (one read() of the counter group); false (and
 * zeros) if its counters are not open. */
bool pmc_read(uint64_t *instructions, uint64_t *cycles);

#endif
