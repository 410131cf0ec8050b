/* test_stub_call.c - the proof that a return address without debug information lies in a
 * compiled method's out-of-line stub code (asgst__hs_stub_call_way_back, stub_exit.h),
 * over instruction bytes assembled here (no JVM): a method whose main code branches to a
 * stub laid out as C1's G1 post-barrier stub (null check, the argument stored, the call
 * of the runtime's slow path, the jump back to the continuation) is proven and gives the
 * continuation; a leaf call in a main-code loop (the path from its return address meets
 * the loop's backward jump) is not, nor is one whose loop head follows a branch whose
 * target's path never reaches the return address. x86_64 in the x86_64 build, arm64 in
 * the arm64 one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "impl/arch/stub_exit.h"

#if defined(__x86_64__)
static const uint8_t code[0xa0] = {
    /* main code */
    [0x00] = 0x90,                                /* nop */
    [0x01] = 0x48, 0x85, 0xc0,                    /* test rax,rax */
    [0x04] = 0x0f, 0x85, 0x26, 0x00, 0x00, 0x00,  /* jne 0x30: into the stub */
    [0x0a] = 0x90,                                /* the continuation */
    [0x0b] = 0xc3,                                /* ret */
    /* the stub, as C1's G1 post barrier's */
    [0x30] = 0x48, 0x83, 0xf8, 0x00,              /* cmp rax,0 */
    [0x34] = 0x0f, 0x84, 0xd0, 0xff, 0xff, 0xff,  /* je 0x0a */
    [0x3a] = 0x48, 0x89, 0x04, 0x24,              /* mov [rsp],rax (the argument) */
    [0x3e] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call (the runtime's slow path) */
    [0x43] = 0xe9, 0xc2, 0xff, 0xff, 0xff,        /* jmp 0x0a */
    /* a loop whose head follows a jump to a return (its path never reaches the call) */
    [0x50] = 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
    [0x5a] = 0xeb, 0x02,                          /* jmp 0x5e */
    [0x5c] = 0x90, 0x90,                          /* the loop head */
    [0x5e] = 0xc3,                                /* ret */
    [0x5f] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call */
    [0x64] = 0xeb, 0xf6,                          /* jmp 0x5c */
    /* a leaf call in a main-code loop */
    [0x70] = 0x48, 0x89, 0xc7, 0x48, 0x85, 0xc0,  /* mov rdi,rax; test rax,rax */
    [0x76] = 0x90,                                /* the loop head */
    [0x77] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call */
    [0x7c] = 0x48, 0x83, 0xc0, 0x01,              /* add rax,1 */
    [0x80] = 0xeb, 0xf4,                          /* jmp 0x76 */
};
#define STUB_RET 0x43
#define CONTINUATION 0x0a
#define JUMP_RET 0x64
#define LOOP_RET 0x7c
#define END 0x90
#elif defined(__aarch64__)
static const uint32_t words[0x28] = {
    /* main code */
    [0x00 / 4] = 0xd503201f, /* nop */
    [0x04 / 4] = 0x54000061, /* b.ne 0x10: into the stub */
    [0x08 / 4] = 0xd503201f, /* the continuation */
    [0x0c / 4] = 0xd65f03c0, /* ret */
    /* the stub, as C1's G1 post barrier's */
    [0x10 / 4] = 0xb4ffffc0, /* cbz x0,0x08 */
    [0x14 / 4] = 0xf90003e0, /* str x0,[sp] (the argument) */
    [0x18 / 4] = 0x94000002, /* bl (the runtime's slow path) */
    [0x1c / 4] = 0x17fffffb, /* b 0x08 */
    /* a loop whose head follows a branch to a return */
    [0x20 / 4] = 0x14000002, /* b 0x28 */
    [0x24 / 4] = 0xd503201f, /* the loop head */
    [0x28 / 4] = 0xd65f03c0, /* ret */
    [0x2c / 4] = 0x94000002, /* bl */
    [0x30 / 4] = 0x17fffffd, /* b 0x24 */
    /* a leaf call in a main-code loop */
    [0x34 / 4] = 0xaa0003e1, /* mov x1,x0 */
    [0x38 / 4] = 0xd503201f, /* the loop head */
    [0x3c / 4] = 0x94000002, /* bl */
    [0x40 / 4] = 0x91000400, /* add x0,x0,#1 */
    [0x44 / 4] = 0x17fffffd, /* b 0x38 */
};
#define code ((const uint8_t *)words)
#define STUB_RET 0x1c
#define CONTINUATION 0x08
#define JUMP_RET 0x30
#define LOOP_RET 0x40
#define END 0x48
#endif

#if defined(__x86_64__) || defined(__aarch64__)
/* The stub's call: proven, and the way back is the continuation. */
static void stub_call_proven(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code, back = 0;
  assert_true(asgst__hs_stub_call_way_back(lo + STUB_RET, lo, lo + END, &back));
  assert_int_equal(back, lo + CONTINUATION);
}

/* A leaf call in a main-code loop: the path from its return address jumps back to the
 * loop head (a way back by asgst__hs_stub_way_back's rules), but no branch into the code
 * between ends there: not proven. */
static void main_code_loop_not_proven(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code, back = 0;
  assert_true(asgst__hs_stub_way_back(lo + LOOP_RET, lo, lo + END, &back));
  assert_false(asgst__hs_stub_call_way_back(lo + LOOP_RET, lo, lo + END, &back));
}

/* A branch ends at the loop head and goes to code before the return address, but the path
 * from its target ends (a return) before reaching it: not proven. */
static void branch_path_must_reach(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code, back = 0;
  assert_true(asgst__hs_stub_way_back(lo + JUMP_RET, lo, lo + END, &back));
  assert_false(asgst__hs_stub_call_way_back(lo + JUMP_RET, lo, lo + END, &back));
}

/* The continuation must lie in the method: one that starts after it has none. */
static void continuation_outside_the_method(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code, back = 0;
  assert_false(asgst__hs_stub_call_way_back(lo + STUB_RET, lo + CONTINUATION + 1, lo + END, &back));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stub_call_proven),
      cmocka_unit_test(main_code_loop_not_proven),
      cmocka_unit_test(branch_path_must_reach),
      cmocka_unit_test(continuation_outside_the_method),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include <stdio.h>
int main(void) {
  printf("1..1\nok 1 # SKIP x86_64 and arm64 only\n");
  return 0;
}
#endif
