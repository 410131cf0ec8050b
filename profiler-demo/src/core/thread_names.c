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
  bool other; /* sampled as a thread that is not a Java thread */
  bool ended; /* ended as a Java thread (JVMTI ThreadEnd) */
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

/* N. The index of tid, made if new and there is room; -1 if none. Lock held. */
static int slot_of(pid_t tid) {
  int i = 0;
  while (i < nnames && names[i].tid != tid) i++;
  if (i == nnames) {
    if (i == PROF_MAX_THREADS) return -1;
    memset(&names[i], 0, sizeof names[i]);
    names[i].tid = tid;
    snprintf(names[i].name, sizeof names[i].name, "tid %d", (int)tid);
    nnames++;
  }
  return i;
}

/* N. */
void prof_thread_set_other(pid_t tid, bool other) {
  pthread_mutex_lock(&lock);
  int i = slot_of(tid);
  if (i >= 0) names[i].other = other;
  pthread_mutex_unlock(&lock);
}

/* N. */
void prof_thread_set_ended(pid_t tid) {
  pthread_mutex_lock(&lock);
  int i = slot_of(tid);
  if (i >= 0) names[i].ended = true;
  pthread_mutex_unlock(&lock);
}

/* N. */
bool prof_thread_ended(pid_t tid) {
  bool ended = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nnames; i++)
    if (names[i].tid == tid) ended = names[i].ended;
  pthread_mutex_unlock(&lock);
  return ended;
}

/* HotSpot's thread names that the kernel's 15 bytes (JDK 25 and older) or the VM's own
 * shortening to 7 + ".." + 6 characters (JDK 26 and later) cut: the cut form's start, and
 * the name written out. The rest are folded as they are. */
static const char *const long_names[][2] = {
    {"C1 CompilerThre", "C1 CompilerThread"}, {"C2 CompilerThre", "C2 CompilerThread"},
    {"C1 Comp..", "C1 CompilerThread"},       {"C2 Comp..", "C2 CompilerThread"},
    {"VM Periodic Tas", "VM Periodic Task Thread"}, {"VM Peri..", "VM Periodic Task Thread"},
    {"GC task thread#", "GC task thread#*"},  {"Monitor Deflati", "Monitor Deflation Thread"},
    {"Monitor..", "Monitor Deflation Thread"}, {"Notification Th", "Notification Thread"},
    {"Notific..", "Notification Thread"},     {"Signal Dispatch", "Signal Dispatcher"},
    {"Signal ..", "Signal Dispatcher"},       {"G1 Refi..", "G1 Refine*"},
    {"Referen..", "Reference Handler"},       {"Reference Handl", "Reference Handler"},
    {"Sweeper thread", "Sweeper thread"}};

/* N. */
void prof_thread_fold_name(const char *name, char *buf, size_t len) {
  for (size_t i = 0; i < sizeof long_names / sizeof long_names[0]; i++)
    if (strncmp(name, long_names[i][0], strlen(long_names[i][0])) == 0) {
      /* A compiler thread's number is cut off: the kind says enough. */
      snprintf(buf, len, "%s%s", long_names[i][1],
               strstr(long_names[i][1], "CompilerThread") ? "*" : "");
      return;
    }
  size_t o = 0;
  bool keep = false; /* in a digit run that is kept */
  for (const char *p = name; *p && o + 1 < len; p++) {
    bool digit = *p >= '0' && *p <= '9';
    if (!digit) {
      buf[o++] = *p;
      continue;
    }
    bool run_start = p == name || !(p[-1] >= '0' && p[-1] <= '9');
    /* A word of a capital and digits names a kind, not a number: "G1", "C2". */
    if (run_start)
      keep = p > name && p[-1] >= 'A' && p[-1] <= 'Z' && (p - 1 == name || p[-2] == ' ');
    if (keep) buf[o++] = *p;
    else if (run_start) buf[o++] = '*';
  }
  if (len) buf[o < len ? o : len - 1] = 0;
}

/* N. */
bool prof_thread_group(pid_t tid, char *buf, size_t len) {
  char name[64] = "";
  bool other = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nnames; i++)
    if (names[i].tid == tid) other = names[i].other, snprintf(name, sizeof name, "%s", names[i].name);
  pthread_mutex_unlock(&lock);
  if (!other) return false;
  char folded[64];
  prof_thread_fold_name(name, folded, sizeof folded);
  snprintf(buf, len, "[%s]", folded);
  return true;
}
