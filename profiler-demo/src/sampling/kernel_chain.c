/*
 * kernel_chain.c - the kernel frames of cpu and named perf event samples: the kernel
 * writes each overflow's callchain (PERF_SAMPLE_CALLCHAIN, kernel part only:
 * exclude_callchain_user) to a small ring buffer mapped over the event's fd; the signal
 * handler takes the newest sample's chain from it and the frames go on top of the Java
 * stack (names from /proc/kallsyms at dump time, symbols/kallsyms.c).
 *
 * Tracepoint samples (not those of the syscalls category, see perf_events.c) have them
 * too.
 *
 * The ring: one control page and RING_PAGES data pages per thread and event. The handler
 * runs on the thread that owns the fd (the fd's signal goes to it alone), so one reader
 * per ring; the kernel writes from the overflow's interrupt. A standard signal (cpu, perf
 * events) is pending at most once, so several samples may wait in the ring when the
 * handler runs: the newest is the one closest to the moment the Java stack is walked, the
 * others are dropped with it (the ring is emptied at every signal, so it never fills up
 * in normal running; when it does the kernel drops samples, not signals). A tracepoint's
 * real-time signals queue one per sample, so each takes the oldest sample.
 *
 * Why the sample's kernel chain matches the Java stack walked: a signal is taken on the
 * way back to user mode, so the Java frames walked are those of the code that entered the
 * kernel (a syscall, a page fault) where the kernel chain was taken.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/state.h"
#include "sampling/sampling.h"

#define RING_PAGES 2 /* data pages (a power of two): ~15 samples of 64 frames */

/* fd -> its mapped ring, NULL if none. Read in the signal handler. */
static _Atomic(struct perf_event_mmap_page *) rings[PROF_MAX_FD];
static size_t page_bytes;

/* N. */
int prof_kchain_attach(int fd) {
  if (fd < 0 || fd >= PROF_MAX_FD) return -1;
  if (!page_bytes) page_bytes = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, (1 + RING_PAGES) * page_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return -1;
  atomic_store(&rings[fd], (struct perf_event_mmap_page *)p);
  return 0;
}

/* Rings taken out of the table by another thread than their owner, unmapped by
 * prof_kchain_reap once the owner's handler has surely returned. */
typedef struct unmap_later {
  void *ring;
  struct unmap_later *next;
} unmap_later;
static unmap_later *later;
static pthread_mutex_t later_lock = PTHREAD_MUTEX_INITIALIZER;

/* N. Called before the fd is closed. The owner's handler reads the ring on the owner's
 * thread: on that thread (JVMTI ThreadEnd) the handler either ran before or finds the
 * table empty, so the ring goes at once; from another thread (stop) the handler may be
 * reading it now, so it goes at prof_kchain_reap. */
void prof_kchain_detach(int fd, bool owner) {
  if (fd < 0 || fd >= PROF_MAX_FD) return;
  struct perf_event_mmap_page *p = atomic_exchange(&rings[fd], NULL);
  if (!p) return;
  unmap_later *l = owner ? NULL : malloc(sizeof *l);
  if (!l) {
    munmap(p, (1 + RING_PAGES) * page_bytes);
    return;
  }
  pthread_mutex_lock(&later_lock);
  *l = (unmap_later){p, later};
  later = l;
  pthread_mutex_unlock(&later_lock);
}

/* N. */
void prof_kchain_reap(void) {
  pthread_mutex_lock(&later_lock);
  unmap_later *l = later;
  later = NULL;
  pthread_mutex_unlock(&later_lock);
  while (l) {
    unmap_later *next = l->next;
    munmap(l->ring, (1 + RING_PAGES) * page_bytes);
    free(l);
    l = next;
  }
}

/* SS. Copies len bytes at ring position pos (wrapping at size) into out. */
static void ring_copy(const char *data, uint64_t size, uint64_t pos, void *out, size_t len) {
  uint64_t at = pos & (size - 1);
  size_t first = at + len <= size ? len : (size_t)(size - at);
  memcpy(out, data + at, first);
  if (first < len) memcpy((char *)out + first, data, len - first);
}

/* SS. The ring position of the newest sample record between tail and head (or of the
 * oldest, if oldest), head if there is none; *next: where the ring is read up to (head,
 * or the end of the oldest sample's record). */
static uint64_t find_sample(const char *data, uint64_t size, uint64_t tail, uint64_t head,
                            bool oldest, uint64_t *next) {
  uint64_t found = head;
  *next = head;
  for (uint64_t pos = tail; pos + sizeof(struct perf_event_header) <= head;) {
    struct perf_event_header h;
    ring_copy(data, size, pos, &h, sizeof h);
    if (h.size < sizeof h) break; /* never written so; stop rather than loop */
    if (h.type == PERF_RECORD_SAMPLE) found = pos;
    pos += h.size;
    if (oldest && found != head) {
      *next = pos;
      break;
    }
  }
  return found;
}

/* SS. */
int prof_kchain_take(int fd, prof_frame *out, int max, bool oldest) {
  if (fd < 0 || fd >= PROF_MAX_FD) return 0;
  struct perf_event_mmap_page *mp = atomic_load_explicit(&rings[fd], memory_order_acquire);
  if (!mp) return 0;
  /* The kernel publishes data_head after the records (the acquire pairs with it) and reads
   * data_tail to know what it may overwrite (the release says we are done reading). */
  uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = mp->data_tail;
  uint64_t size = mp->data_size ? mp->data_size : RING_PAGES * page_bytes;
  const char *data = (const char *)mp + (mp->data_offset ? mp->data_offset : page_bytes);
  uint64_t next;
  uint64_t at = find_sample(data, size, tail, head, oldest, &next);
  int n = 0;
  if (at != head) {
    uint64_t nr;
    ring_copy(data, size, at + sizeof(struct perf_event_header), &nr, sizeof nr);
    for (uint64_t i = 0; i < nr && n < max; i++) {
      uint64_t ip;
      ring_copy(data, size, at + sizeof(struct perf_event_header) + 8 * (i + 1), &ip, 8);
      if (ip >= (uint64_t)PERF_CONTEXT_MAX) continue; /* a context marker, not a frame */
      out[n].method = (void *)(uintptr_t)ip;
      out[n].bci = -1;
      out[n].type = PROF_FRAME_KERNEL;
      out[n].comp_level = 0;
      out[n].pad = 0;
      n++;
    }
  }
  __atomic_store_n(&mp->data_tail, next, __ATOMIC_RELEASE);
  return n;
}

/* N. perf_event_paranoid's value, or -9 if unreadable. */
static int paranoid(void) {
  int v = -9;
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f) {
    if (fscanf(f, "%d", &v) != 1) v = -9;
    fclose(f);
  }
  return v;
}

/* N. Whether this process may sample kernel callchains and map their ring: one cpu-clock
 * event on this thread, opened, mapped and closed. NULL, or why not. */
static const char *try_kernel_callchain(char *why, size_t len) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 10000000;
  a.disabled = 1;
  a.sample_type = PERF_SAMPLE_CALLCHAIN;
  a.exclude_callchain_user = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno, p = paranoid();
    if (e == EACCES || e == EPERM)
      snprintf(why, len, "perf_event_paranoid is %d: this user may sample user mode only "
               "(root, CAP_PERFMON or perf_event_paranoid <= 1 allow kernel frames)", p);
    else
      snprintf(why, len, "perf_event_open with a kernel callchain failed (%s)", strerror(e));
    return why;
  }
  int mapped = prof_kchain_attach(fd);
  int e = errno;
  prof_kchain_detach(fd, true);
  close(fd);
  if (mapped != 0) {
    snprintf(why, len, "the perf ring buffer cannot be mapped (%s; kernel.perf_event_mlock_kb "
             "or RLIMIT_MEMLOCK)", strerror(e));
    return why;
  }
  return NULL;
}

/* N. */
void prof_kchain_check(const char *kallsyms_off) {
  prof.kernel_frames = false;
  prof.kernel_frames_off[0] = 0;
  bool any = false;
  for (int i = 0; i < prof.opts.nevents; i++) any |= prof_kchain_wanted(&prof.opts.events[i]);
  if (!any) return; /* no event that could have them: nothing to say */
  char why[sizeof prof.kernel_frames_off];
  if (prof.opts.no_kernel) snprintf(why, sizeof why, "off (kernel=off)");
  else if (kallsyms_off) snprintf(why, sizeof why, "%s", kallsyms_off);
  else if (!try_kernel_callchain(why, sizeof why)) prof.kernel_frames = true;
  if (!prof.kernel_frames) snprintf(prof.kernel_frames_off, sizeof prof.kernel_frames_off, "%s", why);
}
