/*
 * check_stack.c - the iterator checks (I01-I08, F01) and the frame type and compilation
 * tier checks (T01-T04), run inside conf.Native.probe called from conf.Chain:
 *   probe (native) <- inner (forced inline) <- generic (never inlined) <- outer <- ...
 * The runner starts one JVM per tier setting (run label int, c1 or c2).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf_agent.h"

/* SS. Frames equal field by field (the struct has padding, so no memcmp). */
static bool frame_equal(const ASGST_Frame *a, const ASGST_Frame *b) {
  return a->type == b->type && a->comp_level == b->comp_level && a->bci == b->bci &&
         a->method == b->method && a->pc == b->pc && a->sp == b->sp && a->fp == b->fp;
}

/* SS. The same frame seen by two walks with different options: registers may differ only
 * where the implementation reports none. */
static bool same_java_frame(const ASGST_Frame *a, const ASGST_Frame *b) {
  return a->type == b->type && a->comp_level == b->comp_level && a->bci == b->bci &&
         a->method == b->method;
}

/* N. Java frames of a from index ia on equal those of b from ib on. */
static bool java_tail_equal(const conf_trace *a, int ia, const conf_trace *b, int ib) {
  const ASGST_Frame *ja[MAXF], *jb[MAXF];
  conf_trace ta = *a, tb = *b;
  ta.n -= ia;
  memmove(ta.f, a->f + ia, sizeof(ASGST_Frame) * (size_t)ta.n);
  tb.n -= ib;
  memmove(tb.f, b->f + ib, sizeof(ASGST_Frame) * (size_t)tb.n);
  int na = trace_java(&ta, ja, MAXF), nb = trace_java(&tb, jb, MAXF);
  if (na != nb || na == 0) return false;
  for (int i = 0; i < na; i++)
    if (!same_java_frame(ja[i], jb[i])) return false;
  return true;
}

/* N. I02: the Java frames equal JVMTI's stack of this thread, top first. */
static void check_against_jvmti(const conf_trace *t) {
  static conf_name jn[MAXF];
  const ASGST_Frame *jf[MAXF];
  int n = jvmti_stack(NULL, jn, NULL, MAXF), k = trace_java(t, jf, MAXF);
  if (n != k) {
    point_fail(CONF_I02, "%d Java frames, JVMTI has %d", k, n);
    return;
  }
  for (int i = 0; i < n; i++) {
    conf_name an;
    name_of_method(jf[i]->method, jf[i]->bci, &an);
    if (!names_equal(&an, &jn[i])) {
      point_fail(CONF_I02, "frame %d is %s.%s%s bci %d, JVMTI: %s.%s%s bci %d", i, an.cls,
                 an.name, an.sig, an.bci, jn[i].cls, jn[i].name, jn[i].sig, jn[i].bci);
      return;
    }
  }
  point_pass(CONF_I02);
}

/* N. I03, I04, F01 from the walks with and without C frames. */
static void check_kinds_of_frames(const conf_trace *plain, const conf_trace *full) {
  int cframes = 0;
  for (int i = 0; i < plain->n; i++)
    if (!frame_is_java(&plain->f[i])) cframes++;
  if (cframes || plain->end != 0)
    point_fail(CONF_I03, "%d non-Java frames, walk ended with %d", cframes, plain->end);
  else
    point_pass(CONF_I03);
  cframes = 0;
  for (int i = 0; i < full->n; i++)
    if (full->f[i].type == ASGST_FRAME_NON_JAVA) cframes++;
  if (cframes == 0)
    point_fail(CONF_I04, "no ASGST_FRAME_NON_JAVA frame (the agent's C code calls the walk)");
  else if (!java_tail_equal(plain, 0, full, 0))
    point_fail(CONF_I04, "the Java frames differ from the walk without C frames");
  else
    point_pass(CONF_I04);
  const ASGST_Frame *top = plain->n ? &plain->f[0] : NULL;
  if (top && top->type == ASGST_FRAME_JAVA_NATIVE && top->bci == -1)
    point_pass(CONF_F01);
  else
    point_fail(CONF_F01, "top frame of a native method: type %d bci %d", top ? top->type : -1,
               top ? top->bci : -9);
}

/* N. I05: with END_ON_FIRST_JAVA_FRAME the walk is plain's prefix up to and including its
 * first bytecode-backed frame. */
static void check_end_on_first(const conf_trace *plain) {
  conf_trace t;
  trace_here(&t, ASGST_END_ON_FIRST_JAVA_FRAME);
  int first = -1;
  for (int i = 0; i < plain->n && first < 0; i++)
    if (plain->f[i].type == ASGST_FRAME_JAVA || plain->f[i].type == ASGST_FRAME_JAVA_INLINED) first = i;
  bool ok = first >= 0 && t.n == first + 1 && t.end == 0;
  for (int i = 0; ok && i < t.n; i++) ok = same_java_frame(&t.f[i], &plain->f[i]);
  if (ok)
    point_pass(CONF_I05);
  else
    point_fail(CONF_I05, "%d frames (end %d), expected %d", t.n, t.end, first + 1);
}

typedef struct {
  conf_trace a, b;
  int after_end;
} rewind_ctx;

/* SS. Walks, rewinds, walks again, then asks for one frame past the end. */
static void walk_rewind_walk(ASGST_Iterator *it, void *arg) {
  rewind_ctx *c = arg;
  trace_collect(it, &c->a);
  api.RewindIterator(it);
  trace_collect(it, &c->b);
  ASGST_Frame f;
  c->after_end = api.NextFrame(it, &f);
}

/* N. I06 and I07. noinline: both walks start at this function's frame. */
static __attribute__((noinline)) void check_rewind_and_state(void) {
  static rewind_ctx c;
  memset(&c, 0, sizeof c);
  if (!NEED(I06, RewindIterator)) return;
  api.RunWithIterator(NULL, ASGST_INCLUDE_NON_JAVA_FRAMES, walk_rewind_walk, &c);
  bool same = c.a.n == c.b.n && c.a.n > 0 && c.a.end == c.b.end;
  for (int i = 0; same && i < c.a.n; i++) same = frame_equal(&c.a.f[i], &c.b.f[i]);
  if (same)
    point_pass(CONF_I06);
  else
    point_fail(CONF_I06, "%d frames, after rewind %d", c.a.n, c.b.n);
  if (c.a.states_ok && c.b.states_ok && c.a.end_state == c.a.end && c.after_end == c.a.end &&
      c.a.end == 0)
    point_pass(CONF_I07);
  else
    point_fail(CONF_I07, "states announced %d/%d, end %d, State after end %d, again %d",
               c.a.states_ok, c.b.states_ok, c.a.end, c.a.end_state, c.after_end);
}

/* N. I08 from this function's caller, described as RunWithIterator(NULL) describes it. */
static __attribute__((noinline)) int from_caller(conf_trace *t) {
  void **fp = (void **)__builtin_frame_address(0);
  memset(t, 0, sizeof *t);
  t->kind = api.RunWithIteratorFromFrame(fp + 2, fp[0], __builtin_return_address(0), 0,
                                         trace_collect, t);
  return t->kind;
}

/* N. I08: from a reported physical Java frame (when frames carry registers) and from the
 * agent's own C frame; both must give the Java frames from there on. */
static void check_from_frame(const conf_trace *plain, const conf_trace *full) {
  if (!NEED(I08, RunWithIteratorFromFrame)) return;
  conf_trace t;
  if (from_caller(&t) != ASGST_JAVA_TRACE || !java_tail_equal(&t, 0, plain, 0)) {
    point_fail(CONF_I08, "from the agent's C frame: kind %d, %d frames", t.kind, t.n);
    return;
  }
  for (int i = 0; i < full->n; i++) {
    const ASGST_Frame *f = &full->f[i];
    if (f->type != ASGST_FRAME_JAVA || !f->pc || !f->sp) continue;
    int first = i;
    while (first > 0 && full->f[first - 1].sp == f->sp) first--; /* its inlined frames */
    memset(&t, 0, sizeof t);
    t.kind = api.RunWithIteratorFromFrame(f->sp, f->fp, f->pc, 0, trace_collect, &t);
    if (t.kind != ASGST_JAVA_TRACE || !java_tail_equal(&t, 0, full, first)) {
      point_fail(CONF_I08, "from Java frame %d (type %d sp %p, %d frames after it): kind %d, "
                 "%d frames, the first of type %d at sp %p", i, f->type, f->sp, full->n - first,
                 t.kind, t.n, t.n ? t.f[0].type : -1, t.n ? t.f[0].sp : NULL);
      return;
    }
    break;
  }
  point_pass(CONF_I08);
}

static int rounds, rounds_compiled, rounds_inlined;
static char levels_seen[64];

/* N. T02/T03/T04 for one round in the c1 or c2 run: generic and outer carry the forced
 * level (or 0 after a deoptimization, which the VM may do at any time), inner is inlined
 * into generic. */
static void check_tiers_compiled(const conf_trace *t, int level, int id) {
  int gi = find_method(t, "generic", 0), oi = find_method(t, "outer", 0), ii = find_method(t, "inner", 0);
  if (gi < 0 || oi < 0 || ii < 0) {
    point_fail(id, "chain methods not found in the trace");
    return;
  }
  const ASGST_Frame *g = &t->f[gi], *o = &t->f[oi], *in = &t->f[ii];
  rounds++;
  char seen[24];
  snprintf(seen, sizeof seen, " %d/%d", g->comp_level, o->comp_level);
  if (strlen(levels_seen) + strlen(seen) < sizeof levels_seen) strcat(levels_seen, seen);
  if ((g->comp_level != 0 && g->comp_level != level) || (o->comp_level != 0 && o->comp_level != level))
    point_fail(id, "generic/outer at levels %d/%d, expected %d (or 0)", g->comp_level, o->comp_level, level);
  if (g->comp_level != level || o->comp_level != level || g->type != ASGST_FRAME_JAVA) return;
  rounds_compiled++;
  if (in->type == ASGST_FRAME_JAVA_INLINED && ii + 1 == gi && in->sp == g->sp && in->fp == g->fp &&
      in->comp_level == level)
    rounds_inlined++;
}

/* N. T01: -Xint gives level 0 everywhere and no inlined frame. */
static void check_tiers_interpreted(const conf_trace *t) {
  for (int i = 0; i < t->n; i++) {
    const ASGST_Frame *f = &t->f[i];
    if (f->type == ASGST_FRAME_JAVA_INLINED || (f->type == ASGST_FRAME_JAVA && f->comp_level != 0)) {
      point_fail(CONF_T01, "frame %d: type %d comp_level %d", i, f->type, f->comp_level);
      return;
    }
  }
  point_pass(CONF_T01);
}

/* N. At the end of a c1/c2 run: the forced level and the inlined frame were seen. */
void check_stack_finish(void) {
  int id = strcmp(run_label, "c1") == 0 ? CONF_T02 : strcmp(run_label, "c2") == 0 ? CONF_T03 : -1;
  if (id < 0 || rounds == 0) return;
  if (rounds_compiled)
    point_pass(id);
  else
    point_fail(id, "never at level %s in %d rounds (generic/outer levels:%s)",
               id == CONF_T02 ? "1" : "4", rounds, levels_seen);
  if (rounds_inlined)
    point_pass(CONF_T04);
  else
    point_fail(CONF_T04, "inner never reported as an inlined frame of generic (%d of %d rounds "
               "at the forced level)", rounds_compiled, rounds);
}

/* N. Entry point: every stack check at this position. */
void check_stack(JNIEnv *env) {
  static conf_trace plain, full;
  if (!NEED(I01, RunWithIterator) || !NEED(I01, NextFrame) || !NEED(I01, State)) return;
  int kind = trace_here(&plain, 0);
  if (kind == ASGST_JAVA_TRACE && plain.calls == 1)
    point_pass(CONF_I01);
  else
    point_fail(CONF_I01, "kind %d, fun called %d times", kind, plain.calls);
  trace_here(&full, ASGST_INCLUDE_NON_JAVA_FRAMES);
  check_against_jvmti(&plain);
  check_kinds_of_frames(&plain, &full);
  check_end_on_first(&plain);
  check_rewind_and_state();
  check_from_frame(&plain, &full);
  if (strcmp(run_label, "int") == 0) check_tiers_interpreted(&plain);
  if (strcmp(run_label, "c1") == 0) check_tiers_compiled(&plain, 1, CONF_T02);
  if (strcmp(run_label, "c2") == 0) check_tiers_compiled(&plain, 4, CONF_T03);
  check_info_frames(env, &plain);
}
