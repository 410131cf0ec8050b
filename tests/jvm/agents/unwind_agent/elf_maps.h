/* elf_maps.h - the unwind agent's view of where ELF code lies (tests/jvm/agents/unwind_agent.c):
 * the executable file mappings of the process (and the vDSO), read from /proc/self/maps
 * outside the signal handler and looked up inside it. A pc outside every one (the JVM's
 * code cache, a JIT stub) ends the C frames both unwinders are compared on. */
#ifndef ASGST_TEST_ELF_MAPS_H
#define ASGST_TEST_ELF_MAPS_H

#include <stdint.h>

/* The libraries the agreement is broken down by. */
enum { LIB_JVM, LIB_C, LIB_NOFP, LIB_VDSO, LIB_OTHER, LIB_COUNT };

/* N. Reads /proc/self/maps into the spare table and publishes it. Called by one thread. */
void elf_maps_refresh(void);
/* SS. The LIB_* of the executable ELF mapping holding pc, or -1 if none holds it. */
int elf_maps_lib(uintptr_t pc);
/* N. A short name of a LIB_*. */
const char *elf_maps_lib_name(int lib);

#endif
