/* test_queue_hooks.c - safepoint queues: processing hooks, handlers that deregister, stale
 * elements, and queues belonging to their own thread. */
#include <pthread.h>

#include "test_queue_common.h"
/* Internal: the wake-up hook a VM's processing thread sets. */
#include "api/queue.h"
#include "impl/synthetic/internal.h" /* the synthetic backend's table */

static qrec rec;

typedef struct {
  int calls;
  bool got_iterator;
  int state;           /* ASGST_State of the offered iterator */
  ASGST_Frame first;   /* its first frame */
  ASGST_Queue *queue;  /* the queue the hook was called for */
} hook_seen;

static hook_seen seen_start, seen_end;

/* SP. Records its call in rec's log and in the hook_seen passed as arg. */
static void hook(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  hook_seen *s = arg;
  qrec_log(&rec, s == &seen_start ? 'S' : 'E');
  s->calls++;
  s->queue = q;
  s->got_iterator = it != NULL;
  if (it) {
    s->state = ASGST_State(it);
    ASGST_NextFrame(it, &s->first);
  }
}

static void reset(void) {
  memset(&rec, 0, sizeof rec);
  memset(&seen_start, 0, sizeof seen_start);
  memset(&seen_end, 0, sizeof seen_end);
}

static void hooks_run_only_for_non_empty_queues(void **state) {
  (void)state;
  reset();
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_SetOnQueueProcessingStart(q, 0, false, hook, &seen_start);
  ASGST_SetOnQueueProcessingEnd(q, 0, false, hook, &seen_end);
  assert_int_equal(ASGST_ProcessQueues(), 0);
  assert_string_equal(rec.log, "");
  ASGST_Enqueue(q, &fx.uc1, NULL);
  ASGST_Enqueue(q, &fx.uc2, NULL);
  assert_int_equal(ASGST_ProcessQueues(), 2);
  assert_string_equal(rec.log, "SHHE");
  assert_ptr_equal(seen_start.queue, q);
  assert_ptr_equal(seen_end.queue, q);
  assert_false(seen_start.got_iterator);
  assert_false(seen_end.got_iterator);
  assert_int_equal(ASGST_ProcessQueues(), 0);
  assert_string_equal(rec.log, "SHHE");
  /* A NULL handler removes the hook. */
  ASGST_SetOnQueueProcessingStart(q, 0, false, NULL, NULL);
  ASGST_Enqueue(q, &fx.uc1, NULL);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_string_equal(rec.log, "SHHEHE");
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

/* noinline: the safe point ProcessQueues reports is this function's frame. */
static __attribute__((noinline)) void hooks_get_an_iterator_at_the_safe_point(void **state) {
  (void)state;
  reset();
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_SetOnQueueProcessingStart(q, ASGST_INCLUDE_NON_JAVA_FRAMES, true, hook, &seen_start);
  ASGST_SetOnQueueProcessingEnd(q, ASGST_INCLUDE_NON_JAVA_FRAMES, true, hook, &seen_end);
  ASGST_Enqueue(q, &fx.uc1, NULL);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  void *here = __builtin_frame_address(0);
  assert_true(seen_start.got_iterator);
  assert_true(seen_end.got_iterator);
  assert_int_equal(seen_start.state, 1);
  /* The real C stack of this test: its top frame is this function's. */
  assert_int_equal(seen_start.first.type, ASGST_FRAME_NON_JAVA);
  assert_ptr_equal(seen_start.first.fp, here);
  assert_ptr_equal(seen_end.first.fp, here);
  /* Without INCLUDE_NON_JAVA_FRAMES the same stack has nothing to report. */
  ASGST_SetOnQueueProcessingStart(q, 0, true, hook, &seen_start);
  ASGST_Enqueue(q, &fx.uc1, NULL);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_int_equal(seen_start.state, 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

static ASGST_Queue *self_deregistering;

static void deregistering_handler(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  qrec_handler(it, queue_arg, element_arg);
  if (element_arg == (void *)2) assert_true(ASGST_DeregisterQueue(NULL, self_deregistering));
}

static void handler_may_deregister_its_queue(void **state) {
  (void)state;
  reset();
  self_deregistering = ASGST_RegisterQueue(NULL, 4, 0, deregistering_handler, &rec);
  ASGST_SetOnQueueProcessingEnd(self_deregistering, 0, false, hook, &seen_end);
  for (uintptr_t i = 1; i <= 4; i++) ASGST_Enqueue(self_deregistering, &fx.uc1, (void *)i);
  /* The rest is dropped, as deregistration says; no end hook for a dead queue. */
  assert_int_equal(ASGST_ProcessQueues(), 2);
  assert_string_equal(rec.log, "HH");
  assert_int_equal(ASGST_Enqueue(self_deregistering, &fx.uc1, NULL), ASGST_ENQUEUE_NO_QUEUE);
  assert_int_equal(ASGST_ProcessQueues(), 0);
}

/* A Java frame on this thread's real stack, alive while this function runs. */
static __attribute__((noinline)) int enqueue_from_own_frame(ASGST_Queue *q) {
  uintptr_t slots[QFRAME_SLOTS];
  ucontext_t uc;
  qframe_build(slots, fx.foo, 5, &uc);
  int kind = ASGST_Enqueue(q, &uc, (void *)1);
  /* Processed here the frame is still on the stack. */
  int handled = ASGST_ProcessQueues();
  __asm__ volatile("" : : "r"(slots) : "memory");
  return kind == ASGST_JAVA_TRACE ? handled : kind;
}

/* Records a frame that is popped before processing. */
static __attribute__((noinline)) int enqueue_and_return(ASGST_Queue *q) {
  uintptr_t slots[QFRAME_SLOTS];
  ucontext_t uc;
  qframe_build(slots, fx.bar, 6, &uc);
  int kind = ASGST_Enqueue(q, &uc, (void *)2);
  __asm__ volatile("" : : "r"(slots) : "memory");
  return kind;
}

static void element_of_a_popped_frame_is_stale(void **state) {
  (void)state;
  reset();
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  assert_int_equal(enqueue_from_own_frame(q), 1);
  assert_int_equal(rec.calls[0].state, 1);
  assert_int_equal(rec.calls[0].nframes, 1);
  assert_ptr_equal(rec.calls[0].methods[0], fx.foo);
  assert_int_equal(rec.calls[0].bcis[0], 5);
  assert_int_equal(enqueue_and_return(q), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_int_equal(rec.calls[1].state, ASGST_STALE_FRAME);
  assert_int_equal(rec.calls[1].nframes, 0);
  assert_int_equal(rec.calls[1].end, ASGST_STALE_FRAME);
  assert_ptr_equal(rec.calls[1].arg, (void *)2);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

/* A backend's processing thread that stopped the owner and found no Java frame on its
 * stack (an ending thread) has every element handled as stale: the same element is
 * current when its frame is there. */
static void elements_of_an_owner_without_java_frames_are_stale(void **state) {
  (void)state;
  reset();
  int owner_handle;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  q->vm_owner = &owner_handle;
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, (void *)3), ASGST_JAVA_TRACE);
  asgst__thread t = {0};
  asgst__regs here = {0};
  assert_int_equal(asgst__api_queues_process_stopped(&owner_handle, &t, ASGST_NO_TOP_JAVA_FRAME, &here), 1);
  assert_int_equal(rec.calls[0].state, ASGST_STALE_FRAME);
  assert_int_equal(rec.calls[0].nframes, 0);
  assert_ptr_equal(rec.calls[0].arg, (void *)3);
  q->vm_owner = NULL;
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, (void *)4), ASGST_JAVA_TRACE);
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_int_equal(rec.calls[1].state, ASGST_JAVA_TRACE);
  assert_ptr_equal(rec.calls[1].methods[0], fx.bar);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

/* SS. A frame's identity as a VM backend gives it (the synthetic backend gives none, so
 * its elements are judged by position only): an interpreted frame's Method* slot. */
static uintptr_t method_slot(const asgst__regs *r) { return ((const uintptr_t *)r->fp)[-1]; }

/* SS. A frame's position kept in its own memory, as a VM backend gives it for an
 * interpreted frame: here its bci slot. */
static bool bci_slot(const asgst__regs *r, uintptr_t *pos) {
  *pos = ((const uintptr_t *)r->fp)[-2];
  return true;
}

/* SS. As bci_slot for every method but foo, whose frames play compiled ones. */
static bool bci_slot_but_foo(const asgst__regs *r, uintptr_t *pos) {
  return method_slot(r) != (uintptr_t)fx.foo && bci_slot(r, pos);
}

/* How state_with_sender_on_top builds and changes the stack. */
typedef struct {
  bool via_c;                                     /* a C frame between main and foo */
  bool (*position)(const asgst__regs *, uintptr_t *); /* the backend's frame_position */
  bool move_sender;                               /* main's bci changes before processing */
} sender_case;

/* Processes, as a backend's processing thread would, one element taken at the top of a
 * stack main -> [a C frame] -> foo, with the owner stopped while main is on top at the
 * same place; returns the handler's iterator state. The synthetic backend with frame
 * identities (and positions as the case says) is active meanwhile. */
static int state_with_sender_on_top(sender_case c) {
  reset();
  static asgst__backend with_identity;
  with_identity = asgst__synthetic_backend;
  with_identity.frame_identity = method_slot;
  with_identity.frame_position = c.position;
  asgst__set_backend(&with_identity);
  ASGST_SynthStack *s = ASGST_SynthCreateStack(fx.vm, 16384);
  assert_non_null(s);
  ASGST_SynthPushInterpreted(s, fx.main_m, 1);
  if (c.via_c) ASGST_SynthPushC(s, NULL);
  ASGST_SynthPushInterpreted(s, fx.foo, 2);
  ucontext_t uc;
  assert_int_equal(ASGST_SynthContext(s, &uc), 0);
  int owner_handle;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  q->vm_owner = &owner_handle;
  assert_int_equal(ASGST_Enqueue(q, &uc, (void *)5), ASGST_JAVA_TRACE);
  if (c.move_sender) ((uintptr_t *)ASGST_SynthFrameFp(s, 0))[-2] = 7;
  asgst__thread t = {fx.vm, 0, 0};
  asgst__regs main_frame = {(uintptr_t)ASGST_SynthFramePc(s, 0), (uintptr_t)ASGST_SynthFrameSp(s, 0),
                            (uintptr_t)ASGST_SynthFrameFp(s, 0), 0};
  assert_int_equal(asgst__api_queues_process_stopped(&owner_handle, &t, ASGST_JAVA_TRACE, &main_frame), 1);
  q->vm_owner = NULL;
  assert_true(ASGST_DeregisterQueue(NULL, q));
  ASGST_SynthDestroyStack(s);
  asgst__set_backend(&asgst__synthetic_backend);
  return rec.calls[0].state;
}

/* Stopped with its sender on top at the return address into it: a frame its sender called
 * is being returned from (a compiled method's return poll), and is current; stale are a
 * frame the VM called from C code under that sender (a class initializer: it may have
 * returned long ago, the VM's call going on), a frame whose position lies in its memory
 * (interpreted: nothing left to decode once popped), and a frame whose interpreted sender
 * has moved on (the same return from a later call). */
static void sender_on_top_is_a_return_only_for_a_direct_call(void **state) {
  (void)state;
  assert_int_equal(state_with_sender_on_top((sender_case){false, NULL, false}), ASGST_JAVA_TRACE);
  assert_ptr_equal(rec.calls[0].methods[0], fx.foo);
  assert_int_equal(state_with_sender_on_top((sender_case){true, NULL, false}), ASGST_STALE_FRAME);
  assert_int_equal(state_with_sender_on_top((sender_case){false, bci_slot, false}), ASGST_STALE_FRAME);
  assert_int_equal(state_with_sender_on_top((sender_case){false, bci_slot_but_foo, false}), ASGST_JAVA_TRACE);
  assert_int_equal(state_with_sender_on_top((sender_case){false, bci_slot_but_foo, true}), ASGST_STALE_FRAME);
}

typedef struct {
  ASGST_Queue *q;
  pthread_barrier_t enqueued, checked;
  int handled_by_owner;
} other_thread;

static void *owner_main(void *p) {
  other_thread *o = p;
  ASGST_SynthAttachThread(fx.vm);
  o->q = ASGST_RegisterQueue(NULL, 4, 0, qrec_handler, &rec);
  ASGST_Enqueue(o->q, &fx.uc1, (void *)7);
  pthread_barrier_wait(&o->enqueued);
  pthread_barrier_wait(&o->checked);
  o->handled_by_owner = ASGST_ProcessQueues();
  ASGST_DeregisterQueue(NULL, o->q);
  return NULL;
}

static void a_queue_is_processed_by_its_own_thread_only(void **state) {
  (void)state;
  reset();
  other_thread o = {0};
  pthread_barrier_init(&o.enqueued, NULL, 2);
  pthread_barrier_init(&o.checked, NULL, 2);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, owner_main, &o), 0);
  pthread_barrier_wait(&o.enqueued);
  assert_int_equal(ASGST_ProcessQueues(), 0);
  assert_int_equal(rec.n, 0);
  assert_int_equal(ASGST_GetQueueSizeInfo(o.q).size, 1);
  pthread_barrier_wait(&o.checked);
  pthread_join(t, NULL);
  assert_int_equal(o.handled_by_owner, 1);
  assert_ptr_equal(rec.calls[0].arg, (void *)7);
  pthread_barrier_destroy(&o.enqueued);
  pthread_barrier_destroy(&o.checked);
}

static int wakeups;

/* SS. */
static void count_wakeup(void *owner) { (void)owner; wakeups++; }

/* A queue bound to a backend's processing (vm_owner set; here a dummy handle) wakes it
 * once per element added; a full queue does not. */
static void successful_enqueue_requests_processing(void **state) {
  (void)state;
  reset();
  wakeups = 0;
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 1, 0, qrec_handler, &rec);
  q->vm_owner = &wakeups;
  asgst__queues_set_waker(count_wakeup);
  assert_int_equal(atomic_load(&q->requested), 0);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_JAVA_TRACE);
  assert_int_equal(wakeups, 1);
  assert_int_equal(atomic_load(&q->requested), 1);
  assert_int_equal(ASGST_Enqueue(q, &fx.uc1, NULL), ASGST_ENQUEUE_FULL_QUEUE);
  assert_int_equal(ASGST_Enqueue(q, NULL, NULL), ASGST_ENQUEUE_FULL_QUEUE);
  assert_int_equal(wakeups, 1);
  asgst__queues_set_waker(NULL);
  q->vm_owner = NULL;
  assert_int_equal(ASGST_ProcessQueues(), 1);
  assert_int_equal(atomic_load(&q->requested), 0);
  assert_true(ASGST_DeregisterQueue(NULL, q));
}

#define T(f) cmocka_unit_test_setup_teardown(f, qfix_setup, qfix_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(hooks_run_only_for_non_empty_queues),
      T(hooks_get_an_iterator_at_the_safe_point),
      T(handler_may_deregister_its_queue),
      T(element_of_a_popped_frame_is_stale),
      T(elements_of_an_owner_without_java_frames_are_stale),
      T(sender_on_top_is_a_return_only_for_a_direct_call),
      T(a_queue_is_processed_by_its_own_thread_only),
      T(successful_enqueue_requests_processing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
