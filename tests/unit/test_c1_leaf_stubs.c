/* test_c1_leaf_stubs.c - where the return address of C1's frameless runtime stubs is
 * (impl/arch/<arch>/stub_exit.c, asgst__hs_stub_ret_offset) at each pc of stubs laid out as
 * HotSpot's x86_64 slow_subtype_check and unwind_exception are (assembled here, no JVM):
 * register saves by push and a spill area (sub rsp / lea rsp), a search loop, two exits
 * through the pops and ret; and the unwind stub's leaf call with the stack alignment test
 * of call_VM_leaf, then the pop of the return address and the jump to the handler. Code
 * that moves rsp in another way gives no answer; the same answers as places
 * (asgst__hs_stub_frame_at), and the caller's pops of the two arguments. x86_64 only:
 * arm64's frameless stubs are test_stub_frame_lr's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#if defined(__x86_64__)

#include "impl/arch/stub_exit.h"

/* padded: the decoder reads 16 bytes at each instruction */
static uint8_t subtype[0x70] = {
    0x57, 0x56, 0x51, 0x50,                   /* 00 push rdi; push rsi; push rcx; push rax */
    0x48, 0x8b, 0x74, 0x24, 0x30,             /* 04 mov rsi,[rsp+0x30] (the subclass) */
    0x48, 0x83, 0xec, 0x20,                   /* 09 sub rsp,0x20 */
    0x48, 0x89, 0x14, 0x24,                   /* 0d mov [rsp],rdx */
    0xd3, 0xe2,                               /* 11 shl edx,cl (d3 /4)   (loop) */
    0x48, 0x3b, 0x04, 0xd1,                   /* 13 cmp rax,[rcx+rdx*8] */
    0x74, 0x07,                               /* 17 je 0x20 (found) */
    0x83, 0xc2, 0x01,                         /* 19 add edx,1 */
    0x7c, 0xf5,                               /* 1c jl 0x13 */
    0xeb, 0x0a,                               /* 1e jmp 0x2a (miss) */
    0x48, 0x8d, 0x64, 0x24, 0x20,             /* 20 lea rsp,[rsp+0x20] */
    0x58, 0x59, 0x5e, 0x5f,                   /* 25 pop rax; pop rcx; pop rsi; pop rdi */
    0xc3,                                     /* 29 ret */
    0x48, 0x8b, 0x14, 0x24,                   /* 2a mov rdx,[rsp] */
    0x48, 0x83, 0xc4, 0x20,                   /* 2e add rsp,0x20 */
    0x58, 0x59, 0x5e, 0x5f,                   /* 32 pops */
    0xc3,                                     /* 36 ret */
};
#define SUBTYPE_END 0x37

static uint8_t unwind[0x50] = {
    0x4c, 0x8b, 0xf0,                         /* 00 mov r14,rax */
    0x48, 0x8b, 0x14, 0x24,                   /* 03 mov rdx,[rsp] (the return address) */
    0x48, 0x8b, 0xf2,                         /* 07 mov rsi,rdx */
    0x49, 0x8b, 0xff,                         /* 0a mov rdi,r15 */
    0x40, 0xf6, 0xc4, 0x0f,                   /* 0d test spl,0xf */
    0x0f, 0x84, 0x12, 0x00, 0x00, 0x00,       /* 11 je 0x29 */
    0x48, 0x83, 0xec, 0x08,                   /* 17 sub rsp,8 */
    0xe8, 0x00, 0x00, 0x00, 0x00,             /* 1b call (the VM, leaf) */
    0x48, 0x83, 0xc4, 0x08,                   /* 20 add rsp,8 */
    0xe9, 0x05, 0x00, 0x00, 0x00,             /* 24 jmp 0x2e */
    0xe8, 0x00, 0x00, 0x00, 0x00,             /* 29 call */
    0x48, 0x8b, 0xd8,                         /* 2e mov rbx,rax */
    0x49, 0x8b, 0xc6,                         /* 31 mov rax,r14 */
    0x5a,                                     /* 34 pop rdx */
    0xff, 0xe3,                               /* 35 jmp rbx */
};
#define UNWIND_END 0x37

static int at(uint8_t *code, unsigned end, unsigned off, bool pop_ra, long *ra) {
  uintptr_t lo = (uintptr_t)code;
  *ra = 12345;
  return asgst__hs_stub_ret_offset(lo + off, lo, lo + end, pop_ra, ra);
}

static void subtype_check_every_depth(void **state) {
  (void)state;
  static const struct { unsigned off; long ra; } want[] = {
      {0x00, 0}, {0x01, 8}, {0x02, 16}, {0x03, 24}, {0x04, 32}, {0x09, 32},
      {0x0d, 64}, {0x11, 64}, {0x13, 64}, {0x17, 64}, {0x19, 64}, {0x1c, 64}, {0x1e, 64},
      {0x20, 64}, {0x25, 32}, {0x26, 24}, {0x29, 0}, {0x2a, 64}, {0x2e, 64}, {0x32, 32}, {0x36, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    long ra;
    assert_int_equal(at(subtype, SUBTYPE_END, want[i].off, false, &ra), 1);
    assert_int_equal(ra, want[i].ra);
  }
}

static void unwind_every_pc(void **state) {
  (void)state;
  static const struct { unsigned off; long ra; } want[] = {
      {0x00, 0}, {0x03, 0}, {0x07, 0}, {0x0a, 0}, {0x0d, 0}, {0x11, 0}, {0x17, 0},
      {0x1b, 8}, {0x20, 8}, {0x24, 0}, {0x29, 0}, {0x2e, 0}, {0x31, 0}, {0x34, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    long ra;
    assert_int_equal(at(unwind, UNWIND_END, want[i].off, true, &ra), 1);
    assert_int_equal(ra, want[i].ra);
  }
  /* Without pop_ra the pop and jump are no exit; past the pop: no answer either. */
  long ra;
  assert_int_equal(at(unwind, UNWIND_END, 0x2e, false, &ra), 0);
  assert_int_equal(at(unwind, UNWIND_END, 0x35, true, &ra), 0);
}

static void other_rsp_moves_refused(void **state) {
  (void)state;
  long ra;
  /* and rsp,-16 in place of the sub: the depth is no longer known. */
  memcpy(subtype + 0x09, (const uint8_t[]){0x48, 0x83, 0xe4, 0xf0}, 4);
  assert_int_equal(at(subtype, SUBTYPE_END, 0x04, false, &ra), 0);
  memcpy(subtype + 0x09, (const uint8_t[]){0x48, 0x83, 0xec, 0x20}, 4);
  /* mov rsp,rdx in place of mov rdx,[rsp] on the miss path: no answer there; the found
   * path, which does not pass it, still answers. */
  memcpy(subtype + 0x2a, (const uint8_t[]){0x48, 0x89, 0xd4, 0x90}, 4);
  assert_int_equal(at(subtype, SUBTYPE_END, 0x2a, false, &ra), 0);
  assert_int_equal(at(subtype, SUBTYPE_END, 0x20, false, &ra), 1);
  memcpy(subtype + 0x2a, (const uint8_t[]){0x48, 0x8b, 0x14, 0x24}, 4);
  /* leave (rsp from rbp) before the pop of the unwind stub. */
  unwind[0x31] = 0xc9;
  assert_int_equal(at(unwind, UNWIND_END, 0x2e, true, &ra), 0);
  unwind[0x31] = 0x49;
  assert_int_equal(at(unwind, UNWIND_END, 0x2e, true, &ra), 1);
}
/* The answers as places: the return address at sp + ra, the caller's sp one word above,
 * rbp untouched; and the two pops after the call that pushed the arguments. */
static void answered_as_a_place(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)subtype;
  asgst__hs_stub_frame f;
  assert_true(asgst__hs_stub_frame_at(lo + 0x0d, lo, lo + SUBTYPE_END, false, &f));
  assert_int_equal(f.where, ASGST__STUB_RA_AT_SP);
  assert_int_equal(f.ra, 64);
  assert_int_equal(f.depth, 72);
  assert_int_equal(f.fp_at, -1);
  lo = (uintptr_t)unwind;
  assert_true(asgst__hs_stub_frame_at(lo + 0x20, lo, lo + UNWIND_END, true, &f));
  assert_int_equal(f.ra, 8);
  assert_false(asgst__hs_stub_frame_at(lo + 0x2e, lo, lo + UNWIND_END, false, &f));
  static const uint8_t pops[][4] = {{0x5e, 0x5f, 0x90, 0x90}, {0x41, 0x5a, 0x41, 0x5b}, {0x5a, 0x41, 0x5b, 0x90}};
  static const uint8_t not_pops[][4] = {{0x5e, 0x90, 0x5f, 0x90}, {0x48, 0x83, 0xc4, 0x10}};
  for (size_t i = 0; i < sizeof pops / sizeof pops[0]; i++)
    assert_int_equal(asgst__hs_args_popped_at((uintptr_t)pops[i]), 16);
  for (size_t i = 0; i < sizeof not_pops / sizeof not_pops[0]; i++)
    assert_int_equal(asgst__hs_args_popped_at((uintptr_t)not_pops[i]), 0);
  /* call rel32 -0x20 just before the pops: its target; other code there: none. */
  static const uint8_t call[] = {0xe8, 0xe0, 0xff, 0xff, 0xff, 0x5e, 0x5f, 0x90, 0x90};
  static const uint8_t jmp[] = {0xe9, 0xe0, 0xff, 0xff, 0xff, 0x5e, 0x5f, 0x90, 0x90};
  assert_true(asgst__hs_call_target_before((uintptr_t)call + 5) == (uintptr_t)call + 5 - 0x20);
  assert_true(asgst__hs_call_target_before((uintptr_t)jmp + 5) == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(subtype_check_every_depth),
      cmocka_unit_test(unwind_every_pc),
      cmocka_unit_test(other_rsp_moves_refused),
      cmocka_unit_test(answered_as_a_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include "test_other_arch.h"
TEST_OTHER_ARCH_MAIN("x86_64 only: arm64's frameless stubs keep the return address in lr (test_stub_frame_lr)")
#endif
