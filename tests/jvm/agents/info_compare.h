/*
 * info_compare.h - the comparison half of info_agent.c (included by it only: the agent
 * build makes one library per C file in agents/): ASGST method/class information against
 * JVMTI's, for every method of every loaded class and every method seen on sampled
 * stacks; and the ASGST_GetMethodInfo benchmark.
 */
#ifndef INFO_COMPARE_H
#define INFO_COMPARE_H

#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "include/asgst.h"

static void result(int ok, const char *name);

typedef struct {
  long methods, name, sig, gen, mods, klass, class_name, class_gen, class_mods, class_conv;
  long idnum, lines, line_entries, bci_lookups, bci_ok, to_jmid_tried, to_jmid_ok;
  long no_lines;
  int printed;
} stats;

/* N. "Ljava/lang/String;" -> "java/lang/String"; other forms (arrays) stay. */
static void internal_name(const char *sig, char *out, size_t cap) {
  size_t n = strlen(sig);
  if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') snprintf(out, cap, "%.*s", (int)(n - 2), sig + 1);
  else snprintf(out, cap, "%s", sig);
}

static void mismatch(stats *s, const char *what, const char *mine, const char *theirs) {
  if (s->printed++ < 12) printf("# mismatch %s: asgst '%s' jvmti '%s'\n", what, mine, theirs);
}

/* N. The line JVMTI's table gives for bci: the entry with the greatest start <= bci (the
 * last such entry in table order wins ties, as ASGST_GetMethodLineNumber does). */
static jint jvmti_line(const jvmtiLineNumberEntry *t, jint n, jint bci) {
  jint line = -1, best = -1;
  for (jint i = 0; i < n; i++)
    if (t[i].start_location <= bci && t[i].start_location >= best) best = (jint)t[i].start_location, line = t[i].line_number;
  return line;
}

static void compare_lines(jvmtiEnv *j, jmethodID id, ASGST_Method m, stats *s) {
  jint n = 0;
  jvmtiLineNumberEntry *t = NULL;
  jvmtiError err = (*j)->GetLineNumberTable(j, id, &n, &t);
  if (err != JVMTI_ERROR_NONE) n = 0, t = NULL;
  ASGST_MethodLineNumberEntry mine[4096];
  int total = ASGST_GetMethodLineNumberTable(m, mine, 4096);
  int ok = total == n;
  for (jint i = 0; ok && i < n && i < 4096; i++)
    ok = mine[i].start_bci == (jint)t[i].start_location && mine[i].line_number == t[i].line_number;
  s->lines += ok;
  s->line_entries += n;
  s->no_lines += n == 0;
  if (!ok) {
    char a[64], b[64];
    snprintf(a, sizeof a, "%d entries", total);
    snprintf(b, sizeof b, "%d entries (err %d)", (int)n, (int)err);
    mismatch(s, "line table", a, b);
  }
  for (jint i = 0; i < n; i++) {
    for (jint d = 0; d < 2; d++) {
      jint bci = (jint)t[i].start_location + d;
      s->bci_lookups++;
      s->bci_ok += ASGST_GetMethodLineNumber(m, bci) == jvmti_line(t, n, bci);
    }
  }
  if (t) (*j)->Deallocate(j, (unsigned char *)t);
}

static void compare_class(jvmtiEnv *j, JNIEnv *env, jclass c, ASGST_Class k, stats *s) {
  static char name[4096], gen[8192];
  ASGST_ClassInfo ci = {name, sizeof name, gen, sizeof gen, 0, 0};
  ASGST_GetClassInfo(k, &ci);
  char *jsig = NULL, *jgen = NULL, want[4096];
  jint jmods = 0;
  (*j)->GetClassSignature(j, c, &jsig, &jgen);
  (*j)->GetClassModifiers(j, c, &jmods);
  internal_name(jsig ? jsig : "", want, sizeof want);
  if (strcmp(want, name) == 0) s->class_name++; else mismatch(s, "class name", name, want);
  if (jgen ? strcmp(jgen, gen) == 0 : ci.generic_class_name_length == 0) s->class_gen++;
  else mismatch(s, "class generic", gen, jgen ? jgen : "(null)");
  if (jmods == ci.modifiers) s->class_mods++;
  else {
    char a[32], b[300];
    snprintf(a, sizeof a, "0x%x", ci.modifiers);
    snprintf(b, sizeof b, "0x%x %.250s", jmods, want);
    mismatch(s, "class modifiers", a, b);
  }
  jclass back = ASGST_ClassToJClass(k);
  if (ASGST_JClassToClass(c) == k && back && (*env)->IsSameObject(env, back, c)) s->class_conv++;
  if (back) (*env)->DeleteLocalRef(env, back);
  if (jsig) (*j)->Deallocate(j, (unsigned char *)jsig);
  if (jgen) (*j)->Deallocate(j, (unsigned char *)jgen);
}

static void compare_method(jvmtiEnv *j, JNIEnv *env, jmethodID id, stats *s) {
  static char name[1024], sig[8192], gen[8192];
  ASGST_Method m = ASGST_JMethodIDToMethod(id);
  ASGST_MethodInfo info = {NULL, name, sizeof name, sig, sizeof sig, gen, sizeof gen, 0, 0, 0};
  ASGST_GetMethodInfo(m, &info);
  char *jn = NULL, *js = NULL, *jg = NULL;
  jint jmods = 0;
  if ((*j)->GetMethodName(j, id, &jn, &js, &jg) != JVMTI_ERROR_NONE) return;
  (*j)->GetMethodModifiers(j, id, &jmods);
  s->methods++;
  if (strcmp(jn, name) == 0) s->name++; else mismatch(s, "name", name, jn);
  if (strcmp(js, sig) == 0) s->sig++; else mismatch(s, "signature", sig, js);
  if (jg ? strcmp(jg, gen) == 0 : info.generic_signature_length == 0) s->gen++;
  else mismatch(s, "generic", gen, jg ? jg : "(null)");
  if (jmods == info.modifiers) s->mods++;
  else {
    char a[32], b[300];
    snprintf(a, sizeof a, "0x%x", info.modifiers);
    snprintf(b, sizeof b, "0x%x %.100s%.150s", jmods, jn, js);
    mismatch(s, "modifiers", a, b);
  }
  s->idnum += ASGST_GetMethodIdNum(m) == info.idnum && ASGST_GetClassIdNum(info.klass) == info.class_idnum &&
              ASGST_GetClass(m) == info.klass;
  jclass c = NULL;
  (*j)->GetMethodDeclaringClass(j, id, &c);
  if (c && ASGST_JClassToClass(c) == info.klass) s->klass++;
  compare_lines(j, id, m, s);
  if (s->methods % 16 == 0) {
    s->to_jmid_tried++;
    s->to_jmid_ok += ASGST_MethodToJMethodID(m) == id;
  }
  if (c) (*env)->DeleteLocalRef(env, c);
  (*j)->Deallocate(j, (unsigned char *)jn);
  (*j)->Deallocate(j, (unsigned char *)js);
  if (jg) (*j)->Deallocate(j, (unsigned char *)jg);
}

static void report(const char *tag, const char *what, stats *s, int with_classes, long classes) {
  char name[160];
  printf("FIGURE %s %s: %ld methods; equal: name %ld, signature %ld, generic %ld, modifiers %ld, "
         "class %ld, idnums %ld, line tables %ld (%ld entries, %ld methods without), "
         "line-for-bci %ld/%ld, Method->jmethodID %ld/%ld\n",
         tag, what, s->methods, s->name, s->sig, s->gen, s->mods, s->klass, s->idnum, s->lines,
         s->line_entries, s->no_lines, s->bci_ok, s->bci_lookups, s->to_jmid_ok, s->to_jmid_tried);
  long m = s->methods;
  snprintf(name, sizeof name, "%s %s: method name, signature, generic signature equal JVMTI's (100%%)", tag, what);
  result(m > 0 && s->name == m && s->sig == m && s->gen == m, name);
  snprintf(name, sizeof name, "%s %s: method modifiers equal GetMethodModifiers (100%%)", tag, what);
  result(m > 0 && s->mods == m, name);
  snprintf(name, sizeof name, "%s %s: line tables and line-for-bci equal GetLineNumberTable (100%%)", tag, what);
  result(m > 0 && s->lines == m && s->bci_ok == s->bci_lookups, name);
  snprintf(name, sizeof name, "%s %s: holder class, idnums, jmethodID round trip", tag, what);
  result(m > 0 && s->klass == m && s->idnum == m && s->to_jmid_ok == s->to_jmid_tried, name);
  if (!with_classes) return;
  printf("FIGURE %s classes: %ld; equal: name %ld, generic %ld, modifiers %ld, jclass round trip %ld\n",
         tag, classes, s->class_name, s->class_gen, s->class_mods, s->class_conv);
  snprintf(name, sizeof name, "%s classes: name and generic signature equal GetClassSignature (100%%)", tag);
  result(classes > 0 && s->class_name == classes && s->class_gen == classes, name);
  snprintf(name, sizeof name, "%s classes: modifiers equal GetClassModifiers (100%%)", tag);
  result(classes > 0 && s->class_mods == classes, name);
  snprintf(name, sizeof name, "%s classes: jclass <-> ASGST_Class round trip", tag);
  result(classes > 0 && s->class_conv == classes, name);
}

/* ---- methods seen on stacks ---- */
#define SEEN_CAP (1 << 16)
static jmethodID seen[SEEN_CAP];
static long nseen, samples;

static void add_seen(jmethodID id) {
  unsigned h = (unsigned)(((uintptr_t)id >> 3) * 2654435761u) & (SEEN_CAP - 1);
  for (long n = 0; n < SEEN_CAP; n++, h = (h + 1) & (SEEN_CAP - 1)) {
    if (seen[h] == id) return;
    if (seen[h] == NULL) {
      if (nseen < SEEN_CAP / 2) seen[h] = id, nseen++;
      return;
    }
  }
}

static volatile int sampler_stop;

static void JNICALL sampler(jvmtiEnv *j, JNIEnv *env, void *a) {
  (void)env, (void)a;
  while (!sampler_stop) {
    jvmtiStackInfo *info = NULL;
    jint n = 0;
    if ((*j)->GetAllStackTraces(j, 128, &info, &n) == JVMTI_ERROR_NONE) {
      for (jint t = 0; t < n; t++)
        for (jint f = 0; f < info[t].frame_count; f++) add_seen(info[t].frame_buffer[f].method);
      (*j)->Deallocate(j, (unsigned char *)info);
      samples++;
    }
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
}

static void info_start_sampler(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env;
  (*j)->RunAgentThread(j, t, sampler, NULL, JVMTI_THREAD_NORM_PRIORITY);
}

/* N. Compares every method of every loaded class (and, with stacks, the sampled ones). */
static void info_compare_all(jvmtiEnv *j, JNIEnv *env, const char *tag, int stacks) {
  sampler_stop = 1;
  stats all = {0}, st = {0};
  jint n = 0;
  jclass *cs = NULL;
  long classes = 0;
  (*j)->GetLoadedClasses(j, &n, &cs);
  for (jint i = 0; i < n; i++) {
    jint status = 0, nm = 0;
    jmethodID *ids = NULL;
    (*j)->GetClassStatus(j, cs[i], &status);
    if ((status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) ||
        !(status & JVMTI_CLASS_STATUS_PREPARED)) {
      (*env)->DeleteLocalRef(env, cs[i]);
      continue;
    }
    ASGST_Class k = ASGST_JClassToClass(cs[i]);
    classes++;
    compare_class(j, env, cs[i], k, &all);
    if ((*j)->GetClassMethods(j, cs[i], &nm, &ids) == JVMTI_ERROR_NONE) {
      for (jint m = 0; m < nm; m++) compare_method(j, env, ids[m], &all);
      (*j)->Deallocate(j, (unsigned char *)ids);
    }
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*j)->Deallocate(j, (unsigned char *)cs);
  report(tag, "all loaded classes", &all, 1, classes);
  if (!stacks) return;
  for (long i = 0; i < SEEN_CAP; i++)
    if (seen[i]) compare_method(j, env, seen[i], &st);
  printf("FIGURE %s: %ld stack samples (GetAllStackTraces), %ld distinct methods seen\n", tag,
         samples, nseen);
  report(tag, "methods seen on stacks", &st, 0, 0);
}

/* ---- benchmark ---- */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* N. Median time of one ASGST_GetMethodInfo (all strings copied) over ~2000 methods. */
static void info_bench(jvmtiEnv *j, JNIEnv *env) {
  enum { MAXM = 2048, ROUNDS = 301, BATCH = 1000 };
  static ASGST_Method ms[MAXM];
  int nms = 0;
  jint n = 0;
  jclass *cs = NULL;
  (*j)->GetLoadedClasses(j, &n, &cs);
  for (jint i = 0; i < n && nms < MAXM; i++) {
    jint nm = 0;
    jmethodID *ids = NULL;
    if ((*j)->GetClassMethods(j, cs[i], &nm, &ids) == JVMTI_ERROR_NONE) {
      for (jint m = 0; m < nm && nms < MAXM; m++) ms[nms++] = ASGST_JMethodIDToMethod(ids[m]);
      (*j)->Deallocate(j, (unsigned char *)ids);
    }
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*j)->Deallocate(j, (unsigned char *)cs);
  static double t[ROUNDS], tl[ROUNDS];
  char name[256], sig[1024], gen[1024];
  long sink = 0;
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_ns();
    for (int i = 0; i < BATCH; i++) {
      ASGST_MethodInfo info = {NULL, name, sizeof name, sig, sizeof sig, gen, sizeof gen, 0, 0, 0};
      ASGST_GetMethodInfo(ms[(r * BATCH + i) % nms], &info);
      sink += info.method_name_length;
    }
    double t1 = now_ns();
    for (int i = 0; i < BATCH; i++) sink += ASGST_GetMethodLineNumber(ms[(r * BATCH + i) % nms], 3);
    double t2 = now_ns();
    t[r] = (t1 - t0) / BATCH;
    tl[r] = (t2 - t1) / BATCH;
  }
  qsort(t, ROUNDS, sizeof t[0], cmp_double);
  qsort(tl, ROUNDS, sizeof tl[0], cmp_double);
  printf("FIGURE ASGST_GetMethodInfo median %.1f ns per call (%d methods, %d x %d calls; budget 200 ns)\n",
         t[ROUNDS / 2], nms, ROUNDS, BATCH);
  printf("FIGURE ASGST_GetMethodLineNumber median %.1f ns per call\n", tl[ROUNDS / 2]);
  printf("# sink %ld\n", sink & 1);
  result(nms > 1000 && t[ROUNDS / 2] < 200.0, "bench: ASGST_GetMethodInfo median under 200 ns");
}

#endif
