/*
 * check_unload.c - class unload handlers (U01, U02). The workload loads conf.Unloadee in a
 * throw-away class loader and hands the class to conf.Native.noteClass; the agent records
 * its ASGST_Class and methods, registers two handlers, and the workload then drops the
 * loader and collects until the handlers have seen the class (or time is up).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "conf_agent.h"

enum { MAXM = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ASGST_Class noted;
static ASGST_Method noted_methods[MAXM];
static int noted_count;
static int handler_arg[2];     /* the two registrations differ by arg */
static int seen[2], bad_seen[2];
static char why_bad[160];

/* N. Whether `methods` is the noted set (any order). */
static bool same_methods(ASGST_Method *methods, int count) {
  if (count != noted_count) return false;
  for (int i = 0; i < count; i++) {
    bool found = false;
    for (int j = 0; j < noted_count && !found; j++) found = methods[i] == noted_methods[j];
    if (!found) return false;
  }
  return true;
}

/* N. The handler under both registrations: the class must still resolve here. */
static void on_unload(ASGST_Class k, ASGST_Method *methods, int count, bool redefined, void *arg) {
  int which = arg == &handler_arg[0] ? 0 : 1;
  pthread_mutex_lock(&lock);
  if (k == noted && noted) {
    char name[64] = "";
    ASGST_ClassInfo ci = {.class_name = name, .class_name_length = sizeof name};
    api.GetClassInfo(k, &ci);
    seen[which]++;
    if (redefined || !same_methods(methods, count) || strcmp(name, "conf/Unloadee") != 0) {
      bad_seen[which]++;
      snprintf(why_bad, sizeof why_bad, "redefined %d, %d methods (%d noted), class name '%s'",
               redefined, count, noted_count, name);
    }
  }
  pthread_mutex_unlock(&lock);
}

/* N. conf.Native.noteClass(c). */
void unload_note(JNIEnv *env, jclass c) {
  (void)env;
  if (!NEED(U01, JClassToClass) || !NEED(U01, JMethodIDToMethod) || !NEED(U01, RegisterClassUnloadHandler))
    return;
  jint n = 0;
  jmethodID *ids = NULL;
  pthread_mutex_lock(&lock);
  if ((*jvmti)->GetClassMethods(jvmti, c, &n, &ids) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < n && i < MAXM; i++) noted_methods[i] = api.JMethodIDToMethod(ids[i]);
    noted_count = n < MAXM ? n : MAXM;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
  }
  noted = api.JClassToClass(c);
  pthread_mutex_unlock(&lock);
  api.RegisterClassUnloadHandler(on_unload, &handler_arg[0]);
  api.RegisterClassUnloadHandler(on_unload, &handler_arg[1]);
}

/* N. U02: true once per registered pair, false for a second time or an unknown pair. */
static void check_deregister(void) {
  if (!NEED(U02, DeregisterClassUnloadHandler) || !noted) return;
  bool first = api.DeregisterClassUnloadHandler(on_unload, &handler_arg[0]);
  bool again = api.DeregisterClassUnloadHandler(on_unload, &handler_arg[0]);
  bool other = api.DeregisterClassUnloadHandler(on_unload, &handler_arg[1]);
  bool never = api.DeregisterClassUnloadHandler(on_unload, &noted_count);
  if (first && !again && other && !never)
    point_pass(CONF_U02);
  else
    point_fail(CONF_U02, "first %d, again %d, second pair %d, never registered %d", first, again, other, never);
}

/* N. PROBE_UNLOADED: 1 once both handlers saw the class. With `final`, decides U01/U02. */
int unload_poll(bool final) {
  pthread_mutex_lock(&lock);
  int done = seen[0] > 0 && seen[1] > 0;
  int s0 = seen[0], s1 = seen[1], b = bad_seen[0] + bad_seen[1];
  pthread_mutex_unlock(&lock);
  if (!final) return done;
  if (!noted) {
    if (api.JClassToClass && api.RegisterClassUnloadHandler) point_fail(CONF_U01, "conf.Unloadee was not noted");
    return done;
  }
  if (b)
    point_fail(CONF_U01, "handler call for conf/Unloadee: %s", why_bad);
  else if (!done)
    point_fail(CONF_U01, "conf/Unloadee unloaded, handler calls %d and %d (want >= 1 each)", s0, s1);
  else
    point_pass(CONF_U01);
  check_deregister();
  return done;
}
