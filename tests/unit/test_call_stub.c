/* test_call_stub.c - where a pc lies in the call stub outside its call of the Java entry
 * (impl/arch/x86_64/call_stub.c, asgst__hs_call_stub_at), over the bytes of JDK 25's
 * call stub (as its -XX:+PrintStubCode shows them; JDK 17 to 27 emit the same sequence
 * but for the load of r12 and, before 21, the stack watermark check after the call)
 * placed after another stub in one blob, as HotSpot places it: the entry is found from
 * the return address alone, each instruction boundary gets the phase the code before it
 * has reached (after the call: the frame record up to pop rbp, the return address at sp
 * at the ret), and a stub whose code differs in what the proof rests on (the wrapper's
 * slot, a write of rbp or of a register before the store, a branch back before the store
 * or into an instruction, an unknown instruction, the return address) gives no answer. arm64 does not decode the stub: always no answer there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "impl/arch/call_stub.h"

/* Where the call stub begins in the blob, and its return address's offset from there. */
#define STUB 0x20
#define RET 0x89
#define WRAPPER (-0x30) /* 8 * frame::entry_frame_call_wrapper_offset (-6) */

static const uint8_t blob25[0x140] = {
    /* another stub with a frame record first (get_previous_fp's shape), then padding */
    0x55,                                   /* 00 push rbp */
    0x48, 0x8b, 0xec,                       /* 01 mov rbp,rsp */
    0x48, 0x8b, 0x45, 0x00,                 /* 04 mov rax,[rbp] */
    0x5d,                                   /* 08 pop rbp */
    0xc3,                                   /* 09 ret */
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
    /* the call stub, offsets from its entry */
    0x55,                                   /* 00 push rbp */
    0x48, 0x8b, 0xec,                       /* 01 mov rbp,rsp */
    0x48, 0x83, 0xec, 0x60,                 /* 04 sub rsp,0x60 */
    0x4c, 0x89, 0x4d, 0xf8,                 /* 08 mov [rbp-0x8],r9 */
    0x4c, 0x89, 0x45, 0xf0,                 /* 0c mov [rbp-0x10],r8 */
    0x48, 0x89, 0x4d, 0xe8,                 /* 10 mov [rbp-0x18],rcx */
    0x89, 0x55, 0xe0,                       /* 14 mov [rbp-0x20],edx */
    0x48, 0x89, 0x75, 0xd8,                 /* 17 mov [rbp-0x28],rsi */
    0x48, 0x89, 0x7d, 0xd0,                 /* 1b mov [rbp-0x30],rdi (the JavaCallWrapper) */
    0x48, 0x89, 0x5d, 0xc8,                 /* 1f mov [rbp-0x38],rbx */
    0x4c, 0x89, 0x65, 0xc0,                 /* 23 mov [rbp-0x40],r12 */
    0x4c, 0x89, 0x6d, 0xb8,                 /* 27 mov [rbp-0x48],r13 */
    0x4c, 0x89, 0x75, 0xb0,                 /* 2b mov [rbp-0x50],r14 */
    0x4c, 0x89, 0x7d, 0xa8,                 /* 2f mov [rbp-0x58],r15 */
    0xc5, 0xf8, 0xae, 0x5d, 0xa0,           /* 33 vstmxcsr [rbp-0x60] */
    0x8b, 0x45, 0xa0,                       /* 38 mov eax,[rbp-0x60] */
    0x25, 0xc0, 0xff, 0x00, 0x00,           /* 3b and eax,0xffc0 */
    0x3b, 0x05, 0x99, 0x0a, 0xff, 0x13,     /* 40 cmp eax,[rip+d] */
    0x0f, 0x84, 0x08, 0x00, 0x00, 0x00,     /* 46 je 0x54 */
    0xc5, 0xf8, 0xae, 0x15, 0x8b, 0x0a, 0xff, 0x13, /* 4c vldmxcsr [rip+d] */
    0x4c, 0x8b, 0x7d, 0x18,                 /* 54 mov r15,[rbp+0x18] */
    0x4c, 0x8b, 0x25, 0x2c, 0x7d, 0xfa, 0x13, /* 58 mov r12,[rip+d] */
    0x8b, 0x4d, 0x10,                       /* 5f mov ecx,[rbp+0x10] */
    0x85, 0xc9,                             /* 62 test ecx,ecx */
    0x0f, 0x84, 0x12, 0x00, 0x00, 0x00,     /* 64 je 0x7c */
    0x48, 0x8b, 0x55, 0xf8,                 /* 6a mov rdx,[rbp-0x8] */
    0x8b, 0xf1,                             /* 6e mov esi,ecx */
    0x48, 0x8b, 0x02,                       /* 70 mov rax,[rdx] */
    0x48, 0x83, 0xc2, 0x08,                 /* 73 add rdx,8 */
    0xff, 0xce,                             /* 77 dec esi */
    0x50,                                   /* 79 push rax */
    0x75, 0xf4,                             /* 7a jne 0x70 */
    0x48, 0x8b, 0x5d, 0xe8,                 /* 7c mov rbx,[rbp-0x18] */
    0x48, 0x8b, 0x75, 0xf0,                 /* 80 mov rsi,[rbp-0x10] */
    0x4c, 0x8b, 0xec,                       /* 84 mov r13,rsp */
    0xff, 0xd6,                             /* 87 call rsi */
    0x48, 0x8b, 0x7d, 0xd8,                 /* 89 mov rdi,[rbp-0x28] (the return address) */
    0x8b, 0x75, 0xe0,                       /* 8d mov esi,[rbp-0x20] */
    0x83, 0xfe, 0x0c,                       /* 90 cmp esi,0xc */
    0x0f, 0x84, 0x57, 0x00, 0x00, 0x00,     /* 93 je 0xf0 */
    0x83, 0xfe, 0x0b,                       /* 99 cmp esi,0xb */
    0x0f, 0x84, 0x4e, 0x00, 0x00, 0x00,     /* 9c je 0xf0 */
    0x83, 0xfe, 0x06,                       /* a2 cmp esi,0x6 */
    0x0f, 0x84, 0x4a, 0x00, 0x00, 0x00,     /* a5 je 0xf5 */
    0x83, 0xfe, 0x07,                       /* ab cmp esi,0x7 */
    0x0f, 0x84, 0x47, 0x00, 0x00, 0x00,     /* ae je 0xfb */
    0x89, 0x07,                             /* b4 mov [rdi],eax */
    0x48, 0x8d, 0x65, 0xa0,                 /* b6 lea rsp,[rbp-0x60] */
    0x49, 0x3b, 0xa7, 0x20, 0x06, 0x00, 0x00, /* ba cmp rsp,[r15+0x620] */
    0x72, 0x0b,                             /* c1 jb 0xce */
    0x49, 0xc7, 0x87, 0x20, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* c3 mov qword [r15+0x620],0 */
    0x4c, 0x8b, 0x7d, 0xa8,                 /* ce mov r15,[rbp-0x58] */
    0x4c, 0x8b, 0x75, 0xb0,                 /* d2 mov r14,[rbp-0x50] */
    0x4c, 0x8b, 0x6d, 0xb8,                 /* d6 mov r13,[rbp-0x48] */
    0x4c, 0x8b, 0x65, 0xc0,                 /* da mov r12,[rbp-0x40] */
    0x48, 0x8b, 0x5d, 0xc8,                 /* de mov rbx,[rbp-0x38] */
    0xc5, 0xf8, 0xae, 0x55, 0xa0,           /* e2 vldmxcsr [rbp-0x60] */
    0x48, 0x83, 0xc4, 0x60,                 /* e7 add rsp,0x60 */
    0xc5, 0xf8, 0x77,                       /* eb vzeroupper */
    0x5d,                                   /* ee pop rbp */
    0xc3,                                   /* ef ret */
    0x48, 0x89, 0x07,                       /* f0 mov [rdi],rax */
    0xeb, 0xc1,                             /* f3 jmp 0xb6 */
    0xc5, 0xfa, 0x11, 0x07,                 /* f5 vmovss [rdi],xmm0 */
    0xeb, 0xbb,                             /* f9 jmp 0xb6 */
    0xc5, 0xfb, 0x11, 0x07,                 /* fb vmovsd [rdi],xmm0 */
    0xeb, 0xb5,                             /* ff jmp 0xb6 */
};

/* The phase at offset off of the call stub in b, its return address at STUB + ret. */
static int phase_in(const uint8_t *b, unsigned off, unsigned ret, long wrapper) {
  uintptr_t lo = (uintptr_t)b;
  return asgst__hs_call_stub_at(lo + STUB + off, lo, lo + sizeof blob25, lo + STUB + ret, wrapper);
}

static int phase(unsigned off) { return phase_in(blob25, off, RET, WRAPPER); }

static const unsigned record[] = {0x04, 0x08, 0x0c, 0x10, 0x14, 0x17, 0x1b};
static const unsigned wrapped[] = {0x1f, 0x23, 0x27, 0x2b, 0x2f, 0x33, 0x38, 0x3b, 0x40, 0x46, 0x4c,
                                   0x54, 0x58, 0x5f, 0x62, 0x64, 0x6a, 0x6e, 0x70, 0x73, 0x77, 0x79,
                                   0x7a, 0x7c, 0x80, 0x84, 0x87};

#if defined(__x86_64__)
static uint8_t work[sizeof blob25];

/* A copy of the blob with n bytes at the stub's offset off replaced. */
static const uint8_t *patched(unsigned off, const uint8_t *bytes, size_t n) {
  memcpy(work, blob25, sizeof work);
  memcpy(work + STUB + off, bytes, n);
  return work;
}

static void phases_at_each_boundary(void **state) {
  (void)state;
  assert_int_equal(phase(0x00), ASGST__CS_ENTRY);
  assert_int_equal(phase(0x01), ASGST__CS_PUSHED);
  for (size_t i = 0; i < sizeof record / sizeof record[0]; i++)
    assert_int_equal(phase(record[i]), ASGST__CS_RECORD);
  for (size_t i = 0; i < sizeof wrapped / sizeof wrapped[0]; i++)
    assert_int_equal(phase(wrapped[i]), ASGST__CS_WRAPPER);
}

static void elsewhere_no_answer(void **state) {
  (void)state;
  /* inside instructions */
  static const unsigned inside[] = {0x02, 0x05, 0x1c, 0x1d, 0x35, 0x4e, 0x7b, 0x88};
  for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++)
    assert_int_equal(phase(inside[i]), ASGST__CS_NONE);
  /* at the return address (the exported entry frame), inside the code after it, past the stub */
  assert_int_equal(phase(RET), ASGST__CS_NONE);
  static const unsigned after_inside[] = {0x8a, 0x8e, 0x94, 0xc4, 0xf1, 0xf6, 0x100, 0x101, 0x110};
  for (size_t i = 0; i < sizeof after_inside / sizeof after_inside[0]; i++)
    assert_int_equal(phase(after_inside[i]), ASGST__CS_NONE);
  /* the stub before it, whose frame record is not the call stub's */
  uintptr_t lo = (uintptr_t)blob25;
  for (unsigned off = 0; off < 10; off++)
    assert_int_equal(asgst__hs_call_stub_at(lo + off, lo, lo + sizeof blob25, lo + STUB + RET, WRAPPER),
                     ASGST__CS_NONE);
  /* the return address outside the blob, or too far above the pc */
  assert_int_equal(asgst__hs_call_stub_at(lo + STUB + 0x40, lo, lo + STUB + 0x60, lo + STUB + RET, WRAPPER),
                   ASGST__CS_NONE);
  assert_int_equal(asgst__hs_call_stub_at(lo + STUB + 0x40, lo, lo + 0x1000, lo + STUB + 0x40 + ASGST__CALL_STUB_SPAN + 1,
                                          WRAPPER),
                   ASGST__CS_NONE);
}

static void after_the_call(void **state) {
  (void)state;
  static const unsigned wrapped_after[] = {0x8d, 0x90, 0x93, 0x99, 0x9c, 0xa2, 0xa5, 0xab, 0xae, 0xb4,
                                           0xb6, 0xba, 0xc1, 0xc3, 0xce, 0xd2, 0xd6, 0xda, 0xde, 0xe2,
                                           0xe7, 0xeb, 0xee, 0xf0, 0xf3, 0xf5, 0xf9, 0xfb, 0xff};
  for (size_t i = 0; i < sizeof wrapped_after / sizeof wrapped_after[0]; i++)
    assert_int_equal(phase(wrapped_after[i]), ASGST__CS_WRAPPER);
  assert_int_equal(phase(0x89 + 0), ASGST__CS_NONE); /* the return address: NONE (see above) */
  assert_int_equal(phase(0xef), ASGST__CS_ENTRY);    /* ret: the return address at sp */
  /* mov rbp,[rbp-0x38] where rbx is restored: the frame record is gone */
  static const uint8_t rbp_load[] = {0x48, 0x8b, 0x6d, 0xc8};
  assert_int_equal(phase_in(patched(0xde, rbp_load, 4), 0xe7, RET, WRAPPER), ASGST__CS_NONE);
  /* a result store jumping back into an instruction (0xb7) */
  static const uint8_t mid[] = {0xeb, (uint8_t)(0xb7 - 0xf5)};
  assert_int_equal(phase_in(patched(0xf3, mid, 2), 0xe7, RET, WRAPPER), ASGST__CS_NONE);
  /* the code before the return address not the stub's (no store of the wrapper) */
  assert_int_equal(phase_in(blob25, 0xe7, RET, -0x28), ASGST__CS_NONE);
}

static void unproven_shapes_no_answer(void **state) {
  (void)state;
  /* another wrapper slot: no store of rdi there */
  assert_int_equal(phase_in(blob25, 0x40, RET, -0x28), ASGST__CS_NONE);
  /* a return address one byte off: the call does not end there */
  assert_int_equal(phase_in(blob25, 0x40, RET - 1, WRAPPER), ASGST__CS_NONE);
  /* mov rbp,[rbp+0x18] where r15 is loaded: the frame record is gone */
  static const uint8_t rbp_load[] = {0x48, 0x8b, 0x6d, 0x18};
  assert_int_equal(phase_in(patched(0x54, rbp_load, 4), 0x40, RET, WRAPPER), ASGST__CS_NONE);
  assert_int_equal(phase_in(work, 0x84, RET, WRAPPER), ASGST__CS_NONE);
  /* mov rdi,[rbp-0x28] before the store: rdi no longer the first argument */
  static const uint8_t rdi_load[] = {0x48, 0x8b, 0x7d, 0xd8};
  assert_int_equal(phase_in(patched(0x17, rdi_load, 4), 0x40, RET, WRAPPER), ASGST__CS_NONE);
  /* the loop's jne back to 0x10, before the store */
  static const uint8_t back[] = {0x75, (uint8_t)(0x10 - 0x7c)};
  assert_int_equal(phase_in(patched(0x7a, back, 2), 0x40, RET, WRAPPER), ASGST__CS_NONE);
  /* the loop's jne into the middle of an instruction (0x71) */
  static const uint8_t mid[] = {0x75, (uint8_t)(0x71 - 0x7c)};
  assert_int_equal(phase_in(patched(0x7a, mid, 2), 0x40, RET, WRAPPER), ASGST__CS_NONE);
  /* an instruction the decoder does not know (int3 int3 for test ecx,ecx) */
  static const uint8_t trap[] = {0xcc, 0xcc};
  assert_int_equal(phase_in(patched(0x62, trap, 2), 0x40, RET, WRAPPER), ASGST__CS_NONE);
  /* a leave on the way (pops rbp) */
  static const uint8_t leave[] = {0xc9, 0x90};
  assert_int_equal(phase_in(patched(0x62, leave, 2), 0x40, RET, WRAPPER), ASGST__CS_NONE);
}

static void jdk26_xor_r12(void **state) {
  (void)state;
  /* JDK 26 and 27 clear r12 (xor r12,r12) where the heap base is 0: here padded with
   * nops to keep the offsets. */
  static const uint8_t xor_r12[] = {0x4d, 0x33, 0xe4, 0x90, 0x90, 0x90, 0x90};
  const uint8_t *b = patched(0x58, xor_r12, sizeof xor_r12);
  assert_int_equal(phase_in(b, 0x58, RET, WRAPPER), ASGST__CS_WRAPPER);
  assert_int_equal(phase_in(b, 0x5c, RET, WRAPPER), ASGST__CS_WRAPPER);
  assert_int_equal(phase_in(b, 0x1b, RET, WRAPPER), ASGST__CS_RECORD);
}
#else
static void phases_at_each_boundary(void **state) {
  (void)state;
  assert_int_equal(phase(0x00), ASGST__CS_NONE);
  for (size_t i = 0; i < sizeof record / sizeof record[0]; i++)
    assert_int_equal(phase(record[i]), ASGST__CS_NONE);
  for (size_t i = 0; i < sizeof wrapped / sizeof wrapped[0]; i++)
    assert_int_equal(phase(wrapped[i]), ASGST__CS_NONE);
}
static void elsewhere_no_answer(void **state) { phases_at_each_boundary(state); }
static void unproven_shapes_no_answer(void **state) { phases_at_each_boundary(state); }
static void jdk26_xor_r12(void **state) { phases_at_each_boundary(state); }
static void after_the_call(void **state) { phases_at_each_boundary(state); }
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(phases_at_each_boundary),
      cmocka_unit_test(elsewhere_no_answer),
      cmocka_unit_test(after_the_call),
      cmocka_unit_test(unproven_shapes_no_answer),
      cmocka_unit_test(jdk26_xor_r12),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
