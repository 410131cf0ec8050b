/*
 * cfi_arch.h - the DWARF register numbers the call frame tables follow: the stack pointer
 * and frame pointer (CFA bases) and the return address column. One block per
 * architecture; everything else in impl/native/ is architecture-neutral.
 */
#ifndef ASGST_NATIVE_CFI_ARCH_H
#define ASGST_NATIVE_CFI_ARCH_H

#if defined(__x86_64__)
enum { ASGST_DW_SP = 7, ASGST_DW_FP = 6, ASGST_DW_RA = 16 }; /* rsp, rbp, return address */
#elif defined(__aarch64__)
enum { ASGST_DW_SP = 31, ASGST_DW_FP = 29, ASGST_DW_RA = 30 }; /* sp, x29, x30 (lr) */
#else
#error "impl/native: no DWARF register numbers for this architecture"
#endif

#endif
