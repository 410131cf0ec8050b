/* spin.c - the small library tests/soak/memory.sh's dlopen run loads and unloads: C code
 * that burns time a few calls deep, so samples land in it while it is loaded. */
#include <stdint.h>
#include <time.h>

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static uint64_t inner(uint64_t x) {
  for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

__attribute__((noinline)) static uint64_t middle(uint64_t x) { return inner(x) ^ (x >> 7); }

/* Runs for ms milliseconds. */
uint64_t spin(long ms) {
  uint64_t x = 1;
  for (long end = now_ms() + ms; now_ms() < end;) x = middle(x);
  return x;
}
