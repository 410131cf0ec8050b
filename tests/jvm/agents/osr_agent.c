/*
 * osr_agent.c - JVMTI test agent of tests/jvm/test_osr_entry.sh: the Java frame under the
 * runtime call an OSR compilation makes as it is entered names the loop's bci.
 *
 * When the interpreter moves a running loop into an OSR compilation, the compiled code's
 * entry copies the interpreter's locals out of a buffer and then calls
 * SharedRuntime::OSR_migration_end to free it: a call without debug information. A
 * profiler samples that call rarely (once per OSR entry), so the agent makes the sample
 * happen: a perf uprobe on OSR_migration_end (the uprobe PMU, on the symbol's file offset
 * in libjvm's .symtab) sends SIGPROF to the thread that runs main at every call, and the
 * handler walks with C frames. Each hit's first Java frame (method, bci, level), its Java
 * frames and how the walk ended are printed at VMDeath, for the script to check against -XX:+PrintCompilation's OSR lines.
 *
 * Under qemu-user no uprobe is hit, so on arm64 the agent checks the C1 rule's proof on
 * the code itself instead (static_check): for each C1 OSR compilation loaded
 * (CompiledMethodLoad), the last call before the OSR entry's jump back is the call of
 * OSR_migration_end, and the way back from its return address must be the entry point's,
 * into the code before the entry ("OSR # static c1_osr=N proven=M").
 *
 * Output: "OSR skip - WHY" when the probe cannot be placed (a libjvm without .symtab,
 * no uprobe PMU); "OSR not ok - WHY" on a setup failure; "OSR # hit METHOD bci B level L
 * cframes C java J rc R" per hit (METHOD "-" when the walk found no Java frame); "OSR # figure:
 * hits=N".
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <jvmti.h>
#include <link.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "asgst.h"
#include "common/agent_setup.h"
#include "common/walk_stats.h"
#include "impl/arch/stub_exit.h"
#include "impl/hotspot/model/elf_symtab.h"
#include "impl/hotspot/model/vm_model.h"
#include "impl/hotspot/walking/codecache.h"
#include "impl/native/cfi_snapshot.h" /* asgst__cfi_current: the tables are built */

#define MAX_HITS 256
/* SharedRuntime::OSR_migration_end(intptr_t*), mangled. */
#define OSR_END_SYMBOL "_ZN13SharedRuntime17OSR_migration_endEPl"

typedef struct {
  uintptr_t method; /* 0: no Java frame */
  int bci, level, cframes, java, rc; /* cframes above the first Java frame; java frames */
} hit;

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static int probe_fd = -1;
static hit hits[MAX_HITS];
static atomic_int nhits;
static char libjvm_path[4096];
static atomic_int c1_osr, c1_osr_proven, asgst_ready;

/* SS. Records the walk's first Java frame, the C frames above it, the Java frames and how
 * the walk ended. */
static void first_java(ASGST_Iterator *it, void *arg) {
  hit *h = arg;
  ASGST_Frame f;
  int rc;
  while ((rc = ASGST_NextFrame(it, &f)) == 1) {
    if (f.type == ASGST_FRAME_NON_JAVA) {
      h->cframes += h->method == 0;
      continue;
    }
    if (h->method == 0) h->method = (uintptr_t)f.method, h->bci = f.bci, h->level = f.comp_level;
    h->java++;
  }
  h->rc = rc; /* 0: the walk reached the stack's end */
}

/* SS. SIGPROF from the probe: one walk with C frames. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  if (si->si_code != POLL_IN || si->si_fd != probe_fd) return;
  int i = atomic_fetch_add(&nhits, 1);
  if (i >= MAX_HITS) return;
  hit h = {0};
  int kind = ASGST_RunWithIterator(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, first_java, &h);
  if (kind < 0) h.rc = kind;
  hits[i] = h;
}

#ifdef __aarch64__
/* N. The return address of the last call (bl, blr) in [entry, end), 0 if none. */
static uintptr_t last_call_return(uintptr_t entry, uintptr_t end) {
  uintptr_t ret = 0;
  for (uintptr_t pc = entry; pc + 4 <= end; pc += 4) {
    uint32_t insn = *(const uint32_t *)pc;
    if ((insn & 0xFC000000u) == 0x94000000u || (insn & 0xFFFFFC1Fu) == 0xD63F0000u) ret = pc + 4;
  }
  return ret;
}

/* N. For a C1 OSR compilation at code: its entry's last call (OSR_migration_end's) is
 * proven to lie in the entry code, by walker.c osr_entry_scope's rule. */
static void static_check(const void *code_addr) {
  uintptr_t nm = 0, entry, code, back_entry, back_ret;
  int32_t bci, level;
  uint32_t size;
  if (!atomic_load(&asgst_ready) || asgst__hs_classify((uintptr_t)code_addr, &nm) != ASGST__HK_NMETHOD ||
      !asgst__vm_nm_osr(nm, &bci, &entry) || !asgst__vm_nm_level(nm, &level) || level < 1 || level > 3 ||
      !asgst__vm_code_begin(nm, &code) || !asgst__vm_blob_size(nm, &size))
    return;
  atomic_fetch_add(&c1_osr, 1);
  if (!asgst__hs_stub_way_back(entry, code, nm + size, &back_entry) || back_entry >= entry) return;
  /* The entry code ends at its jump back: the first b to back_entry after the entry. */
  uintptr_t end = entry;
  while (end + 4 <= nm + size) {
    uint32_t insn = *(const uint32_t *)end;
    int64_t off = (int64_t)((int32_t)(insn << 6) >> 6) * 4;
    end += 4;
    if ((insn & 0xFC000000u) == 0x14000000u && end - 4 + (uintptr_t)off == back_entry) break;
  }
  uintptr_t ret = last_call_return(entry, end);
  if (ret && asgst__hs_stub_way_back(ret, code, nm + size, &back_ret) && back_ret == back_entry)
    atomic_fetch_add(&c1_osr_proven, 1);
}
#endif

/* N. */
static void JNICALL on_compiled(jvmtiEnv *j, jmethodID m, jint size, const void *code_addr, jint map_length,
                                const jvmtiAddrLocationMap *map, const void *compile_info) {
  (void)j, (void)m, (void)size, (void)map_length, (void)map, (void)compile_info;
#ifdef __aarch64__
  static_check(code_addr);
#else
  (void)code_addr;
#endif
}

/* N. Finds the loaded libjvm (dl_iterate_phdr) and turns the symbol's link-time address
 * into the file offset the uprobe PMU wants. */
typedef struct { uint64_t sym, off; bool found; } phdr_query;
static int find_offset(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  phdr_query *q = arg;
  if (strstr(info->dlpi_name, "/libjvm.so") == NULL) return 0;
  snprintf(libjvm_path, sizeof libjvm_path, "%s", info->dlpi_name);
  q->sym = asgst__elf_file_symbol(libjvm_path, OSR_END_SYMBOL);
  for (int i = 0; q->sym && i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type == PT_LOAD && q->sym >= p->p_vaddr && q->sym < p->p_vaddr + p->p_filesz) {
      q->off = q->sym - p->p_vaddr + p->p_offset;
      q->found = true;
    }
  }
  return 1;
}

/* N. The uprobe PMU's type number, -1 if the kernel has none. */
static int uprobe_type(void) {
  FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
  int t = -1;
  if (f == NULL) return -1;
  if (fscanf(f, "%d", &t) != 1) t = -1;
  fclose(f);
  return t;
}

/* N. Places the probe on the calling thread (the one that runs main). */
static void place_probe(void) {
  phdr_query q = {0};
  dl_iterate_phdr(find_offset, &q);
  if (!q.found) {
    printf("OSR skip - %s has no .symtab entry for SharedRuntime::OSR_migration_end\n",
           libjvm_path[0] ? libjvm_path : "libjvm.so");
    return;
  }
  int type = uprobe_type();
  if (type < 0) {
    printf("OSR skip - the kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe)\n");
    return;
  }
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = (uint32_t)type;
  a.config1 = (uint64_t)(uintptr_t)libjvm_path; /* uprobe_path */
  a.config2 = q.off;                             /* probe_offset */
  a.sample_period = 1;
  a.wakeup_events = 1;
  pid_t tid = (pid_t)syscall(SYS_gettid);
  int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    printf("OSR not ok - perf_event_open(uprobe %s+0x%llx): %m\n", libjvm_path, (unsigned long long)q.off);
    return;
  }
  struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
  probe_fd = fd;
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0)
    printf("OSR not ok - cannot route the probe's signal: %m\n");
  else
    printf("OSR # probe on %s+0x%llx\n", libjvm_path, (unsigned long long)q.off);
}

/* N. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)j, (void)env, (void)t;
  int rc = agent_initialize_live(jvm, agent_init_flags());
  if (rc != 0) {
    printf("OSR not ok - ASGST_Initialize: %s (%s)\n", ASGST_ErrorName(rc), ASGST_InitializeError());
    return;
  }
  /* The walk steps from OSR_migration_end into the Java frame by the C frame tables, which
   * the library builds on its own thread after the answer (on a loaded machine that took
   * longer than the workload's first OSR entries, whose walks then lost their chain).
   * VMInit runs on the thread that then runs main: main waits here until they are built. */
  int waited = 0;
  while (__atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE) == NULL && waited < 60000) {
    usleep(1000);
    waited++;
  }
  if (__atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE) == NULL)
    printf("OSR not ok - the C frame tables were not built within 60 s\n");
  printf("OSR # figure: tables_wait_ms=%d\n", waited);
  atomic_store(&asgst_ready, 1);
  /* qemu-user implements no perf_event_open; its arm64 code meets no uprobe anyway. */
  if (!agent_under_qemu()) place_probe();
  fflush(stdout);
}

/* N. Closes the probe, then prints the hits. */
static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *env) {
  (void)j, (void)env;
  if (probe_fd >= 0) close(probe_fd);
  probe_fd = -1;
  int n = atomic_load(&nhits);
  for (int i = 0; i < n && i < MAX_HITS; i++) {
    char name[400] = "-";
    if (hits[i].method) walk_method_name(hits[i].method, name, sizeof name);
    printf("OSR # hit %s bci %d level %d cframes %d java %d rc %d\n", name, hits[i].bci, hits[i].level,
           hits[i].cframes, hits[i].java, hits[i].rc);
  }
  printf("OSR # figure: hits=%d\n", n);
  printf("OSR # static c1_osr=%d proven=%d\n", atomic_load(&c1_osr), atomic_load(&c1_osr_proven));
  fflush(stdout);
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)options, (void)reserved;
  jvm = vm;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.CompiledMethodLoad = on_compiled;
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_COMPILED_METHOD_LOAD};
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_generate_compiled_method_load_events = 1;
  if (agent_setup_caps(vm, &jvmti, &caps, &cb, ev, 3) != 0) {
    printf("OSR not ok - JVMTI or its compiled method events missing\n");
    return JNI_ERR;
  }
  agent_handle_signal(SIGPROF, on_signal);
  return JNI_OK;
}
