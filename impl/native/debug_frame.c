/*
 * debug_frame.c - rows from a file's .debug_frame (see debug_frame.h).
 */
#include "impl/native/debug_frame.h"

#include <stdlib.h>

#include "impl/native/cfi_records.h"
#include "impl/native/elf_section.h"

/* N. */
int asgst__cfi_debug_frame_rows(const char *path, struct asgst_cfi_rowvec *rv) {
  size_t size;
  uint8_t *section = asgst__elf_section_copy(path, ".debug_frame", &size);
  if (!section) return -1;
  /* Its FDEs hold link-time addresses (DW_EH_PE_absptr): rows relative to 0. */
  struct asgst_cfi_source src = {section, section + size, 0, section};
  int rc = asgst__cfi_section_rows(&src, rv);
  free(section);
  return rc;
}
