/*
 * threads.c - the registry of profiled threads (tid, name, per-thread event fds).
 * Filled from JVMTI ThreadStart/ThreadEnd and, on attach, from /proc/self/task.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/state.h"
#include "core/thread_names.h"
#include "sampling/sampling.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static prof_thread threads[PROF_MAX_THREADS];
/* N. */
void prof_threads_add(pid_t tid, const char *name, bool java_name) {
  prof_thread_name_remember(tid, name, java_name);
  pthread_mutex_lock(&lock);
  int freeslot = -1;
  for (int i = 0; i < PROF_MAX_THREADS; i++) {
    if (threads[i].used && threads[i].tid == tid) freeslot = -2, i = PROF_MAX_THREADS;
    else if (!threads[i].used && freeslot == -1) freeslot = i;
  }
  if (freeslot >= 0 && atomic_load(&prof.running)) {
    prof_thread *t = &threads[freeslot];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->used = true;
    snprintf(t->name, sizeof t->name, "%s", name);
    prof_events_open_thread(t);
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_threads_remove(pid_t tid) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < PROF_MAX_THREADS; i++)
    if (threads[i].used && threads[i].tid == tid) {
      prof_events_close_thread(&threads[i]);
      threads[i].used = false;
    }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_threads_count_events(void) {
  uint64_t live[PROF_MAX_EVENTS] = {0};
  pthread_mutex_lock(&lock);
  for (int i = 0; i < PROF_MAX_THREADS; i++)
    if (threads[i].used) prof_events_count_thread(&threads[i], live);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < PROF_MAX_EVENTS; i++) atomic_store(&prof.stats.kernel_live[i], live[i]);
}

/* N. */
void prof_threads_remove_all(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < PROF_MAX_THREADS; i++)
    if (threads[i].used) {
      prof_events_close_thread(&threads[i]);
      threads[i].used = false;
    }
  pthread_mutex_unlock(&lock);
}

/* N. */
int prof_threads_signal_all(int sig) {
  pid_t pid = getpid();
  int n = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < PROF_MAX_THREADS; i++)
    if (threads[i].used && syscall(SYS_tgkill, pid, threads[i].tid, sig) == 0) n++;
  pthread_mutex_unlock(&lock);
  return n;
}

/* N. */
int prof_threads_tids(pid_t *out, int max) {
  int n = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < PROF_MAX_THREADS && n < max; i++)
    if (threads[i].used) out[n++] = threads[i].tid;
  pthread_mutex_unlock(&lock);
  return n;
}

/* N. True for the JVM's own threads, which never run Java code (their names as set by
 * HotSpot, cut to the 15 characters the kernel keeps), and for the library's and the
 * profiler's (asgst-...). */
bool prof_thread_not_profiled(const char *comm) {
  /* JDK 26 and later shorten a long name to its first 7 and last 6 characters around "..":
   * "C2 Comp..hread0". */
  static const char *const prefixes[] = {
      "GC Thread", "G1 ", "VM Thread", "VM Periodic", "C1 CompilerThre", "C2 CompilerThre",
      "Sweeper", "Monitor Deflati", "GC ", "ZGC", "Shenandoah", "VM Operation", "StrDedup",
      "Notification Th", "Service Thread", "Signal Dispatch", "asgst", "C1 Comp..",
      "C2 Comp..", "VM Peri..", "Monitor..", "Notific..", "Signal ..", NULL};
  for (int i = 0; prefixes[i]; i++)
    if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0) return true;
  return false;
}

/* N. */
void prof_threads_add_existing(bool skip_self) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return;
  struct dirent *e;
  pid_t self = (pid_t)syscall(SYS_gettid);
  while ((e = readdir(d)) != NULL) {
    pid_t tid = (pid_t)atoi(e->d_name);
    if (tid <= 0) continue;
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    FILE *f = fopen(path, "r");
    if (f) {
      if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
      fclose(f);
    }
    /* On attach, the calling thread is the attach listener: a Java thread that only waits. */
    if ((skip_self && tid == self) || prof_thread_not_profiled(comm)) continue;
    /* The java launcher's first thread only waits for the main thread it started. */
    if (tid == getpid() && strcmp(comm, "java") == 0) continue;
    prof_threads_add(tid, comm, false);
  }
  closedir(d);
}
