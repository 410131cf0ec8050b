/* agree.c - both unwinds of one sample and their comparison (agree.h).
 *
 * Like is compared with like: both unwinders give the interrupted pc for the first frame
 * and return addresses for the others (libunwind from a context marked as a signal frame,
 * ASGST for C frames). A run of C frames ends where an unwinder reaches a pc outside every
 * executable ELF mapping (the code cache: a Java frame or a stub), or ASGST a Java frame,
 * or where it stops (outermost frame, error). Frames at the same position are compared;
 * when one run leaves ELF code where the other still has a C frame, that position counts
 * as compared and unequal (one of them skipped or invented a frame). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "asgst.h"
#include "unwind_agent/agree.h"

agree_tally agree;

typedef struct {
  int n, end, rc; /* rc: ASGST's error or libunwind's last result */
  int kind;       /* ASGST_RunWithIterator's result */
  uintptr_t pc[AGREE_MAXC];
} c_run;

/* N. libunwind's global cache takes a lock and its per-thread cache lives in the TLS of a
 * dlopen()ed library (allocated on first touch): without caches, every step reads the
 * tables afresh (dl_iterate_phdr and the DWARF parse), which is slower but needs neither.
 * libunwind's local unwinder is documented as usable from a signal handler. */
void agree_init(void) { unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE); }

/* SS. Iterator handler: ASGST's leading C frames in ELF code into the c_run at arg. */
static void asgst_collect(ASGST_Iterator *it, void *arg) {
  c_run *r = arg;
  ASGST_Frame f;
  int rc;
  r->end = END_FULL;
  while (r->n < AGREE_MAXC) {
    if ((rc = ASGST_NextFrame(it, &f)) != 1) {
      r->end = rc == 0 ? END_OUTERMOST : END_ERROR;
      r->rc = rc;
      return;
    }
    if (f.type != ASGST_FRAME_NON_JAVA || elf_maps_lib((uintptr_t)f.pc) < 0) {
      r->end = END_LEFT_ELF;
      return;
    }
    r->pc[r->n++] = (uintptr_t)f.pc;
  }
}

/* SS. ASGST's run from uc. */
static void asgst_run(void *uc, c_run *r) {
  r->n = 0;
  r->end = END_ERROR;
  r->rc = 0;
  r->kind = ASGST_RunWithIterator(uc, ASGST_INCLUDE_NON_JAVA_FRAMES, asgst_collect, r);
  if (r->kind < 0) r->rc = r->kind, r->end = END_ERROR;
}

/* SS. libunwind's run from uc. */
static void unw_run(void *uc, c_run *r) {
  unw_cursor_t c;
  r->n = 0;
  r->end = END_ERROR;
  r->kind = 0;
  if ((r->rc = unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME)) < 0) return;
  while (r->n < AGREE_MAXC) {
    unw_word_t ip;
    if ((r->rc = unw_get_reg(&c, UNW_REG_IP, &ip)) < 0) return;
    if (elf_maps_lib(ip) < 0) {
      r->end = END_LEFT_ELF;
      return;
    }
    r->pc[r->n++] = ip;
    if ((r->rc = unw_step(&c)) <= 0) {
      r->end = r->rc == 0 ? END_OUTERMOST : END_ERROR;
      return;
    }
  }
  r->end = END_FULL;
}

/* SS. Keeps a disagreeing sample for the report if a slot is free. */
static void keep_example(const c_run *a, const c_run *u, int at) {
  int slot = atomic_fetch_add(&agree.examples, 1);
  if (slot >= AGREE_EXAMPLES) return;
  agree_example *e = &agree.ex[slot];
  e->tid = (pid_t)syscall(SYS_gettid);
  e->at = at;
  e->na = a->n, e->nu = u->n;
  e->a_end = a->end, e->u_end = u->end;
  e->a_kind = a->kind;
  e->a_rc = a->rc, e->u_rc = u->rc;
  for (int i = 0; i < AGREE_EX_FRAMES; i++) {
    e->a[i] = i < a->n ? a->pc[i] : 0;
    e->u[i] = i < u->n ? u->pc[i] : 0;
  }
}

/* SS. Adds one sample's comparison to the tally. */
static void tally(const c_run *a, const c_run *u) {
  int both = a->n < u->n ? a->n : u->n, equal = 0, first_diff = -1;
  for (int i = 0; i < both; i++) {
    int lib = elf_maps_lib(a->pc[i]);
    bool same = a->pc[i] == u->pc[i];
    atomic_fetch_add(&agree.compared_in[lib], 1);
    if (same) atomic_fetch_add(&agree.equal_in[lib], 1), equal++;
    else if (first_diff < 0) first_diff = i;
  }
  int compared = both;
  /* One left ELF code where the other still has a C frame: a frame skipped or invented. */
  if (a->n != u->n && (a->n < u->n ? a->end : u->end) == END_LEFT_ELF) {
    compared++;
    if (first_diff < 0) first_diff = both;
  }
  atomic_fetch_add(&agree.compared, compared);
  atomic_fetch_add(&agree.equal, equal);
  if (a->n > u->n && u->end != END_LEFT_ELF) atomic_fetch_add(&agree.asgst_past, a->n - u->n);
  if (u->n > a->n && a->end != END_LEFT_ELF) atomic_fetch_add(&agree.unw_past, u->n - a->n);
  if (first_diff < 0) atomic_fetch_add(&agree.agreeing, 1);
  else keep_example(a, u, first_diff);
}

/* SS. */
void agree_sample(void *uc) {
  c_run a, u;
  asgst_run(uc, &a);
  unw_run(uc, &u);
  atomic_fetch_add(&agree.samples, 1);
  if (a.kind == ASGST_NON_JAVA_TRACE) atomic_fetch_add(&agree.non_java, 1);
  if (a.n == 0 && u.n == 0) return;
  atomic_fetch_add(&agree.with_c, 1);
  tally(&a, &u);
}
