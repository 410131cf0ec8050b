/*
 * state.c - the one profiler context (state.h says why it is a global).
 */
#include <signal.h>

#include "core/state.h"

prof_state prof = {.signal_cpu = SIGSTKFLT, .signal_wall = SIGVTALRM};
