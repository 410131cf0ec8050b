/*
 * check_info.c - method and class information against JVMTI (M01-M06) for the Java frames
 * of the stack checks, the documented answers for NULL handles (E01, E02), the capability
 * bits (C02) and the library extensions that need no thread (X01, X03).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_agent.h"

/* Method and class modifier bits both sides define the same way (JVMTI may add or drop
 * bits such as ACC_SUPER that the class file format reuses). */
enum { METHOD_MODS = 0x0D3F, CLASS_MODS = 0x0611 };

extern JavaVM *conf_vm;

/* N. Whether an unavailable field was reported as the contract says (NULL or length 0). */
static bool absent(const char *s, jint len) {
  return s == NULL || len == 0;
}

/* N. M01 and M02 for one method. */
static void check_names(JNIEnv *env, ASGST_Method m, jmethodID id, const ASGST_MethodInfo *mi,
                        const char *where) {
  char *name = NULL, *sig = NULL, *gen = NULL, *csig = NULL, *cgen = NULL;
  jint mods = 0, cmods = 0;
  jclass c = NULL;
  (*jvmti)->GetMethodName(jvmti, id, &name, &sig, &gen);
  (*jvmti)->GetMethodModifiers(jvmti, id, &mods);
  (*jvmti)->GetMethodDeclaringClass(jvmti, id, &c);
  (*jvmti)->GetClassSignature(jvmti, c, &csig, &cgen);
  (*jvmti)->GetClassModifiers(jvmti, c, &cmods);
  bool gen_ok = gen ? mi->generic_signature && strcmp(gen, mi->generic_signature) == 0
                    : absent(mi->generic_signature, mi->generic_signature_length);
  if (strcmp(name, mi->method_name) || strcmp(sig, mi->signature) || !gen_ok ||
      (mods & METHOD_MODS) != (mi->modifiers & METHOD_MODS))
    point_fail(CONF_M01, "%s: %s%s <%s> 0x%x, JVMTI %s%s <%s> 0x%x", where, mi->method_name,
               mi->signature, mi->generic_signature ? mi->generic_signature : "NULL",
               mi->modifiers, name, sig, gen ? gen : "NULL", mods);
  else
    point_pass(CONF_M01);
  char cname[160] = "", cgname[200] = "";
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname,
                        .generic_class_name = cgname, .generic_class_name_length = sizeof cgname};
  api.GetClassInfo(mi->klass, &ci);
  bool cname_ok = strlen(csig) == strlen(cname) + 2 && strncmp(csig + 1, cname, strlen(cname)) == 0;
  bool cgen_ok = cgen ? ci.generic_class_name && strcmp(cgen, ci.generic_class_name) == 0
                      : absent(ci.generic_class_name, ci.generic_class_name_length);
  if (!cname_ok || !cgen_ok || (cmods & CLASS_MODS) != (ci.modifiers & CLASS_MODS))
    point_fail(CONF_M02, "%s: class %s <%s> 0x%x, JVMTI %s <%s> 0x%x", where, cname,
               ci.generic_class_name ? ci.generic_class_name : "NULL", ci.modifiers, csig,
               cgen ? cgen : "NULL", cmods);
  else
    point_pass(CONF_M02);
  char *all[] = {name, sig, gen, csig, cgen};
  for (int i = 0; i < 5; i++) (*jvmti)->Deallocate(jvmti, (unsigned char *)all[i]);
  (void)env;
  (*env)->DeleteLocalRef(env, c);
  (void)m;
}

/* N. The line of bci per a JVMTI table: the entry with the largest start at or below it. */
static jint line_of(const jvmtiLineNumberEntry *t, jint n, jint bci) {
  jint line = -1, best = -1;
  for (jint i = 0; i < n; i++)
    if (t[i].start_location <= bci && t[i].start_location > best) best = (jint)t[i].start_location, line = t[i].line_number;
  return line;
}

/* N. Orders line entries by bci, then line, so tables compare whatever order they came in. */
static int by_bci(const void *a, const void *b) {
  const ASGST_MethodLineNumberEntry *x = a, *y = b;
  return x->start_bci != y->start_bci ? x->start_bci - y->start_bci : x->line_number - y->line_number;
}

/* N. M03 for one method at one bci. */
static void check_lines(ASGST_Method m, jmethodID id, int bci, const char *where) {
  enum { MAXL = 64 };
  ASGST_MethodLineNumberEntry mine[MAXL + 1], theirs[MAXL];
  jint n = 0;
  jvmtiLineNumberEntry *t = NULL;
  if ((*jvmti)->GetLineNumberTable(jvmti, id, &n, &t) != JVMTI_ERROR_NONE) n = 0;
  for (jint i = 0; i < n && i < MAXL; i++) theirs[i] = (ASGST_MethodLineNumberEntry){(jint)t[i].start_location, t[i].line_number};
  jint want = bci >= 0 ? line_of(t, n, bci) : -1;
  (*jvmti)->Deallocate(jvmti, (unsigned char *)t);
  mine[1].start_bci = -77; /* must survive a copy limited to one entry */
  int total1 = api.GetMethodLineNumberTable(m, mine, 1);
  int total = api.GetMethodLineNumberTable(m, mine, MAXL);
  bool ok = total == n && total1 == n && n <= MAXL;
  qsort(mine, (size_t)(total < MAXL ? total : MAXL), sizeof mine[0], by_bci);
  qsort(theirs, (size_t)(n < MAXL ? n : MAXL), sizeof theirs[0], by_bci);
  for (int i = 0; ok && i < n; i++)
    ok = mine[i].start_bci == theirs[i].start_bci && mine[i].line_number == theirs[i].line_number;
  jint got = api.GetMethodLineNumber(m, bci);
  if (!ok || got != want)
    point_fail(CONF_M03, "%s: %d entries (JVMTI %d, limited to 1: %d), line of bci %d is %d, JVMTI %d",
               where, total, (int)n, total1, bci, got, want);
  else
    point_pass(CONF_M03);
}

/* N. M04: a short buffer gets a NUL-terminated prefix and nothing past its capacity; a NULL
 * buffer is skipped while the other fields are filled. */
static void check_truncation(ASGST_Method m, const ASGST_MethodInfo *full) {
  char name[8], sig[64];
  memset(name, 'x', sizeof name);
  ASGST_MethodInfo mi = {.method_name = name, .method_name_length = 4};
  api.GetMethodInfo(m, &mi);
  size_t real = strlen(full->method_name);
  bool ok = name[4] == 'x' && memchr(name, '\0', 4) && strncmp(name, full->method_name, strlen(name)) == 0 &&
            strlen(name) == (real < 3 ? real : 3) && mi.method_name_length >= (jint)strlen(name);
  ASGST_MethodInfo skip = {.method_name = NULL, .method_name_length = 32, .signature = sig,
                           .signature_length = sizeof sig};
  api.GetMethodInfo(m, &skip);
  ok = ok && strcmp(sig, full->signature) == 0 && skip.method_name == NULL;
  if (ok)
    point_pass(CONF_M04);
  else
    point_fail(CONF_M04, "name with capacity 4: \"%.4s\" length %d; signature beside a NULL name: \"%s\"",
               name, mi.method_name_length, sig);
}

/* N. M05 and M06 for one method. */
static void check_ids(JNIEnv *env, ASGST_Method m, jmethodID id, const ASGST_MethodInfo *mi,
                      const char *where) {
  char cname[8];
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname};
  api.GetClassInfo(mi->klass, &ci);
  if (api.GetMethodIdNum(m) != mi->idnum || api.GetClass(m) != mi->klass || !mi->klass ||
      api.GetClassIdNum(mi->klass) != mi->class_idnum || ci.idnum != mi->class_idnum)
    point_fail(CONF_M05, "%s: idnum %d/%d class %p/%p class idnum %lld/%lld/%lld", where,
               (int)api.GetMethodIdNum(m), (int)mi->idnum, (void *)api.GetClass(m), (void *)mi->klass,
               (long long)api.GetClassIdNum(mi->klass), (long long)mi->class_idnum, (long long)ci.idnum);
  else
    point_pass(CONF_M05);
  jclass c = NULL;
  (*jvmti)->GetMethodDeclaringClass(jvmti, id, &c);
  jclass back = api.ClassToJClass(mi->klass);
  bool same = back && (*env)->IsSameObject(env, back, c);
  if (api.JMethodIDToMethod(id) != m || api.MethodToJMethodID(m) != id ||
      api.JClassToClass(c) != mi->klass || !same)
    point_fail(CONF_M06, "%s: jmethodID->method %p (frame %p), method->jmethodID %p (JVMTI %p), "
               "jclass->class %p (%p), class->jclass same object %d", where,
               (void *)api.JMethodIDToMethod(id), (void *)m, (void *)api.MethodToJMethodID(m),
               (void *)id, (void *)api.JClassToClass(c), (void *)mi->klass, same);
  else
    point_pass(CONF_M06);
  (*env)->DeleteLocalRef(env, c);
  if (back) (*env)->DeleteLocalRef(env, back);
}

/* N. M05: distinct methods of one class have distinct idnums. */
static void check_distinct_idnums(const conf_trace *t) {
  int gi = find_method(t, "generic", 0), oi = find_method(t, "outer", 0);
  if (gi >= 0 && oi >= 0 && api.GetMethodIdNum(t->f[gi].method) == api.GetMethodIdNum(t->f[oi].method))
    point_fail(CONF_M05, "generic and outer share idnum %d", (int)api.GetMethodIdNum(t->f[gi].method));
}

/* N. Entry point: every Java frame of t, matched with JVMTI's stack by position (I02
 * checks that the positions agree; here a mismatch only skips the frame). */
void check_info_frames(JNIEnv *env, const conf_trace *t) {
  if (!NEED(M01, GetMethodInfo) || !NEED(M02, GetClassInfo) || !NEED(M03, GetMethodLineNumberTable) ||
      !NEED(M05, GetMethodIdNum) || !NEED(M06, JMethodIDToMethod) || !NEED(M06, MethodToJMethodID))
    return;
  static conf_name jn[MAXF];
  jmethodID ids[MAXF];
  const ASGST_Frame *jf[MAXF];
  int n = jvmti_stack(NULL, jn, ids, MAXF), k = trace_java(t, jf, MAXF);
  for (int i = 0; i < n && i < k; i++) {
    char name[96], sig[160], gen[200], where[160];
    ASGST_MethodInfo mi = {.method_name = name, .method_name_length = sizeof name,
                           .signature = sig, .signature_length = sizeof sig,
                           .generic_signature = gen, .generic_signature_length = sizeof gen};
    api.GetMethodInfo(jf[i]->method, &mi);
    if (strcmp(name, jn[i].name) != 0) continue;
    snprintf(where, sizeof where, "%s.%s", jn[i].cls, jn[i].name);
    check_names(env, jf[i]->method, ids[i], &mi, where);
    check_lines(jf[i]->method, ids[i], jf[i]->bci, where);
    check_ids(env, jf[i]->method, ids[i], &mi, where);
    if (strcmp(name, "generic") == 0) check_truncation(jf[i]->method, &mi);
  }
  check_distinct_idnums(t);
}

/* N. E01, E02: the documented answers for NULL handles. */
static void check_null_handles(void) {
  if (api.State && api.State(NULL) == 0) point_pass(CONF_E01);
  else if (NEED(E01, State)) point_fail(CONF_E01, "State(NULL) is %d", api.State(NULL));
  if (!NEED(E02, GetMethodInfo) || !NEED(E02, GetClassInfo) || !NEED(E02, GetMethodLineNumber)) return;
  char name[16] = "junk", cname[16] = "junk";
  ASGST_MethodInfo mi = {.method_name = name, .method_name_length = sizeof name, .klass = (ASGST_Class)1};
  api.GetMethodInfo(NULL, &mi);
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname};
  api.GetClassInfo(NULL, &ci);
  ASGST_MethodLineNumberEntry e[2];
  int lines = api.GetMethodLineNumberTable(NULL, e, 2);
  jint line = api.GetMethodLineNumber(NULL, 0);
  if (absent(mi.method_name, mi.method_name_length) && mi.klass == NULL &&
      absent(ci.class_name, ci.class_name_length) && lines == 0 && line == -1 &&
      api.GetClass(NULL) == NULL)
    point_pass(CONF_E02);
  else
    point_fail(CONF_E02, "method name length %d klass %p, class name length %d, %d lines, line %d",
               mi.method_name_length, (void *)mi.klass, ci.class_name_length, lines, line);
}

/* N. C02, E01, E02, X01, X03. */
void check_errors_and_extensions(void) {
  if (NEED(C02, Capabilities)) {
    int caps = api.Capabilities();
    if (caps & ~(ASGST_REGISTER_QUEUE | ASGST_MARK_FRAME)) point_fail(CONF_C02, "capabilities 0x%x", caps);
    else point_pass(CONF_C02);
  }
  check_null_handles();
  if (!api.ErrorName) {
    point_skip(CONF_X01, "ASGST_ErrorName is not exported (extension)");
  } else {
    static const char *const names[] = {"ASGST_NO_FRAME", "ASGST_NO_THREAD", "ASGST_THREAD_EXIT",
        "ASGST_UNSAFE_STATE", "ASGST_NO_TOP_JAVA_FRAME", "ASGST_ENQUEUE_NO_QUEUE",
        "ASGST_ENQUEUE_FULL_QUEUE", "ASGST_ENQUEUE_OTHER_ERROR"};
    bool ok = api.ErrorName(-1000) != NULL;
    for (int i = 0; i < 8; i++) ok = ok && api.ErrorName(-i) && strcmp(api.ErrorName(-i), names[i]) == 0;
    if (ok) point_pass(CONF_X01);
    else point_fail(CONF_X01, "ErrorName(0..-7) does not give the contract's names");
  }
  if (!api.Initialize) {
    point_skip(CONF_X03, "ASGST_Initialize is not exported (extension)");
  } else {
    int rc = api.Initialize(conf_vm, 0);
    if (rc == 0) point_pass(CONF_X03);
    else point_fail(CONF_X03, "second ASGST_Initialize returned %d", rc);
  }
}
