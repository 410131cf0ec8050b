/*
 * debug_frame.h - the rows of an object's .debug_frame, for objects built without
 * .eh_frame (-fno-asynchronous-unwind-tables) but with debug information. The section
 * is not loaded: it is read from the object's file. N.
 */
#ifndef ASGST_NATIVE_DEBUG_FRAME_H
#define ASGST_NATIVE_DEBUG_FRAME_H

#include "impl/native/cfi_rows.h"

/* N. Appends the rows of the .debug_frame of the ELF file at path (pcs are its link-time
 * addresses, which are offsets from the load base). 0; -1 if the file has no readable
 * .debug_frame or it is malformed (rows before the malformed entry stay). */
int asgst__cfi_debug_frame_rows(const char *path, struct asgst_cfi_rowvec *rv);

#endif
