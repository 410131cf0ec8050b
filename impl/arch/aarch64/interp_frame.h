/*
 * interp_frame.h - arm64: the slots of HotSpot's frames (frame_aarch64.hpp) that the model
 * (impl/hotspot/model/vm_model.c) does not find in the VM's tables. Included through arch.h only.
 */
#ifndef ASGST_ARCH_AARCH64_INTERP_FRAME_H
#define ASGST_ARCH_AARCH64_INTERP_FRAME_H

/* 0: arm64's tables export none of the frame constants x86_64's do (the interpreter's
 * sender sp and last sp, the call stub's JavaCallWrapper): the values below stand. */
#define ASGST__FRAME_SLOTS_EXPORTED 0
/* The interpreter's bcp slot in words from fp: one more slot than x86_64's between the
 * mdp and the mirror (padding that keeps sp 16-byte aligned on 17; the extended sp from
 * 21 on), so the bcp is at -9 on 17, 21 and 25. */
#define ASGST__INTERP_BCP_SLOT(jdk) (-9)
#define ASGST__INTERP_SENDER_SP_SLOT (-1)
#define ASGST__INTERP_LAST_SP_SLOT (-2)
/* The call stub's JavaCallWrapper* slot. */
#define ASGST__ENTRY_WRAPPER_SLOT (-8)

#endif
