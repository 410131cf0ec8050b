/*
 * arch.h - what the library needs to know of the processor it runs on, one header per
 * architecture (x86_64.h, aarch64.h); everything outside impl/arch/ and the code decoders
 * of impl/hotspot/walker_code_<arch>.c is architecture-neutral. Each header defines:
 *   ASGST__MAX_ADDR         the first address above user space
 *   asgst__cpu_relax()      SS. the spin-wait hint
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
#elif defined(__aarch64__)
#include "aarch64/regs.h"
#else
#error "asgst: no impl/arch/ header for this architecture (x86_64 and aarch64 are supported)"
#endif

#endif
