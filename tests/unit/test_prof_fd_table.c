/* test_prof_fd_table.c - the demo profiler's live fd table, without a JVM: calls handed
 * over by handlers (prof_fd_note) come out of the ring in order and a full ring refuses
 * the next one (the caller counts it lost); a churn of opens and closes on one stack is
 * one history counting every close, while the fds left open are listed exactly; distinct
 * histories are capped and the rest counted as "other"; only the newest closed entries
 * are kept whole; a close whose number another thread already reopened with another file
 * leaves the new holder open; handlers on two threads at once while the table drains lose
 * nothing they were not told of, and each thread's calls arrive in its order. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "profiler-demo/src/core/state.c"
#include "profiler-demo/src/core/trace_store.c"
#include "profiler-demo/src/fd/fd_events.c"
#include "profiler-demo/src/fd/fd_format.c"
#include "profiler-demo/src/fd/fd_table.c"

/* The symbol table is not under test: every frame has one name. */
int prof_sym_frame(const prof_frame *f) {
  (void)f;
  return 1;
}
const char *prof_sym_name(int id) {
  (void)id;
  return "Test.frame";
}
/* The walk room is not under test: the test hands calls to prof_fd_note itself. */
void prof_walk_set_fd_taker(prof_fd_taker taker) { (void)taker; }

enum { EV_OPEN, EV_CLOSE };

/* Two traced calls: openat and close. */
static int setup(void **state) {
  (void)state;
  memset(&prof.opts, 0, sizeof prof.opts);
  prof.opts.nevents = 2;
  prof.opts.events[EV_OPEN] = (prof_event){.kind = EV_TRACEPOINT, .fd_call = FDC_PATH_ARG1,
                                           .syscall = "openat"};
  prof.opts.events[EV_CLOSE] = (prof_event){.kind = EV_TRACEPOINT, .fd_call = FDC_CLOSE,
                                            .syscall = "close"};
  return prof_fd_start();
}

static uint64_t seq;

/* Hands one call to the table as a handler would: 3 frames made from stack_seed. */
static bool note(int event, int fd, uint64_t ino, uintptr_t stack_seed) {
  prof_frame f[3];
  memset(f, 0, sizeof f);
  for (int i = 0; i < 3; i++) {
    f[i].method = (void *)(0x1000 + stack_seed * 0x100 + (uintptr_t)i * 8);
    f[i].type = ASGST_FRAME_JAVA;
    f[i].comp_level = (int8_t)(seq % 5); /* tiers vary: the table's stack does not */
  }
  prof_record h;
  memset(&h, 0, sizeof h);
  h.event = (uint16_t)event, h.nframes = 3, h.tid = 42, h.walk_result = 1, h.seq = ++seq;
  prof_fdinfo fi;
  memset(&fi, 0, sizeof fi);
  fi.fd[0] = fd, fi.fd[1] = -1, fi.ino[0] = ino, fi.time_ns = seq;
  snprintf((char *)fi.addr, sizeof fi.addr, "/tmp/churn");
  fi.addrlen = 10;
  return prof_fd_note(&h, f, &fi);
}

/* An fd number that is not open in this process. */
#define FREE_FD 900

static void ring_keeps_order_and_refuses_when_full(void **state) {
  (void)state;
  for (size_t i = 0; i < RING_CELLS; i++) assert_true(note(EV_OPEN, FREE_FD, 7, 1));
  assert_false(note(EV_OPEN, FREE_FD, 7, 1));
  prof_fd_event ev;
  uint64_t last = 0;
  for (size_t i = 0; i < RING_CELLS / 2; i++) {
    assert_true(prof_fd_events_pop(&ev));
    assert_true(ev.seq > last);
    last = ev.seq;
  }
  assert_true(note(EV_OPEN, FREE_FD, 7, 1)); /* room again, a lap later */
  size_t n = 0;
  while (prof_fd_events_pop(&ev)) assert_true(ev.seq > last), last = ev.seq, n++;
  assert_int_equal(n, RING_CELLS / 2 + 1);
}

static void churn_is_one_history_and_open_fds_are_exact(void **state) {
  (void)state;
  int keep = open("/dev/null", O_RDONLY);
  struct stat st;
  assert_true(keep >= 0 && fstat(keep, &st) == 0);
  assert_true(note(EV_OPEN, keep, (uint64_t)st.st_ino, 2));
  enum { TURNS = 200000 };
  for (int i = 0; i < TURNS; i++) {
    assert_true(note(EV_OPEN, FREE_FD, 7, 1));
    assert_true(note(EV_CLOSE, FREE_FD, 0, 3));
    if (i % 1000 == 999) prof_fd_drain();
  }
  fd_view v;
  fd_view_take(&v);
  assert_int_equal(v.nopen, 1);
  assert_int_equal(v.open[0]->fd[0], keep);
  assert_int_equal(v.nhist, 1);
  assert_int_equal(v.hist[0]->count, TURNS);
  assert_int_equal(v.hist[0]->exact, TURNS);
  assert_string_equal(v.hist[0]->kind, "file");
  assert_int_equal(v.closed, TURNS);
  assert_int_equal(v.nrecent, FD_RECENT);
  assert_int_equal(v.calls, 2 * TURNS + 1);
  fd_view_release(&v);
  close(keep);
}

static void histories_are_capped(void **state) {
  (void)state;
  enum { NSTACKS = FD_HISTORIES + 900 };
  for (int i = 0; i < NSTACKS; i++) {
    assert_true(note(EV_OPEN, FREE_FD, 7, (uintptr_t)i + 10));
    assert_true(note(EV_CLOSE, FREE_FD, 0, 3));
    if (i % 1000 == 999) prof_fd_drain();
  }
  fd_view v;
  fd_view_take(&v);
  assert_int_equal(v.nhist, FD_HISTORIES);
  assert_int_equal(v.other, NSTACKS - FD_HISTORIES);
  assert_int_equal(v.closed, NSTACKS);
  assert_int_equal(v.nopen, 0);
  fd_view_release(&v);
}

static void late_close_leaves_the_new_holder_open(void **state) {
  (void)state;
  int fd = open("/dev/null", O_RDONLY);
  struct stat st;
  assert_true(fd >= 0 && fstat(fd, &st) == 0);
  assert_true(note(EV_OPEN, fd, 12345, 1));                /* the number's earlier file */
  assert_true(note(EV_OPEN, fd, (uint64_t)st.st_ino, 2));   /* reopened by another thread */
  assert_true(note(EV_CLOSE, fd, (uint64_t)st.st_ino, 3));  /* the earlier file's close, late */
  fd_view v;
  fd_view_take(&v);
  assert_int_equal(v.nopen, 1);
  assert_int_equal(v.open[0]->ino[0], (uint64_t)st.st_ino);
  assert_int_equal(v.closed, 1);
  assert_int_equal(v.hist[0]->exact, 0); /* ended by the reopening call, not a close */
  fd_view_release(&v);
  close(fd);
}

enum { PER_THREAD = 200000 };
static _Atomic int producers_done;
static _Atomic uint64_t refused;

/* A handler's thread: PER_THREAD calls, its id in tid, its own count in seq. */
static void *producer(void *arg) {
  int id = (int)(intptr_t)arg;
  prof_frame f[1];
  memset(f, 0, sizeof f);
  f[0].type = ASGST_FRAME_JAVA;
  for (int i = 1; i <= PER_THREAD; i++) {
    prof_record h;
    memset(&h, 0, sizeof h);
    h.event = EV_OPEN, h.nframes = 1, h.tid = id, h.walk_result = 1, h.seq = (uint64_t)i;
    prof_fdinfo fi;
    memset(&fi, 0, sizeof fi);
    fi.fd[0] = FREE_FD, fi.fd[1] = -1;
    if (!prof_fd_note(&h, f, &fi)) atomic_fetch_add(&refused, 1);
  }
  atomic_fetch_add(&producers_done, 1);
  return NULL;
}

static void two_threads_lose_nothing_untold(void **state) {
  (void)state;
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, producer, (void *)(intptr_t)(i + 1));
  uint64_t got = 0, last[3] = {0, 0, 0};
  prof_fd_event ev;
  for (;;) {
    bool done = atomic_load(&producers_done) == 2;
    while (prof_fd_events_pop(&ev)) {
      assert_true(ev.tid == 1 || ev.tid == 2);
      assert_true(ev.seq > last[ev.tid]);
      last[ev.tid] = ev.seq;
      got++;
    }
    if (done) break;
  }
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  while (prof_fd_events_pop(&ev)) got++;
  assert_int_equal(got + atomic_load(&refused), 2 * PER_THREAD);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(ring_keeps_order_and_refuses_when_full, setup),
      cmocka_unit_test_setup(churn_is_one_history_and_open_fds_are_exact, setup),
      cmocka_unit_test_setup(histories_are_capped, setup),
      cmocka_unit_test_setup(late_close_leaves_the_new_holder_open, setup),
      cmocka_unit_test_setup(two_threads_lose_nothing_untold, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
