/*
 * arch.h - what the library needs to know of the processor it runs on: the one header
 * shared code includes, and the only one that names a room of impl/arch/ (x86_64/,
 * aarch64/). Each room holds the same files:
 *   regs.h          registers of a signal context, the user address limit, the spin hint
 *   dwarf_regs.h    the DWARF register numbers the call frame tables follow
 *                   (ASGST_DW_SP, ASGST_DW_FP, ASGST_DW_RA)
 *   interp_frame.h  the slots of HotSpot's frames the VM's tables do not export, for the
 *                   model (ASGST__FRAME_SLOTS_EXPORTED, ASGST__INTERP_*_SLOT,
 *                   ASGST__ENTRY_WRAPPER_SLOT)
 *   frame_code.c, stub_exit.c, call_stub.c, adapter_frame.c  the decoders of HotSpot's
 *                   code, behind the neutral frame_code.h, stub_exit.h, call_stub.h and
 *                   adapter_frame.h of impl/arch/
 *   plt_entry.c     a PLT entry without a CFI row (plt_entry.h)
 *   decoders.h      what those decoders cover, for the walker's choices
 *                   (ASGST__ENTER_BYTES, ASGST__CALL_STUB_DECODED)
 *   insn.h          (arm64) instruction words its decoders share
 * Everything outside impl/arch/ is architecture-neutral. regs.h defines:
 *   ASGST__MAX_ADDR         the first address above user space
 *   asgst__cpu_relax()      SS. the spin-wait hint
 *   ASGST__RMW_IS_FENCE     1 where an atomic read-modify-write is a full fence already
 *   asgst__strip_pc(pc)     SS. a return address without pointer-authentication bits
 *   asgst__uc_pc(uc)        SS. the pc of a signal context
 *   asgst__uc_regs(uc, r)   SS. pc, sp, fp (and the link register) of a signal context
 *   asgst__uc_set_regs(uc, r) SS. the reverse, for synthetic contexts
 *   asgst__sigreturn_code   the code of a signal return trampoline (ASGST__SIGRETURN_LEN
 *                           bytes, its last instruction at ASGST__SIGRETURN_LAST), and
 *   ASGST__SIGFRAME_UC, ASGST__UC_*  where the kernel's signal frame holds the interrupted
 *                           registers (impl/native/sigframe.h)
 *   ASGST__RET_AT_SP        1 where a call pushes the return address (x86_64), 0 where it
 *                           lands in a link register (arm64)
 */
#ifndef ASGST_IMPL_ARCH_H
#define ASGST_IMPL_ARCH_H

#if defined(__x86_64__)
#include "x86_64/regs.h"
#include "x86_64/dwarf_regs.h"
#include "x86_64/interp_frame.h"
#include "x86_64/decoders.h"
#elif defined(__aarch64__)
#include "aarch64/regs.h"
#include "aarch64/dwarf_regs.h"
#include "aarch64/interp_frame.h"
#include "aarch64/decoders.h"
#else
#error "asgst: no impl/arch/ room for this architecture (x86_64 and aarch64 are supported)"
#endif

#endif
