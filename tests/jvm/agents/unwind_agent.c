/*
 * unwind_agent.c - JVMTI test agent of tests/jvm/test_native_agree.sh: ASGST's C frames
 * (ASGST_INCLUDE_NON_JAVA_FRAMES: DWARF call frame tables, frame pointers as fallback)
 * against an independent unwinder, libunwind, on the same stopped stacks.
 *
 * The workload (tests/jvm/java/native/NativeAgree.java) runs the nofp spinner (C code
 * without frame pointers under 50 Java frames) beside threads that allocate, intern
 * strings, contend on monitors, sleep, yield and load classes. An agent thread sends
 * SIGPROF to the threads of the process in turn (every fourth signal to the spinner,
 * the others to any thread: Java threads, GC and compiler threads, the VM thread), running
 * or blocked. The handler unwinds the C frames at the top of the stack twice from its
 * ucontext, with ASGST and with libunwind, and compares them frame by frame
 * (unwind_agent/agree.c). The agent thread then reports the agreement, the first
 * disagreements named with dladdr, and checks >= 99% equal frames over at least `min`
 * compared frames.
 *
 * libunwind is linked into this agent only (tests/jvm/CMakeLists.txt), never into the
 * library or the demo profiler.
 *
 * Options: secs=N (how long to sample; default 10), min=N (frames that must be compared;
 * default 1000). Prints "AGREE ok - ..." / "AGREE not ok - ..." checks and
 * "AGREE # ..." lines.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <jvmti.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "unwind_agent/agree.h"

#define MAX_TIDS 512

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static int secs = 10;
static long min_compared = 1000;
static _Atomic pid_t spinner_tid;
static atomic_int armed, quit, finished;
static pid_t tids[MAX_TIDS];
static int ntids;

/* SS. SIGPROF: one sample, once the agent thread has set everything up. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  if (atomic_load(&armed)) agree_sample(uc);
  errno = saved;
}

/* N. The process's threads but the caller, from /proc/self/task. */
static void list_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) return;
  pid_t self = (pid_t)syscall(SYS_gettid);
  ntids = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && ntids < MAX_TIDS;) {
    pid_t t = (pid_t)atoi(e->d_name);
    if (t > 0 && t != self) tids[ntids++] = t;
  }
  closedir(d);
}

/* N. "lib+0xoff sym+0xoff" of a pc; a return address (not the first frame) is looked up
 * one byte back, inside its call. */
static void describe(uintptr_t pc, bool first, char *out, size_t len) {
  Dl_info di;
  uintptr_t at = pc - (first ? 0 : 1);
  if (!dladdr((void *)at, &di) || di.dli_fname == NULL) {
    snprintf(out, len, "%#lx (no object)", (unsigned long)pc);
    return;
  }
  const char *lib = strrchr(di.dli_fname, '/');
  lib = lib ? lib + 1 : di.dli_fname;
  int n = snprintf(out, len, "%#lx %s+%#lx", (unsigned long)pc, lib, (unsigned long)(pc - (uintptr_t)di.dli_fbase));
  if (di.dli_sname && n > 0 && (size_t)n < len)
    snprintf(out + n, len - n, " %s+%#lx", di.dli_sname, (unsigned long)(pc - (uintptr_t)di.dli_saddr));
}

/* N. How a run ended, in words. */
static const char *end_name(int end) {
  static const char *const names[] = {"left ELF code", "outermost frame", "error", "frame limit"};
  return end >= 0 && end <= END_FULL ? names[end] : "?";
}

/* N. Prints a disagreeing sample: the frames around the first difference. */
static void print_example(const agree_example *e) {
  printf("AGREE # disagreement on tid %d at frame %d: ASGST (%s) %d C frames (%s, rc %d), libunwind %d (%s, "
         "rc %d)\n", (int)e->tid, e->at, e->a_kind == ASGST_NON_JAVA_TRACE ? "non-Java thread" : "Java thread",
         e->na, end_name(e->a_end), e->a_rc, e->nu, end_name(e->u_end), e->u_rc);
  int from = e->at > 2 ? e->at - 2 : 0;
  for (int i = from; i < e->at + 3 && i < AGREE_EX_FRAMES; i++) {
    char a[256] = "-", u[256] = "-";
    if (i < e->na) describe(e->a[i], i == 0, a, sizeof a);
    if (i < e->nu) describe(e->u[i], i == 0, u, sizeof u);
    printf("AGREE #   %2d%s ASGST %s | libunwind %s\n", i, i == e->at ? "*" : " ", a, u);
  }
}

/* N. The figures and checks. */
static void report(void) {
  long compared = atomic_load(&agree.compared), equal = atomic_load(&agree.equal);
  double pct = compared ? 100.0 * equal / compared : 0.0;
  printf("AGREE # figure: samples=%ld with C frames=%ld (non-Java threads %ld), agreeing entirely %ld\n",
         atomic_load(&agree.samples), atomic_load(&agree.with_c), atomic_load(&agree.non_java),
         atomic_load(&agree.agreeing));
  printf("AGREE # figure: C frames compared %ld, equal %ld (%.3f%%); ASGST went past libunwind's stop by "
         "%ld frames, libunwind past ASGST's end by %ld\n",
         compared, equal, pct, atomic_load(&agree.asgst_past), atomic_load(&agree.unw_past));
  char line[512];
  int len = 0;
  for (int l = 0; l < LIB_COUNT; l++)
    len += snprintf(line + len, sizeof line - len, " %s %ld/%ld", elf_maps_lib_name(l),
                    atomic_load(&agree.equal_in[l]), atomic_load(&agree.compared_in[l]));
  printf("AGREE # figure: equal/compared by library:%s\n", line);
  int nex = atomic_load(&agree.examples);
  for (int i = 0; i < nex && i < AGREE_EXAMPLES; i++) print_example(&agree.ex[i]);
  long nofp = atomic_load(&agree.compared_in[LIB_NOFP]);
  printf("AGREE %s - at least %ld C frames compared (%ld), %ld of them in libnofp (no frame pointers)\n",
         compared >= min_compared && nofp > 0 ? "ok" : "not ok", min_compared, compared, nofp);
  printf("AGREE %s - >= 99%% of C frames equal to libunwind's (%ld of %ld, %.3f%%)\n",
         compared > 0 && equal * 100 >= compared * 99 ? "ok" : "not ok", equal, compared, pct);
  fflush(stdout);
}

/* N. The agent thread: signals the process's threads for `secs` seconds, then reports.
 * Every fourth signal goes to the spinner, so that its frames without frame pointers
 * are always among those compared. */
static void JNICALL sampler(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j, (void)env, (void)arg;
  struct timespec t0, now, pause = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  elf_maps_refresh();
  atomic_store(&armed, 1);
  unsigned seed = 28;
  for (long i = 0;; i++) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
    if (atomic_load(&quit) || ms >= secs * 1000L) break;
    if (i % 200 == 0) elf_maps_refresh(), list_threads(); /* new libraries, threads */
    pid_t spinner = atomic_load(&spinner_tid);
    pid_t t = i % 4 == 0 && spinner ? spinner : ntids ? tids[rand_r(&seed) % ntids] : 0;
    if (t) syscall(SYS_tgkill, getpid(), t, SIGPROF);
    nanosleep(&pause, NULL);
  }
  atomic_store(&armed, 0);
  usleep(20000); /* handlers still running finish */
  report();
  atomic_store(&finished, 1);
}

/* N. Records the spinner (the callback runs on the new thread). */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env;
  jvmtiThreadInfo info;
  if ((*j)->GetThreadInfo(j, t, &info) != JVMTI_ERROR_NONE) return;
  bool it = info.name && strcmp(info.name, "nofp-spinner") == 0;
  (*j)->Deallocate(j, (unsigned char *)info.name);
  if (it) atomic_store(&spinner_tid, (pid_t)syscall(SYS_gettid));
}

/* N. A thread that ends stops being a target (its id may be reused). */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  pid_t self = (pid_t)syscall(SYS_gettid);
  atomic_compare_exchange_strong(&spinner_tid, &self, 0);
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)t;
  agent_initialize_and_start(jvm, j, env, sampler, "AGREE");
}

/* N. Waits (briefly) for the agent thread's report. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  agent_stop_and_wait(&quit, &finished, 3000);
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  secs = (int)agent_option(options, "secs", secs);
  min_compared = agent_option(options, "min", min_compared);
  jvmtiEventCallbacks cb = {.VMInit = on_vm_init, .VMDeath = on_vm_death, .ThreadStart = on_thread_start,
                            .ThreadEnd = on_thread_end};
  static const jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START,
                                  JVMTI_EVENT_THREAD_END};
  if (agent_setup(vm, &jvmti, &cb, ev, sizeof ev / sizeof *ev) != 0) {
    printf("AGREE not ok - JVMTI missing\n");
    return JNI_ERR;
  }
  agree_init();
  agent_handle_signal(SIGPROF, on_signal);
  return JNI_OK;
}
