/*
 * plt_entry.h - a pc in a linker-written PLT entry that has no row in the call frame
 * tables (aarch64/plt_entry.c; x86_64/plt_entry.c answers false: its linkers write an
 * .eh_frame row for .plt). Such an entry writes only scratch registers and jumps: at any
 * of its instructions the caller's return address is in the link register and the
 * caller's sp and fp are sp and fp (impl/native/cfi.h's asgst__cfi_plt_step steps it).
 */
#ifndef ASGST_ARCH_PLT_ENTRY_H
#define ASGST_ARCH_PLT_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

/* The reader the code is read through: true with the aligned word at addr in *value
 * (impl/native/cfi.h's asgst_cfi_read_fn is this type). */
typedef bool (*asgst__code_read_fn)(void *ctx, uintptr_t addr, uintptr_t *value);

/* SS. True if pc is at one of the instructions of such a PLT entry, read through read. */
bool asgst__plt_entry_at(uintptr_t pc, asgst__code_read_fn read, void *ctx);

#endif
