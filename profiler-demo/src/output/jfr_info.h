/*
 * jfr_info.h - the events a JDK recording carries in every chunk besides its samples
 * (jfr_info.c): jdk.ActiveRecording (this recording), jdk.ActiveSetting (each event
 * type's enabled and period settings), jdk.JVMInformation and jdk.OSInformation. Readers
 * (JMC, async-profiler's converter) show or use them; the JDK's `jfr summary` counts them.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_JFR_INFO_H
#define ASGSTPROF_OUTPUT_JFR_INFO_H

#include <stdint.h>

#include "output/jfr_encode.h"

/* N. The four kinds of events at time ticks; start_ms and duration_ns: the recording's
 * start (ms since the epoch) and length so far. */
void jfr_info_events(jfr_buf *b, uint64_t ticks, uint64_t start_ms, uint64_t duration_ns);

#endif /* ASGSTPROF_OUTPUT_JFR_INFO_H */
