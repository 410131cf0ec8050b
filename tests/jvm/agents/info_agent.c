/*
 * info_agent.c - JVM test agent for the hotspot binding and metadata: compares ASGST's
 * method/class information with JVMTI's, and checks initialisation from Agent_OnLoad,
 * Agent_OnAttach and JNI_OnLoad, class unload and redefinition handlers, the failure path
 * on an unsupported VM, and the cost of ASGST_GetMethodInfo.
 *
 * Options: mode[,arg]  with mode one of
 *   info            compare every method of every loaded class and every method seen on
 *                   sampled stacks, at VMDeath
 *   attach          (Agent_OnAttach) bind and compare right away
 *   unload,N        count unload handler calls for the N copies of info.Unloadee and
 *                   resolve each copy's class and methods inside the handler
 *   redefine,FILE   redefine info.Redefinee with the class file FILE while it runs
 *   unsupported     expect ASGST_Initialize to fail (ASGST_TEST_HIDE_FIELD is set)
 *   bench           median ASGST_GetMethodInfo time
 * Loaded with System.load, JNI_OnLoad binds and compares; with INFO_GAP=1 in the
 * environment it does nothing and info.GapWorkload's natives bind and check the window
 * before the classes loaded before the binding are listed (see "gap" below).
 * Output lines: "RESULT pass|fail name", "FIGURE text", "# comment"; the test scripts
 * turn them into TAP.
 */
#include <dirent.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "impl/test_build.h" /* asgst__hs_shadow_stats: the shadows' memory figures */
#include "include/asgst.h"
#include "common/agent_setup.h"
#include "info_compare.h"

static jvmtiEnv *jvmti;
static char mode[32];
static char arg[1024];

/* N. */
static void result(int ok, const char *name) {
  printf("RESULT %s %s\n", ok ? "pass" : "fail", name);
  fflush(stdout);
}

/* N. The agent's own JVMTI environment with what the checks need. */
static int make_env(JavaVM *vm) {
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return -1;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_get_line_numbers = 1;
  caps.can_redefine_classes = 1;
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
    caps.can_redefine_classes = 0;
    (*jvmti)->AddCapabilities(jvmti, &caps);
  }
  return 0;
}

/* ---- unload ----
 * The handler runs (on JDK 17) after the GC freed the unloaded class's metadata; it must
 * still resolve the class and its methods through the ASGST accessors (the backend's
 * shadow copies). What they must return is recorded through JVMTI when the first copy of
 * info.Unloadee is prepared: every copy has the same methods and line tables. */
enum { MAX_EXPECTED = 8, MAX_LINES = 16 };
typedef struct {
  char name[64], sig[64];
  int nlines;
  ASGST_MethodLineNumberEntry lines[MAX_LINES];
} expected_method;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ASGST_Class unloadees[4096];
static int nunloadees, unloaded_matched, unloaded_other, unloaded_bad_count;
static expected_method expected[MAX_EXPECTED];
static int nexpected;
static int class_names_ok, methods_total, methods_ok, name_sets_ok, other_thread_ok;

/* N. The methods of the first prepared Unloadee, from JVMTI. */
static void record_expected(jvmtiEnv *j, jclass c) {
  jint n = 0;
  jmethodID *ids = NULL;
  if ((*j)->GetClassMethods(j, c, &n, &ids) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < n && nexpected < MAX_EXPECTED; i++) {
    expected_method *e = &expected[nexpected++];
    char *name = NULL, *sig = NULL;
    (*j)->GetMethodName(j, ids[i], &name, &sig, NULL);
    snprintf(e->name, sizeof e->name, "%s", name ? name : "");
    snprintf(e->sig, sizeof e->sig, "%s", sig ? sig : "");
    (*j)->Deallocate(j, (unsigned char *)name);
    (*j)->Deallocate(j, (unsigned char *)sig);
    jint nl = 0;
    jvmtiLineNumberEntry *t = NULL;
    if ((*j)->GetLineNumberTable(j, ids[i], &nl, &t) == JVMTI_ERROR_NONE) {
      for (jint l = 0; l < nl && l < MAX_LINES; l++)
        e->lines[l] = (ASGST_MethodLineNumberEntry){(jint)t[l].start_location, t[l].line_number};
      e->nlines = nl < MAX_LINES ? nl : MAX_LINES;
      (*j)->Deallocate(j, (unsigned char *)t);
    }
  }
  (*j)->Deallocate(j, (unsigned char *)ids);
}

/* SS. Whether method m of class k resolves to expected method *which (index, -1 if none):
 * name, signature, class, line table and line-for-bci. */
static int resolves(ASGST_Class k, ASGST_Method m, int *which) {
  char name[64], sig[64];
  ASGST_MethodInfo mi = {.method_name = name, .method_name_length = sizeof name,
                         .signature = sig, .signature_length = sizeof sig};
  ASGST_GetMethodInfo(m, &mi);
  *which = -1;
  for (int i = 0; i < nexpected && *which < 0; i++)
    if (strcmp(expected[i].name, name) == 0) *which = i;
  if (*which < 0 || mi.klass != k || ASGST_GetClass(m) != k || sig[0] == '\0') return 0;
  const expected_method *e = &expected[*which];
  ASGST_MethodLineNumberEntry lines[MAX_LINES];
  int n = ASGST_GetMethodLineNumberTable(m, lines, MAX_LINES);
  int ok = strcmp(e->sig, sig) == 0 && n == e->nlines && n > 0;
  for (int i = 0; ok && i < n; i++)
    ok = lines[i].start_bci == e->lines[i].start_bci &&
         lines[i].line_number == e->lines[i].line_number &&
         ASGST_GetMethodLineNumber(m, lines[i].start_bci) == lines[i].line_number;
  return ok;
}

typedef struct {
  ASGST_Class k;
  ASGST_Method *methods;
  int count, ok;
} other_thread_job;

/* A thread the VM does not know resolves the same methods while the handler waits: the
 * answers must not depend on being the thread that reports the unload. */
static void *resolve_elsewhere(void *a) {
  other_thread_job *job = a;
  job->ok = job->count > 0;
  for (int i = 0; i < job->count; i++) {
    int which;
    job->ok &= resolves(job->k, job->methods[i], &which);
  }
  return NULL;
}

/* N (lock held). Resolves an unloaded Unloadee copy from inside its handler. */
static void check_unloaded(ASGST_Class k, ASGST_Method *methods, int count) {
  char cname[64];
  ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname};
  ASGST_GetClassInfo(k, &ci);
  class_names_ok += strcmp(cname, "info/Unloadee") == 0 && ci.idnum == ASGST_GetClassIdNum(k);
  int seen[MAX_EXPECTED] = {0}, all = count == nexpected;
  for (int i = 0; i < count; i++) {
    int which = -1, ok = resolves(k, methods[i], &which);
    methods_total++;
    methods_ok += ok;
    if (which >= 0) seen[which]++;
    all &= ok;
  }
  for (int i = 0; i < nexpected; i++) all &= seen[i] == 1;
  name_sets_ok += all;
  other_thread_job job = {k, methods, count, 0};
  pthread_t t;
  if (pthread_create(&t, NULL, resolve_elsewhere, &job) == 0) pthread_join(t, NULL);
  other_thread_ok += job.ok;
  if (!all && methods_total - methods_ok <= 3)
    printf("# unload: copy %p resolved as '%s' with %d of %d methods right\n", (void *)k,
           cname, methods_ok, methods_total);
}

static void unload_handler(ASGST_Class k, ASGST_Method *methods, int count, bool redefined,
                           void *a) {
  (void)a;
  if (redefined) return;
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < nunloadees; i++) {
    if (unloadees[i] == k) {
      unloadees[i] = NULL;
      found = 1;
      break;
    }
  }
  if (found) {
    unloaded_matched++;
    if (count != 3) unloaded_bad_count++; /* <init>, step, helper */
    check_unloaded(k, methods, count);
  } else {
    unloaded_other++;
  }
  pthread_mutex_unlock(&lock);
}

static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass c) {
  (void)env, (void)t;
  char *sig = NULL;
  if ((*j)->GetClassSignature(j, c, &sig, NULL) != JVMTI_ERROR_NONE) return;
  if (strcmp(sig, "Linfo/Unloadee;") == 0) {
    ASGST_Class k = ASGST_JClassToClass(c);
    pthread_mutex_lock(&lock);
    if (k && nunloadees < 4096) unloadees[nunloadees++] = k;
    if (nexpected == 0) record_expected(j, c);
    pthread_mutex_unlock(&lock);
  }
  (*j)->Deallocate(j, (unsigned char *)sig);
}

/* N. The three methods info.Unloadee declares, each with a line table. */
static int expected_is_unloadee(void) {
  static const char *names[] = {"<init>", "step", "helper"};
  int ok = nexpected == 3;
  for (int i = 0; ok && i < 3; i++) {
    int found = 0;
    for (int j = 0; j < nexpected; j++) found |= strcmp(expected[j].name, names[i]) == 0 && expected[j].nlines > 0;
    ok = found;
  }
  return ok;
}

static void report_unload(void) {
  int n = atoi(arg);
  pthread_mutex_lock(&lock);
  printf("FIGURE unload: %d copies of info.Unloadee prepared, %d unload handler calls for them, "
         "%d for other classes\n", nunloadees, unloaded_matched, unloaded_other);
  printf("FIGURE unload resolve: %d copies unloaded, class name right for %d, %d of %d methods "
         "resolved correctly in the handler, %d copies with exactly <init>/step/helper, %d copies "
         "resolved from another thread too\n",
         unloaded_matched, class_names_ok, methods_ok, methods_total, name_sets_ok, other_thread_ok);
  asgst__hs_shadow_stats_t st = asgst__hs_shadow_stats();
  printf("FIGURE unload shadows: %ld classes shadowed, %ld methods, %ld bytes (%.1f bytes per "
         "method incl. class header), %ld still held, %ld published, %ld discarded, %ld answers\n",
         st.shadows, st.methods, st.bytes, st.methods ? (double)st.bytes / st.methods : 0.0,
         st.live, st.published, st.discarded, st.answered);
  result(nunloadees == n, "unload: every copy of info.Unloadee registered");
  result(unloaded_matched == n, "unload: handler fired for every unloaded copy");
  result(unloaded_bad_count == 0, "unload: handler got the class's 3 methods");
  result(expected_is_unloadee(), "unload: JVMTI lists <init>, step, helper with line tables");
  result(class_names_ok == unloaded_matched && n > 0,
         "unload: the handler resolves the unloaded class's name");
  result(methods_ok == methods_total && methods_total == 3 * n,
         "unload: the handler resolves every method (name, signature, class, lines)");
  result(name_sets_ok == unloaded_matched, "unload: each copy's methods are exactly <init>, step, helper");
  result(other_thread_ok == unloaded_matched && n > 0,
         "unload: another thread resolves the methods while the handler runs");
  /* Nothing else reads metadata in this mode, so every retired shadow is freed at once. */
  /* A shadow is either still held, or published and freed after, or discarded unpublished
   * (a class registered twice by racing paths, a shadow retaken after redefinition). */
  result(st.published == unloaded_matched && st.live == st.shadows - st.published - st.discarded,
         "unload: each copy's shadow was published for its handlers and freed after");
  pthread_mutex_unlock(&lock);
}

/* ---- redefine ---- */
static ASGST_Class redef_class;
static ASGST_Method redef_old[16];
static jint redef_old_idnum[16];
static int redef_nold, redef_calls, redef_methods_ok;

static void redefine_handler(ASGST_Class k, ASGST_Method *methods, int count, bool redefined,
                             void *a) {
  (void)a;
  if (!redefined || k != redef_class) return;
  redef_calls++;
  int ok = count == redef_nold;
  for (int i = 0; ok && i < count; i++) {
    int found = 0;
    for (int j = 0; j < redef_nold; j++)
      if (methods[i] == redef_old[j] && ASGST_GetMethodIdNum(methods[i]) == redef_old_idnum[j]) found = 1;
    ok = found;
  }
  redef_methods_ok = ok;
}

static jclass find_class(JNIEnv *env, const char *sig) {
  jint n = 0;
  jclass *cs = NULL, found = NULL;
  if ((*jvmti)->GetLoadedClasses(jvmti, &n, &cs) != JVMTI_ERROR_NONE) return NULL;
  for (jint i = 0; i < n; i++) {
    char *s = NULL;
    if (!found && (*jvmti)->GetClassSignature(jvmti, cs[i], &s, NULL) == JVMTI_ERROR_NONE &&
        strcmp(s, sig) == 0)
      found = (jclass)(*env)->NewLocalRef(env, cs[i]);
    if (s) (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    (*env)->DeleteLocalRef(env, cs[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)cs);
  return found;
}

static unsigned char *read_file(const char *path, jint *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = malloc(1 << 20);
  *len = buf ? (jint)fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  return buf;
}

static void JNICALL redefine_thread(jvmtiEnv *j, JNIEnv *env, void *a) {
  (void)j, (void)a;
  jclass c = NULL;
  for (int i = 0; i < 500 && c == NULL; i++) {
    c = find_class(env, "Linfo/Redefinee;");
    if (!c) nanosleep(&(struct timespec){0, 20000000}, NULL);
  }
  if (c == NULL) { result(0, "redefine: info.Redefinee loaded"); return; }
  nanosleep(&(struct timespec){0, 200000000}, NULL); /* let it run (and compile) */
  redef_class = ASGST_JClassToClass(c);
  jint n = 0;
  jmethodID *ids = NULL;
  (*jvmti)->GetClassMethods(jvmti, c, &n, &ids);
  for (jint i = 0; i < n && i < 16; i++) {
    redef_old[i] = ASGST_JMethodIDToMethod(ids[i]);
    redef_old_idnum[i] = ASGST_GetMethodIdNum(redef_old[i]);
  }
  redef_nold = n < 16 ? n : 16;
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
  jint len = 0;
  unsigned char *bytes = read_file(arg, &len);
  jvmtiClassDefinition def = {c, len, bytes};
  jvmtiError err = bytes ? (*jvmti)->RedefineClasses(jvmti, 1, &def) : JVMTI_ERROR_INVALID_CLASS_FORMAT;
  free(bytes);
  result(err == JVMTI_ERROR_NONE, "redefine: RedefineClasses succeeded");
  result(redef_calls == 1, "redefine: handler called once with redefined=true");
  result(redef_methods_ok, "redefine: handler got the old methods with their idnums");
  /* After: same class handle, every method a new Method* with the old idnum. */
  result(ASGST_JClassToClass(c) == redef_class, "redefine: class handle and idnum unchanged");
  int same_idnums = 0, new_methods = 0;
  (*jvmti)->GetClassMethods(jvmti, c, &n, &ids);
  for (jint i = 0; i < n; i++) {
    ASGST_Method m = ASGST_JMethodIDToMethod(ids[i]);
    char *name = NULL, *sig = NULL;
    (*jvmti)->GetMethodName(jvmti, ids[i], &name, &sig, NULL);
    for (int k = 0; k < redef_nold; k++) {
      char nm[256], sg[256];
      ASGST_MethodInfo info = {.method_name = nm, .method_name_length = sizeof nm,
                               .signature = sg, .signature_length = sizeof sg};
      ASGST_GetMethodInfo(redef_old[k], &info);
      /* Old methods may already be gone; compare by idnum instead of by name then. */
      if (ASGST_GetMethodIdNum(m) == redef_old_idnum[k]) {
        same_idnums++;
        if (m != redef_old[k]) new_methods++;
      }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
  printf("FIGURE redefine: %d methods, %d keep their idnum, %d are new Method*s\n", (int)n,
         same_idnums, new_methods);
  result(n == redef_nold && same_idnums == n, "redefine: idnums unchanged across redefinition");
  result(new_methods >= 1, "redefine: the changed method is a new Method*");
}

/* ---- thread kinds ---- */
static void note_kind(ASGST_Iterator *it, void *a) { *(int *)a = ASGST_State(it); }

static void *raw_thread(void *a) {
  int *out = a, state = 0;
  out[0] = ASGST_RunWithIterator(NULL, 0, note_kind, &state);
  out[1] = ASGST_ThreadState();
  return NULL;
}

/* N. A Java thread walks as ASGST_JAVA_TRACE; a pthread the VM does not know as
 * ASGST_NON_JAVA_TRACE with thread state 0. */
static void check_thread_kinds(void) {
  int state = 0, raw[2] = {0, -1};
  int kind = ASGST_RunWithIterator(NULL, 0, note_kind, &state);
  pthread_t t;
  if (pthread_create(&t, NULL, raw_thread, raw) == 0) pthread_join(t, NULL);
  printf("FIGURE thread kinds: Java thread %d, plain pthread %d (state 0x%x)\n", kind, raw[0],
         raw[1]);
  result(kind == ASGST_JAVA_TRACE, "thread kind: a Java thread walks as ASGST_JAVA_TRACE");
  result(raw[0] == ASGST_NON_JAVA_TRACE && raw[1] == 0,
         "thread kind: a pthread unknown to the VM is ASGST_NON_JAVA_TRACE, state 0");
}

/* N. Walks named VM threads from outside (ASGST_RunWithIteratorOnThread) and checks the
 * kind: the VM thread and GC workers are not JavaThreads, compiler threads and the
 * signal dispatcher are. JDK 8 names its GC workers "GC task thread#0 (ParallelGC)" and
 * starts its compiler threads only after VMInit. */
static void check_vm_thread_kinds(void) {
  /* Names as the kernel keeps them (15 characters): cut short up to 25, elided in the
   * middle from 26 on ("C2 Comp..hread0"), so the last four match a prefix. */
  static const struct { const char *comm; int kind; } want[] = {
      {"VM Thread", ASGST_NON_JAVA_TRACE}, {"GC Thread#0", ASGST_NON_JAVA_TRACE},
      {"GC task thread#*", ASGST_NON_JAVA_TRACE},
      {"C2 Comp*", ASGST_JAVA_TRACE}, {"C1 Comp*", ASGST_JAVA_TRACE},
      {"Signal *", ASGST_JAVA_TRACE}, {"Referen*", ASGST_JAVA_TRACE}};
  int checked = 0, right = 0;
  DIR *d = opendir("/proc/self/task");
  for (struct dirent *e; d && (e = readdir(d));) {
    char path[300], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
    fclose(f);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      size_t n = strcspn(want[i].comm, "*");
      if (want[i].comm[n] == '*' ? strncmp(comm, want[i].comm, n) != 0 : strcmp(comm, want[i].comm) != 0)
        continue;
      int state = 0;
      int kind = ASGST_RunWithIteratorOnThread(atoll(e->d_name), 0, 200000, note_kind, &state);
      checked++;
      right += kind == want[i].kind;
      printf("# thread '%s': kind %d (want %d)\n", comm, kind, want[i].kind);
    }
  }
  if (d) closedir(d);
  printf("FIGURE VM thread kinds: %d of %d named threads classified right\n", right, checked);
  result(checked >= 4 && right == checked, "thread kind: VM/GC threads non-Java, compiler/dispatcher threads Java");
}

/* ---- agent threads and events ---- */
static jthread new_thread(JNIEnv *env) {
  jclass cls = (*env)->FindClass(env, "java/lang/Thread");
  jmethodID init = (*env)->GetMethodID(env, cls, "<init>", "()V");
  return (*env)->NewObject(env, cls, init);
}

static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)t;
  result(ASGST_InitializeError()[0] == '\0', "onload: binding completed at VMInit");
  int st = ASGST_ThreadState();
  printf("FIGURE thread state at VMInit: 0x%x\n", st);
  result((st & JVMTI_THREAD_STATE_ALIVE) && (st & JVMTI_THREAD_STATE_IN_NATIVE),
         "thread state of a thread in a JVMTI callback is alive, in native");
  check_thread_kinds();
  if (strcmp(mode, "info") == 0) check_vm_thread_kinds();
  if (strcmp(mode, "info") == 0) info_start_sampler(j, env, new_thread(env));
  if (strcmp(mode, "redefine") == 0) {
    ASGST_RegisterClassUnloadHandler(redefine_handler, NULL);
    (*j)->RunAgentThread(j, new_thread(env), redefine_thread, NULL, JVMTI_THREAD_NORM_PRIORITY);
  }
}

static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  if (strcmp(mode, "info") == 0) info_compare_all(j, env, "onload", 1);
  if (strcmp(mode, "unload") == 0) report_unload();
  if (strcmp(mode, "bench") == 0) info_bench(j, env);
}

static void parse(const char *options) {
  const char *comma = options ? strchr(options, ',') : NULL;
  snprintf(mode, sizeof mode, "%.*s", comma ? (int)(comma - options) : (int)sizeof mode - 1,
           options ? options : "info");
  snprintf(arg, sizeof arg, "%s", comma ? comma + 1 : "");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  parse(options);
  int rc = ASGST_Initialize(vm, agent_init_flags());
  if (strcmp(mode, "unsupported") == 0) {
    const char *why = ASGST_InitializeError();
    printf("FIGURE ASGST_Initialize: %s (%d): %s\n", ASGST_ErrorName(rc), rc, why);
    result(rc == ASGST_UNSUPPORTED_VM, "unsupported: ASGST_Initialize returns ASGST_UNSUPPORTED_VM");
    const char *hidden = getenv("ASGST_TEST_HIDE_FIELD");
    int all = hidden != NULL;
    char names[512];
    snprintf(names, sizeof names, "%s", hidden ? hidden : "");
    for (char *p = strtok(names, ","); p; p = strtok(NULL, ",")) all &= strstr(why, p) != NULL;
    result(all, "unsupported: the reason names every missing field");
    int st = ASGST_ThreadState();
    result(st == ASGST_NOT_INITIALIZED, "unsupported: the API answers ASGST_NOT_INITIALIZED");
    return 0;
  }
  result(rc == 0, "onload: ASGST_Initialize from Agent_OnLoad");
  result(ASGST_Initialize(vm, agent_init_flags()) == 0, "onload: a second ASGST_Initialize is harmless");
  if (make_env(vm) != 0) return 1;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ClassPrepare = on_class_prepare;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof cb);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  if (strcmp(mode, "unload") == 0) {
    ASGST_RegisterClassUnloadHandler(unload_handler, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
  }
  return 0;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  parse(options);
  int rc = ASGST_Initialize(vm, agent_init_flags());
  printf("# attach: %s %s\n", ASGST_ErrorName(rc), ASGST_InitializeError());
  result(rc == 0, "attach: ASGST_Initialize from Agent_OnAttach");
  JNIEnv *env = NULL;
  if (make_env(vm) != 0 || (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return 1;
  info_compare_all(jvmti, env, "attach", 0);
  return 0;
}

/* ---- gap ----
 * A live-phase binding answers before the classes loaded before it are listed (pinned):
 * until then walks say ASGST_INIT_PENDING and conversions wait (class_backlog.c). In that
 * window (widened by ASGST_TEST_LISTING_DELAY_MS) info.GapWorkload drops one copy of
 * info.Unloadee (it unloads unlisted, never handed out) and converts a method of another
 * copy, which it drops afterwards: that copy's unload must reach the handler. */
static int gap_first_walk = 1, gap_after_walk, gap_calls_a, gap_calls_other;
/* ASGST_InitializeStatus right after the answer; the outcome callback's runs, its status,
 * whether it ran on the binding thread, and a walk's result inside it. */
static int gap_first_status = 1, gap_cb_runs, gap_cb_status = 1, gap_cb_walk = 1;
static bool gap_cb_on_caller;
static pthread_t gap_caller;
static ASGST_Class gap_class;
static double gap_waited_ms;

/* SS. */
static void gap_nothing(ASGST_Iterator *it, void *a) { (void)it, (void)a; }

/* N. A walk of the calling thread: its kind or error. */
static int gap_walk(void) { return ASGST_RunWithIterator(NULL, 0, gap_nothing, NULL); }

/* N. */
static double gap_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void gap_handler(ASGST_Class k, ASGST_Method *methods, int count, bool redefined, void *a) {
  (void)methods, (void)count, (void)a;
  if (redefined) return;
  pthread_mutex_lock(&lock);
  if (k == gap_class) gap_calls_a++;
  else gap_calls_other++;
  pthread_mutex_unlock(&lock);
}

/* N. ASGST_SetInitializeCallback's callback, set right after the answer. */
static void gap_outcome(int status, void *a) {
  (void)a;
  pthread_mutex_lock(&lock);
  gap_cb_runs++;
  gap_cb_status = status;
  gap_cb_on_caller = pthread_equal(pthread_self(), gap_caller);
  pthread_mutex_unlock(&lock);
  /* The listing thread is a Java thread of the VM: a walk of it works from here on. */
  gap_cb_walk = gap_walk();
}

JNIEXPORT jint JNICALL Java_info_GapWorkload_bind(JNIEnv *env, jclass c) {
  (void)c;
  JavaVM *vm = NULL;
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) return -1;
  ASGST_RegisterClassUnloadHandler(gap_handler, NULL);
  gap_caller = pthread_self();
  int rc = ASGST_Initialize(vm, agent_init_flags());
  gap_first_walk = gap_walk();
  gap_first_status = ASGST_InitializeStatus();
  ASGST_SetInitializeCallback(gap_outcome, NULL);
  result(rc == 0, "gap: ASGST_Initialize in the live phase");
  return rc;
}

JNIEXPORT jint JNICALL Java_info_GapWorkload_walk(JNIEnv *env, jclass c) {
  (void)env, (void)c;
  return gap_walk();
}

JNIEXPORT jlong JNICALL Java_info_GapWorkload_convert(JNIEnv *env, jclass c, jobject m) {
  (void)c;
  jmethodID id = (*env)->FromReflectedMethod(env, m);
  double t0 = gap_now_ms();
  ASGST_Method am = id ? ASGST_JMethodIDToMethod(id) : NULL;
  gap_waited_ms = gap_now_ms() - t0;
  gap_after_walk = gap_walk();
  pthread_mutex_lock(&lock);
  gap_class = am ? ASGST_GetClass(am) : NULL;
  pthread_mutex_unlock(&lock);
  return (jlong)(uintptr_t)gap_class;
}

JNIEXPORT void JNICALL Java_info_GapWorkload_report(JNIEnv *env, jclass c, jboolean b_gone) {
  (void)env, (void)c;
  printf("FIGURE gap: first walk %s, conversion waited %.0f ms, walk after it %s, unload handler "
         "calls: %d for the converted copy, %d for other classes\n",
         ASGST_ErrorName(gap_first_walk), gap_waited_ms,
         gap_after_walk > 0 ? "works" : ASGST_ErrorName(gap_after_walk), gap_calls_a, gap_calls_other);
  result(gap_first_walk == ASGST_INIT_PENDING,
         "gap: a walk right after the answer says ASGST_INIT_PENDING while the classes are listed");
  result(gap_first_status == ASGST_INIT_PENDING,
         "gap: ASGST_InitializeStatus says ASGST_INIT_PENDING while the classes are listed");
  pthread_mutex_lock(&lock);
  printf("FIGURE gap: outcome callback ran %d time(s), status %d, on the binding thread %s, walk in it %d\n",
         gap_cb_runs, gap_cb_status, gap_cb_on_caller ? "yes" : "no", gap_cb_walk);
  result(gap_cb_runs == 1 && gap_cb_status == 0 && !gap_cb_on_caller && gap_cb_walk > 0,
         "gap: the outcome callback set in the window runs once, after the listing, with status 0, and walks work in it");
  pthread_mutex_unlock(&lock);
  result(b_gone, "gap: a class loaded before the binding unloads inside the window (walks still pending)");
  result(gap_class != NULL && gap_after_walk > 0,
         "gap: ASGST_JMethodIDToMethod in the window waits for the listing (walks work right after)");
  pthread_mutex_lock(&lock);
  result(gap_calls_a == 1, "gap: the class converted in the window and unloaded after gets its unload handler call");
  pthread_mutex_unlock(&lock);
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  const char *gap = getenv("INFO_GAP");
  if (gap && strcmp(gap, "1") == 0) return JNI_VERSION_1_8; /* GapWorkload's natives bind */
  snprintf(mode, sizeof mode, "jni");
  int rc = ASGST_Initialize(vm, agent_init_flags());
  printf("# JNI_OnLoad: %s %s\n", ASGST_ErrorName(rc), ASGST_InitializeError());
  result(rc == 0, "jni: ASGST_Initialize from JNI_OnLoad");
  JNIEnv *env = NULL;
  if (make_env(vm) == 0 && (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK)
    info_compare_all(jvmti, env, "jni", 0);
  return JNI_VERSION_1_8;
}
