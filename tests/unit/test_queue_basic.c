/* test_queue_basic.c - safepoint queues: bad input, registration, order, capacity, indices,
 * compression, resize and deregistration, through the public API over the synthetic VM. */
#include <limits.h>

#include "test_queue_common.h"

static qrec rec;

static void null_queue_is_refused_everywhere(void **state) {
  (void)state;
  assert_int_equal(ASGST_Enqueue(NULL, NULL, NULL), ASGST_ENQUEUE_NO_QUEUE);
  assert_null(ASGST_GetQueueElement(NULL, 0));
  assert_null(ASGST_GetQueueElement(NULL, -1));
  ASGST_QueueSizeInfo info = ASGST_GetQueueSizeInfo(NULL);
  assert_int_equal(info.size, 0);
  assert_int_equal(info.capacity, 0);
  assert_int_equal(info.attempts, 0);
  ASGST_ResizeQueue(NULL, 5);
  ASGST_SetOnQueueProcessingStart(NULL, 0, true, NULL, NULL);
  ASGST_SetOnQueueProcessingEnd(NULL, 0, false, NULL, NULL);
  assert_false(ASGST_DeregisterQueue(NULL, NULL));
  assert_int_equal(ASGST_GetEnqueuableElement(NULL, NULL), ASGST_INVALID_ARGUMENT);
  assert_true(ASGST_Capabilities() & ASGST_REGISTER_QUEUE);
}

static void register_rejects_bad_arguments(void **state) {
  (void)state;
  assert_null(ASGST_RegisterQueue(NULL, 0, 0, qrec_handler, NULL));
  assert_null(ASGST_RegisterQueue(NULL, -3, 0, qrec_handler, NULL));
  assert_null(ASGST_RegisterQueue(NULL, 4, 0, NULL, NULL));
}

/* Runs first, before any fixture activated a VM: no backend, no top frame. */
static void enqueue_without_backend_is_other_error(void **state) {
  (void)state;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_non_null(q);
  assert_int_equal(ASGST_Enqueue(q, NULL, NULL), ASGST_ENQUEUE_OTHER_ERROR);
  ASGST_QueueElement e;
  assert_int_equal(ASGST_GetEnqueuableElement(NULL, &e), ASGST_NOT_INITIALIZED);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).attempts, 1);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).size, 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void register_and_deregister(void **state) {
  (void)state;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_non_null(q);
  ASGST_QueueSizeInfo info = ASGST_GetQueueSizeInfo(q);
  assert_int_equal(info.size, 0);
  assert_int_equal(info.capacity, 4);
  assert_int_equal(info.attempts, 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
  assert_false(ASGST_DeregisterQueue(NULL, q));
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_ENQUEUE_NO_QUEUE);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).capacity, 0);
  assert_null(ASGST_GetQueueElement(q, 0));
}

/* The real C stack of this test has no Java frame. */
static void enqueue_without_java_frame_is_other_error(void **state) {
  (void)state;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_int_equal(ASGST_Enqueue(q, NULL, NULL), ASGST_ENQUEUE_OTHER_ERROR);
  ASGST_QueueElement e;
  assert_int_equal(ASGST_GetEnqueuableElement(NULL, &e), ASGST_NO_TOP_JAVA_FRAME);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).attempts, 1);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).size, 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void elements_are_handled_in_insertion_order(void **state) {
  (void)state;
  memset(&rec, 0, sizeof rec);
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 8, 0, qrec_handler, &rec);
  for (uintptr_t i = 1; i <= 5; i++)
    assert_int_equal(ASGST_Enqueue(q, i % 2 ? &fx.uc1 : &fx.uc2, (void *)i), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).size, 5);
  assert_int_equal(ASGST_ProcessQueues(), 5);
  assert_int_equal(rec.n, 5);
  for (int i = 0; i < 5; i++) {
    assert_ptr_equal(rec.calls[i].arg, (void *)(uintptr_t)(i + 1));
    assert_ptr_equal(rec.calls[i].methods[0], i % 2 ? fx.baz : fx.bar);
  }
  ASGST_QueueSizeInfo info = ASGST_GetQueueSizeInfo(q);
  assert_int_equal(info.size, 0);
  assert_int_equal(info.attempts, 0);
  /* Removed: a second processing handles nothing. */
  assert_int_equal(ASGST_ProcessQueues(), 0);
  assert_int_equal(rec.n, 5);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void handler_iterator_starts_at_the_recorded_frame(void **state) {
  (void)state;
  memset(&rec, 0, sizeof rec);
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  qcall *c = &rec.calls[0];
  assert_int_equal(c->state, 1);
  assert_int_equal(c->nframes, 3);
  assert_ptr_equal(c->methods[0], fx.bar);
  assert_ptr_equal(c->methods[1], fx.foo);
  assert_ptr_equal(c->methods[2], fx.main_m);
  assert_int_equal(c->bcis[0], 3);
  assert_int_equal(c->bcis[2], 1);
  assert_int_equal(c->end, 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void full_queue_refuses_and_counts_attempts(void **state) {
  (void)state;
  memset(&rec, 0, sizeof rec);
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 3, 0, qrec_handler, &rec);
  for (uintptr_t i = 1; i <= 3; i++)
    assert_int_equal(ASGST_Enqueue(q, &fx.uc1, (void *)i), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, (void *)4), ASGST_ENQUEUE_FULL_QUEUE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc2, (void *)5), ASGST_ENQUEUE_FULL_QUEUE);
  ASGST_QueueSizeInfo info = ASGST_GetQueueSizeInfo(q);
  assert_int_equal(info.size, 3);
  assert_int_equal(info.capacity, 3);
  assert_int_equal(info.attempts, 5);
  assert_int_equal(ASGST_ProcessQueues(), 3);
  assert_ptr_equal(rec.calls[2].arg, (void *)3);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).attempts, 0);
  /* Room again after processing. */
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, (void *)6), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).attempts, 1);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void element_indices_from_both_ends(void **state) {
  (void)state;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_null(ASGST_GetQueueElement(q, 0));
  assert_null(ASGST_GetQueueElement(q, -1));
  ASGST_Enqueue(q, &fx.uc1, (void *)10);
  ASGST_Enqueue(q, &fx.uc2, (void *)20);
  ASGST_Enqueue(q, &fx.uc1, (void *)30);
  assert_ptr_equal(ASGST_GetQueueElement(q, 0)->arg, (void *)10);
  assert_ptr_equal(ASGST_GetQueueElement(q, 1)->arg, (void *)20);
  assert_ptr_equal(ASGST_GetQueueElement(q, 2)->arg, (void *)30);
  assert_ptr_equal(ASGST_GetQueueElement(q, -1)->arg, (void *)30);
  assert_ptr_equal(ASGST_GetQueueElement(q, -2)->arg, (void *)20);
  assert_ptr_equal(ASGST_GetQueueElement(q, -3)->arg, (void *)10);
  assert_null(ASGST_GetQueueElement(q, 3));
  assert_null(ASGST_GetQueueElement(q, -4));
  assert_null(ASGST_GetQueueElement(q, INT_MAX));
  assert_null(ASGST_GetQueueElement(q, INT_MIN));
  /* An element holds the top Java frame's registers. */
  ASGST_QueueElement *e = ASGST_GetQueueElement(q, 1);
  assert_ptr_equal(e->pc, top_pc(fx.s2));
  assert_ptr_equal(e->sp, top_sp(fx.s2));
  assert_ptr_equal(e->fp, top_fp(fx.s2));
  /* Indices keep working across the ring's wrap-around. */
  assert_int_equal(ASGST_ProcessQueues(), 3);
  for (uintptr_t i = 1; i <= 4; i++) ASGST_Enqueue(q, &fx.uc1, (void *)i);
  assert_ptr_equal(ASGST_GetQueueElement(q, 0)->arg, (void *)1);
  assert_ptr_equal(ASGST_GetQueueElement(q, -1)->arg, (void *)4);
  assert_ptr_equal(ASGST_GetQueueElement(q, 3)->arg, (void *)4);
  assert_null(ASGST_GetQueueElement(q, 4));
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

/* A profiler's signal handler: bump the count in the youngest element's arg when the new
 * sample is at the same frame, else enqueue with count 1. */
static int sample_compressed(ASGST_Queue *q, ucontext_t *uc) {
  ASGST_QueueElement e;
  int kind = ASGST_GetEnqueuableElement(uc, &e);
  if (kind <= 0) return kind;
  assert_null(e.arg);
  ASGST_QueueElement *last = ASGST_GetQueueElement(q, -1);
  if (last && last->pc == e.pc && last->sp == e.sp && last->fp == e.fp) {
    last->arg = (void *)((uintptr_t)last->arg + 1);
    return kind;
  }
  return ASGST_Enqueue(q, uc, (void *)1);
}

static void compression_through_element_arg(void **state) {
  (void)state;
  memset(&rec, 0, sizeof rec);
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_QueueElement e;
  assert_int_equal(ASGST_GetEnqueuableElement(&fx.uc1, &e), ASGST_JAVA_TRACE);
  assert_ptr_equal(e.pc, top_pc(fx.s1));
  assert_ptr_equal(e.sp, top_sp(fx.s1));
  assert_ptr_equal(e.fp, top_fp(fx.s1));
  for (int i = 0; i < 4; i++) assert_int_equal(sample_compressed(q, &fx.uc1), ASGST_JAVA_TRACE);
  for (int i = 0; i < 2; i++) assert_int_equal(sample_compressed(q, &fx.uc2), ASGST_JAVA_TRACE);
  assert_int_equal(sample_compressed(q, &fx.uc1), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).size, 3);
  assert_int_equal(ASGST_ProcessQueues(), 3);
  assert_ptr_equal(rec.calls[0].arg, (void *)4);
  assert_ptr_equal(rec.calls[0].methods[0], fx.bar);
  assert_ptr_equal(rec.calls[1].arg, (void *)2);
  assert_ptr_equal(rec.calls[1].methods[0], fx.baz);
  assert_ptr_equal(rec.calls[2].arg, (void *)1);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static ASGST_QueueSizeInfo info_in_handler;

static void size_reporting_handler(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  (void)it;
  (void)element_arg;
  info_in_handler = ASGST_GetQueueSizeInfo(queue_arg == NULL ? NULL : *(ASGST_Queue **)queue_arg);
}

static void resize_takes_effect_at_the_end_of_processing(void **state) {
  (void)state;
  static ASGST_Queue *q;
  q = ASGST_RegisterQueue(NULL, 2, 0, size_reporting_handler, &q);
  ASGST_ResizeQueue(q, 4);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).capacity, 2);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_ENQUEUE_FULL_QUEUE);
  assert_int_equal(ASGST_ProcessQueues(), 2);
  /* Still the old capacity while the handlers ran. */
  assert_int_equal(info_in_handler.capacity, 2);
  assert_int_equal(info_in_handler.size, 2);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).capacity, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(ASGST_Enqueue(q, &fx.uc2, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc2, NULL), ASGST_ENQUEUE_FULL_QUEUE);
  /* Shrinking, and bad sizes are ignored. */
  ASGST_ResizeQueue(q, 0);
  ASGST_ResizeQueue(q, -1);
  ASGST_ResizeQueue(q, 1);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).capacity, 4);
  assert_int_equal(ASGST_ProcessQueues(), 4);
  assert_int_equal(ASGST_GetQueueSizeInfo(q).capacity, 1);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc2, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc2, NULL), ASGST_ENQUEUE_FULL_QUEUE);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static void deregistration_drops_pending_elements(void **state) {
  (void)state;
  memset(&rec, 0, sizeof rec);
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_Enqueue(q, &fx.uc1, NULL);
  ASGST_Enqueue(q, &fx.uc2, NULL);
  assert_true(ASGST_DeregisterQueue(NULL, q));
  assert_int_equal(ASGST_ProcessQueues(), 0);
  assert_int_equal(rec.n, 0);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_ENQUEUE_NO_QUEUE);
  assert_null(ASGST_GetQueueElement(q, -1));
}

static void several_queues_of_one_thread(void **state) {
  (void)state;
  static qrec other;
  memset(&rec, 0, sizeof rec);
  memset(&other, 0, sizeof other);
  ASGST_Queue *a = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_Queue *b = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &other);
  ASGST_Enqueue(a, &fx.uc1, (void *)1);
  ASGST_Enqueue(b, &fx.uc2, (void *)2);
  ASGST_Enqueue(b, &fx.uc2, (void *)3);
  assert_int_equal(ASGST_ProcessQueues(), 3);
  assert_int_equal(rec.n, 1);
  assert_int_equal(other.n, 2);
  assert_ptr_equal(other.calls[1].arg, (void *)3);
  assert_true(ASGST_DeregisterQueue(NULL, a));
  assert_true(ASGST_DeregisterQueue(NULL, b));
}

#define T(f) cmocka_unit_test_setup_teardown(f, qfix_setup, qfix_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(enqueue_without_backend_is_other_error),
      cmocka_unit_test(null_queue_is_refused_everywhere),
      cmocka_unit_test(register_rejects_bad_arguments),
      T(register_and_deregister),
      T(enqueue_without_java_frame_is_other_error),
      T(elements_are_handled_in_insertion_order),
      T(handler_iterator_starts_at_the_recorded_frame),
      T(full_queue_refuses_and_counts_attempts),
      T(element_indices_from_both_ends),
      T(compression_through_element_arg),
      T(resize_takes_effect_at_the_end_of_processing),
      T(deregistration_drops_pending_elements),
      T(several_queues_of_one_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
