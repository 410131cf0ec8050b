/*
 * threads.c - the registry of profiled threads (tid, name, per-thread event fds).
 * Filled from JVMTI ThreadStart/ThreadEnd and, at start, from /proc/self/task; with
 * cputhreads=all the scan of thread_scan.c adds the threads JVMTI never announces (JIT
 * compilers, GC, VM and native threads: "other" threads, sampled by the cpu events only)
 * and removes them once they are gone.
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
/* Slots from here on were never used: loops stop here (the scan's look, every 20 ms, then
 * touches the slots in use, not all of the array's 1.6 MB). Lock held. */
static int high;
/* N. Opens t's events as a new registration of tid (lock held). */
static void take_slot(prof_thread *t, pid_t tid, const char *name, bool java) {
  memset(t, 0, sizeof *t);
  if (t - threads >= high) high = (int)(t - threads) + 1;
  t->tid = tid;
  t->used = true;
  t->java = java;
  snprintf(t->name, sizeof t->name, "%s", name);
  prof_events_open_thread(t);
}

/* N. Registers tid as a Java thread (java) or as another thread; a thread registered as
 * another one becomes a Java thread (JVMTI's ThreadStart came after the scan had found it):
 * its events are opened again, all of them, the wall clock's signals on. */
static void add(pid_t tid, const char *name, bool java) {
  pthread_mutex_lock(&lock);
  int freeslot = -1;
  for (int i = 0; i < PROF_MAX_THREADS && i <= high; i++) {
    prof_thread *t = &threads[i];
    if (t->used && t->tid == tid) {
      if (java && !t->java && atomic_load(&prof.running)) {
        prof_events_close_thread(t);
        take_slot(t, tid, name, true);
      }
      freeslot = -2;
      break;
    }
    if (!t->used && freeslot == -1) freeslot = i;
  }
  if (freeslot >= 0 && atomic_load(&prof.running)) take_slot(&threads[freeslot], tid, name, java);
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_threads_add(pid_t tid, const char *name, bool java_name) {
  prof_thread_name_remember(tid, name, java_name);
  prof_thread_set_other(tid, false);
  add(tid, name, true);
}

/* N. */
void prof_threads_add_other(pid_t tid, const char *name) {
  prof_thread_name_remember(tid, name, false);
  prof_thread_set_other(tid, true);
  add(tid, name, false);
}

/* N. */
bool prof_threads_known(pid_t tid) {
  bool known = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < high && !known; i++)
    known = threads[i].used && threads[i].tid == tid;
  pthread_mutex_unlock(&lock);
  return known;
}

/* N. */
void prof_threads_prune(const pid_t *alive, int n) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < high; i++) {
    prof_thread *t = &threads[i];
    if (!t->used || t->java) continue;
    bool found = false;
    for (int k = 0; k < n && !found; k++) found = alive[k] == t->tid;
    if (!found) {
      prof_events_close_thread(t);
      t->used = false;
    }
  }
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_threads_remove(pid_t tid) {
  prof_thread_set_ended(tid);
  prof_threads_drop(tid);
}

/* N. */
void prof_threads_drop(pid_t tid) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < high; i++)
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
  for (int i = 0; i < high; i++)
    if (threads[i].used) prof_events_count_thread(&threads[i], live);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < PROF_MAX_EVENTS; i++) atomic_store(&prof.stats.kernel_live[i], live[i]);
}

/* N. */
void prof_threads_remove_all(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < high; i++)
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
  for (int i = 0; i < high; i++)
    if (threads[i].used && threads[i].java && syscall(SYS_tgkill, pid, threads[i].tid, sig) == 0)
      n++;
  pthread_mutex_unlock(&lock);
  return n;
}

/* N. */
int prof_threads_tids(pid_t *out, int max) {
  int n = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < high && n < max; i++)
    if (threads[i].used && threads[i].java) out[n++] = threads[i].tid;
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

/* N. True for the profiler's and the library's own threads (asgst-...), never sampled: their
 * CPU is the profiler's cost (thread_scan.c). */
bool prof_thread_is_own(const char *comm) {
  return strncmp(comm, "asgst", 5) == 0;
}

/* N. tid's name as the kernel keeps it (/proc comm, at most 15 bytes) into comm; false if
 * the thread is gone. */
bool prof_thread_comm(pid_t tid, char *comm, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool ok = fgets(comm, (int)len, f) != NULL;
  fclose(f);
  if (ok) comm[strcspn(comm, "\n")] = 0;
  return ok;
}

/* N. */
void prof_threads_add_existing(bool skip_self) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return;
  struct dirent *e;
  pid_t self = (pid_t)syscall(SYS_gettid);
  bool all = !prof.opts.java_threads_only;
  while ((e = readdir(d)) != NULL) {
    pid_t tid = (pid_t)atoi(e->d_name);
    char comm[64] = "";
    if (tid <= 0 || !prof_thread_comm(tid, comm, sizeof comm) || prof_thread_is_own(comm))
      continue;
    /* On attach, the calling thread is the attach listener: a Java thread that only waits. */
    if (skip_self && tid == self) continue;
    /* The JVM's own threads, and the java launcher's first thread (it only waits for the
     * main thread it started): sampled as other threads, if all are. */
    if (prof_thread_not_profiled(comm) || (tid == getpid() && strcmp(comm, "java") == 0)) {
      if (all) prof_threads_add_other(tid, comm);
      continue;
    }
    prof_threads_add(tid, comm, false);
  }
  closedir(d);
}
