/*
 * shipped_walk_agent.c - the walk bench's agent (tests/bench/walk_bench.sh). It uses only
 * the public header asgst.h and is built as a profiler builds its agent (the README's
 * pkg-config recipe against an install of libasgst.so); the same source linked with the
 * static test build gives the figures marked "static test build".
 *
 * The workload (tests/bench/java/WalkBench.java) runs its phases in threads of their own:
 * "bench-walk-N" recurses to about N frames, "bench-native" spins in C (libnofp.so, 21 C
 * frames without frame pointers) under 50 Java frames. A sampler thread sends SIGPROF to
 * the live "bench-*" thread every interval_us; other threads are never sampled.
 *   - On a bench-walk thread the handler times an ASGST walk and AsyncGetCallTrace on the
 *     same ucontext, in alternating order (neither always runs first), both writing their
 *     frames to one buffer per thread, reused for every sample, as a profiler keeps it.
 *   - On bench-native it times a walk with ASGST_INCLUDE_NON_JAVA_FRAMES and the Java-only
 *     walk, alike.
 * At VMDeath it prints, per stack depth bucket, the medians over the samples where both
 * walks succeeded with the same frame count (neither side's fast error returns enter
 * them), and for the native phase the medians over the samples whose walk with C frames
 * began with exactly 21 C frames and whose Java-only walk succeeded.
 *
 * Options (comma separated): interval_us=N (default 200), label=NAME (printed in every
 * figure line). Lines: "SHIPPED # figure: ..." and "SHIPPED not ok - ..." on failure.
 * ASGST_TEST_UNTESTED_JDK=1 in the environment passes ASGST_INIT_UNTESTED_JDK.
 */
#define _GNU_SOURCE /* siginfo_t, sa_sigaction, dladdr under -std=c11 */
#include <asgst.h>
#include <dlfcn.h>
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
#include <unistd.h>

#define MAXF 1024          /* frames kept per walk */
#define MAX_SAMPLES 400000 /* recorded samples per JVM */
#define NATIVE_C_FRAMES 21 /* nofp_chain x17, nofp_level3..1, Java_NativeFrames_spin */

/* AsyncGetCallTrace's types (not in any JDK header). */
typedef struct {
  jint lineno;
  jmethodID method_id;
} asgct_frame;
typedef struct {
  JNIEnv *env;
  jint num_frames;
  asgct_frame *frames;
} asgct_trace;
typedef void (*asgct_fn)(asgct_trace *, jint, void *);

/* What a profiler keeps of a frame. */
typedef struct {
  ASGST_Method method;
  int32_t bci;
  int8_t type, level;
} kept_frame;

/* One thread's buffers, reused for every sample (allocated and touched at ThreadStart so
 * that no timed walk takes a page fault). */
typedef struct {
  kept_frame a[MAXF];
  asgct_frame g[MAXF];
} walk_buf;

enum { KIND_WALK = 1, KIND_NATIVE = 2 };

/* One sample. KIND_WALK: t1/n1 ASGST, t2/n2 ASGCT. KIND_NATIVE: t1/n1 the walk with C
 * frames (c_top: its leading C frames), t2/n2 the Java-only walk. t0: an empty timed
 * region (two clock reads and nothing between), after both walks. */
typedef struct {
  uint8_t kind;
  int8_t rc1, rc2;
  uint16_t n1, n2, c_top, interp; /* interp: interpreted frames of the ASGST walk */
  uint32_t t0, t1, t2;
} record;

typedef struct {
  kept_frame *f;
  int n, max, rc, c_top, java_seen, interp;
} walk_ctx;

static jvmtiEnv *jvmti;
static JavaVM *jvm;
static asgct_fn asgct;
static long interval_us = 200;
static char label[32] = "walk";
static record *records;
static atomic_long nrec, signals_sent;
static atomic_int live_tid, running;
static pthread_t sampler;
static __thread walk_buf *tl_buf __attribute__((tls_model("initial-exec")));
static __thread JNIEnv *tl_env __attribute__((tls_model("initial-exec")));
static __thread int tl_kind __attribute__((tls_model("initial-exec")));
static __thread unsigned tl_parity __attribute__((tls_model("initial-exec")));

/* SS. CLOCK_MONOTONIC in nanoseconds (vDSO). */
static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SS. The iterator handler: keeps every frame, counts the C frames before the first Java
 * one. */
static void collect(ASGST_Iterator *it, void *arg) {
  walk_ctx *c = arg;
  ASGST_Frame fr;
  int r;
  while ((r = ASGST_NextFrame(it, &fr)) == 1) {
    if (c->n >= c->max) { r = 0; break; }
    if (fr.type == ASGST_FRAME_NON_JAVA) c->c_top += !c->java_seen;
    else c->java_seen = 1, c->interp += fr.comp_level == 0;
    kept_frame *k = &c->f[c->n++];
    k->method = fr.method, k->bci = fr.bci, k->type = (int8_t)fr.type, k->level = (int8_t)fr.comp_level;
  }
  c->rc = r;
}

/* SS. One timed ASGST walk; returns its time, sets *n, *rc (0 ended normally), *c_top and
 * *interp. */
static uint32_t timed_asgst(void *uc, int options, kept_frame *f, int *n, int *rc, int *c_top, int *interp) {
  walk_ctx c = {.f = f, .max = MAXF, .rc = ASGST_NO_FRAME};
  uint64_t t0 = now_ns();
  int kind = ASGST_RunWithIterator(uc, options, collect, &c);
  uint64_t t1 = now_ns();
  *n = c.n, *rc = kind <= 0 ? (kind < 0 ? kind : -1) : c.rc, *c_top = c.c_top, *interp = c.interp;
  return (uint32_t)(t1 - t0);
}

/* SS. One timed AsyncGetCallTrace walk; returns its time, sets *n (ASGCT's num_frames). */
static uint32_t timed_asgct(void *uc, asgct_frame *f, int *n) {
  asgct_trace t = {tl_env, 0, f};
  uint64_t t0 = now_ns();
  asgct(&t, MAXF, uc);
  uint64_t t1 = now_ns();
  *n = t.num_frames;
  return (uint32_t)(t1 - t0);
}

/* SS. The sampling signal. */
static void on_sample(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  walk_buf *b = tl_buf;
  if (b == NULL || !atomic_load_explicit(&running, memory_order_relaxed)) goto out;
  long i = atomic_fetch_add_explicit(&nrec, 1, memory_order_relaxed);
  if (i >= MAX_SAMPLES) goto out;
  record *r = &records[i];
  int n1 = 0, rc1 = 0, n2 = 0, rc2 = 0, top = 0, top2 = 0, interp = 0, interp2 = 0;
  bool first = (tl_parity++ & 1) == 0;
  if (tl_kind == KIND_WALK) {
    if (first) {
      r->t1 = timed_asgst(uc, 0, b->a, &n1, &rc1, &top, &interp);
      r->t2 = timed_asgct(uc, b->g, &n2);
    } else {
      r->t2 = timed_asgct(uc, b->g, &n2);
      r->t1 = timed_asgst(uc, 0, b->a, &n1, &rc1, &top, &interp);
    }
    rc2 = n2 > 0 ? 0 : n2;
  } else {
    if (first) {
      r->t1 = timed_asgst(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, b->a, &n1, &rc1, &top, &interp);
      r->t2 = timed_asgst(uc, 0, b->a, &n2, &rc2, &top2, &interp2);
    } else {
      r->t2 = timed_asgst(uc, 0, b->a, &n2, &rc2, &top2, &interp2);
      r->t1 = timed_asgst(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, b->a, &n1, &rc1, &top, &interp);
    }
  }
  /* What the clock itself adds to each timed walk: measured after both walks, with the
   * clock's code and data warm, so it is rather less than the first walk's share. */
  uint64_t e0 = now_ns();
  r->t0 = (uint32_t)(now_ns() - e0);
  r->n1 = (uint16_t)n1, r->n2 = (uint16_t)(n2 > 0 ? n2 : 0), r->c_top = (uint16_t)top, r->interp = (uint16_t)interp;
  r->rc1 = (int8_t)(rc1 < -127 ? -127 : rc1), r->rc2 = (int8_t)(rc2 < -127 ? -127 : rc2);
  atomic_store_explicit(&r->kind, (uint8_t)tl_kind, memory_order_release);
out:
  errno = saved;
}

/* N. qsort's order of uint32_t. */
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* N. The median of v[0..n) (sorts v), 0 if n is 0. */
static uint32_t median(uint32_t *v, long n) {
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_u32);
  return v[n / 2];
}

/* N. One depth bucket's figure line: samples where both walks succeeded alike. */
static void report_bucket(long total, int lo, int hi) {
  uint32_t *a = malloc(sizeof *a * (size_t)(total + 1)), *g = malloc(sizeof *g * (size_t)(total + 1));
  uint32_t *in_ = malloc(sizeof *in_ * (size_t)(total + 1)), *z = malloc(sizeof *z * (size_t)(total + 1));
  long n = 0, errors = 0, differ = 0, in = 0;
  for (long i = 0; i < total && a && g && in_ && z; i++) {
    const record *r = &records[i];
    if (r->kind != KIND_WALK || r->n2 < lo || r->n2 > hi) continue;
    in++;
    if (r->rc1 != 0) { errors++; continue; }
    if (r->n1 != r->n2) { differ++; continue; }
    a[n] = r->t1, g[n] = r->t2, in_[n] = r->interp, z[n] = r->t0, n++;
  }
  if (in > 0) {
    uint32_t ma = median(a, n), mg = median(g, n), mi = median(in_, n), mz = median(z, n);
    /* interpreted_frames: in a compiled run, more than a few (the thread's entry frames)
     * say the warm-up was too short. clock_median_ns: the empty timed region, which both
     * walk times include; ratio_less_clock takes it from both (a figure, not budgeted). */
    double net = mg > mz ? (double)((int64_t)ma - mz) / (mg - mz) : 0.0;
    printf("SHIPPED # figure: bench=%s frames=%d-%d samples=%ld asgst_median_ns=%u asgct_median_ns=%u ratio=%.2f "
           "interpreted_frames_median=%u left_out=%ld (asgst errors %ld, frame counts differ %ld) "
           "clock_median_ns=%u ratio_less_clock=%.2f\n",
           label, lo, hi, n, ma, mg, mg ? (double)ma / mg : 0.0, mi, errors + differ, errors, differ, mz, net);
  }
  free(a), free(g), free(in_), free(z);
}

/* N. The native phase's figure line. */
static void report_native(long total) {
  uint32_t *c = malloc(sizeof *c * (size_t)(total + 1)), *j = malloc(sizeof *j * (size_t)(total + 1));
  long n = 0, in = 0, other_top = 0;
  int frames_c = 0, frames_j = 0;
  for (long i = 0; i < total && c && j; i++) {
    const record *r = &records[i];
    if (r->kind != KIND_NATIVE) continue;
    in++;
    if (r->rc1 != 0 || r->rc2 != 0) continue;
    if (r->c_top != NATIVE_C_FRAMES) { other_top++; continue; }
    c[n] = r->t1, j[n] = r->t2, n++;
    frames_c = r->n1, frames_j = r->n2;
  }
  if (in > 0) {
    uint32_t mc = median(c, n), mj = median(j, n);
    printf("SHIPPED # figure: native=%s c_frames=%d samples=%ld with_c_median_ns=%u java_only_median_ns=%u "
           "ratio=%.2f frames_with_c=%d java_frames=%d left_out=%ld (other top C frame counts %ld)\n",
           label, NATIVE_C_FRAMES, n, mc, mj, mj ? (double)mc / mj : 0.0, frames_c, frames_j, in - n, other_top);
  }
  free(c), free(j);
}

/* N. The sampler thread: SIGPROF to the live bench thread every interval_us. */
static void *sampler_main(void *arg) {
  (void)arg;
  pid_t pid = getpid();
  struct timespec iv = {interval_us / 1000000, (interval_us % 1000000) * 1000};
  while (atomic_load(&running)) {
    int tid = atomic_load(&live_tid);
    if (tid != 0 && syscall(SYS_tgkill, pid, tid, SIGPROF) == 0) atomic_fetch_add(&signals_sent, 1);
    nanosleep(&iv, NULL);
  }
  return NULL;
}

/* N. Creates the jmethodIDs of a class: AsyncGetCallTrace reports only methods that have
 * one, so every ASGCT user allocates them at ClassPrepare. */
static void JNICALL on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread t, jclass k) {
  (void)env, (void)t;
  jint n;
  jmethodID *ids;
  if ((*j)->GetClassMethods(j, k, &n, &ids) == JVMTI_ERROR_NONE) (*j)->Deallocate(j, (unsigned char *)ids);
}

/* N. Nothing: the event only has to be enabled (AsyncGetCallTrace expects it). */
static void JNICALL on_class_load(jvmtiEnv *j, JNIEnv *env, jthread t, jclass k) {
  (void)j, (void)env, (void)t, (void)k;
}

/* N. A "bench-walk-*" or "bench-native" thread gets its buffers and becomes the sampled
 * one. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  jvmtiThreadInfo info;
  if ((*j)->GetThreadInfo(j, t, &info) != JVMTI_ERROR_NONE) return;
  int kind = !info.name ? 0 : !strncmp(info.name, "bench-walk", 10) ? KIND_WALK
                              : !strcmp(info.name, "bench-native") ? KIND_NATIVE : 0;
  (*j)->Deallocate(j, (unsigned char *)info.name);
  if (kind == 0) return;
  walk_buf *b = calloc(1, sizeof *b);
  if (b == NULL) return;
  for (size_t o = 0; o < sizeof *b; o += 4096) ((volatile char *)b)[o] = 1;
  tl_env = env, tl_kind = kind, tl_buf = b;
  atomic_store(&live_tid, (int)syscall(SYS_gettid));
}

/* N. */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  walk_buf *b = tl_buf;
  if (b == NULL) return;
  int self = (int)syscall(SYS_gettid);
  atomic_compare_exchange_strong(&live_tid, &self, 0);
  tl_buf = NULL;
  atomic_signal_fence(memory_order_seq_cst); /* this thread's handler never sees it freed */
  free(b);
}

/* N. Binds the library, allocates the loaded classes' jmethodIDs, starts the sampler. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env, (void)t;
  const char *u = getenv("ASGST_TEST_UNTESTED_JDK");
  int rc = ASGST_Initialize(jvm, u && !strcmp(u, "1") ? ASGST_INIT_UNTESTED_JDK : 0);
  if (rc != 0) {
    printf("SHIPPED not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  Dl_info di;
  if (dladdr((void *)ASGST_NextFrame, &di) && di.dli_fname)
    printf("SHIPPED # ASGST_NextFrame from %s\n", di.dli_fname);
  jint n;
  jclass *classes;
  if ((*j)->GetLoadedClasses(j, &n, &classes) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < n; i++) on_class_prepare(j, NULL, NULL, classes[i]);
    (*j)->Deallocate(j, (unsigned char *)classes);
  }
  atomic_store(&running, 1);
  if (pthread_create(&sampler, NULL, sampler_main, NULL) != 0) atomic_store(&running, 0);
}

/* N. Stops the sampler and prints the figures. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  usleep(20000); /* handlers in flight finish their records */
  long total = atomic_load(&nrec);
  if (total > MAX_SAMPLES) total = MAX_SAMPLES;
  printf("SHIPPED # figure: signals=%ld records=%ld label=%s\n", atomic_load(&signals_sent), total, label);
  static const int buckets[][2] = {{5, 20}, {35, 75}, {150, 320}};
  for (int b = 0; b < 3; b++) report_bucket(total, buckets[b][0], buckets[b][1]);
  report_native(total);
  fflush(stdout);
}

/* N. Reads interval_us= and label= from the agent's options. */
static void parse_options(const char *o) {
  for (const char *p = o; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
    if (!strncmp(p, "interval_us=", 12)) interval_us = atol(p + 12);
    else if (!strncmp(p, "label=", 6)) {
      size_t len = strcspn(p + 6, ",");
      if (len >= sizeof label) len = sizeof label - 1;
      memcpy(label, p + 6, len), label[len] = 0;
    }
  }
  if (interval_us < 10) interval_us = 10;
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  parse_options(options);
  asgct = (asgct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
  records = calloc(MAX_SAMPLES, sizeof *records);
  if (asgct == NULL || records == NULL) {
    printf("SHIPPED not ok - %s\n", asgct ? "out of memory" : "AsyncGetCallTrace not found");
    return JNI_ERR;
  }
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init, cb.VMDeath = on_vm_death, cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end, cb.ClassPrepare = on_class_prepare, cb.ClassLoad = on_class_load;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT,      JVMTI_EVENT_VM_DEATH,      JVMTI_EVENT_THREAD_START,
                     JVMTI_EVENT_THREAD_END,   JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_CLASS_LOAD};
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
  return JNI_OK;
}
