/*
 * record.c - ASGST_RecordWalk and ASGST_ReplayWalk (extensions): a walk of a live VM saved
 * with everything it read, and walked again later without the VM (impl/record/ writes the
 * recording, impl/record/record.h walks it again).
 *
 * The recording walk is an ordinary walk through the active backend, reading a snapshot of
 * every page it touches (impl/record/recorder.c), with the frame cache off, and, for each
 * Java frame, the metadata a profiler reads (class and method names, signature, line
 * number), so that a replay can answer those too. The frames and names the live walk
 * produced go into the recording: a replay compares itself with them.
 */
#include <stdatomic.h>
#include <string.h>

#include "internal.h"
#include "../impl/record/record.h"

#define MAX_FRAMES 2048
#define STRINGS_CAP 65536

/* What the recording walk returned. One recording runs at a time (asgst__record_begin), so
 * one static copy serves (a signal handler's stack has no room for it). */
static struct {
  asgst__rec_frame frames[MAX_FRAMES];
  size_t n;
  char strings[STRINGS_CAP];
  size_t slen;
  int end;
} walked;

/* SS. Appends s (n bytes) to the strings; false when full. */
static bool add_string(const char *s, size_t n) {
  if (n > STRINGS_CAP - walked.slen) return false;
  memcpy(walked.strings + walked.slen, s, n);
  walked.slen += n;
  return true;
}

/* SS. Names frame f's method into the strings as "Lpkg/Class; name (signature)". */
static void name_frame(asgst__rec_frame *f) {
  char cls[256], name[256], sig[512];
  ASGST_MethodInfo mi = {0};
  mi.method_name = name, mi.method_name_length = sizeof name;
  mi.signature = sig, mi.signature_length = sizeof sig;
  ASGST_GetMethodInfo((ASGST_Method)(uintptr_t)f->method, &mi);
  ASGST_ClassInfo ci = {0};
  ci.class_name = cls, ci.class_name_length = sizeof cls;
  ASGST_GetClassInfo(mi.klass, &ci);
  if (mi.klass == NULL) cls[0] = '\0';
  f->name_off = (uint32_t)walked.slen;
  size_t start = walked.slen;
  bool ok = add_string("L", 1) && add_string(cls, strnlen(cls, sizeof cls)) && add_string("; ", 2) &&
            add_string(name, strnlen(name, sizeof name)) && add_string(" ", 1) &&
            add_string(sig, strnlen(sig, sizeof sig));
  if (!ok) walked.slen = start;
  f->name_len = (uint32_t)(walked.slen - start);
}

/* SS. The iterator handler of the recording walk: every frame, and its metadata. */
static void collect(ASGST_Iterator *it, void *arg) {
  (void)arg;
  ASGST_Frame f;
  int rc;
  walked.n = walked.slen = 0;
  while (walked.n < MAX_FRAMES && (rc = ASGST_NextFrame(it, &f)) == 1) {
    asgst__rec_frame *r = &walked.frames[walked.n++];
    memset(r, 0, sizeof *r);
    r->type = f.type;
    r->comp_level = f.comp_level;
    r->bci = f.bci;
    r->line = -1;
    r->method = (uintptr_t)f.method;
    r->pc = (uintptr_t)f.pc, r->sp = (uintptr_t)f.sp, r->fp = (uintptr_t)f.fp;
    if (f.method == NULL) continue;
    name_frame(r);
    if (f.bci >= 0) r->line = ASGST_GetMethodLineNumber(f.method, f.bci);
  }
  walked.end = walked.n == MAX_FRAMES ? ASGST_State(it) : rc;
}

/* SS. */
int64_t ASGST_RecordWalk(void *ucontext, int32_t options, void *buf, size_t cap) {
  const asgst__backend *be = asgst__active_backend();
  if (ucontext == NULL || buf == NULL || (options & ~(ASGST_INCLUDE_NON_JAVA_FRAMES | ASGST_END_ON_FIRST_JAVA_FRAME)))
    return ASGST_INVALID_ARGUMENT;
  if (be == NULL) return asgst__unbound_error();
  if (be->layout_text == NULL) return ASGST_UNSUPPORTED;
  asgst__record_walk r = {0};
  r.options = options;
  asgst__regs_from_ucontext(ucontext, &r.top);
  int kind = be->current_thread(&r.thread);
  if (kind <= 0) return kind;
  if (!asgst__record_begin()) return ASGST_BUSY;
  r.kind = asgst__run_with_iterator(be, &r.thread, &r.top, options | ASGST__OPT_REPLAYABLE,
                                    collect, NULL);
  r.end = r.kind > 0 ? walked.end : r.kind;
  r.layout = be->layout_text(&r.layout_len);
  r.frames = walked.frames;
  r.nframes = r.kind > 0 ? walked.n : 0;
  r.strings = walked.strings;
  r.strings_len = r.kind > 0 ? walked.slen : 0;
  return asgst__record_end(&r, buf, cap);
}

/* N. */
int ASGST_ReplayWalk(const void *recording, size_t len, ASGST_IteratorHandler fun, void *arg) {
  asgst__replay rp;
  int rc = asgst__replay_open(recording, len, &rp);
  if (rc != 0) return rc;
  rc = asgst__run_with_iterator(rp.be, &rp.thread, &rp.top, rp.options | ASGST__OPT_REPLAYABLE,
                                fun, arg);
  asgst__replay_close();
  return rc;
}

/* N. */
const char *ASGST_ReplayError(void) { return asgst__replay_error(); }
