/*
 * stack.c - the synthetic stack builder: real stack memory between two PROT_NONE guard
 * pages, frames laid out as code with frame pointers lays them out (x86_64, and arm64 frame
 * records: the same two words).
 *
 * Pushing a frame on top of the current top (its caller) at caller sp `csp`:
 *     fp = csp - 16, fp[0] = caller's fp, fp[1] = caller's pc (the return address),
 *     locals below fp, sp = fp - locals.
 * The bottom frame stores fp[0] = fp[1] = 0, which ends every walk. A frame's own pc is
 * kept in the builder's bookkeeping until a callee is pushed (it then becomes the callee's
 * return address) or the top context is taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "../arch/arch.h"

/* Bytes of locals below fp in every synthetic frame (keeps sp 16-byte aligned). */
#define FRAME_LOCALS 48

/* N. */
ASGST_SynthStack *ASGST_SynthCreateStack(ASGST_SynthVM *vm, size_t size) {
  if (vm == NULL) return NULL;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t usable = (size < page ? page : size + page - 1) / page * page;
  ASGST_SynthStack *s = calloc(1, sizeof *s);
  if (s == NULL) return NULL;
  void *p = mmap(NULL, usable + 2 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(s);
    return NULL;
  }
  s->vm = vm;
  s->map = (uintptr_t)p;
  s->map_size = usable + 2 * page;
  s->lo = s->map + page;
  s->hi = s->lo + usable;
  mprotect((void *)s->map, page, PROT_NONE);
  mprotect((void *)s->hi, page, PROT_NONE);
  s->next_sp = s->hi;
  return s;
}

/* N. */
void ASGST_SynthDestroyStack(ASGST_SynthStack *s) {
  if (s == NULL) return;
  munmap((void *)s->map, s->map_size);
  free(s->frames);
  free(s);
}

/* N. Pushes a frame executing at pc; returns its index or ASGST_INVALID_ARGUMENT. */
static int push(ASGST_SynthStack *s, uintptr_t pc) {
  if (s->next_sp < s->lo + 16 + FRAME_LOCALS) return ASGST_INVALID_ARGUMENT;
  if (s->nframes == s->cap) {
    int cap = s->cap ? s->cap * 2 : 16;
    asgst__regs *grown = realloc(s->frames, (size_t)cap * sizeof *grown);
    if (grown == NULL) return ASGST_INVALID_ARGUMENT;
    s->frames = grown;
    s->cap = cap;
  }
  uintptr_t fp = s->next_sp - 16;
  uintptr_t *w = (uintptr_t *)fp;
  const asgst__regs *caller = s->nframes ? &s->frames[s->nframes - 1] : NULL;
  w[0] = caller ? caller->fp : 0;
  w[1] = caller ? caller->pc : 0;
  memset((void *)(fp - FRAME_LOCALS), 0, FRAME_LOCALS);
  asgst__regs *f = &s->frames[s->nframes];
  f->pc = pc;
  f->fp = fp;
  f->sp = fp - FRAME_LOCALS;
  s->next_sp = f->sp;
  return s->nframes++;
}

/* N. */
int ASGST_SynthPushInterpreted(ASGST_SynthStack *s, ASGST_Method m, jint bci) {
  if (s == NULL) return ASGST_INVALID_ARGUMENT;
  /* Any address inside the interpreter will do; vary it a little with the depth so that
   * return addresses are not all equal. */
  uintptr_t pc = s->vm->interpreter->start + 64 + 8 * (uintptr_t)(s->nframes % 16);
  int i = push(s, pc);
  if (i < 0) return i;
  uintptr_t *fp = (uintptr_t *)s->frames[i].fp;
  fp[ASGST__SYNTH_INTERP_METHOD_SLOT] = (uintptr_t)m;
  fp[ASGST__SYNTH_INTERP_BCI_SLOT] = (uintptr_t)(intptr_t)bci;
  return i;
}

/* N. A pc at `off` in a blob of the given kind. */
static int push_in_blob(ASGST_SynthStack *s, ASGST_SynthBlob *b,
                        enum asgst__synth_blob_kind kind, size_t off) {
  if (s == NULL || b == NULL || b->kind != kind || off >= b->end - b->start)
    return ASGST_INVALID_ARGUMENT;
  return push(s, b->start + off);
}

/* N. */
int ASGST_SynthPushCompiled(ASGST_SynthStack *s, ASGST_SynthBlob *b, size_t pc_offset) {
  return push_in_blob(s, b, ASGST__SYNTH_COMPILED, pc_offset);
}

/* N. */
int ASGST_SynthPushNative(ASGST_SynthStack *s, ASGST_SynthBlob *wrapper) {
  return push_in_blob(s, wrapper, ASGST__SYNTH_NATIVE, 16);
}

/* N. */
int ASGST_SynthPushStub(ASGST_SynthStack *s, ASGST_SynthBlob *stub, size_t pc_offset) {
  return push_in_blob(s, stub, ASGST__SYNTH_STUB, pc_offset);
}

/* N. */
int ASGST_SynthPushC(ASGST_SynthStack *s, const void *pc) {
  if (s == NULL) return ASGST_INVALID_ARGUMENT;
  uintptr_t p = pc ? (uintptr_t)pc : (uintptr_t)&ASGST_SynthPushC + 8;
  if (asgst__synth_find_blob(s->vm, p) != NULL) return ASGST_INVALID_ARGUMENT;
  return push(s, p);
}

/* N. */
int ASGST_SynthFrameCount(const ASGST_SynthStack *s) {
  return s ? s->nframes : 0;
}

/* N. The bookkeeping of frame i, NULL out of range. */
static const asgst__regs *frame_at(const ASGST_SynthStack *s, int i) {
  return s && i >= 0 && i < s->nframes ? &s->frames[i] : NULL;
}

void *ASGST_SynthFramePc(const ASGST_SynthStack *s, int i) {
  const asgst__regs *f = frame_at(s, i);
  return f ? (void *)f->pc : NULL;
}

void *ASGST_SynthFrameSp(const ASGST_SynthStack *s, int i) {
  const asgst__regs *f = frame_at(s, i);
  return f ? (void *)f->sp : NULL;
}

void *ASGST_SynthFrameFp(const ASGST_SynthStack *s, int i) {
  const asgst__regs *f = frame_at(s, i);
  return f ? (void *)f->fp : NULL;
}

/* N. */
int ASGST_SynthContext(const ASGST_SynthStack *s, ucontext_t *uc) {
  if (s == NULL || uc == NULL) return ASGST_INVALID_ARGUMENT;
  memset(uc, 0, sizeof *uc);
  const asgst__regs *top = frame_at(s, s->nframes - 1);
  if (top == NULL) return ASGST_NO_FRAME;
  asgst__uc_set_regs(uc, top);
  return 0;
}

/* N. */
void *ASGST_SynthGuardPage(const ASGST_SynthStack *s, int upper) {
  if (s == NULL) return NULL;
  return (void *)(upper ? s->hi : s->map);
}

/* N. Candidate low addresses: Linux places mappings top-down from below the main stack,
 * and PIE executables far above these, so they stay unmapped in practice; mincore
 * confirms it at the time of the call. */
void *ASGST_SynthUnmappedAddress(void) {
  static const uintptr_t candidates[] = {0x30000, 0x50000, 0x110000, 0x1230000, 0x7654000};
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    unsigned char v;
    if (mincore((void *)candidates[i], page, &v) != 0 && errno == ENOMEM)
      return (void *)candidates[i];
  }
  return NULL;
}
