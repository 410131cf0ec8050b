/*
 * adapter_frame.c - arm64: the adapters' blob, where the return address is still in the
 * link register (adapter_lr.h), behind adapter_frame.h. Facts used: HotSpot's i2c and c2i
 * adapters build no frame of their own (the c2i only around its call to fix its caller's
 * call site) and are entered as if called; their branches all go forward.
 */
#if defined(__aarch64__)
#include "../../safe_read.h"
#include "../adapter_frame.h"
#include "../adapter_lr.h"
#include "insn.h"
#include "sp_effect.h"

/* Most targets of forward branches remembered while the scan is before a bracket. */
#define MAX_TARGETS 32

/* SS. The start of the adapter holding pc: lo (the i2c) if pc is at or before the blob's
 * first br, else the instruction after that br (the c2i). 0 if no br is found before pc
 * within the limit or a word cannot be read. */
static uintptr_t adapter_start(uintptr_t pc, uintptr_t lo, uintptr_t hi, bool *i2c) {
  for (uintptr_t at = lo; at < hi && at - lo < 4u * ASGST__ADAPTER_LR_MAX_INSNS; at += 4) {
    uint32_t w;
    if (!asgst__load_u32(at, &w)) return 0;
    if ((w & BR_MASK) == BR) {
      *i2c = pc <= at;
      return pc <= at ? lo : at + 4;
    }
  }
  return 0;
}

/* SS. The bracket at `at` (its stp already read) in the blob [lo, hi), read up to `until`
 * (pc): stp; mov x29,sp; then only instructions that leave x29 alone, no br or ret, and
 * direct branches only forward within the bracket (a G1 barrier's slow path inside one,
 * in the c2i's entry barrier); then mov sp,x29; ldp. x29 survives the calls inside
 * (callee-saved), so the bracket restores sp, fp and lr. 1 with *end at its ldp if the
 * whole bracket lies before until; 2 if until lies inside it after its mov x29,sp, up to
 * its ldp (the frame record at x29 holds the caller's fp and return address), the words
 * before until obeying the rules; 0 otherwise. */
static int bracket(uintptr_t at, uintptr_t until, uintptr_t lo, uintptr_t hi, uintptr_t *end) {
  uint32_t w, prev = 0;
  uintptr_t reach = 0; /* the furthest target of a branch inside */
  if (until <= at + 4 || !asgst__load_u32(at + 4, &w) || w != MOV_FP_SP) return 0;
  for (uintptr_t p = at + 8; p < until; p += 4) {
    if (!asgst__load_u32(p, &w)) return 0;
    if (w == LDP_FP_LR_POST) {
      *end = p;
      return prev == MOV_SP_FP && reach < p ? 1 : 0;
    }
    uintptr_t t = target_of(w, p);
    if (t != 0 && (t <= p || t < lo || t >= hi)) return 0;
    if (t > reach) reach = t;
    if ((w & 0xfffffc1fu) == BR || (w & 0xfffffc1fu) == 0xd65f0000u || (w != MOV_SP_FP && may_write(w, 29)))
      return 0;
    prev = w;
  }
  return 2;
}

/* SS. True if no direct branch in [pc, hi) lands in [from, pc] (the scan of [from, pc)
 * refused backward branches there itself). Reads up to the limit; false past it. */
static bool no_branch_into(uintptr_t from, uintptr_t pc, uintptr_t hi) {
  for (uintptr_t at = pc; at < hi; at += 4) {
    uint32_t w;
    if (at - from >= 4u * ASGST__ADAPTER_LR_MAX_INSNS || !asgst__load_u32(at, &w)) return false;
    uintptr_t t = target_of(w, at);
    if (t >= from && t <= pc) return false;
  }
  return true;
}

/* A forward branch within the blob seen by the scan: its target and sp's depth there. */
struct edge {
  uintptr_t to;
  long depth;
};

/* SS. True if every edge of e[0..n) that lands at `at` comes with depth. */
static bool edges_agree(const struct edge *e, int n, uintptr_t at, long depth) {
  for (int i = 0; i < n; i++)
    if (e[i].to == at && e[i].depth != depth) return false;
  return true;
}

/* SS. See adapter_lr.h. The scan adds up what each instruction does to sp (sp_effect.h):
 * HotSpot's code has one stack depth per pc, so where the straight line from the start
 * and every forward branch into a pc agree, that is its depth (the c2i's entry barrier
 * pushes and pops a register on its slow path, which the fast path jumps over). After an
 * instruction that ends the line the depth must be 0 (an entry, or a label that the
 * edges then check). */
int asgst__hs_adapter_lr(uintptr_t pc, uintptr_t lo, uintptr_t hi) {
  bool i2c = false, cut = false;
  if (pc < lo || pc >= hi || (pc & 3) || (lo & 3)) return ASGST__ADAPTER_LR_NONE;
  uintptr_t from = adapter_start(pc, lo, hi, &i2c);
  if (from == 0 || pc - from >= 4u * ASGST__ADAPTER_LR_MAX_INSNS) return ASGST__ADAPTER_LR_NONE;
  struct edge edges[MAX_TARGETS];
  int n = 0;
  long depth = 0;
  for (uintptr_t at = from; at < pc; at += 4) {
    uint32_t w;
    long d = 0;
    if (!asgst__load_u32(at, &w) || !edges_agree(edges, n, at, depth) || (cut && depth != 0))
      return ASGST__ADAPTER_LR_NONE;
    cut = false;
    if (w == STP_FP_LR_PRE) {
      uintptr_t end = pc;
      int in = bracket(at, pc, lo, hi, &end);
      if (in == 0) return ASGST__ADAPTER_LR_NONE;
      for (int i = 0; i < n; i++)
        if (edges[i].to > at && edges[i].to <= end) return ASGST__ADAPTER_LR_NONE; /* jumps into it */
      /* Inside: the record lies at the caller's sp - 16 only at depth 0 (a G1 barrier's
       * record inside the entry barrier's push of x10 lies 16 bytes lower). */
      if (in == 2) return i2c || depth != 0 || !no_branch_into(from, pc, hi) ? ASGST__ADAPTER_LR_NONE : ASGST__ADAPTER_LR_RECORD;
      at = end; /* the bracket restores sp to its depth at the stp */
      continue;
    }
    uintptr_t t = target_of(w, at);
    /* A branch out of the blob is an exit: the adapters reach the runtime's stubs (the
     * inline cache miss, the wrong method handler) with a plain b where they are near, as
     * they are in the code cache's segment for non-methods. Within the blob, only forward. */
    if (t >= lo && t < hi) {
      if (t <= at || n == MAX_TARGETS) return ASGST__ADAPTER_LR_NONE; /* backward: a loop */
      edges[n++] = (struct edge){t, depth};
    }
    if (asgst__a64_sp_effect(w, &d) < 0 || may_write(w, 29) || may_write(w, 30)) return ASGST__ADAPTER_LR_NONE;
    depth += d;
    cut = ends_line(w);
  }
  if (!edges_agree(edges, n, pc, depth) || depth != 0 || !no_branch_into(from, pc, hi)) return ASGST__ADAPTER_LR_NONE;
  return i2c ? ASGST__ADAPTER_LR_I2C : ASGST__ADAPTER_LR_C2I;
}

/* SS. See adapter_frame.h: asgst__hs_adapter_lr's answer as a place. */
void asgst__hs_adapter_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, asgst__hs_adapter_frame *a) {
  int which = asgst__hs_adapter_lr(pc, lo, hi);
  *a = (asgst__hs_adapter_frame){.adapter = ASGST__ADAPTER_NONE};
  if (which == ASGST__ADAPTER_LR_I2C || which == ASGST__ADAPTER_LR_C2I) {
    a->adapter = which == ASGST__ADAPTER_LR_I2C ? ASGST__ADAPTER_I2C : ASGST__ADAPTER_C2I;
    a->where = ASGST__CALLER_IN_LR;
  } else if (which == ASGST__ADAPTER_LR_RECORD) {
    a->adapter = ASGST__ADAPTER_C2I; /* the record is the c2i's, around its call */
    a->where = ASGST__CALLER_RECORD;
  }
}

#endif
