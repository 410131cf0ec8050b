/* test_adapter_lr.c - arm64: the adapters' blob and PLT entries, where the return address
 * is still in the link register (impl/arch/aarch64/adapter_lr.c), over instruction words
 * laid out as HotSpot's arm64 i2c/c2i adapters (JDK 21's sharedRuntime_aarch64.cpp: the
 * i2c's argument loads, push_cont_fastpath and br into the compiled entry; the c2i's inline
 * cache check, class initialization barrier, entry barrier, the frame record around the
 * fix of the caller's call site, and the interpreter's arguments below a grown sp) and as
 * GNU ld's PLT entries (no JVM; words from the cross assembler). Runs in the arm64 build
 * (under qemu here); elsewhere it reports a skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#if defined(__aarch64__)
#include "impl/arch/adapter_frame.h"
#include "impl/arch/adapter_lr.h"
#include "impl/arch/plt_entry.h"

/* Each array of words is framed by four nops on either side: the decoders read a few
 * words around the pc (safe reads in the library; out of bounds for the sanitizer). The
 * offsets in the comments and below count from the first word after the leading nops. */
#define PAD 0xd503201f, 0xd503201f, 0xd503201f, 0xd503201f,
#define BASE(a) ((uintptr_t)((a) + 4))
#define LEN(a) (sizeof(a) - 8 * sizeof(uint32_t))

/* One adapter set: the i2c at 0 (through its br at 0x2c), the c2i after it. */
static const uint32_t adapters[] = {
    PAD
    0xf9402588, /* 0 ldr x8, [x12, #72] */
    0xf9400681, /* 4 ldr x1, [x20, #8] */
    0xb9400282, /* 8 ldr w2, [x20] */
    0xaa0803e9, /* c mov x9, x8 */
    0xf9408388, /* 10 ldr x8, [x28, #256] */
    0xeb2863ff, /* 14 cmp sp, x8 */
    0x54000069, /* 18 b.ls 24 */
    0x910003e8, /* 1c mov x8, sp */
    0xf9008388, /* 20 str x8, [x28, #256] */
    0xaa0903e8, /* 24 mov x8, x9 */
    0xf901038c, /* 28 str x12, [x28, #512] */
    0xd61f0100, /* 2c br x8 */
    0xb9400828, /* 30 ldr w8, [x1, #8] */
    0xf940052a, /* 34 ldr x10, [x9, #8] */
    0xeb0a011f, /* 38 cmp x8, x10 */
    0xf940092c, /* 3c ldr x12, [x9, #16] */
    0x54000080, /* 40 b.eq 50 */
    0x90000008, /* 44 adrp x8, 0 */
    0x91004108, /* 48 add x8, x8, #0x10 */
    0xd61f0100, /* 4c br x8 */
    0xf9402188, /* 50 ldr x8, [x12, #64] */
    0xb40004a8, /* 54 cbz x8, e8 */
    0x90000008, /* 58 adrp x8, 0 */
    0x91004108, /* 5c add x8, x8, #0x10 */
    0xd61f0100, /* 60 br x8 */
    0xb9403188, /* 64 ldr w8, [x12, #48] */
    0x721d011f, /* 68 tst w8, #0x8 */
    0x54000160, /* 6c b.eq 98 */
    0xf9400589, /* 70 ldr x9, [x12, #8] */
    0x39448128, /* 74 ldrb w8, [x9, #288] */
    0x7100111f, /* 78 cmp w8, #0x4 */
    0x540000e0, /* 7c b.eq 98 */
    0xf9409928, /* 80 ldr x8, [x9, #304] */
    0xeb1c011f, /* 84 cmp x8, x28 */
    0x54000080, /* 88 b.eq 98 */
    0x90000008, /* 8c adrp x8, 0 */
    0x91008108, /* 90 add x8, x8, #0x20 */
    0xd61f0100, /* 94 br x8 */
    0xb400006c, /* 98 cbz x12, a4 */
    0xf9400588, /* 9c ldr x8, [x12, #8] */
    0xb5000088, /* a0 cbnz x8, b0 */
    0x17ffffd3, /* a4 b lo-16 (a near jump to a stub out of the blob) */
    0x91008108, /* a8 add x8, x8, #0x20 */
    0xd61f0100, /* ac br x8 */
    0xf9402188, /* b0 ldr x8, [x12, #64] */
    0xb40001a8, /* b4 cbz x8, e8 */
    0xa9bf7bfd, /* b8 stp x29, x30, [sp, #-16]! */
    0x910003fd, /* bc mov x29, sp */
    0xa9bf07e0, /* c0 stp x0, x1, [sp, #-16]! */
    0xd10103ff, /* c4 sub sp, sp, #0x40 */
    0xaa0c03e0, /* c8 mov x0, x12 */
    0xaa1e03e1, /* cc mov x1, x30 */
    0xd2824688, /* d0 mov x8, #0x1234                 */
    0xd63f0100, /* d4 blr x8 */
    0x910103ff, /* d8 add sp, sp, #0x40 */
    0xa8c107e0, /* dc ldp x0, x1, [sp], #16 */
    0x910003bf, /* e0 mov sp, x29 */
    0xa8c17bfd, /* e4 ldp x29, x30, [sp], #16 */
    0x910003f3, /* e8 mov x19, sp */
    0xd10043ff, /* ec sub sp, sp, #0x10 */
    0xf90007e1, /* f0 str x1, [sp, #8] */
    0xb90003e2, /* f4 str w2, [sp] */
    0x910003f4, /* f8 mov x20, sp */
    0xf9402d88, /* fc ldr x8, [x12, #88] */
    0xd61f0100, /* 100 br x8 */
    PAD
};
#define ADAPTERS_END LEN(adapters)

/* An i2c with stack arguments: it aligns sp below the interpreter's before it stores them. */
static const uint32_t stackargs[] = {
    PAD
    0xd10043e8, /* 00 sub x8, sp, #0x10 */
    0x927ced1f, /* 04 and sp, x8, #0xfffffffffffffff0 */
    0xf9402588, /* 08 ldr x8, [x12, #72] */
    0xf9400681, /* 0c ldr x1, [x20, #8] */
    0xf90003e1, /* 10 str x1, [sp] */
    0xd61f0100, /* 14 br x8 */
    PAD
};

/* A c2i entry barrier as JDK 21's for G1: a strong class loader jumps to the method's
 * code, a weak one is resolved between a push and a pop of x10 (sp 16 lower there). */
static const uint32_t barrier[] = {
    PAD
    0xd61f0100, /* 00 br x8 */
    0xb400010c, /* 04 cbz x12, 24 */
    0xb9402109, /* 08 ldr w9, [x8, #32] */
    0x350000e9, /* 0c cbnz w9, 28 */
    0xa9bf7fea, /* 10 stp x10, xzr, [sp, #-16]! */
    0xf940050a, /* 14 ldr x10, [x8, #8] */
    0xaa0a03e8, /* 18 mov x8, x10 */
    0xa8c17fea, /* 1c ldp x10, xzr, [sp], #16 */
    0xb5000048, /* 20 cbnz x8, 28 */
    0x17fffff3, /* 24 b lo-16 (the wrong method stub) */
    0xf9402188, /* 28 ldr x8, [x12, #64] */
    0xd61f0100, /* 2c br x8 */
    PAD
};

/* A bracket with a branch inside (a G1 barrier's slow path), and one whose branch leaves. */
static const uint32_t inner[] = {
    PAD
    0xd61f0100, /* 00 br x8 (the i2c's end) */
    0xa9bf7bfd, /* 04 stp x29, x30, [sp, #-16]! */
    0x910003fd, /* 08 mov x29, sp */
    0xb4000040, /* 0c cbz x0, 14 */
    0xd63f0100, /* 10 blr x8 */
    0x910003bf, /* 14 mov sp, x29 */
    0xa8c17bfd, /* 18 ldp x29, x30, [sp], #16 */
    0xf9402188, /* 1c ldr x8, [x12, #64] */
    0xd61f0100, /* 20 br x8 */
    PAD
};
static const uint32_t leaves[] = {
    PAD
    0xd61f0100, /* 00 br x8 (the i2c's end) */
    0xa9bf7bfd, /* 04 stp x29, x30, [sp, #-16]! */
    0x910003fd, /* 08 mov x29, sp */
    0xb4000040, /* 0c cbz x0, 14 */
    0x17fffff8, /* 10 b lo-16 (out of the blob) */
    0x910003bf, /* 14 mov sp, x29 */
    0xa8c17bfd, /* 18 ldp x29, x30, [sp], #16 */
    0xf9402188, /* 1c ldr x8, [x12, #64] */
    0xd61f0100, /* 20 br x8 */
    PAD
};

/* A frame record built below a push: not at the caller's sp - 16. */
static const uint32_t pushed[] = {
    PAD
    0xd61f0100, /* 00 br x8 (the i2c's end) */
    0xa9bf7fea, /* 04 stp x10, xzr, [sp, #-16]! */
    0xa9bf7bfd, /* 08 stp x29, x30, [sp, #-16]! */
    0x910003fd, /* 0c mov x29, sp */
    0xd63f0100, /* 10 blr x8 */
    0x910003bf, /* 14 mov sp, x29 */
    0xa8c17bfd, /* 18 ldp x29, x30, [sp], #16 */
    0xa8c17fea, /* 1c ldp x10, xzr, [sp], #16 */
    0xd61f0100, /* 20 br x8 */
    PAD
};

/* Two PLT entries, the second with BTI's landing pad. */
static const uint32_t plt[] = {
    PAD
    0x90000010, /* 00 adrp x16, 0 */
    0xf947c211, /* 04 ldr x17, [x16, #3968] */
    0x913e0210, /* 08 add x16, x16, #0xf80 */
    0xd61f0220, /* 0c br x17 */
    0xd503245f, /* 10 bti c */
    0x90000010, /* 14 adrp x16, 0 */
    0xf947c611, /* 18 ldr x17, [x16, #3976] */
    0x913e2210, /* 1c add x16, x16, #0xf88 */
    0xd61f0220, /* 20 br x17 */
    PAD
};

/* The lazy binding header (PLT0): the same four words after a push, so sp is not the
 * caller's there. */
static const uint32_t plt0[] = {
    PAD
    0xa9bf7bf0, /* 00 stp x16, x30, [sp, #-16]! */
    0xf0008b30, /* 04 adrp x16, ... */
    0xf944ee11, /* 08 ldr x17, [x16, #2520] */
    0x91276210, /* 0c add x16, x16, #0x9d8 */
    0xd61f0220, /* 10 br x17 */
    PAD
};

/* Writes of lr and fp the scan must see, before the adapter's br. */
static const uint32_t misc[] = {
    PAD
    0xd503233f, /* 00 paciasp */
    0xf94007fe, /* 04 ldr x30, [sp, #8] */
    0xa9417bfd, /* 08 ldp x29, x30, [sp, #16] */
    0xf90007fe, /* 0c str x30, [sp, #8] */
    0xaa0003fd, /* 10 mov x29, x0 */
    0xd61f0100, /* 14 br x8 */
    PAD
};

/* A branch back into the stretch before the pc (a loop: the state there is not known). */
static const uint32_t loop[] = {
    PAD
    0xd503201f, /* 00 nop */
    0xd503201f, /* 04 nop */
    0xd61f0100, /* 08 br x8 */
    0x17fffffe, /* 0c b 04 */
    PAD
};

static int at(const uint32_t *w, uintptr_t off, uintptr_t end) {
  uintptr_t lo = BASE(w);
  return asgst__hs_adapter_lr(lo + off, lo, lo + end);
}

/* Every pc of the i2c, its br included, has the return address in lr. */
static void i2c_every_pc(void **state) {
  (void)state;
  for (uintptr_t off = 0; off <= 0x2c; off += 4)
    assert_int_equal(at(adapters, off, ADAPTERS_END), ASGST__ADAPTER_LR_I2C);
}

/* The c2i from its unverified entry through the stp of its frame record, and again after
 * the record's ldp up to the sub that grows sp for the interpreter's arguments. */
static void c2i_outside_its_frame(void **state) {
  (void)state;
  for (uintptr_t off = 0x30; off <= 0xb8; off += 4)
    assert_int_equal(at(adapters, off, ADAPTERS_END), ASGST__ADAPTER_LR_C2I);
  assert_int_equal(at(adapters, 0xe8, ADAPTERS_END), ASGST__ADAPTER_LR_C2I); /* mov x19,sp */
  assert_int_equal(at(adapters, 0xec, ADAPTERS_END), ASGST__ADAPTER_LR_C2I); /* sub sp (not yet) */
}

/* The depth of sp adds up over the push and pop; the edges that jump over them agree. */
static void c2i_push_and_pop(void **state) {
  (void)state;
  for (uintptr_t off = 4; off <= 0x10; off += 4)
    assert_int_equal(at(barrier, off, LEN(barrier)), ASGST__ADAPTER_LR_C2I);
  for (uintptr_t off = 0x14; off <= 0x1c; off += 4)
    assert_int_equal(at(barrier, off, LEN(barrier)), ASGST__ADAPTER_LR_NONE);
  for (uintptr_t off = 0x20; off <= 0x2c; off += 4)
    assert_int_equal(at(barrier, off, LEN(barrier)), ASGST__ADAPTER_LR_C2I);
}

/* Forward branches inside a bracket stay inside: the bracket is whole; one that leaves
 * the blob makes it no bracket. */
static void bracket_with_branches(void **state) {
  (void)state;
  assert_int_equal(at(inner, 4, LEN(inner)), ASGST__ADAPTER_LR_C2I);
  assert_int_equal(at(inner, 8, LEN(inner)), ASGST__ADAPTER_LR_NONE);
  for (uintptr_t off = 0xc; off <= 0x18; off += 4) assert_int_equal(at(inner, off, LEN(inner)), ASGST__ADAPTER_LR_RECORD);
  assert_int_equal(at(inner, 0x1c, LEN(inner)), ASGST__ADAPTER_LR_C2I);
  assert_int_equal(at(inner, 0x20, LEN(inner)), ASGST__ADAPTER_LR_C2I);
  assert_int_equal(at(leaves, 0x10, LEN(leaves)), ASGST__ADAPTER_LR_RECORD);
  for (uintptr_t off = 0x14; off <= 0x20; off += 4) assert_int_equal(at(leaves, off, LEN(leaves)), ASGST__ADAPTER_LR_NONE);
  for (uintptr_t off = 0x10; off <= 0x1c; off += 4) assert_int_equal(at(pushed, off, LEN(pushed)), ASGST__ADAPTER_LR_NONE);
  assert_int_equal(at(pushed, 0x20, LEN(pushed)), ASGST__ADAPTER_LR_C2I);
}

/* Between the stp and the mov x29,sp: not known; from there to the ldp: the frame record;
 * past the sub: not known. */
static void c2i_inside_its_frame_or_past_sub(void **state) {
  (void)state;
  assert_int_equal(at(adapters, 0xbc, ADAPTERS_END), ASGST__ADAPTER_LR_NONE);
  for (uintptr_t off = 0xc0; off <= 0xe4; off += 4)
    assert_int_equal(at(adapters, off, ADAPTERS_END), ASGST__ADAPTER_LR_RECORD);
  for (uintptr_t off = 0xf0; off <= 0x100; off += 4)
    assert_int_equal(at(adapters, off, ADAPTERS_END), ASGST__ADAPTER_LR_NONE);
}

/* The i2c that aligns sp: up to the and (not yet executed), then not known. */
static void i2c_stack_arguments(void **state) {
  (void)state;
  assert_int_equal(at(stackargs, 0, LEN(stackargs)), ASGST__ADAPTER_LR_I2C);
  assert_int_equal(at(stackargs, 4, LEN(stackargs)), ASGST__ADAPTER_LR_I2C);
  for (uintptr_t off = 8; off < LEN(stackargs); off += 4)
    assert_int_equal(at(stackargs, off, LEN(stackargs)), ASGST__ADAPTER_LR_NONE);
}

/* Each write of lr or fp, a branch back, a pc outside the blob or misaligned. */
static void writes_and_loops(void **state) {
  (void)state;
  assert_int_equal(at(misc, 0, LEN(misc)), ASGST__ADAPTER_LR_I2C);
  for (uintptr_t off = 4; off < LEN(misc); off += 4) /* past paciasp, ldr x30, ldp, mov x29 */
    assert_int_equal(at(misc, off, LEN(misc)), ASGST__ADAPTER_LR_NONE);
  assert_int_equal(at(loop, 0, LEN(loop)), ASGST__ADAPTER_LR_I2C);
  assert_int_equal(at(loop, 4, LEN(loop)), ASGST__ADAPTER_LR_NONE);
  assert_int_equal(at(loop, 8, LEN(loop)), ASGST__ADAPTER_LR_NONE);
  assert_int_equal(at(adapters, ADAPTERS_END, ADAPTERS_END), ASGST__ADAPTER_LR_NONE);
  assert_int_equal(at(adapters, 2, ADAPTERS_END), ASGST__ADAPTER_LR_NONE);
}

/* The code reader of plt_entry.h over this program's memory. */
static bool read_word(void *ctx, uintptr_t addr, uintptr_t *value) {
  (void)ctx;
  memcpy(value, (const void *)addr, sizeof *value);
  return true;
}

static bool plt_at(const uint32_t *w, uintptr_t off) {
  return asgst__plt_entry_at(BASE(w) + off, read_word, NULL);
}

/* Every instruction of both PLT entries, and nothing else (not the lazy binding header). */
static void plt_entries(void **state) {
  (void)state;
  for (uintptr_t off = 0; off < LEN(plt); off += 4) assert_true(plt_at(plt, off));
  assert_false(plt_at(plt, 2));
  for (uintptr_t off = 0; off < LEN(plt0); off += 4) assert_false(plt_at(plt0, off));
  for (uintptr_t off = 0; off < LEN(misc); off += 4) assert_false(plt_at(misc, off));
  for (uintptr_t off = 0; off < 0x30; off += 4) assert_false(plt_at(adapters, off));
}

/* The walker's question (adapter_frame.h): the caller in lr, or in the c2i's frame record. */
static void answered_as_a_place(void **state) {
  (void)state;
  uintptr_t lo = BASE(adapters);
  asgst__hs_adapter_frame a;
  asgst__hs_adapter_at(lo, lo, lo + ADAPTERS_END, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_I2C);
  assert_int_equal(a.where, ASGST__CALLER_IN_LR);
  asgst__hs_adapter_at(lo + 0x30, lo, lo + ADAPTERS_END, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_C2I);
  assert_int_equal(a.where, ASGST__CALLER_IN_LR);
  asgst__hs_adapter_at(lo + 0xc0, lo, lo + ADAPTERS_END, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_C2I);
  assert_int_equal(a.where, ASGST__CALLER_RECORD);
  asgst__hs_adapter_at(lo + 0xbc, lo, lo + ADAPTERS_END, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_NONE);
  assert_true(a.exit == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(i2c_every_pc),
      cmocka_unit_test(c2i_outside_its_frame),
      cmocka_unit_test(c2i_inside_its_frame_or_past_sub),
      cmocka_unit_test(c2i_push_and_pop),
      cmocka_unit_test(bracket_with_branches),
      cmocka_unit_test(i2c_stack_arguments),
      cmocka_unit_test(writes_and_loops),
      cmocka_unit_test(plt_entries),
      cmocka_unit_test(answered_as_a_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
/* The decoder is built into arm64 libraries only: the arm64 suite runs these checks. */
TEST_OTHER_ARCH_MAIN("arm64 only: the arm64 build runs these checks (under qemu here)")
#endif
