/* test_stub_call_depth.c - the stack depth at a return address in out-of-line stub code
 * (asgst__hs_stub_call_depth, stub_exit.h), over instruction bytes assembled here (no
 * JVM): a stub laid out as C2's G1 barrier stubs' runtime path (JDK 24+: the live
 * registers saved below the frame, the call, their restores, the jump back to the
 * continuation) gives the bytes the restores release, so the walker sizes the frame from
 * its own sp; a leaf call in a main-code loop gives 0; a path that moves sp in a way the
 * decoder does not add up (sp from another register) gives no answer. x86_64 in the x86_64
 * build, arm64 in the arm64 one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "impl/arch/stub_exit.h"

#if defined(__x86_64__)
static const uint8_t code[0x70] = { /* 16 bytes past END: the decoder reads 16 at a time */
    /* main code */
    [0x00] = 0x90,                                /* nop */
    [0x01] = 0x48, 0x85, 0xc0,                    /* test rax,rax */
    [0x04] = 0x0f, 0x85, 0x16, 0x00, 0x00, 0x00,  /* jne 0x20: into the stub */
    [0x0a] = 0x90,                                /* the continuation */
    [0x0b] = 0xc3,                                /* ret */
    /* the stub's runtime path */
    [0x20] = 0x48, 0x83, 0xec, 0x40,              /* sub rsp,0x40: the save area */
    [0x24] = 0x48, 0x89, 0x04, 0x24,              /* mov [rsp],rax */
    [0x28] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call (the runtime) */
    [0x2d] = 0x48, 0x8b, 0x04, 0x24,              /* mov rax,[rsp] */
    [0x31] = 0x48, 0x83, 0xc4, 0x40,              /* add rsp,0x40 */
    [0x35] = 0xe9, 0xd0, 0xff, 0xff, 0xff,        /* jmp 0x0a */
    /* a leaf call in a main-code loop */
    [0x40] = 0x90,                                /* the loop head */
    [0x41] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call */
    [0x46] = 0x48, 0x83, 0xc0, 0x01,              /* add rax,1 */
    [0x4a] = 0xeb, 0xf4,                          /* jmp 0x40 */
    /* sp from another register on the way back */
    [0x50] = 0xe8, 0x00, 0x00, 0x00, 0x00,        /* call */
    [0x55] = 0x48, 0x89, 0xec,                    /* mov rsp,rbp */
    [0x58] = 0xeb, 0xb0,                          /* jmp 0x0a */
};
#define SAVED_RET 0x2d
#define LOOP_RET 0x46
#define MOVED_RET 0x55
#define END 0x60
#elif defined(__aarch64__)
static const uint32_t words[0x12] = {
    /* main code */
    [0x00 / 4] = 0xd503201f, /* nop */
    [0x04 / 4] = 0x35000060, /* cbnz w0,0x10: into the stub */
    [0x08 / 4] = 0xd503201f, /* the continuation */
    [0x0c / 4] = 0xd65f03c0, /* ret */
    /* the stub's runtime path, as JDK 25's */
    [0x10 / 4] = 0xa9bc0be1, /* stp x1,x2,[sp,#-64]! */
    [0x14 / 4] = 0xa90137e3, /* stp x3,x13,[sp,#16] */
    [0x18 / 4] = 0x94000002, /* bl (the runtime) */
    [0x1c / 4] = 0x2518e3e7, /* ptrue p7.b (SVE, after a call) */
    [0x20 / 4] = 0xa94137e3, /* ldp x3,x13,[sp,#16] */
    [0x24 / 4] = 0xa8c40be1, /* ldp x1,x2,[sp],#64 */
    [0x28 / 4] = 0x17fffff8, /* b 0x08 */
    /* a leaf call in a main-code loop */
    [0x2c / 4] = 0xd503201f, /* the loop head */
    [0x30 / 4] = 0x94000002, /* bl */
    [0x34 / 4] = 0x91000400, /* add x0,x0,#1 */
    [0x38 / 4] = 0x17fffffd, /* b 0x2c */
    /* sp from another register on the way back */
    [0x3c / 4] = 0x94000002, /* bl */
    [0x40 / 4] = 0x910003bf, /* mov sp,x29 */
    [0x44 / 4] = 0x17fffff1, /* b 0x08 */
};
#define code ((const uint8_t *)words)
#define SAVED_RET 0x1c
#define LOOP_RET 0x34
#define MOVED_RET 0x40
#define END 0x48
#endif

#if defined(__x86_64__) || defined(__aarch64__)
/* The restores release the save area: the frame's sp is 64 bytes above sp at the call. */
static void saved_registers_give_depth(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  long depth = -1;
  assert_true(asgst__hs_stub_call_depth(lo + SAVED_RET, lo, lo + END, &depth));
  assert_int_equal(depth, 64);
}

/* Main code keeps one frame: nothing to add. */
static void main_code_gives_zero(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  long depth = -1;
  assert_true(asgst__hs_stub_call_depth(lo + LOOP_RET, lo, lo + END, &depth));
  assert_int_equal(depth, 0);
}

/* sp loaded from another register: not added up, no answer. */
static void unknown_sp_move_refused(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  long depth = 0;
  assert_false(asgst__hs_stub_call_depth(lo + MOVED_RET, lo, lo + END, &depth));
}

/* The path must jump back into the method: a method starting after the continuation has
 * no way back from the stub. */
static void no_way_back_no_depth(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  long depth = 0;
  assert_false(asgst__hs_stub_call_depth(lo + SAVED_RET, lo + 0x0c, lo + END, &depth));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(saved_registers_give_depth),
      cmocka_unit_test(main_code_gives_zero),
      cmocka_unit_test(unknown_sp_move_refused),
      cmocka_unit_test(no_way_back_no_depth),
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
