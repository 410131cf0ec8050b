/*
 * ranges.c - where random pcs are drawn from: the code heaps (CodeCache::_heaps, or
 * JDK 8's _heap, read through the library's VM model with guarded loads, after
 * ASGST_Initialize) and libjvm's executable segment (from the dynamic linker's list of
 * loaded objects).
 */
#include <link.h>
#include <string.h>

#include "../fuzz_agent.h"
#include "impl/guard.h"
#include "impl/hotspot/model/vm_model.h"

/* N. The code heaps' reserved ranges; none if the VM has not created them yet. JDK 8 has
 * one heap, CodeCache::_heap: the static is then a one-element array. */
static void find_heaps(void) {
  const asgst__vm_model *l = &asgst__vm;
  uint32_t len = 1;
  uintptr_t data = l->codecache_heap;
  if (data == 0) {
    uintptr_t ga = asgst__guarded_ptr(l->codecache_heaps);
    if (ga == 0) return;
    len = (uint32_t)asgst__guarded_ptr(ga + (uintptr_t)l->ga_len);
    data = asgst__guarded_ptr(ga + (uintptr_t)l->ga_data);
  }
  int n = 0;
  for (uint32_t i = 0; i < len && n < MAX_HEAPS && data; i++) {
    uintptr_t h = asgst__guarded_ptr(data + 8 * i);
    if (h == 0) continue;
    uintptr_t mem = h + (uintptr_t)l->heap_memory;
    fuzz_heaps[n].lo = asgst__guarded_ptr(mem + (uintptr_t)l->vs_low_boundary);
    fuzz_heaps[n].hi = asgst__guarded_ptr(mem + (uintptr_t)l->vs_high_boundary);
    if (fuzz_heaps[n].hi > fuzz_heaps[n].lo) n++;
  }
  atomic_store(&fuzz_nheaps, n);
}

/* N. dl_iterate_phdr callback: notes libjvm's executable PT_LOAD segment. */
static int on_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  if (info->dlpi_name == NULL || strstr(info->dlpi_name, "/libjvm.so") == NULL) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    fuzz_libjvm.lo = info->dlpi_addr + p->p_vaddr;
    fuzz_libjvm.hi = fuzz_libjvm.lo + p->p_memsz;
    return 1;
  }
  return 0;
}

/* N. */
void fuzz_find_ranges(void) {
  find_heaps();
  if (fuzz_libjvm.hi == 0) dl_iterate_phdr(on_object, NULL);
}
