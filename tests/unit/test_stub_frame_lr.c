/* test_stub_frame_lr.c - arm64: where the caller of a stub without a frame record of its
 * own is (impl/arch/aarch64/stub_exit.c, asgst__hs_stub_frame_at), over instruction words
 * laid out as HotSpot's arm64 stubs are (no JVM; words from the cross assembler): C1's
 * slow_subtype_check (register saves below its two arguments, the search loop, two exits
 * through the restores and ret), a leaf block fill (a loop, no frame), a stub that builds
 * a frame record around a call, a ret reached only by a forward branch, and C1's
 * unwind_exception (its return address saved around its call of the VM, reloaded, and
 * handed on with br); then the
 * shapes that prove nothing (a write of x29 or x30 on the way, an unknown move of sp) and
 * the caller's pops of slow_subtype_check's arguments. Runs in the arm64 build (under qemu
 * here); elsewhere it reports a skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#if defined(__aarch64__)
#include "impl/arch/stub_exit.h"

/* Each array is framed by four nops on either side: the decoder reads the word before the
 * pc. Offsets count from the first word after the leading nops. */
#define PAD 0xd503201f, 0xd503201f, 0xd503201f, 0xd503201f,
#define BASE(a) ((uintptr_t)((a) + 4))
#define END(a) (BASE(a) + sizeof(a) - 8 * sizeof(uint32_t))

static uint32_t subtype[] = {
    PAD
    0xa9be0be0, /* 00 stp x0, x2, [sp, #-32]! */
    0xa90117e4, /* 04 stp x4, x5, [sp, #16] */
    0xf94017e4, /* 08 ldr x4, [sp, #40] (the subclass, an argument) */
    0xf94013e0, /* 0c ldr x0, [sp, #32] */
    0xf9400882, /* 10 ldr x2, [x4, #16] */
    0xf8408445, /* 14 ldr x5, [x2], #8 (loop) */
    0xeb0000bf, /* 18 cmp x5, x0 */
    0x54000080, /* 1c b.eq 2c (found) */
    0xf10004c6, /* 20 subs x6, x6, #1 */
    0x54ffff81, /* 24 b.ne 14 */
    0x14000006, /* 28 b 40 (miss) */
    0xd2800028, /* 2c mov x8, #1 */
    0xf90013e8, /* 30 str x8, [sp, #32] (the result, over an argument) */
    0xa94117e4, /* 34 ldp x4, x5, [sp, #16] */
    0xa8c20be0, /* 38 ldp x0, x2, [sp], #32 */
    0xd65f03c0, /* 3c ret */
    0xf90013ff, /* 40 str xzr, [sp, #32] */
    0xa94117e4, /* 44 ldp x4, x5, [sp, #16] */
    0xa8c20be0, /* 48 ldp x0, x2, [sp], #32 */
    0xd65f03c0, /* 4c ret */
    PAD
};

static uint32_t fill[] = {
    PAD
    0xf100216b, /* 00 subs x11, x11, #8 */
    0x5400008b, /* 04 b.lt 14 */
    0xd50b742a, /* 08 dc zva, x10 (loop) */
    0xf100216b, /* 0c subs x11, x11, #8 */
    0x54ffffca, /* 10 b.ge 08 */
    0x3610004b, /* 14 tbz w11, #2, 1c */
    0xb800455f, /* 18 str wzr, [x10], #4 */
    0xd65f03c0, /* 1c ret */
    PAD
};

static uint32_t framed[] = {
    PAD
    0xa9bf7bfd, /* 00 stp x29, x30, [sp, #-16]! */
    0x910003fd, /* 04 mov x29, sp */
    0x94000010, /* 08 bl (a leaf) */
    0x910003bf, /* 0c mov sp, x29 */
    0xa8c17bfd, /* 10 ldp x29, x30, [sp], #16 */
    0xaa1f03e0, /* 14 mov x0, xzr */
    0xd65f03c0, /* 18 ret */
    PAD
};

static uint32_t forked[] = {
    PAD
    0xb4000060, /* 00 cbz x0, 0c */
    0xd61f0020, /* 04 br x1 */
    0xd503201f, /* 08 nop */
    0xd65f03c0, /* 0c ret */
    PAD
};

/* The answer at offset off of code a. */
static bool at(uint32_t *a, uintptr_t end, unsigned off, asgst__hs_stub_frame *f) {
  memset(f, 0x55, sizeof *f);
  return asgst__hs_stub_frame_at(BASE(a) + off, BASE(a), end, false, f);
}

static void in_lr(uint32_t *a, uintptr_t end, unsigned off, long depth) {
  asgst__hs_stub_frame f;
  assert_true(at(a, end, off, &f));
  assert_int_equal(f.where, ASGST__STUB_RA_IN_LR);
  assert_int_equal(f.depth, depth);
  assert_int_equal(f.fp_at, -1);
}

static void subtype_check_every_pc(void **state) {
  (void)state;
  uintptr_t end = END(subtype);
  in_lr(subtype, end, 0x00, 0);
  for (unsigned off = 0x04; off <= 0x38; off += 4) in_lr(subtype, end, off, 32);
  in_lr(subtype, end, 0x3c, 0);
  for (unsigned off = 0x40; off <= 0x48; off += 4) in_lr(subtype, end, off, 32);
  in_lr(subtype, end, 0x4c, 0);
}

static void leaf_fill_every_pc(void **state) {
  (void)state;
  for (unsigned off = 0; off <= 0x1c; off += 4) in_lr(fill, END(fill), off, 0);
}

static void frame_record_around_a_call(void **state) {
  (void)state;
  uintptr_t end = END(framed);
  asgst__hs_stub_frame f;
  in_lr(framed, end, 0x00, 0);
  for (unsigned off = 0x04; off <= 0x10; off += 0x0c) {
    assert_true(at(framed, end, off, &f));
    assert_int_equal(f.where, ASGST__STUB_RA_AT_SP);
    assert_int_equal(f.ra, 8);
    assert_int_equal(f.depth, 16);
    assert_int_equal(f.fp_at, 0);
  }
  /* At the call and at the mov sp,x29 the record is at fp: nothing proven here. */
  assert_false(at(framed, end, 0x08, &f));
  assert_false(at(framed, end, 0x0c, &f));
  in_lr(framed, end, 0x14, 0);
  in_lr(framed, end, 0x18, 0);
}

static void forward_branch_taken_when_the_line_fails(void **state) {
  (void)state;
  in_lr(forked, END(forked), 0x00, 0);
  asgst__hs_stub_frame f;
  assert_false(at(forked, END(forked), 0x04, &f));
}

static uint32_t line[] = {
    PAD
    0xd503201f, /* 00 nop */
    0x91004000, /* 04 add x0, x0, #16 */
    0xd503201f, /* 08 nop: replaced by each spoiler */
    0xd65f03c0, /* 0c ret */
    PAD
};

static void unproven_shapes(void **state) {
  (void)state;
  asgst__hs_stub_frame f;
  uintptr_t end = END(line);
  static const uint32_t spoilers[] = {
      0xaa0103fd, /* mov x29, x1 */
      0xf94007fe, /* ldr x30, [sp, #8] */
      0x927cec3f, /* and sp, x1, #-16 */
      0x94000010, /* bl */
      0xd61f0020, /* br x1 */
      0x17fffffe, /* b 00 (backward) */
  };
  in_lr(line, end, 0x00, 0);
  for (size_t i = 0; i < sizeof spoilers / sizeof spoilers[0]; i++) {
    line[4 + 2] = spoilers[i];
    assert_false(at(line, end, 0x00, &f));
    assert_false(at(line, end, 0x08, &f));
  }
  line[4 + 2] = 0xd503201f;
  in_lr(line, end, 0x08, 0);
  /* The path leaves the blob before its ret; and a stub left by popping its return
   * address is not decoded on arm64. */
  assert_false(asgst__hs_stub_frame_at(BASE(line), BASE(line), BASE(line) + 0x0c, false, &f));
  assert_false(asgst__hs_stub_frame_at(BASE(line), BASE(line), end, true, &f));
}

static uint32_t unwind[] = {
    PAD
    0xa9bf03fe, /* 00 stp x30, x0, [sp, #-16]! (the return address saved) */
    0xa9bf33e8, /* 04 stp x8, x12, [sp, #-16]! (call_VM_leaf's saves) */
    0xd2824688, /* 08 mov x8, #0x1234 */
    0xf2aacf08, /* 0c movk x8, #0x5678, lsl #16 */
    0xd63f0100, /* 10 blr x8 (the VM's handler lookup) */
    0xa8c133e8, /* 14 ldp x8, x12, [sp], #16 */
    0xaa0003e1, /* 18 mov x1, x0 */
    0xa8c103fe, /* 1c ldp x30, x0, [sp], #16 (the return address reloaded) */
    0xd50323bf, /* 20 autiasp */
    0xaa1e03e3, /* 24 mov x3, x30 */
    0xd61f0020, /* 28 br x1 (the caller's handler) */
    PAD
};

/* Instructions whose fields name 29 or 30 without writing x29 or x30: a register offset
 * load (its option bits sit where a pair's second register would), SIMD loads of v29 and
 * v30, vector moves (JDK 25's slow_subtype_check counts bits in v0). */
static uint32_t lookalikes[] = {
    PAD
    0xf8617843, /* 00 ldr x3, [x2, x1, lsl #3] */
    0x3dc0003e, /* 04 ldr q30, [x1] */
    0xad40785d, /* 08 ldp q29, q30, [x2] */
    0x4e083c02, /* 0c mov x2, v0.d[0] */
    0x0e205800, /* 10 cnt v0.8b, v0.8b */
    0xd65f03c0, /* 14 ret */
    PAD
};

static void lookalikes_are_no_writes(void **state) {
  (void)state;
  uintptr_t end = END(lookalikes);
  for (unsigned off = 0; off <= 0x14; off += 4) in_lr(lookalikes, end, off, 0);
  asgst__hs_stub_frame f;
  lookalikes[4] = 0xf861785e; /* ldr x30, [x2, x1, lsl #3] does write x30 */
  assert_false(at(lookalikes, end, 0x00, &f));
  lookalikes[4] = 0xf8617843;
}

static void unwind_every_pc(void **state) {
  (void)state;
  uintptr_t end = END(unwind);
  static const struct { unsigned off; int where; long ra, depth; } want[] = {
      {0x04, ASGST__STUB_RA_AT_SP, 0, 16}, {0x08, ASGST__STUB_RA_AT_SP, 16, 32},
      {0x10, ASGST__STUB_RA_AT_SP, 16, 32}, {0x14, ASGST__STUB_RA_AT_SP, 16, 32},
      {0x18, ASGST__STUB_RA_AT_SP, 0, 16}, {0x1c, ASGST__STUB_RA_AT_SP, 0, 16},
      {0x20, ASGST__STUB_RA_IN_LR, 0, 0}, {0x28, ASGST__STUB_RA_IN_LR, 0, 0},
  };
  asgst__hs_stub_frame f;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    memset(&f, 0x55, sizeof f);
    assert_true(asgst__hs_stub_frame_at(BASE(unwind) + want[i].off, BASE(unwind), end, true, &f));
    assert_int_equal(f.where, want[i].where);
    if (f.where == ASGST__STUB_RA_AT_SP) assert_int_equal(f.ra, want[i].ra);
    assert_int_equal(f.depth, want[i].depth);
    assert_int_equal(f.fp_at, -1);
  }
  /* At the entry the slot the reload reads is not written yet; as a returning stub it
   * proves nothing (no ret). */
  assert_false(asgst__hs_stub_frame_at(BASE(unwind), BASE(unwind), end, true, &f));
  assert_false(asgst__hs_stub_frame_at(BASE(unwind) + 0x18, BASE(unwind), end, false, &f));
  /* x30 written after its reload, other than by an authentication hint: no answer. */
  unwind[4 + 0x20 / 4] = 0xaa0103fe; /* mov x30, x1 */
  assert_false(asgst__hs_stub_frame_at(BASE(unwind) + 0x18, BASE(unwind), end, true, &f));
  unwind[4 + 0x20 / 4] = 0xd50323bf;
  /* the reload as ldp with x30 second, and as ldr */
  unwind[4 + 0x1c / 4] = 0xa8c17be0; /* ldp x0, x30, [sp], #16 */
  assert_true(asgst__hs_stub_frame_at(BASE(unwind) + 0x18, BASE(unwind), end, true, &f));
  assert_int_equal(f.ra, 8);
  unwind[4 + 0x1c / 4] = 0xf84107fe; /* ldr x30, [sp], #16 */
  assert_true(asgst__hs_stub_frame_at(BASE(unwind) + 0x18, BASE(unwind), end, true, &f));
  assert_int_equal(f.ra, 0);
  unwind[4 + 0x1c / 4] = 0xa8c103fe;
}

static void arguments_popped_by_the_caller(void **state) {
  (void)state;
  static const uint32_t popped[] = {0xa8c103e1 /* ldp x1, x0, [sp], #16 */,
                                    0xf84107e1 /* ldr x1, [sp], #16 */};
  static const uint32_t not_popped[] = {0xa8c203e1 /* ldp x1, x0, [sp], #32 */,
                                        0xf9400be1 /* ldr x1, [sp, #16] */,
                                        0xd503201f /* nop */};
  for (size_t i = 0; i < 2; i++) assert_int_equal(asgst__hs_args_popped_at((uintptr_t)&popped[i]), 16);
  for (size_t i = 0; i < 3; i++) assert_int_equal(asgst__hs_args_popped_at((uintptr_t)&not_popped[i]), 0);
  /* bl -0x40 just before the pop: its target; a b there: none. */
  static const uint32_t call[] = {0x97fffff0 /* bl .-0x40 */, 0xf84107e1, 0x17fffff0 /* b .-0x40 */, 0xf84107e1};
  assert_true(asgst__hs_call_target_before((uintptr_t)&call[1]) == (uintptr_t)&call[0] - 0x40);
  assert_true(asgst__hs_call_target_before((uintptr_t)&call[3]) == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(subtype_check_every_pc),
      cmocka_unit_test(leaf_fill_every_pc),
      cmocka_unit_test(frame_record_around_a_call),
      cmocka_unit_test(forward_branch_taken_when_the_line_fails),
      cmocka_unit_test(unproven_shapes),
      cmocka_unit_test(unwind_every_pc),
      cmocka_unit_test(lookalikes_are_no_writes),
      cmocka_unit_test(arguments_popped_by_the_caller),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
TEST_OTHER_ARCH_MAIN("arm64 only: on x86_64 a call leaves the return address on the stack (test_c1_leaf_stubs)")
#endif
