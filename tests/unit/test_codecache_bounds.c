/* test_codecache_bounds.c - classifying a pc that lies in a code heap's reserved but
 * uncommitted part (codecache.c). HotSpot reserves each code heap whole and commits its
 * memory and its segment map as the heap grows; any word the walker classifies as a
 * maybe-pc (arm64's link register, which C1's g1_post_barrier_slow uses to hold the card
 * table's base) may fall in the uncommitted part, whose map entry cannot be read. Over a
 * code heap laid out here (JDK 8's one CodeCache::_heap, a VirtualSpace per part, the
 * map's second page PROT_NONE): such a pc is no blob (C code) and the lookup does not
 * fault; once the map has grown (its _high moved up, the page readable), a blob there is
 * found; a blob in the committed part always is. No JVM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "impl/guard.h"
#include "impl/hotspot/model/vm_model.h"
#include "impl/hotspot/walking/codecache.h"

enum { LOG2_SEG = 6, SEG = 1 << LOG2_SEG };

/* The fake VM's structures, with the offsets asgst__vm gets for them below. */
typedef struct {
  uintptr_t low_boundary, high_boundary, low, high;
} vspace;
typedef struct {
  vspace memory, segmap;
  int32_t log2_seg;
} code_heap;
typedef struct {
  uint32_t length;
  uint8_t used;
} block_header;
typedef struct {
  uintptr_t name;
  uint32_t size;
} blob;

static code_heap heap;
static code_heap *the_heap = &heap; /* CodeCache::_heap */
static size_t page;
static uint8_t *map;   /* two pages: the second PROT_NONE until it is "committed" */
static uint8_t *code;  /* the heap's memory: as many segments as the map has entries */
static const char stub_name[] = "a stub";

/* N. Points asgst__vm at the fake VM (JDK 8's layout: one heap). */
static void model(void) {
  memset(&asgst__vm, 0, sizeof asgst__vm);
  asgst__vm.codecache_heap = (uintptr_t)&the_heap;
  asgst__vm.heap_memory = offsetof(code_heap, memory);
  asgst__vm.heap_segmap = offsetof(code_heap, segmap);
  asgst__vm.heap_log2_seg = offsetof(code_heap, log2_seg);
  asgst__vm.vs_low_boundary = offsetof(vspace, low_boundary);
  asgst__vm.vs_high_boundary = offsetof(vspace, high_boundary);
  asgst__vm.vs_low = offsetof(vspace, low);
  asgst__vm.vs_high = offsetof(vspace, high);
  asgst__vm.heapblock_size = sizeof(block_header);
  asgst__vm.heapblock_used = offsetof(block_header, used);
  asgst__vm.cb_name = offsetof(blob, name);
  asgst__vm.cb_size = offsetof(blob, size);
}

/* N. A used block of one segment at segment index idx: its map entry and header. */
static uintptr_t put_blob(size_t idx) {
  map[idx] = 0;
  block_header *b = (block_header *)(code + idx * SEG);
  b->length = 1;
  b->used = 1;
  blob *cb = (blob *)(b + 1);
  cb->name = (uintptr_t)stub_name;
  cb->size = SEG - sizeof *b;
  return (uintptr_t)cb;
}

static int setup(void **state) {
  (void)state;
  page = (size_t)sysconf(_SC_PAGESIZE);
  map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  code = mmap(NULL, 2 * page * SEG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED || code == MAP_FAILED) return -1;
  memset(map, 0xff, 2 * page); /* every segment free */
  if (mprotect(map + page, page, PROT_NONE) != 0) return -1;
  heap.memory = (vspace){(uintptr_t)code, (uintptr_t)code + 2 * page * SEG, (uintptr_t)code,
                         (uintptr_t)code + page * SEG};
  heap.segmap = (vspace){(uintptr_t)map, (uintptr_t)map + 2 * page, (uintptr_t)map, (uintptr_t)map + page};
  heap.log2_seg = LOG2_SEG;
  model();
  asgst__hs_codecache_forget(true);
  return asgst__guard_install();
}

/* N. The kind of pc and its blob; -1 if the lookup faulted (caught by the guard). */
static int classify(uintptr_t pc, uintptr_t *b) {
  volatile int kind = -1;
  ASGST__GUARDED(kind = asgst__hs_classify(pc, b), kind = -1);
  return kind;
}

static void committed_blob_is_found(void **state) {
  (void)state;
  uintptr_t cb = put_blob(3), b;
  assert_int_equal(classify(cb + 8, &b), ASGST__HK_STUB);
  assert_int_equal(b, cb);
  /* A free segment of the committed part: no blob. */
  assert_int_equal(classify((uintptr_t)code + 5 * SEG + 8, &b), ASGST__HK_C);
}

static void uncommitted_pc_is_no_blob(void **state) {
  (void)state;
  uintptr_t b = 1;
  /* In the reserved range, past what the map has committed: its entry lies in the
   * PROT_NONE page. */
  uintptr_t pc = (uintptr_t)code + (page + 7) * SEG + 8;
  assert_true(pc < heap.memory.high_boundary);
  assert_int_equal(classify(pc, &b), ASGST__HK_C);
  assert_int_equal(b, 0);
}

static void grown_map_is_read_again(void **state) {
  (void)state;
  /* The heap grows: the map's second page is committed and _high moves up. */
  assert_int_equal(mprotect(map + page, page, PROT_READ | PROT_WRITE), 0);
  memset(map + page, 0xff, page);
  heap.segmap.high = heap.segmap.high_boundary;
  heap.memory.high = heap.memory.high_boundary;
  uintptr_t cb = put_blob(page + 7), b;
  assert_int_equal(classify(cb + 8, &b), ASGST__HK_STUB);
  assert_int_equal(b, cb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(committed_blob_is_found),
      cmocka_unit_test(uncommitted_pc_is_no_blob),
      cmocka_unit_test(grown_map_is_read_again),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
