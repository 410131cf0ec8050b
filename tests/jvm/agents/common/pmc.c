/*
 * pmc.c - see pmc.h. One group per thread (cycles leads, instructions follows), read as a
 * group so both counts come from the same moment.
 */
#include "pmc.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* initial-exec: read from signal handlers, must never be allocated lazily. */
static __thread int group_fd __attribute__((tls_model("initial-exec"))) = -1;

/* N. One user-mode hardware counter of the calling thread in group `leader` (-1: new). */
static int open_counter(uint64_t config, int leader) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = config;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_GROUP;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, 0);
}

/* N. */
bool pmc_open_thread(void) {
  if (group_fd >= 0) return true;
  int lead = open_counter(PERF_COUNT_HW_CPU_CYCLES, -1);
  if (lead < 0) return false;
  if (open_counter(PERF_COUNT_HW_INSTRUCTIONS, lead) < 0) {
    close(lead);
    return false;
  }
  group_fd = lead;
  return true;
}

/* SS. */
bool pmc_read(uint64_t *instructions, uint64_t *cycles) {
  uint64_t v[3] = {0, 0, 0}; /* count of events, cycles, instructions */
  *instructions = *cycles = 0;
  if (group_fd < 0 || read(group_fd, v, sizeof v) != (ssize_t)sizeof v || v[0] != 2) return false;
  *cycles = v[1];
  *instructions = v[2];
  return true;
}
