/*
 * walk_check.c - the fuzzer's iterator handler: takes every frame of a walk, checks the
 * API's invariants on each step, calls every information accessor on every method it gets,
 * and counts the walk's outcome. Also the random generator, the address pools and the
 * accessor calls on random pointers. All SS: runs inside the SIGPROF handler.
 */
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz_agent.h"

fuzz_counts fuzz_n;
int fuzz_info_every = 1;

/* Any depth beyond this means NextFrame never ended: the walker stops at 8192 physical
 * frames, and a physical frame holds at most a few hundred inlined ones. */
#define RUNAWAY_FRAMES 400000

static atomic_uintptr_t pools[POOL_COUNT][POOL_SIZE];
static atomic_uint pool_next[POOL_COUNT];
static __thread uint64_t rng __attribute__((tls_model("initial-exec")));

/* SS. Seeded from the thread id and the monotonic clock's nanoseconds (any architecture's
 * vDSO; x86_64's time stamp counter served before). */
uint64_t fuzz_rand(void) {
  uint64_t x = rng;
  if (x == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    x = ((uint64_t)syscall(SYS_gettid) * 0x9E3779B97F4A7C15ull) ^ (uint64_t)ts.tv_nsec ^
        ((uint64_t)ts.tv_sec << 30) ^ 1;
  }
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* SS. */
void fuzz_pool_put(enum fuzz_pool p, uintptr_t v) {
  unsigned i = atomic_fetch_add_explicit(&pool_next[p], 1, memory_order_relaxed) % POOL_SIZE;
  atomic_store_explicit(&pools[p][i], v, memory_order_relaxed);
}

/* SS. */
uintptr_t fuzz_pool_get(enum fuzz_pool p, uint64_t r) {
  return atomic_load_explicit(&pools[p][r % POOL_SIZE], memory_order_relaxed);
}

/* SS. */
static inline void add(atomic_ulong *c, unsigned long v) {
  atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

/* SS. */
void fuzz_violated(enum fuzz_violation v, int code) {
  add(&fuzz_n.violations[v], 1);
  long none = 0;
  atomic_compare_exchange_strong(&fuzz_n.first_violation_code, &none, (long)v * 1000 - code + 1);
}

/* SS. True if `s` is NUL-terminated within `cap` bytes, as the accessors promise. */
static bool terminated(const char *s, int cap) {
  return s == NULL || cap <= 0 || memchr(s, 0, (size_t)cap) != NULL;
}

/* SS. Every accessor on one method handle (valid, stale or garbage). When `valid` the
 * handle came from a walk, so its name must be there. */
static void info_on(ASGST_Method m, int bci, bool valid) {
  char name[48], sig[64], gen[16], cname[64], gcname[16];
  ASGST_MethodInfo mi = {0};
  mi.method_name = name, mi.method_name_length = sizeof name;
  mi.signature = sig, mi.signature_length = sizeof sig;
  mi.generic_signature = gen, mi.generic_signature_length = sizeof gen;
  name[0] = sig[0] = gen[0] = 0;
  ASGST_GetMethodInfo(m, &mi);
  ASGST_Class k = ASGST_GetClass(m);
  ASGST_ClassInfo ci = {0};
  ci.class_name = cname, ci.class_name_length = sizeof cname;
  ci.generic_class_name = gcname, ci.generic_class_name_length = sizeof gcname;
  cname[0] = gcname[0] = 0;
  ASGST_GetClassInfo(fuzz_below(8) ? k : (ASGST_Class)fuzz_garbage((uintptr_t)k), &ci);
  ASGST_MethodLineNumberEntry lines[4];
  int nl = ASGST_GetMethodLineNumberTable(m, lines, (int)fuzz_below(5));
  jint line = ASGST_GetMethodLineNumber(m, fuzz_below(4) ? bci : (jint)fuzz_rand());
  ASGST_GetMethodIdNum(m);
  ASGST_GetClassIdNum(k);
  if (mi.method_name_length < 0 || mi.signature_length < 0 || ci.class_name_length < 0 ||
      nl < 0 || line < -1 || !terminated(mi.method_name, sizeof name) ||
      !terminated(mi.signature, sizeof sig) || !terminated(ci.class_name, sizeof cname))
    fuzz_violated(V_INFO, 0);
  (void)valid;
  add(valid ? &fuzz_n.info_calls : &fuzz_n.random_info_calls, 1);
}

/* SS. */
void fuzz_random_info(void) {
  uintptr_t near = fuzz_pool_get(POOL_METHOD, fuzz_rand());
  info_on((ASGST_Method)fuzz_garbage(near), (jint)fuzz_below(100), false);
}

/* SS. An error code must be one of the documented ones. */
static void check_code(int code) {
  if (code <= 0 && strcmp(ASGST_ErrorName(code), "ASGST_UNKNOWN_ERROR") == 0)
    fuzz_violated(V_UNDOCUMENTED, code);
}

/* SS. Checks one frame and feeds the pools and, when `info`, the accessors with it. */
static void on_frame(const ASGST_Frame *f, bool info) {
  if (f->type < ASGST_FRAME_JAVA || f->type > ASGST_FRAME_NON_JAVA || f->comp_level < -1 ||
      f->comp_level > 4)
    fuzz_violated(V_FRAME, f->type);
  if (f->type != ASGST_FRAME_NON_JAVA && f->method == NULL) add(&fuzz_n.java_without_method, 1);
  if (f->type == ASGST_FRAME_NON_JAVA) {
    if (fuzz_below(4) == 0) fuzz_pool_put(POOL_NONJAVA_PC, (uintptr_t)f->pc);
    return;
  }
  if (fuzz_below(8) == 0) fuzz_pool_put(POOL_JAVA_PC, (uintptr_t)f->pc);
  if (f->method == NULL) return;
  if (fuzz_below(8) == 0) fuzz_pool_put(POOL_METHOD, (uintptr_t)f->method);
  add(&fuzz_n.methods, 1);
  if (info) info_on(f->method, f->bci, true);
}

/* SS. What the options allow: no C frame without INCLUDE_NON_JAVA_FRAMES, nothing after
 * the first bytecode frame with END_ON_FIRST_JAVA_FRAME. `java` counts bytecode frames. */
static void check_options(const ASGST_Frame *f, int32_t options, int *java) {
  bool bytecode = f->type == ASGST_FRAME_JAVA || f->type == ASGST_FRAME_JAVA_INLINED;
  if ((f->type == ASGST_FRAME_NON_JAVA && !(options & ASGST_INCLUDE_NON_JAVA_FRAMES)) ||
      ((options & ASGST_END_ON_FIRST_JAVA_FRAME) && *java > 0))
    fuzz_violated(V_OPTIONS, f->type);
  if (bytecode) ++*java;
}

/* SS. Takes frames until the end, checking State against each NextFrame result. Returns
 * the terminal code; *n gets the frame count, *c the C frames among them. */
static int take_all(ASGST_Iterator *it, int *n, int *c, const fuzz_walk *w, bool info) {
  int32_t options = w->options;
  ASGST_Frame f;
  int r, java = 0;
  *n = *c = 0;
  for (;;) {
    int s = ASGST_State(it);
    r = ASGST_NextFrame(it, &f);
    if (s != r) fuzz_violated(V_STATE, r);
    if (r != 1) break;
    check_options(&f, options, &java);
    on_frame(&f, info);
    *c += f.type == ASGST_FRAME_NON_JAVA;
    if (w->keep && *n < w->keep_cap) w->keep[*n] = f;
    if (++*n > RUNAWAY_FRAMES) {
      fuzz_violated(V_RUNAWAY, 0);
      return 0;
    }
  }
  static const ASGST_Frame zero;
  if (r < 0 && memcmp(&f, &zero, sizeof f) != 0) fuzz_violated(V_ZERO, r);
  check_code(r);
  return r;
}

/* SS. */
void fuzz_drain(ASGST_Iterator *it, void *arg) {
  fuzz_walk *w = arg;
  bool info = fuzz_info_every > 0 && fuzz_below((uint64_t)fuzz_info_every) == 0;
  w->code = take_all(it, &w->frames, &w->c_frames, w, info);
  if (!w->rewind) return;
  ASGST_RewindIterator(it);
  fuzz_walk again = *w;
  again.keep = NULL;
  int n2, c2, code2 = take_all(it, &n2, &c2, &again, false);
  add(&fuzz_n.rewinds, 1);
  /* Not a violation: metadata other threads change (a deoptimization, an unload) may
   * legitimately end a second walk of the same stack elsewhere; counted for the report. */
  if (n2 != w->frames || c2 != w->c_frames || code2 != w->code) add(&fuzz_n.rewind_mismatch, 1);
}

/* SS. */
void fuzz_count(fuzz_walk *w, int kind) {
  check_code(kind);
  int outcome = kind <= 0 ? kind : w->code;
  if (kind <= 0 && w->code != kind) fuzz_violated(V_KIND, kind);
  if (kind > ASGST_NON_JAVA_TRACE) fuzz_violated(V_KIND, kind);
  int slot = outcome + CODE_OFF;
  if (slot < 0 || slot >= CODE_SLOTS) slot = 0;
  add(&fuzz_n.by_code[slot], 1);
  if (w->ctx == CTX_REMOTE || w->ctx == CTX_COPY) add(&fuzz_n.remote_by_code[slot], 1);
  if (kind > 0 && kind <= ASGST_NON_JAVA_TRACE) add(&fuzz_n.by_kind[kind], 1);
  add(&fuzz_n.walks, 1);
  add(&fuzz_n.frames, (unsigned long)w->frames);
  add(&fuzz_n.by_ctx[w->ctx], 1);
  if (w->options & ASGST_INCLUDE_NON_JAVA_FRAMES) add(&fuzz_n.c_asked, 1);
  if (w->c_frames > 0) add(&fuzz_n.c_walks, 1), add(&fuzz_n.c_frames, (unsigned long)w->c_frames);
  if (outcome == ASGST_WALK_FAULTED) add(&fuzz_n.faults_by_ctx[w->ctx], 1);
}
