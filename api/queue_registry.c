/*
 * queue_registry.c - which thread owns which queues: ASGST_RegisterQueue,
 * ASGST_DeregisterQueue, the processing hooks, and taking queues for processing.
 *
 * One mutex guards the list of live queues and each queue's hooks and busy flag. Nothing
 * here runs in a signal handler.
 *
 * A deregistered queue's header is never freed (only its ring is): a profiler's signal
 * handler may still hold the pointer, and ASGST_Enqueue must then answer
 * ASGST_ENQUEUE_NO_QUEUE instead of touching freed memory. The headers (about 200 bytes
 * each) wait in a graveyard list so that they stay reachable.
 *
 * Owner thread: env's, which must be the calling thread's (or NULL). A backend that
 * processes queues itself (queue_bind: HotSpot brings the owner to a safe point from its
 * processing thread, impl/hotspot/queues/queue_thread.c) gets a handle of the owner at
 * registration; otherwise the owner processes its queues with ASGST_ProcessQueues.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "queue.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ASGST_Queue *live;
static ASGST_Queue *graveyard;
static unsigned rounds;

/* N. The calling thread's stack bounds, 0/0 if the C library cannot tell. */
static void own_stack(uintptr_t *lo, uintptr_t *hi) {
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  *lo = *hi = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    *lo = (uintptr_t)addr;
    *hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

/* N. Binds q to env's thread (the calling one) through the active backend, if it
 * processes queues itself; otherwise the owner processes them (ASGST_ProcessQueues). */
static int bind_owner(ASGST_Queue *q, JNIEnv *env) {
  const asgst__backend *be = asgst__active_backend();
  if (be == NULL || be->queue_bind == NULL) return 0;
  int rc = be->queue_bind(env, &q->vm_owner);
  if (rc == 0) q->bound = be;
  return rc;
}

/* N. */
ASGST_Queue *ASGST_RegisterQueue(JNIEnv *env, int size, int options, ASGST_Handler fun,
                                 void *queue_arg) {
  if (size <= 0 || fun == NULL) return NULL;
  asgst__api_provide_services();
  ASGST_Queue *q = calloc(1, sizeof *q);
  asgst__ring *r = asgst__ring_new(size);
  if (q == NULL || r == NULL || bind_owner(q, env) != 0) {
    free(q);
    free(r);
    return NULL;
  }
  q->owner = pthread_self();
  q->owner_tid = (pid_t)syscall(SYS_gettid);
  own_stack(&q->stack_lo, &q->stack_hi);
  q->options = options;
  q->fun = fun;
  q->arg = queue_arg;
  atomic_store(&q->ring, r);
  atomic_store(&q->capacity, size);
  pthread_mutex_lock(&lock);
  q->next = live;
  live = q;
  pthread_mutex_unlock(&lock);
  return q;
}

/* N. Unlinks q from the live list; false if it is not there. Under the lock. */
static bool unlink_live(ASGST_Queue *q) {
  for (ASGST_Queue **p = &live; *p; p = &(*p)->next) {
    if (*p == q) {
      *p = q->next;
      return true;
    }
  }
  return false;
}

/* N. Frees a dead queue's ring once no producer or reader is inside. Under the lock. */
static void free_ring(ASGST_Queue *q) {
  asgst__queue_exclude(q);
  free(atomic_exchange(&q->ring, NULL));
}

/* N. */
bool ASGST_DeregisterQueue(JNIEnv *env, ASGST_Queue *q) {
  (void)env;
  if (q == NULL) return false;
  pthread_mutex_lock(&lock);
  bool found = unlink_live(q);
  if (found) {
    atomic_store(&q->dead, 1);
    q->next = graveyard;
    graveyard = q;
    /* A queue being processed keeps its ring until its processing ends (release). */
    if (!q->busy) free_ring(q);
  }
  void *owner = found ? q->vm_owner : NULL;
  const asgst__backend *bound = q->bound;
  if (found) q->vm_owner = NULL;
  pthread_mutex_unlock(&lock);
  /* The handle stays valid for a processing in progress: it is taken by value there. */
  if (owner && bound && bound->queue_unbind) bound->queue_unbind(owner);
  return found;
}

/* N. Sets the start or end hook of a live queue. */
static void set_hook(ASGST_Queue *q, bool is_end, int options, bool offer_iterator,
                     ASGST_OnQueueSafepointHandler h, void *arg) {
  if (q == NULL) return;
  pthread_mutex_lock(&lock);
  if (!atomic_load(&q->dead)) {
    asgst__queue_hook *hook = is_end ? &q->end : &q->start;
    *hook = (asgst__queue_hook){h, h ? arg : NULL, options, h ? offer_iterator : false};
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
void ASGST_SetOnQueueProcessingStart(ASGST_Queue *q, int options, bool offer_iterator,
                                     ASGST_OnQueueSafepointHandler h, void *arg) {
  set_hook(q, false, options, offer_iterator, h, arg);
}

/* N. */
void ASGST_SetOnQueueProcessingEnd(ASGST_Queue *q, int options, bool offer_iterator,
                                   ASGST_OnQueueSafepointHandler h, void *arg) {
  set_hook(q, true, options, offer_iterator, h, arg);
}

/* N. */
asgst__queue_hook asgst__queue_get_hook(ASGST_Queue *q, bool is_end) {
  pthread_mutex_lock(&lock);
  asgst__queue_hook hook = is_end ? q->end : q->start;
  pthread_mutex_unlock(&lock);
  return hook;
}

/* N. */
unsigned asgst__queue_new_round(void) {
  pthread_mutex_lock(&lock);
  unsigned r = ++rounds;
  pthread_mutex_unlock(&lock);
  return r;
}

/* N. The list may change while a queue is processed (handlers may register and
 * deregister), so each pick searches it again under the lock; the round number keeps a
 * queue from being picked twice by one ASGST_ProcessQueues call. */
ASGST_Queue *asgst__queue_take_next(unsigned round, void *owner) {
  pthread_t self = pthread_self();
  ASGST_Queue *found = NULL;
  pthread_mutex_lock(&lock);
  for (ASGST_Queue *q = live; q && !found; q = q->next) {
    bool mine = owner ? q->vm_owner == owner : pthread_equal(q->owner, self);
    if (q->busy || q->round == round || !mine) continue;
    q->busy = 1;
    q->round = round;
    found = q;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* N. */
int asgst__api_queues_waiting(void **owners, int max) {
  int n = 0;
  pthread_mutex_lock(&lock);
  for (ASGST_Queue *q = live; q && n < max; q = q->next) {
    if (q->vm_owner == NULL || !atomic_load(&q->requested)) continue;
    bool seen = false;
    for (int i = 0; i < n && !seen; i++) seen = owners[i] == q->vm_owner;
    if (!seen) owners[n++] = q->vm_owner;
  }
  pthread_mutex_unlock(&lock);
  return n;
}

/* N. */
void asgst__queue_release(ASGST_Queue *q) {
  pthread_mutex_lock(&lock);
  q->busy = 0;
  if (atomic_load(&q->dead) && atomic_load(&q->ring) != NULL) free_ring(q);
  pthread_mutex_unlock(&lock);
}
