/*
 * dwarf_regs.h - arm64: the DWARF register numbers the call frame tables follow (the
 * stack pointer and frame pointer, bases of a CFA, and the return address column), for
 * impl/native/. Included through arch.h only.
 */
#ifndef ASGST_ARCH_AARCH64_DWARF_REGS_H
#define ASGST_ARCH_AARCH64_DWARF_REGS_H

enum { ASGST_DW_SP = 31, ASGST_DW_FP = 29, ASGST_DW_RA = 30 }; /* sp, x29, x30 (lr) */

#endif
