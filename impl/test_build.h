/*
 * test_build.h - every way the test build of the library differs from the product.
 *
 * The test programs link a second build of the same sources, compiled with
 * ASGST_TEST_BUILD (CMake: asgst_test, libasgst-test.a, for the JVM test agents and the
 * demo profiler's refusal test; asgst_test_san, its sanitized twin, for the unit tests).
 * libasgst.so and libasgst.a are compiled without it and carry none of the following
 * (tests/conformance/test_exports.sh checks their symbols and strings). The whole list:
 *  1. ASGST__OPT_ASGCT_PCDESC_RULE, an iterator option (impl/hotspot/walking/walker.c).
 *  2. ASGST__OPT_COPY_CHECK, an option of ASGST_RunWithIteratorOnThread
 *     (api/remote_walk.c).
 *  3. vmStructs names hidden from the model, to see a VM refused:
 *     asgst__vm_hide_for_test (impl/hotspot/model/vm_model.c), and the environment variable
 *     ASGST_TEST_HIDE_FIELD read once per binding (impl/hotspot/hotspot_init.c).
 *  4. Counters of class shadows, asgst__hs_shadow_stats (impl/hotspot/classes/class_shadow.c).
 *  5. Counters and times of queue processing, asgst__hs_queue_stats_get and
 *     asgst__hs_queue_median_ns (impl/hotspot/queues/queue_thread.c).
 * In the product the two option bits are 0, so every test of them folds away at compile
 * time (the walk's frame step reads no test switch), and the definitions behind 3-5 are
 * not compiled. A file with test-only code holds it in one `#if ASGST__TEST_BUILD` block.
 */
#ifndef ASGST_IMPL_TEST_BUILD_H
#define ASGST_IMPL_TEST_BUILD_H

#include <stdatomic.h>
#include <stdint.h>

#ifdef ASGST_TEST_BUILD
#define ASGST__TEST_BUILD 1
#else
#define ASGST__TEST_BUILD 0
#endif

#if ASGST__TEST_BUILD

/* 1. For the walk test agent: the first Java frame found below a stub frame (e.g. a
 * thread stopped in the safepoint handler) takes AsyncGetCallTrace's PcDesc (the first one
 * after its pc) instead of the exact PcDesc at its pc, which is what the VM itself uses
 * there. The agent re-walks with it to prove that a disagreement comes from that rule
 * alone. Carried in the iterator's options, so the walk reads no thread-local switch. */
#define ASGST__OPT_ASGCT_PCDESC_RULE (1 << 30)
/* 2. With ASGST_COPY_STACK, for tests that measure how wrong copy walks get: fun is
 * called twice, first on the held target (a blocking walk of that moment), then on the
 * copy after the release. */
#define ASGST__OPT_COPY_CHECK (1 << 26)

/* 3. N. Hides the comma-separated vmStructs names (NULL: none) from the next model
 * built, as if the VM did not export them. */
void asgst__vm_hide_for_test(const char *names);

/* 4. What the class shadows did. */
typedef struct {
  long shadows;       /* shadows taken */
  long methods;       /* methods in them */
  long bytes;         /* bytes allocated for them (one block per shadow) */
  long live;          /* shadows not yet freed */
  long published;     /* times a shadow was published */
  long unpublished;   /* times no slot was free (handler ran without its shadow) */
  long answered;      /* accessor calls answered from a shadow */
  long discarded;     /* freed without being published: a duplicate registration (the
                       * class was prepared while the loaded classes were registered) or
                       * a shadow retaken after redefinition */
} asgst__hs_shadow_stats_t;
/* N. */
asgst__hs_shadow_stats_t asgst__hs_shadow_stats(void);

/* 5. What the queue processing thread did: rounds (one owner suspended and resumed),
 * elements handled, owners that could not be suspended, owners stopped with no Java
 * frame (their elements all stale), and the suspend-to-resume
 * times; what owners did in their handlers: waits for their poll to be armed, how many
 * saw it armed, how many gave up at the bound (of which while every processing thread
 * was busy with another owner's round), and the time spent waiting; how many waited at
 * real-time priority (queue_boost.c) and how many of those gave up. */
typedef struct {
  _Atomic uint64_t rounds, elements, not_suspended, no_java, stopped_ns;
  _Atomic uint64_t waits, armed, gave_up, gave_up_behind, wait_ns, raised, raised_gave_up;
} asgst__hs_queue_stats;
/* N. */
asgst__hs_queue_stats asgst__hs_queue_stats_get(void);
/* N. The median of the last 4096 suspend-to-resume times, 0 if none. */
uint64_t asgst__hs_queue_median_ns(void);
/* N. Their quantile q (0..1), 0 if none. */
uint64_t asgst__hs_queue_quantile_ns(double q);
/* SS. With one processing thread (21+): the number of the round the calling owner's last
 * wait (in its latest ASGST_Enqueue) gave up behind, 0 if it did not. */
uint64_t asgst__hs_queue_last_behind(void);
/* N. How long a round may last before an owner waiting behind it gives up, ns. */
uint64_t asgst__hs_queue_give_up_ns(void);
/* SS. How long round seq's two threads waited for a CPU during it, ns, from the kernel's
 * scheduler statistics: the sum, and (when not NULL) the owner's and the processing
 * thread's parts; -1 if that round is not known (not ended, or long forgotten).
 * impl/hotspot/queues/queue_machine.c. */
int64_t asgst__hs_queue_round_machine_ns(uint64_t seq, uint64_t *owner, uint64_t *processing);

#else

/* The product's option bits: none, so `options & bit` is a constant 0. */
#define ASGST__OPT_ASGCT_PCDESC_RULE 0
#define ASGST__OPT_COPY_CHECK 0

#endif

#endif
