/* test_hs_code_decode_aarch64.c - the arm64 prologue and epilogue decoder of the HotSpot
 * walker (impl/arch/aarch64/frame_code.c) over instruction words as HotSpot's arm64
 * compilers emit them (no JVM; words from the cross assembler): where the return address
 * and the caller's fp are at each pc of a C2 prologue with the stack bang and the entry
 * barrier, of frames built by a pre-indexed stp (large frames, through a scratch
 * register past 4 KiB), with pointer authentication, of the two epilogue forms with the
 * return poll, and that any other instruction stops the decoding. Runs in the arm64
 * build (under qemu here); elsewhere it reports a skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "impl/arch/frame_code.h"

#if defined(__aarch64__)
/* C2's verified entry with G1 on JDK 21: a frame of 0x30 bytes. */
static const uint32_t c2_prologue[16] = {
    0xd503201f, /* 0x00 nop (patched to a jump when the method is made not entrant) */
    0xd14053e9, /* 0x04 sub x9, sp, #0x14, lsl #12  (the stack bang's address) */
    0xf900013f, /* 0x08 str xzr, [x9] */
    0xd100c3ff, /* 0x0c sub sp, sp, #0x30 */
    0xa9027bfd, /* 0x10 stp x29, x30, [sp, #32] */
    0x18ffff68, /* 0x14 ldr w8, guard (the nmethod entry barrier) */
    0xb9402389, /* 0x18 ldr w9, [x28, #32] */
    0x6b09011f, /* 0x1c cmp w8, w9 */
    0x54ffff01, /* 0x20 b.ne slow path */
    0xaa0103e0, /* 0x24 mov x0, x1: the method's code */
};

/* A frame of 0x1240 bytes: record first, the rest through x8; signed return address. */
static const uint32_t big_prologue[16] = {
    0xd503231f, /* 0x00 paciaz */
    0xa9bf7bfd, /* 0x04 stp x29, x30, [sp, #-16]! */
    0xd2824608, /* 0x08 mov x8, #0x1230 */
    0xcb2863ff, /* 0x0c sub sp, sp, x8 */
    0x910043fd, /* 0x10 add x29, sp, #0x10 (PreserveFramePointer) */
    0xaa0103e0, /* 0x14 the method's code */
};

/* A frame of 0x230 bytes, signed with the frame pointer as modifier (pac-ret). */
static const uint32_t mid_prologue[16] = {
    0xdac103be, /* 0x00 pacia x30, x29 */
    0xa9bf7bfd, /* 0x04 stp x29, x30, [sp, #-16]! */
    0xd10883ff, /* 0x08 sub sp, sp, #0x220 */
    0xaa0103e0, /* 0x0c the method's code */
};

/* C2's epilogue of the 0x30-byte frame, with the return poll. */
static const uint32_t epilogue[16] = {
    0xa9427bfd, /* 0x00 ldp x29, x30, [sp, #32] */
    0x9100c3ff, /* 0x04 add sp, sp, #0x30 */
    0xd503239f, /* 0x08 autiaz */
    0xf941db88, /* 0x0c ldr x8, [x28, #944] (the poll word) */
    0xeb2863ff, /* 0x10 cmp sp, x8 */
    0x54ffff68, /* 0x14 b.hi the poll stub */
    0xd65f03c0, /* 0x18 ret */
};

/* The large frame's epilogue: release, then the post-indexed ldp. */
static const uint32_t big_epilogue[16] = {
    0x910883ff, /* 0x00 add sp, sp, #0x220 */
    0xa8c17bfd, /* 0x04 ldp x29, x30, [sp], #16 */
    0xdac113be, /* 0x08 autia x30, x29 */
    0xf9401788, /* 0x0c ldr x8, [x28, #40] */
    0xeb2863ff, /* 0x10 cmp sp, x8 */
    0x54fffe88, /* 0x14 b.hi the poll stub */
    0xd65f03c0, /* 0x18 ret */
};

/* A continuation return barrier's start, and ordinary code before a ret. */
static const uint32_t barrier[8] = {0xf9427789 /* ldr x9, [x28, #1256] */, 0x9100013f /* mov sp, x9 */,
                                    0xd65f03c0};
static const uint32_t not_epilogue[8] = {0x91000400 /* add x0, x0, #1 */, 0xd65f03c0};

static asgst__hs_stack_effect pro(const uint32_t *code, int off, long frame, bool *ok) {
  asgst__hs_stack_effect e;
  *ok = asgst__hs_decode_prologue((uintptr_t)code, (uintptr_t)code + (uintptr_t)off, frame, &e);
  return e;
}

static void expect(asgst__hs_stack_effect e, long depth, long ra, long fp) {
  assert_int_equal(e.depth, depth);
  assert_int_equal(e.ra_slot, ra);
  assert_int_equal(e.fp_slot, fp);
}

static void c2_prologue_each_pc(void **state) {
  (void)state;
  bool ok;
  for (int off = 0; off <= 0x0c; off += 4) { /* nothing moved: the return address in lr */
    asgst__hs_stack_effect e = pro(c2_prologue, off, 0x30, &ok);
    assert_true(ok);
    expect(e, 0, -1, -1);
  }
  asgst__hs_stack_effect e = pro(c2_prologue, 0x10, 0x30, &ok); /* allocated, not saved */
  assert_true(ok);
  expect(e, 0x30, -1, -1);
  for (int off = 0x14; off <= 0x24; off += 4) { /* complete: the barrier is not decoded */
    e = pro(c2_prologue, off, 0x30, &ok);
    assert_true(ok);
    expect(e, 0x30, 0x28, 0x20);
  }
  pro(c2_prologue, 0x18, 0, &ok); /* without the frame size, the barrier is not understood */
  assert_false(ok);
}

/* The prologue decodes up to off, with that effect. */
static void expect_pro(const uint32_t *code, int off, long frame, long depth, long ra, long fp) {
  bool ok;
  asgst__hs_stack_effect e = pro(code, off, frame, &ok);
  assert_true(ok);
  expect(e, depth, ra, fp);
}

static void large_frames(void **state) {
  (void)state;
  expect_pro(big_prologue, 0x04, 0x1240, 0, -1, -1);         /* signed: nothing saved yet */
  expect_pro(big_prologue, 0x08, 0x1240, 16, 8, 0);          /* the record pushed */
  expect_pro(big_prologue, 0x0c, 0x1240, 16, 8, 0);          /* x8 loaded */
  expect_pro(big_prologue, 0x14, 0x1240, 0x1240, 0x1238, 0x1230);
  expect_pro(mid_prologue, 0x04, 0x230, 0, -1, -1);
  expect_pro(mid_prologue, 0x08, 0x230, 16, 8, 0);
  expect_pro(mid_prologue, 0x0c, 0x230, 0x230, 0x228, 0x220);
}

static void epilogues(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue, &e));
  expect(e, 0x30, 0x28, 0x20);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue + 4, &e)); /* record loaded */
  expect(e, 0x30, -1, -1);
  for (int off = 8; off <= 0x18; off += 4) { /* released: lr and x29 are the caller's */
    assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue + (uintptr_t)off, &e));
    expect(e, 0, -1, -1);
  }
  assert_true(asgst__hs_decode_epilogue((uintptr_t)big_epilogue, &e));
  expect(e, 0x230, 0x228, 0x220);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)big_epilogue + 4, &e));
  expect(e, 16, 8, 0);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)big_epilogue + 8, &e));
  expect(e, 0, -1, -1);
  assert_false(asgst__hs_decode_epilogue((uintptr_t)not_epilogue, &e));
  assert_false(asgst__hs_decode_epilogue((uintptr_t)c2_prologue + 0x24, &e));
}

static void stubs(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  asgst__hs_entry_effect(&e);
  expect(e, 0, -1, -1);
  assert_true(asgst__hs_at_return((uintptr_t)(epilogue + 6)));
  assert_false(asgst__hs_at_return((uintptr_t)epilogue));
  assert_int_equal(asgst__hs_barrier_thread_offset((uintptr_t)barrier), 1256);
  assert_int_equal(asgst__hs_barrier_thread_offset((uintptr_t)epilogue), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(c2_prologue_each_pc),
      cmocka_unit_test(large_frames),
      cmocka_unit_test(epilogues),
      cmocka_unit_test(stubs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
/* The arm64 decoder is built into arm64 libraries only: the arm64 suite runs these checks. */
TEST_OTHER_ARCH_MAIN("arm64 only: the arm64 build runs these checks (under qemu here)")
#endif
