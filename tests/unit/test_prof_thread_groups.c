/* test_prof_thread_groups.c - the demo profiler's grouping of threads that are not Java
 * threads (cputhreads=all), without a JVM: the root frame names the kind, with a thread's
 * number folded ("GC Thread#0" and "GC Thread#1" are one "[GC Thread#*]") but not a kind's
 * ("G1", "C2"), and HotSpot's shortened names written out (the kernel's 15 bytes, JDK 26's
 * "C2 Comp..hread0"); Java threads have no group; and the call-trace store keeps the
 * thread of such a sample in its key without `threads` (keep_tid), so outputs can group
 * it, while other samples of one stack still fold into one key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler-demo/src/core/sample_buffer.c"
#include "profiler-demo/src/core/thread_names.c"
#include "profiler-demo/src/core/time_hist.c"
#include "profiler-demo/src/core/trace_store.c"

/* The folded group label of name. */
static const char *fold(const char *name) {
  static char buf[64];
  prof_thread_fold_name(name, buf, sizeof buf);
  return buf;
}

static void test_folding(void **state) {
  (void)state;
  assert_string_equal(fold("GC Thread#0"), "GC Thread#*");
  assert_string_equal(fold("GC Thread#12"), "GC Thread#*");
  assert_string_equal(fold("G1 Conc#0"), "G1 Conc#*");
  assert_string_equal(fold("G1 Refine#3"), "G1 Refine#*");
  assert_string_equal(fold("native-spin-17"), "native-spin-*");
  assert_string_equal(fold("VM Thread"), "VM Thread");
  assert_string_equal(fold("pool-2-thread-10"), "pool-*-thread-*");
  /* Cut by the kernel (JDK 25 and older) or shortened by the VM (JDK 26 and later). */
  assert_string_equal(fold("C2 CompilerThre"), "C2 CompilerThread*");
  assert_string_equal(fold("C1 Comp..hread0"), "C1 CompilerThread*");
  assert_string_equal(fold("VM Peri..Thread"), "VM Periodic Task Thread");
  assert_string_equal(fold("GC task thread#"), "GC task thread#*");
}

static void test_groups(void **state) {
  (void)state;
  char buf[96];
  prof_thread_name_remember(101, "C2 CompilerThre", false);
  prof_thread_set_other(101, true);
  assert_true(prof_thread_group(101, buf, sizeof buf));
  assert_string_equal(buf, "[C2 CompilerThread*]");
  /* A Java thread: no group, and one that JVMTI announces later is one again. */
  prof_thread_name_remember(102, "main", true);
  strcpy(buf, "untouched");
  assert_false(prof_thread_group(102, buf, sizeof buf));
  assert_string_equal(buf, "untouched");
  prof_thread_name_remember(103, "tid 103", false);
  prof_thread_set_other(103, true);
  prof_thread_name_remember(103, "worker-1", true);
  prof_thread_set_other(103, false);
  assert_false(prof_thread_group(103, buf, sizeof buf));
  /* Ended as a Java thread: known so, so the scan does not take it for a new one. */
  assert_false(prof_thread_ended(104));
  prof_thread_set_ended(104);
  assert_true(prof_thread_ended(104));
}

/* One stack's sample on tid, of an other thread (keep) or a Java thread. */
static void count(int32_t tid, bool keep) {
  prof_frame f[2];
  memset(f, 0, sizeof f);
  f[0].method = (void *)0x1000, f[0].bci = -1, f[0].type = 4;
  f[1].method = (void *)0x2000, f[1].bci = -1, f[1].type = 4;
  prof_record h;
  memset(&h, 0, sizeof h);
  h.nframes = 2, h.tid = tid, h.walk_result = 2, h.count = 1, h.keep_tid = keep;
  assert_true(prof_buffer_count(&h, f, false));
}

typedef struct {
  int keys, kept_tids;
  uint64_t samples;
} tally;

static void each(const prof_record *r, const prof_frame *frames, const prof_fdinfo *fdi,
                 void *arg) {
  (void)frames, (void)fdi;
  tally *t = arg;
  t->keys++;
  t->samples += r->count;
  if (r->tid) {
    t->kept_tids++;
    assert_true(r->keep_tid);
  }
}

static void test_store_keeps_tid(void **state) {
  (void)state;
  assert_int_equal(prof_buffer_init((size_t)16 << 20), 0);
  prof_buffer_reset();
  count(201, true), count(201, true), count(202, true); /* two other threads */
  count(301, false), count(302, false);                 /* two Java threads, one stack */
  tally t = {0};
  prof_samples_each(each, &t);
  assert_int_equal(t.samples, 5);
  assert_int_equal(t.keys, 3); /* 201, 202, and the Java threads' one key */
  assert_int_equal(t.kept_tids, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_folding),
      cmocka_unit_test(test_groups),
      cmocka_unit_test(test_store_keeps_tid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
