/*
 * internal.h - what the api/ files share with each other (backends reach what api/
 * provides only through the table of impl/services.h).
 * Internal non-static names start with asgst__ (libuv style); none is exported.
 */
#ifndef ASGST_API_INTERNAL_H
#define ASGST_API_INTERNAL_H

#include "asgst.h"
#include "iterator.h"
#include "../impl/backend.h"
#include "../impl/services.h"

/* SS. Prepares `it` for a walk of thread *t from *top with backend be, and positions it on
 * the first reportable frame. Returns the kind (> 0) or an error (<= 0); either way `it`
 * is usable (ASGST_State tells the outcome). */
int asgst__iterator_begin(ASGST_Iterator *it, const asgst__backend *be, const asgst__thread *t,
                          const asgst__regs *top, int32_t options);
/* SS. The same for a queue element's recorded frame: the caller has set it->top_position
 * and it->has_top_position (the frame's position at the sample) first. */
int asgst__iterator_begin_at(ASGST_Iterator *it, const asgst__backend *be, const asgst__thread *t,
                             const asgst__regs *top, int32_t options);

/* SS. Makes `it` an iterator that reports `error` (<= 0) from its first use. */
void asgst__iterator_fail(ASGST_Iterator *it, int error);

/* SS. Registers of a Linux ucontext_t (impl/arch/). */
void asgst__regs_from_ucontext(const void *ucontext, asgst__regs *r);

/* SS. Registers of the caller of the (noinline) function this is used in, the way
 * ASGST_RunWithIterator(NULL) finds "here": its pc is our return address, its fp the one
 * our frame record saved (the build keeps frame pointers), its sp our CFA (on x86_64 two
 * words above our frame pointer; on arm64, whose frame record sits at the bottom of the
 * frame, only the unwind tables know it, and the compiler reads them). */
#define ASGST__CALLER_REGS(r)                                      \
  do {                                                             \
    uintptr_t *frame_ = (uintptr_t *)__builtin_frame_address(0);   \
    (r).pc = (uintptr_t)__builtin_return_address(0);               \
    (r).fp = frame_[0];                                            \
    (r).sp = (uintptr_t)__builtin_dwarf_cfa();                     \
    (r).lr = 0;                                                    \
  } while (0)

/* SS. Builds an iterator for the thread and top registers and calls fun once; the shared tail of every
 * RunWithIterator variant. */
int asgst__run_with_iterator(const asgst__backend *be, const asgst__thread *t,
                             const asgst__regs *top, int32_t options,
                             ASGST_IteratorHandler fun, void *arg);

/* N. Hands the backend layer the services api/ provides (impl/services.h): before the
 * first class unload handler, queue or JVM binding. Idempotent. (api/services.c) */
void asgst__api_provide_services(void);
/* The services themselves: N, class unload handlers (api/unload.c); SP, queues of a
 * stopped owner (api/queue_process.c); N, owners with waiting elements (api/queue_registry.c). */
void asgst__api_notify_class_unload(ASGST_Class k, ASGST_Method *methods, int count_methods,
                                    bool redefined);
int asgst__api_queues_process_stopped(void *owner, const asgst__thread *t, int thread_kind,
                                      const asgst__regs *here);
int asgst__api_queues_waiting(void **owners, int max);

/* N. Out-of-thread walking: prepares the library's walk signal (once). 0 or an error. */
int asgst__remote_init(void);

#endif
