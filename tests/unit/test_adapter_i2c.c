/* test_adapter_i2c.c - where the i2c adapter's return address and its caller's sp are
 * (impl/arch/<arch>/stub_exit.c, asgst__hs_i2c_effect) at each pc of i2c adapters laid out
 * as HotSpot's x86_64 ones are (assembled here, no JVM): JDK 25's (pop of the return
 * address, alignment, push back, the argument moves, the continuation fast path check,
 * jmp r11), the older form that reads the return address in place, and variants with an
 * instruction that would move rsp or overwrite the return address, which give no answer.
 * x86_64 only: arm64's adapters are test_adapter_lr's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#if defined(__x86_64__)
#include "impl/arch/adapter_frame.h"
#include "impl/arch/stub_exit.h"

/* JDK 25's i2c for a method with a stack argument (padded: the decoder reads 16 bytes at
 * each instruction), then the c2i's first instruction. */
static uint8_t i2c25[0x70] = {
    0x4c, 0x8b, 0xdc,                         /* 00 mov r11,rsp */
    0x58,                                     /* 03 pop rax */
    0x48, 0x83, 0xec, 0x08,                   /* 04 sub rsp,8 */
    0x48, 0x83, 0xe4, 0xf0,                   /* 08 and rsp,-16 */
    0x50,                                     /* 0c push rax */
    0x49, 0x8b, 0xc3,                         /* 0d mov rax,r11 */
    0x4c, 0x8b, 0x5b, 0x40,                   /* 10 mov r11,[rbx+0x40] */
    0x48, 0x8b, 0x70, 0x38,                   /* 14 mov rsi,[rax+0x38] */
    0x44, 0x8b, 0x48, 0x18,                   /* 18 mov r9d,[rax+0x18] */
    0xf2, 0x0f, 0x10, 0x40, 0x10,             /* 1c movsd xmm0,[rax+0x10] */
    0x44, 0x8b, 0x68, 0x08,                   /* 21 mov r13d,[rax+8] */
    0x4c, 0x89, 0x6c, 0x24, 0x08,             /* 25 mov [rsp+8],r13 (stack argument) */
    0x49, 0x3b, 0xa7, 0x20, 0x06, 0x00, 0x00, /* 2a cmp rsp,[r15+0x620] */
    0x76, 0x07,                               /* 31 jbe 0x3a */
    0x49, 0x89, 0xa7, 0x20, 0x06, 0x00, 0x00, /* 33 mov [r15+0x620],rsp */
    0x49, 0x89, 0x9f, 0xd0, 0x04, 0x00, 0x00, /* 3a mov [r15+0x4d0],rbx */
    0x48, 0x8b, 0xc3,                         /* 41 mov rax,rbx */
    0x41, 0xff, 0xe3,                         /* 44 jmp r11 */
    0x44, 0x8b, 0x56, 0x08,                   /* 47 mov r10d,[rsi+8] (c2i) */
};
#define I2C25_END 0x4b

/* The older form (JDK 8 to 17): the return address read in place, no pop. */
static const uint8_t i2c17[0x40] = {
    0x48, 0x8b, 0x04, 0x24,                   /* 00 mov rax,[rsp] */
    0x4c, 0x8b, 0xdc,                         /* 04 mov r11,rsp */
    0x48, 0x83, 0xec, 0x10,                   /* 07 sub rsp,0x10 */
    0x48, 0x83, 0xe4, 0xf0,                   /* 0b and rsp,-16 */
    0x50,                                     /* 0f push rax */
    0x48, 0x8b, 0xc3,                         /* 10 mov rax,rbx */
    0x41, 0xff, 0xe3,                         /* 13 jmp r11 */
};

static int at(const uint8_t *code, unsigned end, unsigned off, long *ra, long *depth) {
  uintptr_t lo = (uintptr_t)code;
  *ra = *depth = 12345;
  return asgst__hs_i2c_effect(lo + off, lo, lo + end, ra, depth);
}

static void jdk25_every_pc(void **state) {
  (void)state;
  long ra, d;
  /* Before the pop: the return address at sp. */
  assert_int_equal(at(i2c25, I2C25_END, 0x00, &ra, &d), 1);
  assert_int_equal(ra, 0), assert_int_equal(d, 8);
  assert_int_equal(at(i2c25, I2C25_END, 0x03, &ra, &d), 1);
  assert_int_equal(ra, 0), assert_int_equal(d, 8);
  /* Just popped: the sender's sp would be sp (no frame: not taken); after the sub, the
   * return address in the word the pop read, 8 bytes further up. */
  assert_int_equal(at(i2c25, I2C25_END, 0x04, &ra, &d), 0);
  assert_int_equal(at(i2c25, I2C25_END, 0x08, &ra, &d), 1);
  assert_int_equal(ra, 0), assert_int_equal(d, 8);
  /* Aligned, not yet pushed back: unknown. */
  assert_int_equal(at(i2c25, I2C25_END, 0x0c, &ra, &d), 0);
  /* Pushed back: at sp up to and at the jump. */
  static const unsigned after[] = {0x0d, 0x10, 0x14, 0x18, 0x1c, 0x21, 0x25, 0x2a, 0x31, 0x33, 0x3a, 0x41, 0x44};
  for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
    assert_int_equal(at(i2c25, I2C25_END, after[i], &ra, &d), 1);
    assert_int_equal(ra, 0), assert_int_equal(d, 8);
  }
  /* Inside an instruction, past the jump (the c2i), outside the blob. */
  assert_int_equal(at(i2c25, I2C25_END, 0x0e, &ra, &d), 0);
  assert_int_equal(at(i2c25, I2C25_END, 0x47, &ra, &d), 0);
  assert_int_equal(at(i2c25, 0x20, 0x14, &ra, &d), 0); /* the jump beyond the blob's end */
}

static void older_form(void **state) {
  (void)state;
  long ra, d;
  static const unsigned first[] = {0x00, 0x04, 0x07};
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
    assert_int_equal(at(i2c17, 0x16, first[i], &ra, &d), 1);
    assert_int_equal(ra, 0), assert_int_equal(d, 8);
  }
  assert_int_equal(at(i2c17, 0x16, 0x0b, &ra, &d), 1); /* after the sub, before the and */
  assert_int_equal(ra, 0x10), assert_int_equal(d, 0x18);
  assert_int_equal(at(i2c17, 0x16, 0x0f, &ra, &d), 0);
  assert_int_equal(at(i2c17, 0x16, 0x10, &ra, &d), 1);
  assert_int_equal(ra, 0), assert_int_equal(d, 8);
  assert_int_equal(at(i2c17, 0x16, 0x13, &ra, &d), 1);
}

/* N. The answer at pc with the bytes at off of i2c25 replaced for the call. */
static int patched(unsigned off, const uint8_t *bytes, size_t n, unsigned pc) {
  uint8_t saved[8];
  long ra, d;
  memcpy(saved, i2c25 + off, n);
  memcpy(i2c25 + off, bytes, n);
  int r = at(i2c25, I2C25_END, pc, &ra, &d);
  memcpy(i2c25 + off, saved, n);
  return r;
}

static void unproven_shapes(void **state) {
  (void)state;
  /* The stack argument stored over the return address: [rsp+0]. */
  assert_int_equal(patched(0x25, (const uint8_t[]){0x4c, 0x89, 0x6c, 0x24, 0x00}, 5, 0x14), 0);
  /* A push (rsp moves) in place of a load: 50 then 3 nops keep the lengths. */
  assert_int_equal(patched(0x14, (const uint8_t[]){0x50, 0x90, 0x90, 0x90}, 4, 0x10), 0);
  /* A load into rsp: mov rsp,[rax+0x38]. */
  assert_int_equal(patched(0x14, (const uint8_t[]){0x48, 0x8b, 0x60, 0x38}, 4, 0x10), 0);
  /* A load into rbp (the caller's frame pointer is taken as untouched). */
  assert_int_equal(patched(0x14, (const uint8_t[]){0x48, 0x8b, 0x68, 0x38}, 4, 0x10), 0);
  /* A backward branch. */
  assert_int_equal(patched(0x31, (const uint8_t[]){0x76, 0xf0}, 2, 0x10), 0);
  /* Something other than the pop/sub/and/push prefix. */
  assert_int_equal(patched(0x08, (const uint8_t[]){0x48, 0x83, 0xe4, 0xe0}, 4, 0x10), 0);
  /* Unchanged, the same pc answers. */
  long ra, d;
  assert_int_equal(at(i2c25, I2C25_END, 0x10, &ra, &d), 1);
}
/* The walker's question (adapter_frame.h): the i2c first, with its decoder's answer. */
static void answered_as_a_place(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)i2c25;
  long ra, d;
  asgst__hs_adapter_frame a;
  for (unsigned off = 0; off < I2C25_END; off++) {
    int known = at(i2c25, I2C25_END, off, &ra, &d);
    asgst__hs_adapter_at(lo + off, lo, lo + I2C25_END, &a);
    if (!known) continue; /* not an instruction, or the c2i's decoder may answer */
    assert_int_equal(a.adapter, ASGST__ADAPTER_I2C);
    assert_int_equal(a.where, ASGST__CALLER_AT_SP);
    assert_int_equal(a.ra, ra);
    assert_int_equal(a.depth, d);
    assert_true(a.exit == 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jdk25_every_pc),
      cmocka_unit_test(older_form),
      cmocka_unit_test(unproven_shapes),
      cmocka_unit_test(answered_as_a_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
/* arm64's adapters are decoded by adapter_lr.h (test_adapter_lr.c). */
TEST_OTHER_ARCH_MAIN("x86_64 only: arm64's adapters keep the return address in lr (test_adapter_lr)")
#endif
