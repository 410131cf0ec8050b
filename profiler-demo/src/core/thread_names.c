/*
 * thread_names.c - names of the threads seen in this run, kept after they end (for the
 * "threads" output and the fd report).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/options.h"
#include "core/thread_names.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  pid_t tid;
  bool java;
  char name[64];
  int64_t java_id;
  char group[48];
} names[PROF_MAX_THREADS];
static int nnames;

/* N. */
void prof_thread_name_remember(pid_t tid, const char *name, bool java) {
  pthread_mutex_lock(&lock);
  int i = 0;
  while (i < nnames && names[i].tid != tid) i++;
  bool known = i < nnames;
  bool keep = known && names[i].java && (!java || strcmp(name, "DestroyJavaVM") == 0);
  if (i < PROF_MAX_THREADS && !keep) {
    names[i].tid = tid;
    names[i].java = java;
    snprintf(names[i].name, sizeof names[i].name, "%s", name);
    if (!known) nnames++;
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_thread_java_remember(pid_t tid, int64_t java_id, const char *group) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nnames; i++)
    if (names[i].tid == tid && !names[i].java_id) {
      names[i].java_id = java_id;
      snprintf(names[i].group, sizeof names[i].group, "%s", group);
    }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_thread_java(pid_t tid, int64_t *java_id, char *group, size_t len) {
  pthread_mutex_lock(&lock);
  *java_id = 0;
  snprintf(group, len, "%s", "");
  for (int i = 0; i < nnames; i++)
    if (names[i].tid == tid) {
      *java_id = names[i].java_id;
      snprintf(group, len, "%s", names[i].group);
    }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_thread_name(pid_t tid, char *buf, size_t len) {
  pthread_mutex_lock(&lock);
  snprintf(buf, len, "tid %d", (int)tid);
  for (int i = 0; i < nnames; i++)
    if (names[i].tid == tid) snprintf(buf, len, "%s", names[i].name);
  pthread_mutex_unlock(&lock);
}
