/*
 * backend.c - the active backend, and the small helpers every backend and api/ share.
 */
#include <stdatomic.h>
#include <string.h>

#include "backend.h"

static _Atomic(const asgst__backend *) active;
/* What a walk says while no backend is active: ASGST_INIT_PENDING between an early
 * ASGST_Initialize and VMInit, else ASGST_NOT_INITIALIZED. */
static atomic_int unbound_error = ASGST_NOT_INITIALIZED;

/* SS. */
ASGST__HOT const asgst__backend *asgst__active_backend(void) {
  return atomic_load_explicit(&active, memory_order_acquire);
}

/* N. */
void asgst__set_backend(const asgst__backend *be) {
  atomic_store_explicit(&active, be, memory_order_release);
}

/* N. */
bool asgst__replace_backend(const asgst__backend *from, const asgst__backend *to) {
  return atomic_compare_exchange_strong_explicit(&active, &from, to, memory_order_acq_rel,
                                                 memory_order_acquire);
}

/* SS. */
int asgst__unbound_error(void) {
  return atomic_load_explicit(&unbound_error, memory_order_relaxed);
}

/* N. */
void asgst__set_unbound_error(int code) {
  atomic_store_explicit(&unbound_error, code, memory_order_relaxed);
}

/* SS. */
void asgst__copy_string(char *dst, jint *cap, const char *src, size_t len) {
  if (cap == NULL) return;
  if (dst != NULL && *cap > 0) {
    size_t n = len < (size_t)(*cap - 1) ? len : (size_t)(*cap - 1);
    if (src) memcpy(dst, src, n);
    dst[n] = '\0';
  }
  *cap = (jint)len;
}

/* SS. */
void asgst__clear_method_info(ASGST_MethodInfo *info) {
  info->klass = NULL;
  asgst__copy_string(info->method_name, &info->method_name_length, "", 0);
  asgst__copy_string(info->signature, &info->signature_length, "", 0);
  asgst__copy_string(info->generic_signature, &info->generic_signature_length, "", 0);
  info->modifiers = 0;
  info->idnum = 0;
  info->class_idnum = 0;
}
