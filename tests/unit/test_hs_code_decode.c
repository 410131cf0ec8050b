/* test_hs_code_decode.c - the x86_64 prologue and epilogue decoder of the HotSpot walker
 * (impl/arch/x86_64/frame_code.c) over instruction bytes as HotSpot's compilers emit them
 * (no JVM): where the return address and the caller's rbp are at each pc of a C2 and a
 * C1 prologue with the nmethod entry barrier (JDK 20+ with G1), of an epilogue with the
 * return poll, and that any other instruction stops the decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "impl/arch/frame_code.h"

#if defined(__x86_64__)

/* C2's verified entry with G1 on JDK 21 (frame of 0x20 bytes below the saved rbp). */
static const uint8_t c2_prologue[80] = { /* padded: the decoders read ahead */
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,       /*  0 mov [rsp-0x14000],eax (stack bang) */
    0x55,                                           /*  7 push rbp */
    0x48, 0x83, 0xec, 0x20,                         /*  8 sub rsp,0x20 */
    0x66, 0x90,                                     /* 12 nop (align 4) */
    0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00, /* 14 cmp dword [r15+0x20],1 (entry barrier) */
    0x0f, 0x85, 0x40, 0x01, 0x00, 0x00,             /* 22 jne slow path (out of line) */
    0x48, 0x8b, 0x06,                               /* 28 mov rax,[rsi]: the method's code */
};

/* C2's verified entry without a stack bang on JDK 27: the frame first, then rbp saved
 * with a short displacement, then padding of two operand size prefixes and a nop. */
static const uint8_t c2_prologue_d8[80] = {
    0x48, 0x81, 0xec, 0x18, 0x00, 0x00, 0x00,       /*  0 sub rsp,0x18 */
    0x48, 0x89, 0x6c, 0x24, 0x10,                   /*  7 mov [rsp+0x10],rbp */
    0x66, 0x66, 0x90,                               /* 12 nop (66 66 90) */
    0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00, /* 15 cmp dword [r15+0x20],1 */
    0x0f, 0x85, 0x26, 0x00, 0x00, 0x00,             /* 23 jne slow path */
    0x48, 0x83, 0xc4, 0x08,                         /* 29 the method's code */
};

/* C1's build_frame on JDK 21: the barrier calls its stub inline. */
static const uint8_t c1_prologue[80] = {
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,       /*  0 stack bang */
    0x55,                                           /*  7 push rbp */
    0x48, 0x81, 0xec, 0x30, 0x01, 0x00, 0x00,       /*  8 sub rsp,0x130 */
    0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00, /* 15 cmp dword [r15+0x20],1 */
    0x74, 0x05,                                     /* 23 je over the call */
    0xe8, 0x10, 0x20, 0x30, 0x00,                   /* 25 call the entry barrier stub */
    0x48, 0x8b, 0x06,                               /* 30 the method's code */
};

/* C2's epilogue with the return poll. */
static const uint8_t epilogue[80] = {
    0x48, 0x83, 0xc4, 0x20,                         /*  0 add rsp,0x20 */
    0x5d,                                           /*  4 pop rbp */
    0x49, 0x3b, 0xa7, 0x48, 0x04, 0x00, 0x00,       /*  5 cmp rsp,[r15+0x448] (return poll) */
    0x0f, 0x87, 0x01, 0x00, 0x00, 0x00,             /* 12 ja the poll stub */
    0xc3,                                           /* 18 ret */
};

/* The same on JDKs whose poll word lies within 127 bytes of the JavaThread's start (the
 * JDK 27 build here): the compare takes an 8-bit displacement. */
static const uint8_t epilogue_d8[80] = {
    0x48, 0x83, 0xc4, 0x10,                         /*  0 add rsp,0x10 */
    0x5d,                                           /*  4 pop rbp */
    0x49, 0x3b, 0x67, 0x28,                         /*  5 cmp rsp,[r15+0x28] (return poll) */
    0x0f, 0x87, 0x18, 0x02, 0x00, 0x00,             /*  9 ja the poll stub */
    0xc3,                                           /* 15 ret */
};

/* The epilogue of older JDK 8 updates (jdk8u's x86_64.ad and C1): the return poll reads
 * the global polling page. (Debian's 8u504 polls thread-locally, like 17.) */
static const uint8_t epilogue8[80] = {
    0x48, 0x83, 0xc4, 0x30,                         /*  0 add rsp,0x30 */
    0x5d,                                           /*  4 pop rbp */
    0x85, 0x05, 0x00, 0x10, 0x20, 0x00,             /*  5 test [rip+0x201000],eax */
    0xc3,                                           /* 11 ret */
};

/* JDK 11's epilogue: the return poll reads the thread's polling page through r10. */
static const uint8_t epilogue11[80] = {
    0x48, 0x83, 0xc4, 0x20,                         /*  0 add rsp,0x20 */
    0x5d,                                           /*  4 pop rbp */
    0x4d, 0x8b, 0x97, 0x08, 0x01, 0x00, 0x00,       /*  5 mov r10,[r15+0x108] */
    0x41, 0x85, 0x02,                               /* 12 test [r10],eax (return poll) */
    0xc3,                                           /* 15 ret */
    0x41, 0x85, 0x02,                               /* 16 test [r10],eax (a loop's poll) */
    0xeb, 0xe0,                                     /* 19 jmp back */
};

/* JDK 11's native method wrapper after leave: the pending exception test compares with
 * an imm32 zero at an 8-bit displacement. */
static const uint8_t native11[80] = {
    0xc9,                                           /*  0 leave */
    0x49, 0x81, 0x7f, 0x08, 0x00, 0x00, 0x00, 0x00, /*  1 cmp qword [r15+8],0 */
    0x0f, 0x85, 0x01, 0x00, 0x00, 0x00,             /*  9 jne the exception path */
    0xc3,                                           /* 15 ret */
    0x49, 0x81, 0x7f, 0x08, 0x01, 0x00, 0x00, 0x00, /* 16 cmp qword [r15+8],1 (not that test) */
    0x0f, 0x85, 0x01, 0x00, 0x00, 0x00,             /* 24 jne */
    0xc3,                                           /* 30 ret */
};

static asgst__hs_stack_effect at(const uint8_t *code, size_t off, bool *ok) {
  asgst__hs_stack_effect e;
  *ok = asgst__hs_decode_prologue((uintptr_t)code, (uintptr_t)code + off, 0, &e);
  return e;
}

static void c2_entry_barrier(void **state) {
  (void)state;
  bool ok;
  asgst__hs_stack_effect e = at(c2_prologue, 7, &ok);
  assert_true(ok);
  assert_int_equal(e.ra_slot, 0);
  assert_int_equal(e.fp_slot, -1);
  e = at(c2_prologue, 8, &ok);
  assert_true(ok);
  assert_int_equal(e.ra_slot, 8);
  assert_int_equal(e.fp_slot, 0);
  /* In the barrier and after it (both of its paths return to the next instruction). */
  for (size_t off = 12; off <= 28; off += off == 12 ? 2 : off == 14 ? 8 : 6) {
    e = at(c2_prologue, off, &ok);
    assert_true(ok);
    assert_int_equal(e.ra_slot, 0x28);
    assert_int_equal(e.fp_slot, 0x20);
  }
  /* Past an instruction that is not a prologue's. */
  at(c2_prologue, 31, &ok);
  assert_false(ok);
  /* A pc inside an instruction. */
  at(c2_prologue, 10, &ok);
  assert_false(ok);
}

static void c2_short_rbp_save(void **state) {
  (void)state;
  bool ok;
  asgst__hs_stack_effect e = at(c2_prologue_d8, 7, &ok);
  assert_true(ok);
  assert_int_equal(e.ra_slot, 0x18);
  assert_int_equal(e.fp_slot, -1);
  const size_t offs[] = {12, 15, 23, 29};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    e = at(c2_prologue_d8, offs[i], &ok);
    assert_true(ok);
    assert_int_equal(e.ra_slot, 0x18);
    assert_int_equal(e.depth, 0x20);
    assert_int_equal(e.fp_slot, 0x10);
  }
  /* Inside the padding, and past the first instruction of the method. */
  at(c2_prologue_d8, 13, &ok);
  assert_false(ok);
  at(c2_prologue_d8, 33, &ok);
  assert_false(ok);
}

static void c1_entry_barrier_call(void **state) {
  (void)state;
  bool ok;
  const size_t offs[] = {15, 23, 25, 30};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    asgst__hs_stack_effect e = at(c1_prologue, offs[i], &ok);
    assert_true(ok);
    assert_int_equal(e.ra_slot, 0x138);
    assert_int_equal(e.fp_slot, 0x130);
    assert_false(e.fp_moved);
  }
}

static void epilogue_with_poll(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue, &e));
  assert_int_equal(e.ra_slot, 0x28);
  assert_int_equal(e.fp_slot, 0x20);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue + 4, &e));
  assert_int_equal(e.ra_slot, 8);
  assert_int_equal(e.fp_slot, 0);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue + 5, &e));
  assert_int_equal(e.ra_slot, 0);
  assert_int_equal(e.fp_slot, -1);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue + 18, &e));
  assert_int_equal(e.ra_slot, 0);
  /* Method code is not an epilogue. */
  assert_false(asgst__hs_decode_epilogue((uintptr_t)c2_prologue + 28, &e));
}

static void epilogue_short_poll(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue_d8, &e));
  assert_int_equal(e.ra_slot, 0x18);
  assert_int_equal(e.fp_slot, 0x10);
  const size_t offs[] = {5, 9, 15};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue_d8 + offs[i], &e));
    assert_int_equal(e.ra_slot, 0);
    assert_int_equal(e.fp_slot, -1);
  }
  /* Inside the compare. */
  assert_false(asgst__hs_decode_epilogue((uintptr_t)epilogue_d8 + 7, &e));
}

static void epilogue_jdk8_poll(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue8, &e));
  assert_int_equal(e.ra_slot, 0x38);
  assert_int_equal(e.fp_slot, 0x30);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue8 + 4, &e));
  assert_int_equal(e.ra_slot, 8);
  assert_int_equal(e.fp_slot, 0);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue8 + 5, &e));
  assert_int_equal(e.ra_slot, 0);
  assert_int_equal(e.fp_slot, -1);
}

static void epilogue_jdk11_poll(void **state) {
  (void)state;
  asgst__hs_stack_effect e;
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue11, &e));
  assert_int_equal(e.ra_slot, 0x28);
  assert_int_equal(e.fp_slot, 0x20);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue11 + 4, &e));
  assert_int_equal(e.ra_slot, 8);
  static const unsigned after_pop[] = {5, 12, 15};
  for (size_t k = 0; k < sizeof after_pop / sizeof after_pop[0]; k++) {
    assert_true(asgst__hs_decode_epilogue((uintptr_t)epilogue11 + after_pop[k], &e));
    assert_int_equal(e.ra_slot, 0);
    assert_int_equal(e.fp_slot, -1);
  }
  /* A loop's poll is no epilogue. */
  assert_false(asgst__hs_decode_epilogue((uintptr_t)epilogue11 + 16, &e));
  /* The native wrapper after its leave: the return address at sp; not at the leave
   * itself (its frame is whole there), nor with another compare. */
  assert_true(asgst__hs_decode_epilogue((uintptr_t)native11 + 1, &e));
  assert_int_equal(e.ra_slot, 0);
  assert_true(asgst__hs_decode_epilogue((uintptr_t)native11 + 9, &e));
  assert_false(asgst__hs_decode_epilogue((uintptr_t)native11, &e));
  assert_false(asgst__hs_decode_epilogue((uintptr_t)native11 + 16, &e));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(c2_entry_barrier),
      cmocka_unit_test(c2_short_rbp_save),
      cmocka_unit_test(c1_entry_barrier_call),
      cmocka_unit_test(epilogue_with_poll),
      cmocka_unit_test(epilogue_short_poll),
      cmocka_unit_test(epilogue_jdk8_poll),
      cmocka_unit_test(epilogue_jdk11_poll),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
/* The x86_64 decoder is built into x86_64 libraries only (test_hs_code_decode_aarch64.c
 * checks arm64's). */
TEST_OTHER_ARCH_MAIN("x86_64 only: test_hs_code_decode_aarch64 checks the arm64 decoder")
#endif
