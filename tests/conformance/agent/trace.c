/*
 * trace.c - walking with the implementation under test into a conf_trace, and naming
 * methods both through ASGST and through JVMTI so that the two can be compared as text.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf_agent.h"

/* SS. The iterator handler of every check: copies the frames and watches ASGST_State,
 * which must announce each NextFrame's result (1 before a frame, the end code after). */
void trace_collect(ASGST_Iterator *it, void *arg) {
  conf_trace *t = arg;
  t->calls++;
  t->n = 0;
  t->states_ok = 1;
  int r;
  for (;;) {
    int s = api.State(it);
    if (t->n == MAXF) { r = 0; break; } /* deep enough for every workload stack */
    r = api.NextFrame(it, &t->f[t->n]);
    if (s != r) t->states_ok = 0;
    if (r != 1) break;
    t->n++;
  }
  t->end = r;
  t->end_state = api.State(it);
}

/* SS. Walks the calling thread from here; returns RunWithIterator's result. noinline: the
 * "here" frame must be a real frame of this file. */
__attribute__((noinline)) int trace_here(conf_trace *t, int options) {
  memset(t, 0, sizeof *t);
  t->end = 1;
  t->kind = api.RunWithIterator(NULL, options, trace_collect, t);
  point_check_code(t->kind, "RunWithIterator");
  if (t->calls == 1 && t->end != 1) point_check_code(t->end, "NextFrame");
  return t->kind;
}

/* SS. A frame that stands for a Java method (physical, inlined or native wrapper). */
bool frame_is_java(const ASGST_Frame *f) {
  return f->type == ASGST_FRAME_JAVA || f->type == ASGST_FRAME_JAVA_INLINED ||
         f->type == ASGST_FRAME_JAVA_NATIVE;
}

/* SS. Pointers to the Java frames of t, in order; returns their number. */
int trace_java(const conf_trace *t, const ASGST_Frame **out, int max) {
  int k = 0;
  for (int i = 0; i < t->n && k < max; i++)
    if (frame_is_java(&t->f[i])) out[k++] = &t->f[i];
  return k;
}

/* N. Class, name and signature of m through the implementation's accessors. */
void name_of_method(ASGST_Method m, int bci, conf_name *out) {
  memset(out, 0, sizeof *out);
  out->bci = bci;
  if (!api.GetMethodInfo || !api.GetClassInfo) return;
  ASGST_MethodInfo mi = {.method_name = out->name, .method_name_length = sizeof out->name,
                         .signature = out->sig, .signature_length = sizeof out->sig};
  api.GetMethodInfo(m, &mi);
  ASGST_ClassInfo ci = {.class_name = out->cls, .class_name_length = sizeof out->cls};
  if (mi.klass) api.GetClassInfo(mi.klass, &ci);
}

/* N. The same through JVMTI ("Lconf/Chain;" becomes "conf/Chain"). */
static void name_of_jmethod(jmethodID id, int bci, conf_name *out) {
  memset(out, 0, sizeof *out);
  out->bci = bci;
  char *name = NULL, *sig = NULL, *csig = NULL;
  jclass c = NULL;
  (*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL);
  (*jvmti)->GetMethodDeclaringClass(jvmti, id, &c);
  if (c) (*jvmti)->GetClassSignature(jvmti, c, &csig, NULL);
  snprintf(out->name, sizeof out->name, "%s", name ? name : "");
  snprintf(out->sig, sizeof out->sig, "%s", sig ? sig : "");
  if (csig && csig[0] == 'L') snprintf(out->cls, sizeof out->cls, "%.*s", (int)strlen(csig) - 2, csig + 1);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  (*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
}

/* N. The thread's Java frames per JVMTI (NULL: the current thread), top first. */
int jvmti_stack(jthread thread, conf_name *out, jmethodID *ids, int max) {
  jvmtiFrameInfo fi[MAXF];
  jint n = 0;
  if ((*jvmti)->GetStackTrace(jvmti, thread, 0, max < MAXF ? max : MAXF, fi, &n) != JVMTI_ERROR_NONE)
    return -1;
  for (jint i = 0; i < n; i++) {
    name_of_jmethod(fi[i].method, (int)fi[i].location, &out[i]);
    if (ids) ids[i] = fi[i].method;
  }
  return n;
}

/* N. */
bool names_equal(const conf_name *a, const conf_name *b) {
  return a->bci == b->bci && strcmp(a->cls, b->cls) == 0 && strcmp(a->name, b->name) == 0 &&
         strcmp(a->sig, b->sig) == 0;
}

/* N. Index of the first frame at or after `from` whose method is called `name`, else -1. */
int find_method(const conf_trace *t, const char *name, int from) {
  for (int i = from < 0 ? 0 : from; i < t->n; i++) {
    if (!frame_is_java(&t->f[i]) || !t->f[i].method) continue;
    conf_name cn;
    name_of_method(t->f[i].method, -1, &cn);
    if (strcmp(cn.name, name) == 0) return i;
  }
  return -1;
}
