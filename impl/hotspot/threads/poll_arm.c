/*
 * poll_arm.c - whether a Java thread's next safepoint poll will stop it.
 *
 * A queue element's frame is only useful if the owner stops soon after the sample: the
 * owner's signal handler waits (bounded) until the suspend request of the processing thread
 * has armed its poll, so the owner stops at its very next poll, where the sampled frame is
 * still on the stack or being returned from (queue_thread.c). This file tells "armed".
 *
 * JDK 10 and later poll a thread-local word: JavaThread::_poll_data (17+: {_polling_word,
 * _polling_page}; 11: _polling_page) holds the address compiled code and the interpreter
 * read at a poll: the readable "good" page when disarmed, the PROT_NONE "bad" page just
 * below it when armed (SafepointMechanism::default_initialize maps the two pages together).
 * A handshake (JVMTI SuspendThread on 17+) arms the target's word before it waits; a
 * global safepoint (SuspendThread on 11) arms every thread's. The field is not in the
 * vmStructs tables: its offset is found once by scanning the calling JavaThread for the
 * good page's address (found in /proc/self/maps as a one-page ---p mapping followed by a
 * one-page r--p one; on 11 the exported os::_polling_page must name the bad page),
 * and confirmed on a second thread (the processing thread) before it is used.
 *
 * JDK 8 has no thread-local poll: a safepoint protects the one global polling page
 * (os::_polling_page, exported) and switches the interpreter's dispatch table. Armed there
 * means "that page is unreadable", asked with process_vm_readv on ourselves (EFAULT, no
 * signal).
 *
 * Where neither works the feature is reported off and owners do not wait.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "threads.h"
#include "../model/vm_model.h"
#include "../model/vmstructs.h"

#define MAX_CANDIDATES 8

static long page_size;
static long poll_offset = -1;      /* of the thread-local poll page address, -1: none */
static uintptr_t good_page;        /* its disarmed value */
static uintptr_t global_page;      /* JDK 8: os::_polling_page */
static atomic_int state;           /* 0 unknown, 1 found (unconfirmed), 2 usable, -1 off */
static char why_off[160];

/* N. The good pages of /proc/self/maps: a one-page r--p anonymous mapping right after a
 * one-page ---p one. Returns how many (at most max). */
static int good_page_candidates(uintptr_t *out, int max) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) return 0;
  char line[512], perm[8], prev_perm[8] = "";
  unsigned long lo, hi, prev_lo = 0, prev_hi = 0, off;
  int n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    char path[8] = "";
    if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %7s", &lo, &hi, perm, &off, path) < 4) continue;
    bool anon = path[0] == '\0';
    if (anon && strcmp(perm, "r--p") == 0 && hi - lo == (unsigned long)page_size &&
        strcmp(prev_perm, "---p") == 0 && prev_hi == lo && prev_hi - prev_lo == (unsigned long)page_size)
      out[n++] = lo;
    snprintf(prev_perm, sizeof prev_perm, "%s", anon ? perm : "");
    prev_lo = lo, prev_hi = hi;
  }
  fclose(f);
  return n;
}

/* N. The first offset in the JavaThread jt whose word is one of the candidates. */
static long scan_thread(uintptr_t jt, const uintptr_t *cand, int ncand, uintptr_t *found) {
  long size = asgst__vms_type_size("JavaThread");
  if (size <= 0 || size > 64 * 1024) size = 4096;
  for (long off = 0; off + 8 <= size; off += 8) {
    uintptr_t v = *(const uintptr_t *)(jt + (uintptr_t)off);
    for (int i = 0; i < ncand; i++)
      if (v == cand[i]) return *found = v, off;
  }
  return -1;
}

/* N. Switches the feature off, saying why. */
static void off(const char *why) {
  snprintf(why_off, sizeof why_off, "queue owners stop at their next poll (%s)", why);
  asgst__vm_feature_off(why_off);
  atomic_store(&state, -1);
}

/* N. JDK 8: the global polling page. */
static void discover_global(void) {
  uintptr_t a = asgst__vms_static("os", "_polling_page");
  global_page = a ? *(const uintptr_t *)a : 0;
  if (global_page == 0) return off("no os::_polling_page");
  atomic_store(&state, 2);
}

/* N. */
void asgst__hs_poll_discover(void) {
  page_size = sysconf(_SC_PAGESIZE);
  atomic_store(&state, 0);
  poll_offset = -1;
  if (asgst__vm.jdk == 8) return discover_global();
  asgst__thread t;
  if (asgst__hs_current_thread(&t) <= 0 || t.vm_thread == NULL) return off("no JavaThread at init");
  uintptr_t cand[MAX_CANDIDATES];
  int n = good_page_candidates(cand, MAX_CANDIDATES);
  uintptr_t a = asgst__vms_static("os", "_polling_page");
  if (a && *(const uintptr_t *)a) {
    /* 11 exports the bad page (17 exports the field but leaves it 0): then the good one is
     * the next, and only it. */
    uintptr_t good = *(const uintptr_t *)a + (uintptr_t)page_size;
    bool seen = false;
    for (int i = 0; i < n; i++) seen |= cand[i] == good;
    if (!seen) return off("os::_polling_page is not below a good page");
    cand[0] = good, n = 1;
  }
  if (n == 0) return off("no polling page pair in /proc/self/maps");
  /* A safepoint or handshake in progress arms the word: try a few times. */
  for (int k = 0; k < 5 && poll_offset < 0; k++) {
    poll_offset = scan_thread((uintptr_t)t.vm_thread, cand, n, &good_page);
    if (poll_offset < 0) usleep(1000);
  }
  if (poll_offset < 0) return off("the poll word was not found in the JavaThread");
  /* 16 and later keep the stack watermark word (_polling_word) just before it, disarmed
   * at ~1: a second proof that this is the poll data and not another pointer there. */
  if (asgst__vm.jdk >= 16 && poll_offset >= 8 &&
      *(const uintptr_t *)((uintptr_t)t.vm_thread + (uintptr_t)poll_offset - 8) != ~(uintptr_t)1)
    return off("no disarmed _polling_word before the poll page word");
  atomic_store(&state, 1);
}

/* N. */
void asgst__hs_poll_confirm(void) {
  if (atomic_load(&state) != 1) return;
  asgst__thread t;
  if (asgst__hs_current_thread(&t) <= 0 || t.vm_thread == NULL) return off("no second JavaThread");
  for (int k = 0; k < 5; k++) {
    if (*(volatile const uintptr_t *)((uintptr_t)t.vm_thread + (uintptr_t)poll_offset) == good_page) {
      atomic_store(&state, 2);
      return;
    }
    usleep(1000);
  }
  off("the poll word's offset did not hold on a second thread");
}

/* SS. process_vm_readv on ourselves fails with EFAULT where the page is unreadable. */
static bool page_protected(uintptr_t page) {
  char b;
  struct iovec local = {&b, 1}, remote = {(void *)page, 1};
  int saved = errno;
  bool prot = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) < 0 && errno == EFAULT;
  errno = saved;
  return prot;
}

/* SS. */
int asgst__hs_poll_armed(const asgst__thread *t) {
  if (atomic_load_explicit(&state, memory_order_relaxed) != 2) return -1;
  if (global_page) return page_protected(global_page);
  if (t == NULL || t->vm_thread == NULL) return -1;
  /* The thread's own JavaThread, read by itself: valid while it runs. */
  uintptr_t v = __atomic_load_n((const uintptr_t *)((uintptr_t)t->vm_thread + (uintptr_t)poll_offset),
                                __ATOMIC_ACQUIRE);
  return v != good_page;
}

/* N. */
long asgst__hs_poll_offset(void) {
  return atomic_load(&state) == 2 ? (global_page ? 0 : poll_offset) : -1;
}
