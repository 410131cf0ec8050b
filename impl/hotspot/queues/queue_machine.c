/*
 * queue_machine.c - test build only: how long the machine kept a queue round's two
 * threads from a CPU.
 *
 * A round (queue_thread.c, process_owner) needs two threads to run: the owner, to reach
 * the poll its suspension armed, and the processing thread, to walk and run the handlers
 * once the owner has stopped (at its normal priority, even with the opt-in). On a machine
 * with more runnable threads than CPUs either may wait on the run queue for a time slice;
 * with one processing thread (21+) every other owner that samples meanwhile waits behind
 * that round, gives up, and its sample may be stale by the time it is processed. The queue
 * test sets those elements apart from the ones the library's own time made stale: it asks
 * for each give-up's round (asgst__hs_queue_round_machine_ns) how long the kernel's
 * scheduler statistics (/proc/self/task/TID/schedstat, second field: time spent runnable
 * but not running) say its two threads waited for a CPU during the round.
 *
 * Rounds are measured only with one processing thread, where an owner can wait behind one.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "queues.h"
#include "../../test_build.h"

#if ASGST__TEST_BUILD

#define RING 8192     /* rounds remembered: more than a test run has */
#define FDS 256       /* owners' schedstat files kept open */

typedef struct {
  _Atomic uint64_t seq; /* the round this entry describes once it has ended, 0: none */
  uint64_t owner0, self0; /* the owner's and the processing thread's run-queue time at its start, ns */
  uint64_t owner, self;   /* theirs during it, ns */
} round_entry;

static round_entry ring[RING];
static struct { pid_t tid; int fd; } fds[FDS];
static pthread_mutex_t fds_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int self_fd = -1; /* the processing thread's own file */

/* N. The run-queue time (ns) in an open schedstat file, 0 if it cannot be read. */
static uint64_t read_wait(int fd) {
  char buf[96];
  ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
  if (n <= 0) return 0;
  buf[n] = 0;
  unsigned long long ran = 0, waited = 0;
  return sscanf(buf, "%llu %llu", &ran, &waited) == 2 ? (uint64_t)waited : 0;
}

/* N. Opens thread tid's schedstat file (-1 if it has ended). */
static int open_stat(pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
  return open(path, O_RDONLY | O_CLOEXEC);
}

/* N. Thread tid's run-queue time, its file kept open across rounds (an ended thread's id
 * may come back as another's: its slot is reopened when the id is new to it). */
static uint64_t owner_wait(pid_t tid) {
  pthread_mutex_lock(&fds_lock);
  unsigned i = (unsigned)tid % FDS;
  if (fds[i].tid != tid) {
    if (fds[i].tid != 0) close(fds[i].fd);
    fds[i].tid = tid;
    fds[i].fd = open_stat(tid);
  }
  uint64_t w = read_wait(fds[i].fd);
  pthread_mutex_unlock(&fds_lock);
  return w;
}

/* N. The processing thread's own run-queue time now. */
static uint64_t self_wait(void) {
  if (self_fd < 0) self_fd = open_stat((pid_t)syscall(SYS_gettid));
  return read_wait(self_fd);
}

/* N. From the processing thread as round seq (> 0) for owner_tid begins. */
void asgst__hs_round_machine_start(uint64_t seq, pid_t owner_tid) {
  round_entry *e = &ring[seq % RING];
  atomic_store(&e->seq, 0);
  e->owner0 = owner_wait(owner_tid);
  e->self0 = self_wait();
}

/* N. From the processing thread as round seq ends. */
void asgst__hs_round_machine_end(uint64_t seq, pid_t owner_tid) {
  round_entry *e = &ring[seq % RING];
  uint64_t owner = owner_wait(owner_tid), self = self_wait();
  e->owner = owner > e->owner0 ? owner - e->owner0 : 0;
  e->self = self > e->self0 ? self - e->self0 : 0;
  atomic_store_explicit(&e->seq, seq, memory_order_release);
}

/* SS. Reads only memory. */
int64_t asgst__hs_queue_round_machine_ns(uint64_t seq, uint64_t *owner, uint64_t *processing) {
  const round_entry *e = &ring[seq % RING];
  if (seq == 0 || atomic_load_explicit(&e->seq, memory_order_acquire) != seq) return -1;
  if (owner) *owner = e->owner;
  if (processing) *processing = e->self;
  return (int64_t)(e->owner + e->self);
}

#endif
