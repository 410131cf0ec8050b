/*
 * interp_frame.h - x86_64: the slots of HotSpot's frames (frame_x86.hpp) that the model
 * (impl/hotspot/model/vm_model.c) does not find in the VM's tables. Included through arch.h only.
 */
#ifndef ASGST_ARCH_X86_64_INTERP_FRAME_H
#define ASGST_ARCH_X86_64_INTERP_FRAME_H

/* 1: the tables export frame::interpreter_frame_sender_sp_offset and _last_sp_offset
 * (JDK 9 on) and frame::entry_frame_call_wrapper_offset. */
#define ASGST__FRAME_SLOTS_EXPORTED 1
/* The interpreter's bcp slot in words from fp (frame::interpreter_frame_bcp_offset, not
 * exported): -8 on 9 and later. JDK 8's frame has no mirror slot, so its bcp (bcx: a bci
 * while a GC runs) is at -7, one above. */
#define ASGST__INTERP_BCP_SLOT(jdk) ((jdk) == 8 ? -7 : -8)
/* Sender sp and last sp where the tables do not give them (JDK 8, which exports no
 * interpreter slot): -1 and -2. */
#define ASGST__INTERP_SENDER_SP_SLOT (-1)
#define ASGST__INTERP_LAST_SP_SLOT (-2)
/* The call stub's JavaCallWrapper* slot: the tables' value is read instead. */
#define ASGST__ENTRY_WRAPPER_SLOT (-6)

#endif
