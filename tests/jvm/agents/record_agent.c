/*
 * record_agent.c - JVMTI test agent that records walks (ASGST_RecordWalk) of sampled Java
 * threads into files, for the replay tests and for tests/data/replay.
 *
 * A sampler thread sends SIGPROF to the registered Java threads round robin; the handler
 * records a walk into a free buffer of a small pool; the sampler thread writes full
 * buffers to DIR/rec-NNNNN.asgstrec. At VMDeath it prints "RECORD ..." lines: how many
 * recordings, their sizes, and the codes of failed recordings.
 *
 * Options (comma separated): dir=PATH (required), n=N recordings (default 1000),
 * interval_us=N (default 1000), options=N (ASGST walk options of the recordings),
 * skip=N (let the first N samples pass, so that the recordings come from warm code too),
 * prologue=1 (record only samples interrupted in a compiled method's prologue, before its
 * frame is complete).
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
#include <unistd.h>

#include <ucontext.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "impl/guard.h"
#include "impl/hotspot/walking/codecache.h"
#include "impl/hotspot/model/vm_model.h"
#include "tests/unit/test_arch.h"

#define POOL 8
#define BUF_SIZE (8u << 20)
#define MAX_THREADS 64

enum { FREE, BUSY, FULL };
typedef struct {
  atomic_int state;
  int64_t size; /* the recording's size, or the error ASGST_RecordWalk returned */
  uint8_t *buf;
} slot;

static slot pool[POOL];
static char dir[1024];
static int want = 1000, interval_us = 1000, walk_options, skip, prologue_only;
static atomic_int written, failed_codes[32], tids[MAX_THREADS], running, samples;
static int64_t sizes[100000];
static JavaVM *jvm;
static pthread_t sampler;

/* SS (under the guard). in_prologue() without its guard. */
static bool in_prologue_unguarded(uintptr_t pc) {
  uintptr_t blob, code;
  int32_t size, complete;
  return asgst__hs_classify(pc, &blob) == ASGST__HK_NMETHOD && asgst__vm_blob_frame(blob, &size, &complete) &&
         asgst__vm_code_begin(blob, &code) && complete > 0 && pc < code + (uint32_t)complete;
}

/* SS. True if pc is in a compiled method before its frame is complete. */
static bool in_prologue(uintptr_t pc) {
  volatile bool yes = false;
  ASGST__GUARDED(yes = in_prologue_unguarded(pc), yes = false);
  return yes;
}

/* SS. */
static void on_sample(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si;
  int saved = errno;
  if (atomic_fetch_add(&samples, 1) < skip || atomic_load(&written) >= want) goto out;
  if (prologue_only && !in_prologue(uc_pc(uc))) goto out;
  for (int i = 0; i < POOL; i++) {
    int expect = FREE;
    if (!atomic_compare_exchange_strong(&pool[i].state, &expect, BUSY)) continue;
    pool[i].size = ASGST_RecordWalk(uc, walk_options, pool[i].buf, BUF_SIZE);
    atomic_store(&pool[i].state, FULL);
    break;
  }
out:
  errno = saved;
}

/* N. Writes out the full buffers (or counts their errors) and frees them. */
static void drain(void) {
  for (int i = 0; i < POOL; i++) {
    if (atomic_load(&pool[i].state) != FULL) continue;
    int64_t size = pool[i].size;
    int n = atomic_load(&written);
    if (size < 0) {
      atomic_fetch_add(&failed_codes[-size < 32 ? -size : 0], 1);
    } else if (n < want) {
      char path[1200];
      snprintf(path, sizeof path, "%s/rec-%05d.asgstrec", dir, n);
      FILE *f = fopen(path, "wb");
      if (f && fwrite(pool[i].buf, 1, (size_t)size, f) == (size_t)size) {
        if (n < (int)(sizeof sizes / sizeof sizes[0])) sizes[n] = size;
        atomic_fetch_add(&written, 1);
      }
      if (f) fclose(f);
    }
    atomic_store(&pool[i].state, FREE);
  }
}

/* N. */
static void *sampler_main(void *arg) {
  (void)arg;
  struct timespec iv = {0, (long)interval_us * 1000};
  int next = 0;
  while (atomic_load(&running)) {
    for (int k = 0; k < MAX_THREADS; k++) {
      int i = (next + k) % MAX_THREADS, tid = atomic_load(&tids[i]);
      if (tid == 0) continue;
      next = i + 1;
      syscall(SYS_tgkill, getpid(), tid, SIGPROF);
      break;
    }
    nanosleep(&iv, NULL);
    drain();
  }
  return NULL;
}

/* N. */
static void JNICALL on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  agent_tids_add(tids, MAX_THREADS);
}

/* N. */
static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  agent_tids_remove(tids, MAX_THREADS);
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    fprintf(stderr, "RECORD not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  on_thread_start(j, env, t);
  atomic_store(&running, 1);
  pthread_create(&sampler, NULL, sampler_main, NULL);
}

/* N. qsort order of sizes. */
static int by_size(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* N. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (!atomic_exchange(&running, 0)) return;
  pthread_join(sampler, NULL);
  usleep(20000);
  drain();
  int n = atomic_load(&written);
  int m = n < (int)(sizeof sizes / sizeof sizes[0]) ? n : (int)(sizeof sizes / sizeof sizes[0]);
  qsort(sizes, (size_t)m, sizeof sizes[0], by_size);
  printf("RECORD recordings=%d", n);
  if (m > 0) printf(" size_min=%ld size_median=%ld size_max=%ld", (long)sizes[0], (long)sizes[m / 2], (long)sizes[m - 1]);
  for (int c = 0; c < 32; c++)
    if (atomic_load(&failed_codes[c])) printf(" %s=%d", ASGST_ErrorName(-c), atomic_load(&failed_codes[c]));
  printf("\n");
  fflush(stdout);
}

/* N. Parses the options; false (with a message) for a bad one. */
static bool parse(const char *s) {
  while (s && *s) {
    if (sscanf(s, "n=%d", &want) == 1 || sscanf(s, "interval_us=%d", &interval_us) == 1 ||
        sscanf(s, "options=%d", &walk_options) == 1 || sscanf(s, "skip=%d", &skip) == 1 ||
        sscanf(s, "prologue=%d", &prologue_only) == 1) {
    } else if (strncmp(s, "dir=", 4) == 0) {
      size_t len = strcspn(s + 4, ",");
      snprintf(dir, sizeof dir, "%.*s", (int)len, s + 4);
    } else {
      fprintf(stderr, "RECORD not ok - bad option %s\n", s);
      return false;
    }
    s = strchr(s, ',');
    if (s) s++;
  }
  return dir[0] != '\0' && interval_us > 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  jvm = vm;
  jvmtiEnv *jvmti = NULL;
  if (!parse(options)) return JNI_ERR;
  for (int i = 0; i < POOL; i++)
    if ((pool[i].buf = malloc(BUF_SIZE)) == NULL) return JNI_ERR;
  agent_handle_signal(SIGPROF, on_sample);
  jvmtiEventCallbacks cb = {.VMInit = on_vm_init, .VMDeath = on_vm_death,
                            .ThreadStart = on_thread_start, .ThreadEnd = on_thread_end};
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END};
  return agent_setup(vm, &jvmti, &cb, ev, 4) == 0 ? JNI_OK : JNI_ERR;
}
