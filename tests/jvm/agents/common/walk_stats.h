/*
 * walk_stats.h - what walk_compare.c accumulates and walk_report.c prints.
 */
#ifndef WALK_STATS_H
#define WALK_STATS_H

#include "../walk_agent.h"

#define MAXCLASS 32

/* What a sampled thread was doing, from its frames (virtual-thread figures). Unmounted
 * virtual threads are never sampled: a signal reaches OS threads, i.e. carriers. */
enum { TK_MOUNTED, TK_CARRIER, TK_OTHER, TK_N };
typedef struct {
  long samples, asgst_ok, asgct_ok, both, agree, explained;
  long shorter;      /* both walked, ASGST gave fewer frames than ASGCT (not set apart) */
  long into_carrier; /* mounted: the ASGST walk went on past enterSpecial */
} kind_stats;
typedef struct {
  char name[48];
  long count;
  sample example;
} dclass;

typedef struct {
  long samples, asgst_ok, asgct_ok, both, agree;
  long explained_safepoint, unknown_bci;
  long unknown_bci_out_of_line; /* of unknown_bci: after the method's last PcDesc */
  long stub_bci; /* agreeing but for ASGST's bci from a stub's way back vs ASGCT's placeholder 0 */
  long explained_null_id; /* ASGCT frames without a method (no jmethodID), set apart */
  long explained_truncated; /* ASGCT stopped early where ASGST reached the root, set apart */
  long explained_released; /* ASGCT skipped a sender at the interrupted frame's sp (arm64), set apart */
  kind_stats kinds[TK_N];
  long nonjava_in_java_walk, self_walks, self_bad, tjf_checked, tjf_same;
  long tjf_sender_checked, tjf_sender_same;
  long asgst_err[64], asgct_err[16];
  dclass classes[MAXCLASS];
  int nclasses;
  long nj_checked, nj_consistent, jni_pairs, jni_c_found;
  long jni_linking; /* nativeCall frames under Java the VM called while linking it */
  dclass nj_bad;
  dclass vt_shorter; /* the first mounted sample where ASGST gave fewer frames than ASGCT */
  uint32_t *t_a, *t_g, *t_i, *t_f;
  uint32_t *i_a, *i_g, *c_a, *c_g; /* instructions and cycles per walk */
  uint16_t *t_depth;
  long nt;
  uint32_t *all_a, *all_g; /* walk times of the walks that succeeded (bench), per side */
  long nall, nall_a, nall_g, java_samples; /* samples; successful ASGST, ASGCT walks */
} walk_stats;

/* N. */
const walk_stats *walk_get_stats(void);
/* N. qsort comparison of uint32_t values (walk times, counts). */
int walk_cmp_u32(const void *a, const void *b);
/* N. "Class.method" of a Method*. */
void walk_method_name(uintptr_t m, char *out, size_t cap);
/* N. Sums over the methods named `name`: levels mask, frames seen, inlined, native. */
void walk_method_levels(const char *name, unsigned *levels, long *seen, long *inlined, long *native);
/* N. Levels mask over every method seen. */
unsigned walk_all_levels(void);

#endif
