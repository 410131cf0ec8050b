/*
 * time_hist.h - a histogram of nanosecond times that signal handlers add to: log-scaled
 * buckets (32 to an octave, so a quantile read back is within 1.6% of the true one), an
 * exact maximum. It keeps the walk and lag statistics of a period's samples without
 * keeping each sample (core/sample_buffer.c holds one per period).
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_TIME_HIST_H
#define ASGSTPROF_CORE_TIME_HIST_H

#include <stdatomic.h>
#include <stdint.h>

#define PROF_HIST_BUCKETS 896 /* 32 exact values below 32, then 28 octaves of 32 */

typedef struct {
  _Atomic uint64_t n[PROF_HIST_BUCKETS];
  _Atomic uint64_t total;
  _Atomic uint32_t max;
} prof_hist;

/* SS. Counts time v. */
void prof_hist_add(prof_hist *h, uint32_t v);
/* N. The time of rank total * num / den in ascending order (as a sorted array's
 * [n * num / den] would give), the middle of its bucket; 0 if nothing was counted. */
uint32_t prof_hist_rank(const prof_hist *h, uint64_t num, uint64_t den);
/* N. How many times were counted. */
uint64_t prof_hist_total(const prof_hist *h);
/* N. The largest time counted (0 if none). */
uint32_t prof_hist_max(const prof_hist *h);
/* N. Adds every time of from to h (from: while nothing adds to it). */
void prof_hist_merge(prof_hist *h, const prof_hist *from);
/* N. Forgets every time (only while nothing adds). */
void prof_hist_reset(prof_hist *h);

#endif /* ASGSTPROF_CORE_TIME_HIST_H */
