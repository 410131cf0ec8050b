/* test_adapter_c2i.c - where the I2C/C2I adapters' return address is provably at sp
 * (impl/arch/<arch>/stub_exit.c, asgst__hs_c2i_ret_at_sp) over the bytes of an adapter laid
 * out as HotSpot's x86_64 ones are (an i2c, then the c2i's unverified entry with its
 * inline cache check, the c2i entry with the test before fixing the caller's call site,
 * that fix's aligned stack and call, and the pop of the return address; assembled here,
 * no JVM): the i2c and the fix give no answer, the entries up to the pop give the pop or
 * the jump to the runtime stub. x86_64 only: arm64's adapters are test_adapter_lr's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#if defined(__x86_64__)
#include "impl/arch/adapter_frame.h"
#include "impl/arch/stub_exit.h"

/* padded: the decoder reads 16 bytes at each instruction */
static const uint8_t code[0x70] = {
    0x48, 0x8b, 0x04, 0x24,                   /* 00 mov rax,[rsp]      (i2c) */
    0x4c, 0x8b, 0xdc,                         /* 04 mov r11,rsp */
    0x48, 0x83, 0xe4, 0xf0,                   /* 07 and rsp,-16 */
    0x50,                                     /* 0b push rax */
    0x41, 0xff, 0xe3,                         /* 0c jmp r11 */
    0x90,                                     /* 0f nop */
    0x44, 0x8b, 0x56, 0x08,                   /* 10 mov r10d,[rsi+8]   (c2i unverified) */
    0x4c, 0x3b, 0x50, 0x08,                   /* 14 cmp r10,[rax+8] */
    0x48, 0x8b, 0x58, 0x10,                   /* 18 mov rbx,[rax+0x10] */
    0x0f, 0x85, 0x00, 0x00, 0x10, 0x00,       /* 1c jne ic miss stub (out of the blob) */
    0x48, 0x83, 0x7b, 0x40, 0x00,             /* 22 cmp qword [rbx+0x40],0 */
    0x74, 0x05,                               /* 27 je 0x2e */
    0xe9, 0x00, 0x00, 0x10, 0x00,             /* 29 jmp ic miss stub */
    0x48, 0x83, 0x7b, 0x40, 0x00,             /* 2e cmp qword [rbx+0x40],0 (c2i) */
    0x74, 0x11,                               /* 33 je 0x46 */
    0x49, 0x89, 0xe5,                         /* 35 mov r13,rsp        (fix the call site) */
    0x48, 0x83, 0xe4, 0xf0,                   /* 38 and rsp,-16 */
    0x50,                                     /* 3c push rax */
    0xe8, 0x00, 0x00, 0x00, 0x00,             /* 3d call */
    0x59,                                     /* 42 pop rcx */
    0x49, 0x8b, 0xe5,                         /* 43 mov rsp,r13 */
    0x58,                                     /* 46 pop rax            (return address) */
    0x49, 0x89, 0xe5,                         /* 47 mov r13,rsp */
    0x48, 0x83, 0xec, 0x20,                   /* 4a sub rsp,0x20 */
    0x48, 0x89, 0x04, 0x24,                   /* 4e mov [rsp],rax */
    0xff, 0xe1,                               /* 52 jmp rcx */
};

/* JDK 27's c2i entry: the test before the fix of the call site branches to a pop of the
 * return address that takes the sender's sp first (lea r13,[rsp+8]). */
static const uint8_t code27[0x40] = {
    0x48, 0x83, 0x7b, 0x48, 0x00,             /* 00 cmp qword [rbx+0x48],0 */
    0x0f, 0x84, 0x0d, 0x00, 0x00, 0x00,       /* 05 je 0x18 */
    0x4c, 0x8b, 0xec,                         /* 0b mov r13,rsp        (fix the call site) */
    0x48, 0x83, 0xe4, 0xf0,                   /* 0e and rsp,-16 */
    0x9c,                                     /* 12 pushf */
    0xe8, 0x00, 0x00, 0x00, 0x00,             /* 13 call */
    0x4c, 0x8d, 0x6c, 0x24, 0x08,             /* 18 lea r13,[rsp+8] */
    0x58,                                     /* 1d pop rax */
    0x48, 0x83, 0xec, 0x40,                   /* 1e sub rsp,0x40 */
    0x50,                                     /* 22 push rax */
    0xff, 0xe1,                               /* 23 jmp rcx */
};

static int at27(unsigned off, uintptr_t *out) {
  uintptr_t lo = (uintptr_t)code27;
  return asgst__hs_c2i_ret_at_sp(lo + off, lo, lo + 0x25, out);
}

static int at(unsigned off, uintptr_t *out) {
  uintptr_t lo = (uintptr_t)code;
  return asgst__hs_c2i_ret_at_sp(lo + off, lo, lo + 0x54, out);
}

static void i2c_and_fix_unproven(void **state) {
  (void)state;
  static const unsigned none[] = {0x00, 0x04, 0x07, 0x0b, 0x0c, 0x35, 0x38, 0x3c, 0x3d, 0x42,
                                  0x43, 0x47, 0x4a, 0x4e, 0x52};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    uintptr_t out = 0;
    assert_int_equal(at(none[i], &out), 0);
  }
}

static void entries_reach_the_pop_or_the_stub(void **state) {
  (void)state;
  uintptr_t out = 0;
  static const unsigned to_stub[] = {0x10, 0x14, 0x18, 0x1c, 0x22, 0x27, 0x29};
  for (size_t i = 0; i < sizeof to_stub / sizeof to_stub[0]; i++) {
    out = 0;
    assert_int_equal(at(to_stub[i], &out), 2);
    assert_true(out == (uintptr_t)code + 0x29 + 5 + 0x100000 || out == (uintptr_t)code + 0x1c + 6 + 0x100000);
  }
  assert_int_equal(at(0x2e, &out), 1); /* the fix's test: its branch over the fix */
  assert_int_equal(at(0x33, &out), 1);
  assert_int_equal(at(0x46, &out), 1); /* at the pop itself */
}

static void jdk27_lea_before_the_pop(void **state) {
  (void)state;
  uintptr_t out = 0;
  assert_int_equal(at27(0x00, &out), 1);
  assert_int_equal(at27(0x05, &out), 1);
  assert_int_equal(at27(0x18, &out), 1);
  /* In the fix, and past the pop: no answer. */
  assert_int_equal(at27(0x0e, &out), 0);
  assert_int_equal(at27(0x1d, &out), 0);
  assert_int_equal(at27(0x1e, &out), 0);
}
/* The walker's question (adapter_frame.h): the c2i's return address at sp, the caller's sp
 * 8 above, and where the path leaves through the jump to a runtime stub, that stub. */
static void answered_as_a_place(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  asgst__hs_adapter_frame a;
  asgst__hs_adapter_at(lo + 0x1c, lo, lo + 0x54, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_C2I);
  assert_int_equal(a.where, ASGST__CALLER_AT_SP);
  assert_int_equal(a.ra, 0);
  assert_int_equal(a.depth, 8);
  assert_true(a.exit == lo + 0x29 + 5 + 0x100000 || a.exit == lo + 0x1c + 6 + 0x100000);
  asgst__hs_adapter_at(lo + 0x46, lo, lo + 0x54, &a);
  assert_int_equal(a.adapter, ASGST__ADAPTER_C2I);
  assert_true(a.exit == 0);
  asgst__hs_adapter_at(lo + 0x38, lo, lo + 0x54, &a); /* in the fix */
  assert_int_equal(a.adapter, ASGST__ADAPTER_NONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(i2c_and_fix_unproven),
      cmocka_unit_test(entries_reach_the_pop_or_the_stub),
      cmocka_unit_test(jdk27_lea_before_the_pop),
      cmocka_unit_test(answered_as_a_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
/* arm64's adapters are decoded by adapter_lr.h (test_adapter_lr.c). */
TEST_OTHER_ARCH_MAIN("x86_64 only: arm64's adapters keep the return address in lr (test_adapter_lr)")
#endif
