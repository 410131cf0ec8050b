/*
 * contexts.c - the starts of fuzzed walks: the signal's real registers, perturbed by a few
 * words or bytes, or replaced by addresses in the code cache, libjvm, the interpreter,
 * stubs seen in earlier walks, higher up the real stack, or garbage. Each walk starts
 * either from an edited copy of the ucontext (ASGST_RunWithIterator) or from registers
 * (ASGST_RunWithIteratorFromFrame), at random, so both entry points are fuzzed. All SS.
 */
#include <signal.h>
#include <ucontext.h>

#include "../fuzz_agent.h"
#include "impl/hotspot/walking/codecache.h"
#include "tests/unit/test_arch.h"

fuzz_range fuzz_heaps[MAX_HEAPS], fuzz_libjvm;
atomic_int fuzz_nheaps;

typedef struct {
  uintptr_t pc, sp, fp;
} regs;

/* SS. A random address in r, or 0 if r is unknown. */
static uintptr_t in_range(fuzz_range r) {
  return r.hi > r.lo ? r.lo + fuzz_below(r.hi - r.lo) : 0;
}

/* SS. A random address in one of the code heaps; half of the time near a Java pc seen
 * before, because most of a heap's reserved space is not committed (those faults are
 * interesting too, but the committed part holds the blobs). */
static uintptr_t in_codecache(void) {
  uintptr_t near = fuzz_pool_get(POOL_JAVA_PC, fuzz_rand());
  if (near && fuzz_below(2)) return near - 32768 + fuzz_below(65536);
  int n = atomic_load_explicit(&fuzz_nheaps, memory_order_relaxed);
  return n > 0 ? in_range(fuzz_heaps[fuzz_below((uint64_t)n)]) : near;
}

/* SS. The interpreter's code range as the walker learned it (0 before the first walk). */
static uintptr_t in_interpreter(void) {
  fuzz_range r = {asgst__hs_interp_low, asgst__hs_interp_high};
  return in_range(r);
}

/* SS. */
uintptr_t fuzz_garbage(uintptr_t near) {
  uint64_t r = fuzz_rand();
  switch (r % 12) {
  case 0: return 0;
  case 1: return fuzz_rand();
  case 2: return (r >> 16) | 0x0001000000000000ull;          /* non-canonical */
  case 3: return 0xffff800000000000ull | (r >> 17);          /* kernel half */
  case 4: return near + 1 + (r >> 8) % 7;                    /* misaligned */
  case 5: return near - 4096 + (r >> 8) % 8192;
  case 6: return near ^ (1ull << ((r >> 8) % 48));            /* one bit flipped */
  case 7: return (r >> 8) & 0xffff;                          /* a small integer */
  case 8: return ~(uintptr_t)0 - ((r >> 8) & 0xff);
  case 9: return near;
  case 10: return in_codecache();
  default: return in_range(fuzz_libjvm);
  }
}

/* SS. Random option bits: mostly the two defined ones, sometimes undefined bits too (they
 * must be ignored or refused, never misread). */
static int32_t random_options(void) {
  uint64_t r = fuzz_rand();
  int32_t o = (int32_t)(r & 3);
  if (((r >> 2) & 15) == 0) o |= (int32_t)(r >> 32);
  return o;
}

/* SS. A pc seen in an earlier walk (stubs and C frames, or Java code), moved a little. */
static uintptr_t pooled_pc(void) {
  enum fuzz_pool p = fuzz_below(2) ? POOL_NONJAVA_PC : POOL_JAVA_PC;
  uintptr_t pc = fuzz_pool_get(p, fuzz_rand());
  return fuzz_below(2) ? pc : pc - 64 + fuzz_below(128);
}

/* SS. A signed offset of at most `words` words. */
static intptr_t words(int n) {
  return ((intptr_t)fuzz_below(2 * (uint64_t)n + 1) - n) * 8;
}

/* SS. The start of kind c from the real registers. */
static regs make(enum fuzz_ctx c, regs real) {
  regs g = real;
  switch (c) {
  case CTX_SPFP:
    if (fuzz_below(4)) g.sp += words(8);
    if (fuzz_below(4)) g.fp += words(8);
    break;
  case CTX_PC_DELTA: g.pc += fuzz_below(129) - 64; break;
  case CTX_CODECACHE: g.pc = in_codecache(); break;
  case CTX_LIBJVM: g.pc = in_range(fuzz_libjvm); break;
  case CTX_INTERP: g.pc = in_interpreter(); break;
  case CTX_POOL: g.pc = pooled_pc(); break;
  case CTX_STACK:
    g.sp += 8 * fuzz_below(4096);
    g.fp = fuzz_below(4) ? g.sp + 8 * fuzz_below(512) : fuzz_garbage(g.sp);
    g.pc = fuzz_below(2) ? pooled_pc() : in_codecache();
    break;
  case CTX_GARBAGE:
    if (fuzz_below(2)) g.pc = fuzz_garbage(g.pc);
    if (fuzz_below(2)) g.sp = fuzz_garbage(g.sp);
    if (fuzz_below(2)) g.fp = fuzz_garbage(g.fp);
    break;
  default: break;
  }
  return g;
}

/* SS. Walks from g, through an edited copy of the ucontext or from registers. */
static void launch(enum fuzz_ctx c, ucontext_t *uc, regs g) {
  int32_t opt = random_options();
  fuzz_walk w = {c, 0, 0, c == CTX_REAL && fuzz_below(4) == 0, opt, NULL, 0, 0};
  int kind;
  if (c == CTX_REAL) {
    kind = ASGST_RunWithIterator(uc, opt, fuzz_drain, &w);
  } else if (c == CTX_HERE) {
    kind = ASGST_RunWithIterator(NULL, opt, fuzz_drain, &w);
  } else if (fuzz_below(2)) {
    ucontext_t copy = *uc;
    uc_set_regs(&copy, g.pc, g.sp, g.fp);
    kind = ASGST_RunWithIterator(&copy, opt, fuzz_drain, &w);
  } else {
    kind = ASGST_RunWithIteratorFromFrame((void *)g.sp, (void *)g.fp, (void *)g.pc, opt,
                                          fuzz_drain, &w);
  }
  fuzz_count(&w, kind);
}

/* SS. */
void fuzz_walk_ctx(enum fuzz_ctx c, void *ucv) {
  ucontext_t *uc = ucv;
  regs real = {uc_pc(uc), uc_sp(uc), uc_fp(uc)};
  launch(c, uc, make(c, real));
}
