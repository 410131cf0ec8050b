/*
 * fuzz_agent.c - JVMTI agent of the live-JVM fuzzer (./build.sh fuzz, tests/fuzz/fuzz.sh).
 *
 * A sampler thread sends SIGPROF with tgkill to the registered Java threads round robin,
 * `burst` threads per tick, as fast as it can (interval_us), and now and then to any thread
 * of the process. The handler walks its own thread `walks` times from perturbed and random
 * starts (fuzz_agent/contexts.c), checks every step and calls every information accessor
 * on every method it gets (fuzz_agent/walk_check.c), and once on a random pointer. A
 * second thread walks random Java threads and bogus tids out of thread
 * (fuzz_agent/remote.c). At VMDeath the agent prints "FUZZ ..." lines: counts, the outcome
 * histograms by ASGST_ErrorName, faults caught, and ok/not ok checks.
 *
 * Options (comma separated): label=NAME, interval_us=N (default 20), walks=N (walks per
 * signal, default 16), burst=N (default 4), remote_us=N (pause between out-of-thread
 * walks, default 50; -1 switches them off), info=N (1 walk in N calls the information
 * accessors on every method it returns; default 1, 0 never), copy=N (percent of the
 * out-of-thread walks that are experimental stack-copy walks, default 50), copy_delay_us=N
 * (a checked stack-copy walk walks the copy N us after the target's release, default 0).
 */
#include <dirent.h>
#include <errno.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/agent_setup.h"
#include "fuzz_agent.h"

#define MAX_THREADS 256

static JavaVM *jvm;
static char label[64] = "fuzz";
static int interval_us = 20, walks = 16, burst = 4, remote_us = 50;
static atomic_int tids[MAX_THREADS], running, threads_seen;
static pthread_t sampler;
static struct timespec started;

/* SS. CPU time of this thread (a system call): handler times in wall time would mostly
 * measure preemption on a busy machine. */
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. Adds up handler CPU time and keeps the largest. */
static void note_time(uint64_t dt) {
  atomic_fetch_add_explicit(&fuzz_n.handler_ns, dt, memory_order_relaxed);
  unsigned long max = atomic_load_explicit(&fuzz_n.handler_max_ns, memory_order_relaxed);
  while (dt > max && !atomic_compare_exchange_weak(&fuzz_n.handler_max_ns, &max, dt)) {
  }
}

/* SS. The sampler's signal: `walks` fuzzed walks of this thread and one accessor call on a
 * random pointer. */
static void on_prof(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  uint64_t t0 = now_ns();
  for (int i = 0; i < walks; i++) fuzz_walk_ctx((enum fuzz_ctx)fuzz_below(CTX_REMOTE), uc);
  fuzz_random_info();
  atomic_fetch_add_explicit(&fuzz_n.signals, 1, memory_order_relaxed);
  note_time(now_ns() - t0);
  errno = saved;
}

/* N. Signals the next `burst` registered threads; returns the index to go on from. */
static int signal_some(int next) {
  for (int sent = 0, k = 0; k < MAX_THREADS && sent < burst; k++) {
    int i = (next + k) % MAX_THREADS, tid = atomic_load(&tids[i]);
    if (tid == 0) continue;
    syscall(SYS_tgkill, getpid(), tid, SIGPROF);
    next = i + 1;
    sent++;
  }
  return next;
}

/* Every thread of the process (up to 64), Java or not: GC workers, compiler threads and the
 * VM thread are signalled too, so walks also start in threads the VM does not let Java
 * run on and in the middle of a collection or a compilation. */
static int tasks[64], ntasks;

/* N. Lists the process's threads from /proc/self/task. */
static void list_tasks(void) {
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) return;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 64)
    if (atoi(e->d_name) > 0) tasks[n++] = atoi(e->d_name);
  closedir(d);
  ntasks = n;
}

/* N. */
static void *sampler_main(void *arg) {
  (void)arg;
  /* The default 50 us timer slack would stretch every short sleep to 50 us or more. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  struct timespec iv = {0, (long)interval_us * 1000};
  int next = 0;
  for (unsigned tick = 0; atomic_load(&running); tick++) {
    next = signal_some(next);
    if ((tick & 2047) == 0) list_tasks();
    if (ntasks > 0 && fuzz_below(4) == 0)
      syscall(SYS_tgkill, getpid(), tasks[fuzz_below((uint64_t)ntasks)], SIGPROF);
    nanosleep(&iv, NULL);
    /* The code heaps exist only once the VM has started; look again now and then. */
    if ((tick & 4095) == 0 && atomic_load(&fuzz_nheaps) == 0) fuzz_find_ranges();
  }
  return NULL;
}

/* N. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  atomic_fetch_add(&threads_seen, 1);
  agent_tids_add(tids, MAX_THREADS);
}

/* N. The thread stays signalled until here: its last samples catch it on its way out. */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  agent_tids_remove(tids, MAX_THREADS);
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    printf("FUZZ not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    fflush(stdout);
    return;
  }
  fuzz_find_ranges();
  on_thread_start(j, env, t);
  clock_gettime(CLOCK_MONOTONIC, &started);
  atomic_store(&running, 1);
  pthread_create(&sampler, NULL, sampler_main, NULL);
  if (remote_us >= 0) fuzz_remote_start(tids, MAX_THREADS, remote_us);
}

/* N. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  fuzz_remote_stop();
  usleep(20000); /* lets signals already sent finish their handlers */
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double secs = (double)(end.tv_sec - started.tv_sec) + (end.tv_nsec - started.tv_nsec) / 1e9;
  fuzz_report(label, secs, atomic_load(&threads_seen));
}

/* N. Parses the options; false (with a message) for a bad one. */
static bool parse(const char *s) {
  while (s && *s) {
    if (sscanf(s, "interval_us=%d", &interval_us) == 1 || sscanf(s, "walks=%d", &walks) == 1 ||
        sscanf(s, "burst=%d", &burst) == 1 || sscanf(s, "remote_us=%d", &remote_us) == 1 ||
        sscanf(s, "info=%d", &fuzz_info_every) == 1 || sscanf(s, "copy=%d", &fuzz_copy_percent) == 1 ||
        sscanf(s, "copy_delay_us=%d", &fuzz_copy_delay_us) == 1) {
    } else if (strncmp(s, "label=", 6) == 0) {
      snprintf(label, sizeof label, "%.*s", (int)strcspn(s + 6, ","), s + 6);
    } else {
      fprintf(stderr, "FUZZ not ok - bad option %s\n", s);
      return false;
    }
    s = strchr(s, ',');
    if (s) s++;
  }
  return interval_us > 0 && walks > 0 && burst > 0 && fuzz_copy_percent >= 0 &&
         fuzz_copy_percent <= 100;
}

/* N. Installs the SIGPROF handler and the JVMTI callbacks; sampling starts at VMInit. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  if (!parse(options)) return JNI_ERR;
  agent_handle_signal(SIGPROF, on_prof);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  static const jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
                                  JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END};
  jvmtiEnv *jvmti = NULL;
  return agent_setup(vm, &jvmti, &cb, ev, 4) == 0 ? JNI_OK : JNI_ERR;
}
