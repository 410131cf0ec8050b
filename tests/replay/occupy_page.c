/*
 * occupy_page.c - a test helper preloaded into asgst-replay (test_replay.sh): before main,
 * it maps the page of the recording ASGST_TEST_OCCUPY names that holds the walk's first
 * stack pointer, as address randomization sometimes does with a library or a heap. The
 * replay of that recording then meets ASGST_BUSY in this process. It takes itself out of
 * the environment, so the new process the tool starts for that recording has the page free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "impl/record/format.h"

/* N. */
__attribute__((constructor)) static void occupy(void) {
  const char *path = getenv("ASGST_TEST_OCCUPY");
  FILE *f = path ? fopen(path, "rb") : NULL;
  unsetenv("LD_PRELOAD");
  unsetenv("ASGST_TEST_OCCUPY");
  if (f == NULL) return;
  asgst__rec_header h;
  if (fread(&h, sizeof h, 1, f) != 1) {
    fclose(f);
    return;
  }
  fclose(f);
  void *page = (void *)(uintptr_t)(h.sp & ~(uint64_t)(ASGST__REC_PAGE - 1));
  void *got = mmap(page, ASGST__REC_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == page) fprintf(stderr, "occupy_page: holding %p\n", page);
}
