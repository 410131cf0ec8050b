/*
 * time_hist.c - log-scaled histograms of nanosecond times (time_hist.h).
 */
#include <string.h>

#include "core/time_hist.h"

/* SS. v's bucket: v itself below 32, else its octave and the next 5 bits below the top. */
static unsigned bucket_of(uint32_t v) {
  if (v < 32) return v;
  unsigned o = 31u - (unsigned)__builtin_clz(v); /* 5..31 */
  return (o - 4) * 32 + ((v >> (o - 5)) & 31);
}

/* N. The middle of bucket b's values. */
static uint32_t middle_of(unsigned b) {
  if (b < 32) return b;
  unsigned o = b / 32 + 4, sub = b % 32;
  uint64_t low = (uint64_t)(32 + sub) << (o - 5), width = (uint64_t)1 << (o - 5);
  uint64_t mid = low + width / 2;
  return mid > UINT32_MAX ? UINT32_MAX : (uint32_t)mid;
}

/* SS. */
void prof_hist_add(prof_hist *h, uint32_t v) {
  atomic_fetch_add_explicit(&h->n[bucket_of(v)], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&h->total, 1, memory_order_relaxed);
  uint32_t m = atomic_load_explicit(&h->max, memory_order_relaxed);
  while (v > m && !atomic_compare_exchange_weak_explicit(&h->max, &m, v, memory_order_relaxed,
                                                         memory_order_relaxed)) {
  }
}

/* N. */
void prof_hist_merge(prof_hist *h, const prof_hist *from) {
  for (int i = 0; i < PROF_HIST_BUCKETS; i++) {
    uint64_t n = atomic_load_explicit(&from->n[i], memory_order_relaxed);
    if (n) atomic_fetch_add_explicit(&h->n[i], n, memory_order_relaxed);
  }
  atomic_fetch_add_explicit(&h->total, atomic_load(&from->total), memory_order_relaxed);
  uint32_t v = atomic_load(&from->max);
  uint32_t m = atomic_load_explicit(&h->max, memory_order_relaxed);
  while (v > m && !atomic_compare_exchange_weak_explicit(&h->max, &m, v, memory_order_relaxed,
                                                         memory_order_relaxed)) {
  }
}

/* N. */
uint64_t prof_hist_total(const prof_hist *h) {
  return atomic_load(&h->total);
}

/* N. */
uint32_t prof_hist_max(const prof_hist *h) {
  return atomic_load(&h->max);
}

/* N. */
uint32_t prof_hist_rank(const prof_hist *h, uint64_t num, uint64_t den) {
  uint64_t total = prof_hist_total(h);
  if (!total) return 0;
  uint64_t rank = total * num / den, seen = 0;
  if (rank >= total) return prof_hist_max(h);
  for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++) {
    seen += atomic_load_explicit(&h->n[b], memory_order_relaxed);
    if (seen > rank) {
      /* The middle of the top bucket may lie above the largest time seen. */
      uint32_t mid = middle_of(b), max = prof_hist_max(h);
      return mid < max ? mid : max;
    }
  }
  return prof_hist_max(h); /* counted while read: total ran ahead of the buckets */
}

/* N. */
void prof_hist_reset(prof_hist *h) {
  memset(h, 0, sizeof *h);
}
