/* test_stub_exit.c - the way back from out-of-line stub code into a compiled method's main
 * code (impl/arch/<arch>/stub_exit.c) over instruction bytes of a stub laid out as C2's G1
 * post-barrier stub on JDK 24+ (card check, queue insertion, register saves around the
 * runtime call, two jumps back to the continuation; assembled here, no JVM): from every
 * instruction of the stub the way back is the continuation, and a return, an unknown
 * opcode, a jump out of the blob or a loop give none. x86_64 in the x86_64 build, arm64 in
 * the arm64 one (under qemu here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "impl/arch/stub_exit.h"

#if defined(__x86_64__)
/* The continuation at 0 (a nop standing for the main code after the branch to the stub),
 * the stub from 1; padded (the decoder reads 16 bytes at each instruction). */
static const uint8_t code[0xa0] = {
    0x90,                                     /* 00 nop: the continuation */
    0xf0, 0x83, 0x44, 0x24, 0xc0, 0x00,       /* 01 lock add dword [rsp-0x40],0 (StoreLoad) */
    0x41, 0x80, 0x3b, 0x00,                   /* 07 cmp byte [r11],0 (card dirty?) */
    0x74, 0xf3,                               /* 0b je 0 */
    0x41, 0xc6, 0x03, 0x00,                   /* 0d mov byte [r11],0 */
    0x4d, 0x8b, 0x97, 0xc8, 0x02, 0x00, 0x00, /* 11 mov r10,[r15+0x2c8] (queue index) */
    0x4d, 0x85, 0xd2,                         /* 18 test r10,r10 */
    0x74, 0x17,                               /* 1b je 0x34 (runtime) */
    0x49, 0x83, 0xea, 0x08,                   /* 1d sub r10,8 */
    0x4d, 0x89, 0x97, 0xc8, 0x02, 0x00, 0x00, /* 21 mov [r15+0x2c8],r10 */
    0x4d, 0x03, 0x97, 0xd0, 0x02, 0x00, 0x00, /* 28 add r10,[r15+0x2d0] */
    0x4d, 0x89, 0x1a,                         /* 2f mov [r10],r11 */
    0xeb, 0xcc,                               /* 32 jmp 0 */
    0x48, 0x83, 0xec, 0x48,                   /* 34 sub rsp,0x48 (runtime: saves) */
    0x48, 0x89, 0x44, 0x24, 0x08,             /* 38 mov [rsp+8],rax */
    0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x44, 0x24, 0x01, /* 3d vmovdqu64 [rsp+0x40],zmm16 (EVEX) */
    0xc5, 0xfa, 0x7f, 0x44, 0x24, 0x10,       /* 45 vmovdqu [rsp+0x10],xmm0 (VEX2) */
    0xc4, 0xe1, 0xf8, 0x91, 0x4c, 0x24, 0x20, /* 4b kmovq [rsp+0x20],k1 (VEX3) */
    0x4c, 0x89, 0xdf,                         /* 52 mov rdi,r11 */
    0x4c, 0x89, 0xfe,                         /* 55 mov rsi,r15 */
    0x48, 0xb8, 0x78, 0x56, 0x34, 0x12, 0x00, 0x7f, 0x00, 0x00, /* 58 mov rax,imm64 */
    0xff, 0xd0,                               /* 62 call rax */
    0xc4, 0xe1, 0xf8, 0x90, 0x4c, 0x24, 0x20, /* 64 kmovq k1,[rsp+0x20] */
    0xc5, 0xfa, 0x6f, 0x44, 0x24, 0x10,       /* 6b vmovdqu xmm0,[rsp+0x10] */
    0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x44, 0x24, 0x01, /* 71 vmovdqu64 zmm16,[rsp+0x40] */
    0x48, 0x8b, 0x44, 0x24, 0x08,             /* 79 mov rax,[rsp+8] */
    0x48, 0x83, 0xc4, 0x48,                   /* 7e add rsp,0x48 */
    0xe9, 0x79, 0xff, 0xff, 0xff,             /* 82 jmp 0 */
};
static const int starts[] = {0x01, 0x07, 0x0b, 0x0d, 0x11, 0x18, 0x1b, 0x1d, 0x21, 0x28, 0x2f, 0x32, 0x34,
                             0x38, 0x3d, 0x45, 0x4b, 0x52, 0x55, 0x58, 0x62, 0x64, 0x6b, 0x71, 0x79, 0x7e, 0x82};
#define STUB_END 0x87
/* A forward jump within the stub, then the way back: jmp +2; ud2; jmp 0 (from 0x10). */
static const uint8_t hop[0x40] = {[0x10] = 0xeb, 0x02, 0x0f, 0x0b, 0xe9, 0xe7, 0xff, 0xff, 0xff};
static const uint8_t ret_path[0x30] = {[0x10] = 0x48, 0x89, 0xc7, 0xc3};        /* mov rdi,rax; ret */
static const uint8_t unknown[0x30] = {[0x10] = 0x48, 0x89, 0xc7, 0x0f, 0x30};  /* wrmsr */
static const uint8_t loop[0x30] = {[0x10] = 0x90, 0xeb, 0xfd};                  /* nop; jmp to the nop */
static const uint8_t out_of_blob[0x30] = {[0x10] = 0xe9, 0x00, 0x01, 0x00, 0x00}; /* jmp past the end */
#define PATH_LEN 5
#elif defined(__aarch64__)
static const uint32_t words[0x20] = {
    0xd503201f, /* 00 nop: the continuation */
    0xd5033bbf, /* 04 dmb ish (StoreLoad) */
    0x39400128, /* 08 ldrb w8,[x9] */
    0x34ffffa8, /* 0c cbz w8,0 */
    0x3900013f, /* 10 strb wzr,[x9] */
    0xf941678a, /* 14 ldr x10,[x28,#0x2c8] */
    0xb40000ca, /* 18 cbz x10,0x30 (runtime) */
    0xd100214a, /* 1c sub x10,x10,#8 */
    0xf901678a, /* 20 str x10,[x28,#0x2c8] */
    0xf9416b8b, /* 24 ldr x11,[x28,#0x2d0] */
    0xf82a6969, /* 28 str x9,[x11,x10] */
    0x17fffff5, /* 2c b 0 */
    0xd10103ff, /* 30 sub sp,sp,#0x40 (runtime: saves) */
    0xa90007e0, /* 34 stp x0,x1,[sp] */
    0x3d8007e0, /* 38 str q0,[sp,#16] */
    0xaa0903e0, /* 3c mov x0,x9 */
    0xaa1c03e1, /* 40 mov x1,x28 */
    0xd28acf08, /* 44 movz x8,#0x5678 */
    0xf2a24688, /* 48 movk x8,#0x1234,lsl #16 */
    0xf2cfe008, /* 4c movk x8,#0x7f00,lsl #32 */
    0xd63f0100, /* 50 blr x8 */
    0x3dc007e0, /* 54 ldr q0,[sp,#16] */
    0xa94007e0, /* 58 ldp x0,x1,[sp] */
    0x910103ff, /* 5c add sp,sp,#0x40 */
    0x17ffffe8, /* 60 b 0 */
};
#define code ((const uint8_t *)words)
static const int starts[] = {0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c, 0x20, 0x24, 0x28, 0x2c, 0x30, 0x34,
                             0x38, 0x3c, 0x40, 0x44, 0x48, 0x4c, 0x50, 0x54, 0x58, 0x5c, 0x60};
#define STUB_END 0x64
/* From 0x10: b +8; udf; b 0. */
static const uint32_t hop_w[0x10] = {[4] = 0x14000002, 0x00000000, 0x17fffffa};
static const uint32_t ret_w[0x10] = {[4] = 0xaa0003e1, 0xd65f03c0};   /* mov x1,x0; ret */
static const uint32_t unknown_w[0x10] = {[4] = 0xaa0003e1, 0xd4200000}; /* brk #0 */
static const uint32_t loop_w[0x10] = {[4] = 0xd503201f, 0x17ffffff};    /* nop; b to the nop */
static const uint32_t out_w[0x10] = {[4] = 0x14000100};                 /* b past the end */
#define hop ((const uint8_t *)hop_w)
#define ret_path ((const uint8_t *)ret_w)
#define unknown ((const uint8_t *)unknown_w)
#define loop ((const uint8_t *)loop_w)
#define out_of_blob ((const uint8_t *)out_w)
#define PATH_LEN 0x40
#endif

#if defined(__x86_64__) || defined(__aarch64__)
/* Every instruction of the stub finds its way back to the continuation. */
static void every_pc_of_the_stub(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code;
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
    uintptr_t back = 1;
    assert_true(asgst__hs_stub_way_back(lo + (uintptr_t)starts[i], lo, lo + STUB_END, &back));
    assert_int_equal(back, lo);
  }
}

/* The way back must lie in [lo, pc): a method starting after the continuation has none. */
static void continuation_outside_the_method(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)code, back = 0;
  assert_false(asgst__hs_stub_way_back(lo + starts[0], lo + 1, lo + STUB_END, &back));
}

/* A forward jump within the blob is followed. */
static void forward_jump_followed(void **state) {
  (void)state;
  uintptr_t lo = (uintptr_t)hop, back = 0;
  assert_true(asgst__hs_stub_way_back(lo + 0x10, lo, lo + 0x20, &back));
  assert_int_equal(back, lo);
}

/* A return, a trap or unknown instruction, a loop, a jump out of the blob: no way back. */
static void no_way_back(void **state) {
  (void)state;
  const uint8_t *cases[] = {ret_path, unknown, loop, out_of_blob};
  for (int i = 0; i < 4; i++) {
    uintptr_t lo = (uintptr_t)cases[i], back = 0;
    assert_false(asgst__hs_stub_way_back(lo + 0x10, lo, lo + 0x10 + PATH_LEN, &back));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_pc_of_the_stub),
      cmocka_unit_test(continuation_outside_the_method),
      cmocka_unit_test(forward_jump_followed),
      cmocka_unit_test(no_way_back),
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
