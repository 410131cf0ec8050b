/*
 * internal.h - what the api/ files share with each other (backends see only
 * impl/services.h of it).
 * Internal non-static names start with asgst__ (libuv style); none is exported.
 */
#ifndef ASGST_API_INTERNAL_H
#define ASGST_API_INTERNAL_H

#include "asgst.h"
#include "../impl/backend.h"
#include "../impl/services.h"

/* SS. Prepares `it` for a walk of thread *t from *top with backend be, and positions it on
 * the first reportable frame. Returns the kind (> 0) or an error (<= 0); either way `it`
 * is usable (ASGST_State tells the outcome). */
int asgst__iterator_begin(ASGST_Iterator *it, const asgst__backend *be, const asgst__thread *t,
                          const asgst__regs *top, int32_t options);

/* SS. Makes `it` an iterator that reports `error` (<= 0) from its first use. */
void asgst__iterator_fail(ASGST_Iterator *it, int error);

/* SS. Registers of an x86_64 Linux ucontext_t. */
void asgst__regs_from_ucontext(const void *ucontext, asgst__regs *r);

/* SS. Builds an iterator for the thread and top registers and calls fun once; the shared tail of every
 * RunWithIterator variant. */
int asgst__run_with_iterator(const asgst__backend *be, const asgst__thread *t,
                             const asgst__regs *top, int32_t options,
                             ASGST_IteratorHandler fun, void *arg);

/* N. Out-of-thread walking: prepares the library's walk signal (once). 0 or an error. */
int asgst__remote_init(void);

#endif
