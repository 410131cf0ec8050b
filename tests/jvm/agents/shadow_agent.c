/*
 * shadow_agent.c - JVMTI test agent of the shadow-stack oracle (tests/jvm/test_shadow_oracle.sh).
 *
 * The workload runs instrumented by a java.lang.instrument agent (tests/jvm/java/shadow:
 * ShadowAgent with ASM, the helper Shadow): every instrumented method pushes its id on a
 * per-thread stack in native memory at entry and pops it before it returns or lets an
 * exception out. A thread registers its buffer here once (Shadow.register, a JNI call into
 * this library: HotSpot looks up native methods in agent libraries too), and the methods'
 * ids, names and entry/exit windows arrive through Shadow.define.
 *
 * A sampler thread sends SIGPROF to the registered threads round robin (tgkill, every
 * interval_us); the handler copies the thread's shadow stack and walks the same ucontext
 * with ASGST and with AsyncGetCallTrace into a preallocated slot. The sampler thread
 * compares the slots as they fill (shadow_compare.c) and prints the classes at VMDeath.
 *
 * Options: interval_us=N (default 200), min_agree=PM (the bound on ASGST's agreement
 * outside the windows, per mille; default 990), asgct=0 (no AsyncGetCallTrace walk),
 * out=FILE (the agent's lines; else standard output, where they mix with the workload's).
 */
#include <errno.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "common/asgct_oracle.h"
#include "shadow_agent/shadow.h"

#define NSLOTS 512
#define MAX_THREADS 512

static jvmtiEnv *jvmti;
static JavaVM *jvm;
static asgct_fn asgct;
static sh_sample *slots;
static atomic_int tids[MAX_THREADS];
static atomic_int running;
static pthread_t sampler;
static atomic_long dropped, signals_sent, unregistered;
static long interval_us = 200, min_agree = 990, use_asgct = 1;

/* The calling thread's shadow buffer (ints, see Shadow.java) and its JNIEnv. */
static __thread const volatile int32_t *tl_base __attribute__((tls_model("initial-exec")));
static __thread int tl_cap __attribute__((tls_model("initial-exec")));
static __thread JNIEnv *tl_env __attribute__((tls_model("initial-exec")));

/* SS. A free slot, NULL if all are busy. */
static sh_sample *grab_slot(void) {
  static atomic_uint next;
  for (int i = 0; i < NSLOTS; i++) {
    unsigned k = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % NSLOTS;
    int expect = SLOT_FREE;
    if (atomic_compare_exchange_strong(&slots[k].state, &expect, SLOT_WRITING)) return &slots[k];
  }
  return NULL;
}

/* SS. ASGST iterator handler: the Java frames, top first. */
static void collect(ASGST_Iterator *it, void *arg) {
  sh_sample *s = arg;
  ASGST_Frame fr;
  int r;
  while ((r = ASGST_NextFrame(it, &fr)) == 1) {
    if (s->a_n >= SH_MAXF) { r = 0; break; }
    if (s->a_n == 0) s->top_compiled = fr.comp_level >= 1;
    s->a[s->a_n++] = (sh_frame){(uintptr_t)fr.method, fr.type == ASGST_FRAME_JAVA_NATIVE ? -3 : fr.bci, fr.type,
                                (int8_t)fr.comp_level, (uintptr_t)fr.pc};
  }
  s->a_rc = r;
}

/* SS. The SIGPROF handler: shadow stack, ASGST walk, ASGCT walk, all of the same instant
 * (the handler runs on the sampled thread, which does not move meanwhile). */
static void on_sample(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  const volatile int32_t *b = tl_base;
  if (b == NULL) { atomic_fetch_add(&unregistered, 1); goto out; }
  sh_sample *s = grab_slot();
  if (s == NULL) { atomic_fetch_add(&dropped, 1); goto out; }
  int d = b[0];
  s->s_flag = b[1];
  s->s_depth = d;
  for (int i = 0; i < d && i < SH_MAXF && d - 1 - i < tl_cap - 2; i++) s->s[i] = b[2 + d - 1 - i];
  s->a_n = 0, s->a_rc = 0, s->top_compiled = 0, s->thread_state = ASGST_ThreadState();
#if defined(__x86_64__)
  s->uc_pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  s->uc_pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#endif
  int kind = ASGST_RunWithIterator(uc, 0, collect, s);
  s->a_kind = kind;
  if (kind < 0 && s->a_rc == 0) s->a_rc = kind;
  s->g_n = -100;
  if (use_asgct && asgct) {
    ASGCT_CallTrace t = {tl_env, 0, s->gct};
    asgct(&t, SH_MAXF, uc);
    s->g_n = t.num_frames;
    for (int i = 0; i < t.num_frames && i < SH_MAXF; i++)
      s->g[i] = (sh_frame){asgct_oracle_method(s->gct[i].method_id), s->gct[i].lineno, 0, -1, 0};
  }
  atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
out:
  errno = saved;
}

/* N. Shadow.register(long base, int capacity): the calling thread's buffer. */
JNIEXPORT void JNICALL Java_Shadow_register(JNIEnv *env, jclass c, jlong base, jint cap) {
  (void)c;
  tl_env = env;
  tl_cap = cap;
  atomic_signal_fence(memory_order_seq_cst); /* env and cap before the handler sees base */
  tl_base = (const volatile int32_t *)(uintptr_t)base;
  if (!agent_tids_add(tids, MAX_THREADS)) fprintf(stderr, "shadow: too many threads\n");
}

/* N. Shadow.define(int id, String key, int[] windows). */
JNIEXPORT void JNICALL Java_Shadow_define(JNIEnv *env, jclass c, jint id, jstring key, jintArray w) {
  (void)c;
  const char *k = (*env)->GetStringUTFChars(env, key, NULL);
  jint n = (*env)->GetArrayLength(env, w);
  jint *e = (*env)->GetIntArrayElements(env, w, NULL);
  if (k && e) sh_define(id, k, e, n);
  if (e) (*env)->ReleaseIntArrayElements(env, w, e, JNI_ABORT);
  if (k) (*env)->ReleaseStringUTFChars(env, key, k);
}

/* N. A thread that ends is no longer sampled (its buffer is leaked: a test). */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  if (tl_base == NULL) return;
  agent_tids_remove(tids, MAX_THREADS);
  tl_base = NULL;
  atomic_signal_fence(memory_order_seq_cst);
}

/* N. Compares the filled slots and frees them. */
static void drain(void) {
  for (int i = 0; i < NSLOTS; i++) {
    if (atomic_load_explicit(&slots[i].state, memory_order_acquire) != SLOT_READY) continue;
    sh_compare(&slots[i]);
    atomic_store_explicit(&slots[i].state, SLOT_FREE, memory_order_release);
  }
}

/* N. The sampler thread: signals the registered threads round robin and compares. */
static void *sampler_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, interval_us * 1000};
  int next = 0;
  for (unsigned long tick = 0; atomic_load(&running); tick++) {
    if (agent_tids_signal_next(tids, MAX_THREADS, &next, SIGPROF)) atomic_fetch_add(&signals_sent, 1);
    nanosleep(&iv, NULL);
    if (tick % 16 == 0) drain();
  }
  return NULL;
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env, (void)t;
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    fprintf(sh_out, "SHADOW not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  asgct_oracle_prepare_loaded(j);
  atomic_store(&running, 1);
  pthread_create(&sampler, NULL, sampler_main, NULL);
}

/* N. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  usleep(20000); /* handlers in flight finish their slots */
  drain();
  sh_report(atomic_load(&signals_sent), atomic_load(&dropped), atomic_load(&unregistered), (int)min_agree,
            use_asgct && asgct);
  fflush(sh_out);
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  interval_us = agent_option(options, "interval_us", 200);
  min_agree = agent_option(options, "min_agree", 990);
  use_asgct = agent_option(options, "asgct", 1);
  sh_out = stdout;
  const char *o = options ? strstr(options, "out=") : NULL;
  if (o) {
    char path[4096];
    snprintf(path, sizeof path, "%.*s", (int)strcspn(o + 4, ","), o + 4);
    FILE *f = fopen(path, "w");
    if (f) sh_out = f;
  }
  asgct = asgct_oracle_lookup();
  slots = calloc(NSLOTS, sizeof *slots);
  if (slots == NULL || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadEnd = on_thread_end;
  asgct_oracle_callbacks(&cb);
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_END};
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL);
  asgct_oracle_enable(jvmti);
  agent_handle_signal(SIGPROF, on_sample);
  return JNI_OK;
}
