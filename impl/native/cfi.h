/*
 * cfi.h - DWARF call frame tables for stepping C frames (issue 28, mixed native stacks).
 *
 * The tables are built outside any signal handler, from the .eh_frame_hdr / .eh_frame of
 * every loaded object: per object a table (cfi_table.h) of sorted rows, one row per
 * change of the rule (CFA = SP or FP + offset; saved FP and return address at CFA +
 * offset, "same value" or undefined). A row is a 32-bit pc offset and a 16-bit index
 * into the object's dictionary of distinct rules (a few hundred serve libjvm), so 6
 * bytes a row, and the binary search runs over the pcs alone, behind a small cache of
 * the pcs last looked up. A snapshot (cfi_snapshot.h) lists the objects' tables by
 * address and is published through an atomic pointer; readers (lookup, step) never
 * lock, allocate, print or call dl_iterate_phdr. A rebuild keeps the tables of objects
 * still loaded and parses only new ones. An object without .eh_frame_hdr is read from
 * its file's .debug_frame (not from separate debug files).
 *
 * Lifetime: a rebuild publishes a new snapshot and retires the old one, and the tables of
 * objects no longer loaded, to lists. Readers bracket their use of the tables with a
 * reader section (asgst__cfi_enter / asgst__cfi_exit, cfi_epoch.h: two atomic adds, signal
 * safe, nestable); asgst__cfi_reclaim frees what was retired once every section that could
 * still hold it has ended, never waiting for one. asgst__cfi_release_retired frees it all
 * at a quiescent point (no thread inside lookup or step). A rule or object pointer is
 * valid within the section it was looked up in.
 *
 * A thread's bottom C frames (below its first call stub, the same on every walk) are
 * remembered between walks with the stack words they were found from, and taken again
 * while those words read the same: cfi_tail.h.

 * SS = async-signal-safe, N = ordinary (may allocate, lock, call dl_iterate_phdr).
 */
#ifndef ASGST_NATIVE_CFI_H
#define ASGST_NATIVE_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impl/arch/plt_entry.h"   /* asgst__code_read_fn, the reader of code and stack */
#include "impl/native/cfi_epoch.h" /* asgst__cfi_enter, asgst__cfi_exit: reader sections */

/* What the CFA is computed from. EXPR, GAP: no rule (a gap between functions, a CFA given
 * by an expression as in PLT entries, or based on another register): step with frame
 * pointers instead. SIGNAL: a signal return trampoline (its CIE says 'S'), whatever its
 * rules say: stepped through the kernel's signal frame (sigframe.h), as is any pc without
 * a usable rule whose code is a trampoline's. */
enum { ASGST_CFA_SP = 0, ASGST_CFA_FP = 1, ASGST_CFA_EXPR = 2, ASGST_CFA_GAP = 3, ASGST_CFA_SIGNAL = 4 };

/* Where the caller's value of a register (FP, return address) is. */
enum { ASGST_REG_SAME = 0, ASGST_REG_UNDEF = 1, ASGST_REG_AT_CFA = 2, ASGST_REG_OTHER = 3 };

/* One rule: how to find the caller's registers over a range of pcs. */
struct asgst_cfi_rule {
  int32_t cfa_off;
  int16_t fp_off; /* when fp_rule == ASGST_REG_AT_CFA: saved at CFA + fp_off */
  int16_t ra_off; /* when ra_rule == ASGST_REG_AT_CFA */
  uint8_t cfa_reg, fp_rule, ra_rule;
  uint8_t plain; /* ASGST_CFI_PLAIN_*: set in a table's dictionary only (0 in rows) */
};

/* A rule of the kind most frames have, which a walk's loop over C frames takes with one
 * test: the CFA from sp by a positive multiple of 8 (PLAIN_SP) or from fp (PLAIN_FP), the
 * return address saved at the CFA, fp kept, saved at the CFA or undefined, both saved at
 * multiples of 8 from it. 0: any other rule (stepped by asgst__cfi_apply). */
enum { ASGST_CFI_PLAIN_SP = 1, ASGST_CFI_PLAIN_FP = 2 };

/* A thread's registers at one frame. */
struct asgst_cfi_frame {
  uintptr_t pc, sp, fp;
  uintptr_t lr; /* arm64's link register, known in the interrupted frame only (else 0) */
};

/* SS. Reads the word at addr into *value; false if the address cannot be read. The same
 * reader as impl/arch/'s decoders take (they cannot include this room). */
typedef asgst__code_read_fn asgst_cfi_read_fn;

enum {
  ASGST_CFI_SIGNAL = 2,    /* *frame now holds the registers a signal interrupted (the
                            * frame was a signal return trampoline): its pc is no return
                            * address, and lr is arm64's link register there */
  ASGST_CFI_STEPPED = 1,   /* *frame now holds the caller's registers */
  ASGST_CFI_OUTERMOST = 0, /* the return address is undefined: the stack's first frame */
  ASGST_CFI_NO_RULE = -1,  /* no table row for pc: try frame pointers */
  ASGST_CFI_BAD_READ = -2, /* a saved register could not be read, or the CFA is below sp */
};

/* N. (Re)builds the tables of all loaded objects and publishes them; call at
 * initialization and after a library was loaded. 0, or -1 if out of memory. */
int asgst__cfi_build(void);

/* N. Builds the tables if objects were loaded or unloaded since the last build (or there
 * was none): 1 if it built, 0 if nothing changed, -1 if out of memory. Cheap when nothing
 * changed (one dl_iterate_phdr entry), so ordinary frequent events may call it. */
int asgst__cfi_refresh(void);

/* SS. The rule at pc, NULL if no object covers pc or pc falls in a gap between
 * functions (cfa_reg ASGST_CFA_EXPR is a rule the stepper cannot use).
 * pc_is_return_address: pc is a return address (every frame but the
 * interrupted one), so the call instruction before it is looked up. */
const struct asgst_cfi_rule *asgst__cfi_lookup(uintptr_t pc, bool pc_is_return_address);

/* An object of the published tables (opaque to callers). */
struct asgst_cfi_object;

/* SS. asgst__cfi_lookup trying *near first (an object an earlier lookup of the same walk
 * left there, or NULL): consecutive C frames mostly lie in one object. Leaves in *near
 * the object pc was found in. *near stays readable until the reader section it was found
 * in ends (see Lifetime). */
const struct asgst_cfi_rule *asgst__cfi_lookup_near(uintptr_t pc, bool pc_is_return_address,
                                                    const struct asgst_cfi_object **near);

/* SS. True if tables are published and pc lies in no executable segment of the objects
 * loaded at their build (with table rows or not); false before the first build, where
 * nothing is known. An object loaded since the last build is not known either: its pcs
 * are outside until the next refresh. The JIT's code cache is no loaded object: the
 * caller asks the VM about it first. */
bool asgst__cfi_outside_code(uintptr_t pc);
/* SS. True if tables are published and pc lies in an executable segment of an object
 * loaded at their build; false before the first build (nothing is proven). */
bool asgst__cfi_inside_code(uintptr_t pc);

/* SS. If frame was interrupted (top) in a PLT entry of a loaded object that the tables
 * have no row for (arm64's linkers give .plt none; impl/arch/plt_entry.h recognizes an
 * entry by its words, read through read) and its link register points into a loaded
 * object's code too (a PLT is called from its own object), steps *frame to the caller:
 * ASGST_CFI_STEPPED, at the link register with the same sp and fp (the entry writes only
 * scratch registers). ASGST_CFI_NO_RULE otherwise. Only an interrupted frame: an entry
 * calls nothing, so it is never a caller, and only it has a known link register. */
int asgst__cfi_plt_step(struct asgst_cfi_frame *frame, bool top, asgst_cfi_read_fn read,
                        void *ctx);

/* SS. Steps *frame to its caller with the tables, or, where they have no usable rule, to
 * the context a signal interrupted where pc is a signal return trampoline (sigframe.h),
 * or to the caller of an interrupted PLT entry (asgst__cfi_plt_step). *frame changes
 * only when the result is ASGST_CFI_STEPPED or ASGST_CFI_SIGNAL. */
int asgst__cfi_step(struct asgst_cfi_frame *frame, bool pc_is_return_address,
                    asgst_cfi_read_fn read, void *ctx);

/* SS. asgst__cfi_step with the rule already looked up (asgst__cfi_lookup of frame->pc;
 * NULL: none), for a caller that looked the pc up when it stepped to it. */
int asgst__cfi_step_with(const struct asgst_cfi_rule *rule, struct asgst_cfi_frame *frame,
                         asgst_cfi_read_fn read, void *ctx);

/* The memory the tables take. */
struct asgst_cfi_report {
  size_t bytes;         /* the published snapshot and its tables */
  size_t objects, rows, rules; /* in the published snapshot (rules: of every table) */
  size_t retired_bytes; /* retired snapshots and tables not yet freed */
  /* Since the process started: snapshots and tables retired, and freed. */
  size_t snapshots_retired, snapshots_freed, tables_retired, tables_freed;
};

/* SS. Fills *out (zeros before the first build). */
void asgst__cfi_report(struct asgst_cfi_report *out);

/* N. Frees the retired snapshots and tables that no reader section can still hold
 * (cfi_epoch.h); what an open section may hold stays for a later call. Never waits.
 * Returns how many it freed. */
size_t asgst__cfi_reclaim(void);

/* N. asgst__cfi_refresh, then asgst__cfi_reclaim: the background thread's periodic work.
 * Returns asgst__cfi_refresh's answer. */
int asgst__cfi_poll(void);

/* N. Frees every retired snapshot and table. Only when no thread can be inside lookup or
 * step (a test between phases, or shutdown). */
void asgst__cfi_release_retired(void);

/* N. Unpublishes and frees everything. Same precondition as asgst__cfi_release_retired. */
void asgst__cfi_shutdown(void);

#endif
