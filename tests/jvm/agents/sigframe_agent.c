/*
 * sigframe_agent.c - JVMTI test agent of tests/jvm/test_signal_frames.sh: a walk that
 * starts inside another agent's signal handler goes through the kernel's signal frame
 * into the Java code that handler interrupted (impl/native/sigframe.h).
 *
 * The workload (tests/jvm/java/sigframe/SignalFrames.java) has a thread
 * "sigframe-spinner" compute in Java. This agent plays two agents on it: "ours" walks in
 * a SIGPROF handler; "the other" has a SIGVTALRM handler (other_handler) that runs a few
 * C frames (other_chain1, other_chain2). An agent thread sends, in turn:
 *   - SIGPROF alone: a direct sample, the walk starts in Java code;
 *   - SIGVTALRM alone, whose handler raises SIGPROF from other_chain2: a nested sample,
 *     the walk starts in libc's raise under the other handler's C frames;
 *   - SIGVTALRM then SIGPROF at once: when both are pending together the kernel sets up
 *     SIGVTALRM's frame and then SIGPROF's over it, so that our walk starts at the other
 *     handler's first instruction (the case seen with async-profiler's handler); when
 *     SIGPROF comes later it is nested in the handler's C frames, or direct after it.
 * Each sample is classed by where it found the thread (direct, nested in the handler,
 * at its first instruction) and walked twice: Java-only (the share of samples with Java
 * frames) and with C frames (the handler's frame must be followed by the trampoline and
 * then by Java frames).
 *
 * After a nested sample the other handler walks (Java-only) from the context it was
 * given, the interrupted frames themselves, which the nested walk must equal.
 *
 * Checks ("SIGFRAME ok - ..." / "SIGFRAME not ok - ..."): enough samples of each of
 * direct and nested; the share of nested samples with Java frames within 1 point of the
 * direct share; every nested sample with Java frames shows handler, trampoline, Java
 * in its walk with C frames; 99% of nested samples have the Java frames (type, method,
 * bci, sp) of the walk from the interrupted context. Options: secs=N (default 3).
 */
#include <dlfcn.h>
#include <errno.h>
#include <jvmti.h>
#include <link.h>
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
#include "impl/native/cfi_snapshot.h" /* asgst__cfi_current: the tables are built */

#define OUR_SIG SIGPROF
#define OTHER_SIG SIGVTALRM /* numbered below SIGPROF: delivered first when both are pending */
#define MAXF 128

enum { DIRECT, NESTED, FIRST, NKINDS }; /* where a sample found the thread */
static const char *const kind_name[NKINDS] = {"direct", "nested in the handler",
                                              "at the handler's first instruction"};

enum { SEND_OURS, SEND_OTHER_RAISING, SEND_BOTH, NMODES }; /* what a round sends */

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static int secs = 3;
static _Atomic pid_t spinner_tid;
static atomic_int quit, finished;
static atomic_int other_raises; /* the other handler raises SIGPROF (SEND_OTHER_RAISING) */
static volatile sig_atomic_t other_active; /* the other handler runs (past its entry) */
static atomic_long handled; /* our handler's samples so far */
static uintptr_t handler_lo, handler_hi; /* other_handler's code */

/* Per kind: samples, samples whose Java-only walk has Java frames, nested ones whose walk
 * with C frames has the handler, the trampoline and then Java frames, walk errors. */
static atomic_long samples[NKINDS], with_java[NKINDS], ordered[NKINDS], errors[NKINDS];
static atomic_long java_ns[NKINDS]; /* the Java-only walks' time */

typedef struct {
  int n, rc;
  ASGST_Frame f[MAXF];
} walk;
static walk java_walk, c_walk; /* one sample in flight (the spinner's handler) */
/* Per kind, the first nested walk with C frames without handler, trampoline, Java in
 * order (printed by the report). */
static walk example[NKINDS];
static volatile int has_example[NKINDS];
/* A nested sample's Java-only walk, kept for the other handler to compare with its own
 * walk from the context it was given (the same interrupted frames: the thread stays in
 * the handlers meanwhile). */
static walk nested_java, truth;
static volatile int nested_kind = -1;
static atomic_long same[NKINDS]; /* nested samples whose Java frames equal the truth's */

/* SS. Iterator handler: the walk's frames into *arg. */
static void collect(ASGST_Iterator *it, void *arg) {
  walk *w = arg;
  ASGST_Frame f;
  int r;
  w->n = 0;
  while ((r = ASGST_NextFrame(it, &f)) == 1 && w->n < MAXF) w->f[w->n++] = f;
  w->rc = r < 0 ? r : 0;
}

/* SS. */
static void walk_from(void *uc, int32_t options, walk *w) {
  w->n = 0;
  int kind = ASGST_RunWithIterator(uc, options, collect, w);
  if (kind <= 0) w->rc = kind;
}

/* SS. True if the walk with C frames has other_handler's frame, then one more non-Java
 * frame (the trampoline), then Java frames: at once, or after C frames where the signal
 * found the thread in VM code (libjvm) called from Java without an anchor. */
static bool handler_then_java(const walk *w) {
  for (int i = 0; i + 2 < w->n; i++) {
    uintptr_t pc = (uintptr_t)w->f[i].pc;
    /* Its first instruction exactly (i == 0), else a return address into it. */
    bool in_handler = i == 0 ? pc >= handler_lo && pc < handler_hi : pc > handler_lo && pc <= handler_hi;
    if (!in_handler) continue;
    if (w->f[i + 1].type != ASGST_FRAME_NON_JAVA) return false;
    for (int k = i + 2; k < w->n; k++)
      if (w->f[k].type != ASGST_FRAME_NON_JAVA) return true;
    return false;
  }
  return false;
}

/* SS. Our signal: class the sample, walk it Java-only and with C frames. */
static void on_our_signal(int sig, siginfo_t *si, void *ucp) {
  (void)sig, (void)si;
  int saved = errno;
  if (atomic_load(&spinner_tid) == (pid_t)syscall(SYS_gettid)) {
    ucontext_t *uc = ucp;
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
    int k = pc == handler_lo ? FIRST : other_active ? NESTED : DIRECT;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    walk_from(uc, 0, &java_walk);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    atomic_fetch_add(&java_ns[k], (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec));
    bool java = false;
    for (int i = 0; i < java_walk.n; i++) java |= java_walk.f[i].type != ASGST_FRAME_NON_JAVA;
    walk_from(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, &c_walk);
    atomic_fetch_add(&samples[k], 1);
    if (java) atomic_fetch_add(&with_java[k], 1);
    bool in_order = java && k != DIRECT && handler_then_java(&c_walk);
    if (in_order) atomic_fetch_add(&ordered[k], 1);
    else if (k != DIRECT && !has_example[k]) example[k] = c_walk, has_example[k] = 1;
    if (java_walk.rc < 0) atomic_fetch_add(&errors[k], 1);
    if (k != DIRECT) {
      nested_java = java_walk;
      nested_kind = k;
    }
    atomic_fetch_add(&handled, 1);
  }
  errno = saved;
}

/* The other agent's C frames. Exported and never inlined, so that they are frames of
 * their own; the barriers keep the calls from becoming tail calls. */
__attribute__((noinline)) void other_chain2(void) {
  if (atomic_load(&other_raises)) {
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), OUR_SIG);
  } else {
    /* Busy a few microseconds, the time a profiler's handler takes. */
    for (volatile int i = 0; i < 2000; i++) {
    }
  }
  __asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) void other_chain1(void) {
  other_chain2();
  __asm__ volatile("" ::: "memory");
}
/* SS. True if the two walks have the same frames (type, method, bci, sp). */
static bool same_frames(const walk *a, const walk *b) {
  if (a->n != b->n || a->rc != b->rc) return false;
  for (int i = 0; i < a->n; i++)
    if (a->f[i].type != b->f[i].type || a->f[i].method != b->f[i].method ||
        a->f[i].bci != b->f[i].bci || a->f[i].sp != b->f[i].sp)
      return false;
  return true;
}

/* SS. The other agent's handler: its C frames, then (after our nested sample, if one
 * came: our handler ran at its first instruction or from its C frames) the Java-only
 * walk from the context it was given, which the nested walk must equal. */
void other_handler(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  other_active = 1;
  other_chain1();
  other_active = 0;
  int k = nested_kind;
  if (k >= 0 && atomic_load(&spinner_tid) == (pid_t)syscall(SYS_gettid)) {
    walk_from(uc, 0, &truth);
    if (same_frames(&nested_java, &truth)) atomic_fetch_add(&same[k], 1);
    nested_kind = -1;
  }
  errno = saved;
}

/* N. Sends the round's signals to the spinner and waits (up to 200 ms) for our sample. */
static void round_of(int mode, pid_t tid) {
  long before = atomic_load(&handled);
  atomic_store(&other_raises, mode == SEND_OTHER_RAISING);
  if (mode != SEND_OURS) syscall(SYS_tgkill, getpid(), tid, OTHER_SIG);
  if (mode != SEND_OTHER_RAISING) syscall(SYS_tgkill, getpid(), tid, OUR_SIG);
  for (int i = 0; i < 2000 && atomic_load(&handled) == before; i++) usleep(100);
  /* Let the other handler finish before the next round changes other_raises. */
  for (int i = 0; i < 2000 && other_active; i++) usleep(100);
  usleep(300);
}

/* N. A share in percent. */
static double pct(long part, long all) { return all ? 100.0 * (double)part / (double)all : 0; }

/* N. The checks and figures. */
static void report(void) {
  for (int k = 0; k < NKINDS; k++)
    printf("SIGFRAME # figure: %s: %ld samples, %ld with Java frames (%.2f%%), %ld walk errors; "
           "handler, trampoline, Java in order: %ld; Java frames as from the interrupted "
           "context: %ld; Java-only walk mean %ld ns (cold)\n",
           kind_name[k], atomic_load(&samples[k]), atomic_load(&with_java[k]),
           pct(atomic_load(&with_java[k]), atomic_load(&samples[k])), atomic_load(&errors[k]),
           atomic_load(&ordered[k]), atomic_load(&same[k]),
           atomic_load(&samples[k]) ? atomic_load(&java_ns[k]) / atomic_load(&samples[k]) : 0);
  for (int k = 0; k < NKINDS; k++) {
    const walk *w = &example[k];
    if (!has_example[k]) continue;
    printf("SIGFRAME # example of a walk %s out of order (rc %d):", kind_name[k], w->rc);
    for (int i = 0; i < w->n && i < 12; i++) {
      Dl_info di;
      const char *name = w->f[i].type != ASGST_FRAME_NON_JAVA ? "<java>"
                         : dladdr((char *)w->f[i].pc - (i > 0), &di) && di.dli_sname ? di.dli_sname : "?";
      printf(" %s@%p", name, w->f[i].pc);
    }
    printf("\n");
  }
  long direct = atomic_load(&samples[DIRECT]), djava = atomic_load(&with_java[DIRECT]);
  long nested = atomic_load(&samples[NESTED]) + atomic_load(&samples[FIRST]);
  long njava = atomic_load(&with_java[NESTED]) + atomic_load(&with_java[FIRST]);
  long nordered = atomic_load(&ordered[NESTED]) + atomic_load(&ordered[FIRST]);
  bool enough = direct >= 100 && nested >= 100;
  printf("SIGFRAME %s - enough samples: %ld direct, %ld nested (100 each asked)\n",
         enough ? "ok" : "not ok", direct, nested);
  double d = pct(djava, direct), n = pct(njava, nested);
  printf("SIGFRAME %s - nested samples with Java frames %.2f%% within 1 point of direct %.2f%%\n",
         enough && n >= d - 1.0 && n <= d + 1.0 ? "ok" : "not ok", n, d);
  printf("SIGFRAME %s - nested samples with Java frames walk handler, trampoline, Java: %ld of %ld\n",
         enough && nordered == njava ? "ok" : "not ok", nordered, njava);
  long nsame = atomic_load(&same[NESTED]) + atomic_load(&same[FIRST]);
  printf("SIGFRAME %s - nested samples whose Java frames equal a walk from the interrupted "
         "context: %ld of %ld (99%% asked)\n",
         enough && nsame * 100 >= nested * 99 ? "ok" : "not ok", nsame, nested);
}

/* N. Waits up to limit_ms for the library's C frame tables (built in the background after
 * ASGST_Initialize): nested walks step the handlers' C frames with them, so a sample taken
 * before would measure the build's progress, not the walker. The ms waited, or -1. */
static long wait_for_tables(long limit_ms) {
  for (long ms = 0; ms < limit_ms && !atomic_load(&quit); ms++) {
    if (__atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE) != NULL) return ms;
    usleep(1000);
  }
  return -1;
}

/* N. Ends the Java side's spinning (SignalFrames.done), once the rounds are over. */
static void end_spinner(JNIEnv *env) {
  jclass c = (*env)->FindClass(env, "SignalFrames");
  jfieldID f = c ? (*env)->GetStaticFieldID(env, c, "done", "Z") : NULL;
  if (f) (*env)->SetStaticBooleanField(env, c, f, JNI_TRUE);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
}

/* N. The agent thread: once the C frame tables are built, rounds of the three kinds for
 * `secs` seconds, then the report. */
static void JNICALL sampler(jvmtiEnv *j, JNIEnv *env, void *arg) {
  (void)j, (void)arg;
  pid_t tid = 0;
  for (int i = 0; i < 10000 && !(tid = atomic_load(&spinner_tid)) && !atomic_load(&quit); i++)
    usleep(1000);
  if (tid == 0) {
    printf("SIGFRAME not ok - the spinner thread never started\n");
    atomic_store(&finished, 1);
    return;
  }
  usleep(300000); /* its loop compiled */
  long waited = wait_for_tables(60000);
  printf("SIGFRAME # figure: C frame tables %s %ld ms after the spinner started\n",
         waited >= 0 ? "built" : "still not built", (waited >= 0 ? waited : 60000) + 300);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; !atomic_load(&quit); r++) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec >= secs) break;
    round_of(r % NMODES, tid);
  }
  report();
  fflush(stdout);
  atomic_store(&finished, 1);
  end_spinner(env);
}

/* N. Remembers the spinner's thread id. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env;
  jvmtiThreadInfo info;
  if ((*j)->GetThreadInfo(j, t, &info) != JVMTI_ERROR_NONE) return;
  bool it = info.name && strcmp(info.name, "sigframe-spinner") == 0;
  (*j)->Deallocate(j, (unsigned char *)info.name);
  if (it) atomic_store(&spinner_tid, (pid_t)syscall(SYS_gettid));
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)t;
  agent_initialize_and_start(jvm, j, env, sampler, "SIGFRAME");
}

/* N. Waits (briefly) for the agent thread's report. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  agent_stop_and_wait(&quit, &finished, 5000);
}

/* N. other_handler's code range, from its symbol. */
static bool handler_range(void) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1((void *)other_handler, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) return false;
  handler_lo = (uintptr_t)info.dli_saddr;
  handler_hi = handler_lo + sym->st_size;
  return handler_hi > handler_lo && handler_lo == (uintptr_t)other_handler;
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  secs = (int)agent_option(options, "secs", 3);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  static const jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START};
  if (agent_setup(vm, &jvmti, &cb, ev, 3) != 0 || !handler_range()) {
    printf("SIGFRAME not ok - JVMTI missing or no symbol for other_handler\n");
    return JNI_ERR;
  }
  agent_handle_signal(OUR_SIG, on_our_signal);
  agent_handle_signal(OTHER_SIG, other_handler);
  return JNI_OK;
}
