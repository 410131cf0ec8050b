/*
 * dwarf_regs.h - x86_64: the DWARF register numbers the call frame tables follow (the
 * stack pointer and frame pointer, bases of a CFA, and the return address column), for
 * impl/native/. Included through arch.h only.
 */
#ifndef ASGST_ARCH_X86_64_DWARF_REGS_H
#define ASGST_ARCH_X86_64_DWARF_REGS_H

enum { ASGST_DW_SP = 7, ASGST_DW_FP = 6, ASGST_DW_RA = 16 }; /* rsp, rbp, return address */

#endif
