/*
 * test_native_cfi.c - the DWARF call frame tables of impl/native/: a hand-made .eh_frame
 * decoded into the expected rows, truncated and garbage input refused without a crash,
 * pcs outside every object answered "no rule", the lookup cache's pairs (two pcs that
 * share one both stay cached, answers always the rows'), a thread's remembered tail (its
 * frames those of a step-by-step walk, taken again only while every word it read is the
 * same, under the same tables), the memory report, and the cost of building and searching
 * the tables.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <time.h>
#include <cmocka.h>

#include "impl/native/cfi.h"
#include "impl/native/cfi_inline.h"
#include "impl/native/cfi_records.h"
#include "impl/native/cfi_rows.h"
#include "impl/native/cfi_tail.h"
#include "impl/native/eh_frame.h"

/* A CIE ("zR", code alignment 1, data alignment -8, return address column 16, FDE
 * pointers as absolute udata4; CFA = rsp + 8, return address at CFA - 8) and one FDE
 * for [0x1000, 0x1040) that pushes rbp, makes it the CFA base, and at 0x1034 pops it
 * (restore) with the CFA back on rsp + 8. */
static const uint8_t cie[] = {
    0x14, 0, 0, 0, 0, 0, 0, 0,                  /* length 20, CIE id 0 */
    1, 'z', 'R', 0, 0x01, 0x78, 0x10, 0x01, 0x03, /* version, aug, caf, daf, ra, zlen, R */
    0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,         /* def_cfa rsp+8; offset r16 cfa-8; nops */
};
static const uint8_t fde[] = {
    0x21, 0, 0, 0, 0x1c, 0, 0, 0,   /* length 33, CIE pointer: 28 bytes back to the CIE */
    0x00, 0x10, 0, 0, 0x40, 0, 0, 0, /* pc_begin 0x1000, range 0x40 */
    0x00,                           /* augmentation data length 0 */
    0x41, 0x0e, 0x10, 0x86, 0x02,   /* +1: def_cfa_offset 16; offset rbp cfa-16 */
    0x43, 0x0d, 0x06,               /* +3: def_cfa_register rbp */
    0x02, 0x30, 0x0c, 0x07, 0x08,   /* +0x30: def_cfa rsp+8 */
    0xc6, 0x0a, 0x0b, 0x2e, 0x08,   /* restore rbp; remember, restore state; GNU_args_size */
    0, 0,                           /* nops */
};

/* A copy of the CIE, the FDE and a terminator in a buffer of exactly `len` bytes (so
 * that the sanitizer sees any read past a truncated blob). */
static uint8_t *blob(size_t *len) {
  size_t full = sizeof cie + sizeof fde + 4;
  uint8_t *b = calloc(1, full);
  memcpy(b, cie, sizeof cie);
  memcpy(b + sizeof cie, fde, sizeof fde);
  *len = full;
  return b;
}

static void check_row(const struct asgst_cfi_build_row *row, uint32_t pc, int cfa_reg,
                      int cfa_off, int fp_rule, int fp_off) {
  const struct asgst_cfi_rule *r = &row->rule;
  assert_int_equal(row->pc_off, pc);
  assert_int_equal(r->cfa_reg, cfa_reg);
  if (cfa_reg == ASGST_CFA_GAP) return;
  assert_int_equal(r->cfa_off, cfa_off);
  assert_int_equal(r->fp_rule, fp_rule);
  if (fp_rule == ASGST_REG_AT_CFA) assert_int_equal(r->fp_off, fp_off);
  assert_int_equal(r->ra_rule, ASGST_REG_AT_CFA);
  assert_int_equal(r->ra_off, -8);
}

static void a_hand_made_eh_frame_gives_its_rows(void **state) {
  (void)state;
  size_t len;
  uint8_t *b = blob(&len);
  struct asgst_cfi_rowvec rv = {0};
  assert_int_equal(asgst__cfi_eh_frame_rows(b, len, 0, &rv), 0);
  asgst__rowvec_finish(&rv);
  assert_int_equal(rv.n, 5);
  check_row(&rv.v[0], 0x1000, ASGST_CFA_SP, 8, ASGST_REG_SAME, 0);
  check_row(&rv.v[1], 0x1001, ASGST_CFA_SP, 16, ASGST_REG_AT_CFA, -16);
  check_row(&rv.v[2], 0x1004, ASGST_CFA_FP, 16, ASGST_REG_AT_CFA, -16);
  check_row(&rv.v[3], 0x1034, ASGST_CFA_SP, 8, ASGST_REG_SAME, 0);
  check_row(&rv.v[4], 0x1040, ASGST_CFA_GAP, 0, 0, 0);
  asgst__rowvec_free(&rv);
  free(b);
}

/* The same FDE under a CIE whose augmentation says 'S' (a signal return trampoline's, as
 * glibc's __restore_rt and arm64's vDSO have): whatever its rules, one row that says
 * "step through the signal frame" (impl/native/sigframe.h), then the gap. */
static const uint8_t signal_cie[] = {
    0x14, 0, 0, 0, 0, 0, 0, 0,                       /* length 20, CIE id 0 */
    1, 'z', 'R', 'S', 0, 0x01, 0x78, 0x10, 0x01, 0x03, /* version, aug, caf, daf, ra, zlen, R */
    0x0c, 0x07, 0x08, 0x90, 0x01, 0,                 /* def_cfa rsp+8; offset r16 cfa-8; nop */
};

static void a_signal_frame_cie_gives_the_signal_rule(void **state) {
  (void)state;
  _Static_assert(sizeof signal_cie == sizeof cie, "the FDE's CIE pointer fits both");
  uint8_t b[sizeof signal_cie + sizeof fde + 4] = {0};
  memcpy(b, signal_cie, sizeof signal_cie);
  memcpy(b + sizeof signal_cie, fde, sizeof fde);
  struct asgst_cfi_rowvec rv = {0};
  assert_int_equal(asgst__cfi_eh_frame_rows(b, sizeof b, 0, &rv), 0);
  asgst__rowvec_finish(&rv);
  assert_int_equal(rv.n, 2);
  assert_int_equal(rv.v[0].pc_off, 0x1000);
  assert_int_equal(rv.v[0].rule.cfa_reg, ASGST_CFA_SIGNAL);
  check_row(&rv.v[1], 0x1040, ASGST_CFA_GAP, 0, 0, 0);
  asgst__rowvec_free(&rv);
}

/* A .plt's FDE as binutils' ld writes it: PLT0 with two pushes, then lazy entries whose
 * CFA is an expression, rsp + 8 + ((rip & 15) >= 11 ? 8 : 0). Its rows: two per entry. */
static const uint8_t plt_fde[] = {
    0x20, 0, 0, 0, 0x1c, 0, 0, 0,    /* length 32, CIE pointer: 28 bytes back */
    0x00, 0x10, 0, 0, 0x30, 0, 0, 0, /* pc_begin 0x1000, range 0x30: PLT0 and 2 entries */
    0x00,                            /* augmentation data length 0 */
    0x0e, 0x10, 0x46, 0x0e, 0x18,    /* def_cfa_offset 16; +6: def_cfa_offset 24 */
    0x4a, 0x0f, 0x0b,                /* +10: def_cfa_expression of 11 bytes: */
    0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
};

static void a_plt_expression_gives_rows_per_entry(void **state) {
  (void)state;
  uint8_t b[sizeof cie + sizeof plt_fde + 4] = {0};
  memcpy(b, cie, sizeof cie);
  memcpy(b + sizeof cie, plt_fde, sizeof plt_fde);
  struct asgst_cfi_rowvec rv = {0};
  assert_int_equal(asgst__cfi_eh_frame_rows(b, sizeof b, 0, &rv), 0);
  asgst__rowvec_finish(&rv);
  static const uint32_t pcs[] = {0x1000, 0x1006, 0x1010, 0x101b, 0x1020, 0x102b};
  static const int offs[] = {16, 24, 8, 16, 8, 16};
  assert_int_equal(rv.n, 7);
  for (int i = 0; i < 6; i++) check_row(&rv.v[i], pcs[i], ASGST_CFA_SP, offs[i], ASGST_REG_SAME, 0);
  check_row(&rv.v[6], 0x1030, ASGST_CFA_GAP, 0, 0, 0);
  asgst__rowvec_free(&rv);
}

/* Every truncation inside an entry is an error; cut at an entry's end, it is a shorter
 * section. Never a read past the end (the sanitizer would stop the test). */
static void truncated_eh_frames_give_errors(void **state) {
  (void)state;
  size_t full;
  uint8_t *b = blob(&full);
  for (size_t len = 0; len < full; len++) {
    uint8_t *cut = malloc(len ? len : 1);
    memcpy(cut, b, len);
    struct asgst_cfi_rowvec rv = {0};
    int rc = asgst__cfi_eh_frame_rows(cut, len, 0, &rv);
    bool boundary = len == 0 || len == sizeof cie || len == sizeof cie + sizeof fde;
    if (!boundary) assert_int_equal(rc, -1);
    if (len < sizeof cie + sizeof fde) assert_int_equal(rv.n, 0);
    asgst__rowvec_free(&rv);
    free(cut);
  }
  free(b);
}

/* Random bytes, and the valid blob with random bytes changed, read as .eh_frame and as
 * .debug_frame: no crash, no read outside. */
static void garbage_eh_frames_never_crash(void **state) {
  (void)state;
  srand(28);
  size_t full;
  uint8_t *b = blob(&full);
  int errors = 0;
  for (int i = 0; i < 20000; i++) {
    size_t len = i % 2 ? full : 1 + (size_t)rand() % 200;
    uint8_t *g = malloc(len);
    for (size_t k = 0; k < len; k++) g[k] = (uint8_t)rand();
    if (i % 2) {
      memcpy(g, b, len);
      for (int k = 0; k < 1 + rand() % 4; k++) g[(size_t)rand() % len] = (uint8_t)rand();
    }
    struct asgst_cfi_rowvec rv = {0};
    errors += asgst__cfi_eh_frame_rows(g, len, 0, &rv) != 0;
    /* The same bytes read as .debug_frame, whose CIE pointers are section offsets. */
    struct asgst_cfi_source as_debug_frame = {g, g + len, 0, g};
    asgst__cfi_section_rows(&as_debug_frame, &rv);
    asgst__rowvec_free(&rv);
    free(g);
  }
  print_message("# figure: 20000 garbage or damaged blobs: %d refused as .eh_frame, "
                "0 crashes (also read as .debug_frame)\n",
                errors);
  assert_true(errors > 10000);
  free(b);
}

static bool read_word(void *ctx, uintptr_t addr, uintptr_t *value) {
  (void)ctx;
  (void)addr;
  *value = 0;
  return false;
}

static void a_pc_in_no_object_has_no_rule(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  void *heap = malloc(64);
  assert_null(asgst__cfi_lookup((uintptr_t)heap, false));
  assert_null(asgst__cfi_lookup(0, false));
  assert_null(asgst__cfi_lookup(UINTPTR_MAX, true));
  struct asgst_cfi_frame f = {(uintptr_t)heap, 0, 0, 0};
  assert_int_equal(asgst__cfi_step(&f, false, read_word, NULL), ASGST_CFI_NO_RULE);
  assert_int_equal(f.pc, (uintptr_t)heap);
  free(heap);
}

/* Code is what loaded objects map executable: functions of the test and of libc are,
 * the heap, the stack and address 0 are not; before the first build nothing is known. */
static void code_is_what_objects_map_executable(void **state) {
  (void)state;
  asgst__cfi_shutdown();
  void *heap = malloc(64);
  assert_false(asgst__cfi_outside_code((uintptr_t)heap));
  assert_int_equal(asgst__cfi_build(), 0);
  assert_false(asgst__cfi_outside_code((uintptr_t)code_is_what_objects_map_executable));
  assert_false(asgst__cfi_outside_code((uintptr_t)malloc));
  int local = 0;
  assert_true(asgst__cfi_outside_code((uintptr_t)heap));
  assert_true(asgst__cfi_outside_code((uintptr_t)&local));
  assert_true(asgst__cfi_outside_code(0));
  assert_true(asgst__cfi_outside_code(UINTPTR_MAX));
  free(heap);
  asgst__cfi_shutdown();
}

/* At a function's first instruction the CFA is the stack pointer + one word and the
 * return address is at the CFA - 8 (x86_64's call pushed it). */
static void a_function_entry_has_the_call_rule(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  const struct asgst_cfi_rule *r =
      asgst__cfi_lookup((uintptr_t)a_hand_made_eh_frame_gives_its_rows, false);
  assert_non_null(r);
  assert_int_equal(r->cfa_reg, ASGST_CFA_SP);
  assert_int_equal(r->cfa_off, 8);
  assert_int_equal(r->ra_rule, ASGST_REG_AT_CFA);
  assert_int_equal(r->ra_off, -8);
  /* A return address that cannot be read leaves the frame as it was. */
  struct asgst_cfi_frame f = {(uintptr_t)a_hand_made_eh_frame_gives_its_rows, 4096, 0, 0};
  assert_int_equal(asgst__cfi_step(&f, false, read_word, NULL), ASGST_CFI_BAD_READ);
  assert_int_equal(f.sp, 4096);
  asgst__cfi_shutdown();
}

/* The cache pair an offset of o goes to (cfi_inline.h's hash). */
static uint64_t *pair_of(const struct asgst_cfi_object *o, uint32_t off) {
  return &o->hits[((off * 2654435761u) >> o->hit_shift) & ~(size_t)1];
}

/* Three rows of the test's own object whose offsets share a cache pair, in *offs (their
 * row indexes in *rows); false if the object has no three such rows. */
static bool three_sharing_a_pair(const struct asgst_cfi_object *o, uint32_t offs[3], size_t rows[3]) {
  const struct asgst_cfi_table *t = o->table;
  size_t npairs = ((size_t)1 << (32 - o->hit_shift)) / 2;
  size_t *seen = calloc(npairs * 2, sizeof *seen); /* per pair: how many found, first two */
  int *count = calloc(npairs, sizeof *count);
  bool found = false;
  for (size_t i = 0; i < t->nrows && !found; i++) {
    if (t->rule_of[i] == ASGST_CFI_GAP_RULE) continue;
    size_t p = (size_t)(pair_of(o, t->pcs[i]) - o->hits) / 2;
    if (count[p] == 2) {
      rows[0] = seen[2 * p], rows[1] = seen[2 * p + 1], rows[2] = i;
      found = true;
    } else {
      seen[2 * p + count[p]++] = i;
    }
  }
  for (int k = 0; found && k < 3; k++) offs[k] = t->pcs[rows[k]];
  free(seen);
  free(count);
  return found;
}

/* The lookup cache is two-way: two pcs a walk meets every time that share a pair both
 * stay cached (direct-mapped, each evicted the other on every walk, and each lookup was
 * a search over cold rows); a third pc of the pair evicts the older one. Every answer,
 * cached or searched, is the row's own rule. */
static void two_pcs_sharing_a_cache_pair_both_stay_cached(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  const struct asgst_cfi_snapshot *s = __atomic_load_n(&asgst__cfi_current, __ATOMIC_ACQUIRE);
  const struct asgst_cfi_object *o = asgst__cfi_object_of(s, (uintptr_t)pair_of);
  assert_non_null(o);
  uint32_t off[3];
  size_t row[3];
  assert_true(three_sharing_a_pair(o, off, row));
  uint64_t *pair = pair_of(o, off[0]);
  pair[0] = pair[1] = 0;
  const struct asgst_cfi_rule *want[3];
  for (int k = 0; k < 3; k++) want[k] = &o->rules[o->table->rule_of[row[k]]];
  /* Alternating between the first two: after one lookup each, both are in the pair. */
  for (int round = 0; round < 4; round++) {
    for (int k = 0; k < 2; k++) assert_ptr_equal(asgst__cfi_object_rule(o, o->base + off[k]), want[k]);
    uint32_t a = (uint32_t)(pair[0] >> 32), b = (uint32_t)(pair[1] >> 32);
    assert_true((a == off[0] && b == off[1]) || (a == off[1] && b == off[0]));
  }
  /* A third replaces the older of the two (the one that went in first); the other stays. */
  assert_ptr_equal(asgst__cfi_object_rule(o, o->base + off[2]), want[2]);
  assert_int_equal((uint32_t)(pair[0] >> 32), off[2]);
  assert_int_equal((uint32_t)(pair[1] >> 32), off[1]);
  for (int k = 0; k < 3; k++) assert_ptr_equal(asgst__cfi_object_rule(o, o->base + off[k]), want[k]);
  asgst__cfi_shutdown();
}

static void the_report_counts_published_and_retired_tables(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  assert_int_equal(asgst__cfi_build(), 0);
  struct asgst_cfi_report rep;
  asgst__cfi_report(&rep);
  assert_true(rep.objects >= 3); /* the test, libc, the sanitizer runtime at least */
  assert_true(rep.rows > 1000);
  assert_true(rep.rules > 10 && rep.rules < rep.rows / 10); /* rules repeat a lot */
  assert_true(rep.bytes >= rep.rows * 6 + rep.rules * sizeof(struct asgst_cfi_rule));
  /* Nothing was loaded in between: the rebuild kept every table and retired only the
   * first snapshot's small array. */
  assert_true(rep.retired_bytes > 0 && rep.retired_bytes < rep.bytes / 100);
  asgst__cfi_release_retired();
  asgst__cfi_report(&rep);
  assert_int_equal(rep.retired_bytes, 0);
  asgst__cfi_shutdown();
  asgst__cfi_report(&rep);
  assert_int_equal(rep.bytes, 0);
  assert_null(asgst__cfi_lookup((uintptr_t)a_pc_in_no_object_has_no_rule, false));
}

/* Rebuilds publish new snapshots while another thread searches: readers never wait and
 * never see a freed snapshot (retired ones live until asgst__cfi_release_retired). */
static int rebuild_failures;

/* Asserts stay on the test's thread: this one counts. */
static void *rebuild(void *arg) {
  for (int i = 0; i < 10; i++) rebuild_failures += asgst__cfi_build() != 0;
  __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void lookups_run_while_tables_are_rebuilt(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  int done = 0;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, rebuild, &done), 0);
  long lookups = 0, missed = 0;
  /* At least one lookup: on a loaded machine the ten rebuilds may all finish before this
   * thread gets a CPU again. */
  do {
    missed += asgst__cfi_lookup((uintptr_t)rebuild + 1, false) == NULL;
    lookups++;
  } while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE));
  pthread_join(t, NULL);
  assert_int_equal(rebuild_failures, 0);
  assert_int_equal(missed, 0);
  assert_true(lookups > 0);
  struct asgst_cfi_report rep;
  asgst__cfi_report(&rep);
  assert_true(rep.retired_bytes > 0 && rep.retired_bytes < rep.bytes / 10); /* tables shared */
  asgst__cfi_shutdown();
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void cost_of_building_and_searching(void **state) {
  (void)state;
  asgst__cfi_shutdown(); /* a first build, not one that keeps the tables */
  double t0 = now_ns();
  assert_int_equal(asgst__cfi_build(), 0);
  double build_ms = (now_ns() - t0) / 1e6;
  struct asgst_cfi_report rep;
  asgst__cfi_report(&rep);
  /* Warm lookups over pcs of this test and of libc. */
  uintptr_t pcs[] = {(uintptr_t)cost_of_building_and_searching + 5, (uintptr_t)memcpy + 3,
                     (uintptr_t)qsort + 7, (uintptr_t)clock_gettime + 2,
                     (uintptr_t)a_function_entry_has_the_call_rule + 11};
  enum { N = 2000000 };
  size_t found = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) found += asgst__cfi_lookup(pcs[i % 5], true) != NULL;
  double ns = (now_ns() - t0) / N;
  assert_true(found > 0);
  print_message("# figure: tables of %zu objects: %zu rows, %zu distinct rules, %zu bytes, "
                "built in %.1f ms; %.1f ns per lookup (warm, sanitized build)\n",
                rep.objects, rep.rows, rep.rules, rep.bytes, build_ms, ns);
  asgst__cfi_shutdown();
}

/* A reader of live memory; with ctx, the word at *(uintptr_t *)ctx reads one more than it
 * holds (a stack that changed). Not instrumented: it reads other functions' frames. */
__attribute__((no_sanitize_address)) static bool read_live(void *ctx, uintptr_t addr, uintptr_t *value) {
  *value = *(const uintptr_t *)addr;
  if (ctx && addr == *(const uintptr_t *)ctx) (*value)++;
  return true;
}

/* The frame of the function that called this one, stopped at its call: this function's
 * own registers stepped once by the tables. */
static __attribute__((noinline)) bool caller_frame(struct asgst_cfi_frame *f) {
  uintptr_t pc, sp, fp;
#if defined(__x86_64__)
  __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(fp));
#else
  __asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29" : "=r"(pc), "=r"(sp), "=r"(fp));
#endif
  *f = (struct asgst_cfi_frame){.pc = pc, .sp = sp, .fp = fp};
  return asgst__cfi_step(f, false, read_live, NULL) == ASGST_CFI_STEPPED;
}

/* What tail_thread found: the tail recorded, replayed, walked frame by frame. */
struct tail_result {
  long recorded, replayed, after_change, after_rebuild, again;
  long walked; /* frames of the step-by-step walk to the outermost, -1 if it did not end so */
  bool same_frames;
  int rebuilt; /* asgst__cfi_build's answer (no assert off the test's thread) */
};

/* From this thread's function at its call: records its tail (down to clone), replays it,
 * replays it with one word changed, and after the tables were published again. */
static __attribute__((noinline)) void *tail_thread(void *arg) {
  struct tail_result *res = arg;
  struct asgst_cfi_frame first;
  if (!caller_frame(&first)) return NULL;
  /* The thread's function itself, at its call of caller_frame above. */
  const struct asgst_cfi_rule *rule = asgst__cfi_lookup(first.pc, true);
  struct asgst_cfi_tail_frame rec[ASGST_CFI_TAIL_MAX], rep[ASGST_CFI_TAIL_MAX];
  res->recorded = asgst__cfi_tail_record(&first, rule, UINTPTR_MAX, read_live, NULL, rec);
  res->replayed = asgst__cfi_tail_replay(&first, UINTPTR_MAX, read_live, NULL, rep);
  res->same_frames = res->recorded > 0 && res->replayed == res->recorded &&
                     memcmp(rec, rep, (size_t)res->recorded * sizeof rec[0]) == 0;
  /* Frame by frame, as a walk without tails goes. */
  struct asgst_cfi_frame f = first;
  res->walked = -1;
  for (long n = 0; n <= ASGST_CFI_TAIL_MAX && res->recorded > 0; n++) {
    int r = asgst__cfi_step(&f, true, read_live, NULL);
    if (r == ASGST_CFI_OUTERMOST) { res->walked = n; break; }
    if (r != ASGST_CFI_STEPPED || f.pc != rec[n].pc || f.sp != rec[n].sp || f.fp != rec[n].fp) break;
  }
  /* The return address the last step read, changed: not the same stack any more. */
  uintptr_t changed = res->recorded > 0 ? asgst__cfi_tail_slot(first.sp)->step[res->recorded - 1].ra_at : 0;
  res->after_change = asgst__cfi_tail_replay(&first, UINTPTR_MAX, read_live, &changed, rep);
  res->again = asgst__cfi_tail_replay(&first, UINTPTR_MAX, read_live, NULL, rep);
  res->rebuilt = asgst__cfi_build(); /* a publication: the rules may differ */
  res->after_rebuild = asgst__cfi_tail_replay(&first, UINTPTR_MAX, read_live, NULL, rep);
  return NULL;
}

/* A thread's tail: the frames a step-by-step walk gives down to the outermost, replayed
 * from memory while every word is the same and the tables are, a miss after one word
 * changed or the tables were published again. */
static void a_thread_tail_is_replayed_only_while_its_words_are_the_same(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  struct tail_result res = {0};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, tail_thread, &res), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
  print_message("# figure: a test thread's tail: %ld frames below its function\n", res.recorded);
  assert_true(res.recorded >= 2); /* at least the C library's thread start and clone */
  assert_true(res.same_frames);
  assert_int_equal(res.walked, res.recorded);
  assert_int_equal(res.after_change, ASGST_CFI_TAIL_MISS);
  assert_int_equal(res.again, res.recorded);
  assert_int_equal(res.rebuilt, 0);
  assert_int_equal(res.after_rebuild, ASGST_CFI_TAIL_MISS);
  asgst__cfi_shutdown();
}

#if defined(__x86_64__)
/* The program's entry: its table row makes it the outermost frame (ra undefined). */
extern char _start[];

/* One racer of the test below: a two-word stack of its own whose first frame's slot is
 * the other racer's too. */
struct tail_racer {
  uintptr_t *stack; /* word 0: the return address to _start; the first frame's sp */
  const struct asgst_cfi_rule *rule;
  long taken, replayed, wrong;
};

/* Records and replays its tail again and again, counting frames not its own. */
static void *tail_race(void *arg) {
  struct tail_racer *r = arg;
  uintptr_t sp = (uintptr_t)r->stack;
  struct asgst_cfi_frame first = {.pc = (uintptr_t)tail_race + 1, .sp = sp, .fp = 0};
  struct asgst_cfi_tail_frame f[ASGST_CFI_TAIL_MAX];
  for (int i = 0; i < 200000; i++) {
    long n = (i & 1) ? asgst__cfi_tail_replay(&first, sp + 4096, read_live, NULL, f)
                     : asgst__cfi_tail_record(&first, r->rule, sp + 4096, read_live, NULL, f);
    if (n < 0) continue;
    r->taken++;
    r->replayed += i & 1;
    r->wrong += n != 1 || f[0].pc != (uintptr_t)_start + 1 || f[0].sp != sp + 8 || f[0].fp != 0;
  }
  return NULL;
}

/* Two threads whose tails share a slot, writing and reading it at once: a walk takes its
 * own frames or none, never the other's or a mix (the slot's sequence lock). */
static void tails_sharing_a_slot_never_mix(void **state) {
  (void)state;
  assert_int_equal(asgst__cfi_build(), 0);
  /* At a function's first instruction: CFA = sp + 8, the return address at sp. */
  const struct asgst_cfi_rule *rule = asgst__cfi_lookup((uintptr_t)tail_race, false);
  assert_non_null(rule);
  assert_int_equal(rule->plain, ASGST_CFI_PLAIN_SP);
  uintptr_t *area = calloc(1 << 16, sizeof *area);
  struct tail_racer r[2] = {{.stack = area, .rule = rule}, {.rule = rule}};
  for (size_t w = 2; w < (1 << 16) - 512 && !r[1].stack; w += 2)
    if (asgst__cfi_tail_slot((uintptr_t)&area[w]) == asgst__cfi_tail_slot((uintptr_t)area)) r[1].stack = &area[w];
  assert_non_null(r[1].stack);
  r[0].stack[0] = r[1].stack[0] = (uintptr_t)_start + 1;
  pthread_t t[2];
  for (int k = 0; k < 2; k++) assert_int_equal(pthread_create(&t[k], NULL, tail_race, &r[k]), 0);
  for (int k = 0; k < 2; k++) assert_int_equal(pthread_join(t[k], NULL), 0);
  print_message("# figure: two tails in one slot: %ld and %ld walks took a tail (%ld and %ld from "
                "the slot), %ld frames not their own\n",
                r[0].taken, r[1].taken, r[0].replayed, r[1].replayed, r[0].wrong + r[1].wrong);
  assert_true(r[0].taken >= 100000 && r[1].taken >= 100000); /* every record does; replays may all lose */
  assert_int_equal(r[0].wrong + r[1].wrong, 0);
  free(area);
  asgst__cfi_shutdown();
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_hand_made_eh_frame_gives_its_rows),
      cmocka_unit_test(a_plt_expression_gives_rows_per_entry),
      cmocka_unit_test(a_signal_frame_cie_gives_the_signal_rule),
      cmocka_unit_test(truncated_eh_frames_give_errors),
      cmocka_unit_test(garbage_eh_frames_never_crash),
      cmocka_unit_test(a_pc_in_no_object_has_no_rule),
      cmocka_unit_test(code_is_what_objects_map_executable),
      cmocka_unit_test(a_function_entry_has_the_call_rule),
      cmocka_unit_test(two_pcs_sharing_a_cache_pair_both_stay_cached),
      cmocka_unit_test(a_thread_tail_is_replayed_only_while_its_words_are_the_same),
#if defined(__x86_64__)
      cmocka_unit_test(tails_sharing_a_slot_never_mix),
#endif
      cmocka_unit_test(the_report_counts_published_and_retired_tables),
      cmocka_unit_test(lookups_run_while_tables_are_rebuilt),
      cmocka_unit_test(cost_of_building_and_searching),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
