/*
 * eh_frame.h - the FDEs of an .eh_frame section, found by walking the section or through
 * the binary search table of .eh_frame_hdr (what a loaded object maps, PT_GNU_EH_FRAME).
 * All N (table building only).
 */
#ifndef ASGST_NATIVE_EH_FRAME_H
#define ASGST_NATIVE_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "impl/native/cfi_records.h"
#include "impl/native/cfi_rows.h"

/* N. Rows of every FDE of the .eh_frame section [data, data + size) (as
 * asgst__cfi_section_rows); pcs are made relative to `base`. */
int asgst__cfi_eh_frame_rows(const void *data, size_t size, uintptr_t base,
                             struct asgst_cfi_rowvec *rv);

/* N. Rows of every FDE the .eh_frame_hdr at `hdr` lists; src bounds the loaded segment
 * holding it. Malformed FDEs are skipped. The number of FDEs skipped, or -1 if the
 * header itself cannot be used. */
int asgst__cfi_eh_frame_hdr_rows(const struct asgst_cfi_source *src, const uint8_t *hdr,
                                 struct asgst_cfi_rowvec *rv);

#endif
