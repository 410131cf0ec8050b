/*
 * replay_backend.c - a recorded walk (impl/record/format.h) walked again without a JVM:
 * the replay backend (impl/record/record.h).
 *
 * The recorded pages are mapped back at their original addresses, read-only, so the
 * unchanged HotSpot walker and metadata code read exactly what they read on the live VM;
 * an address that was not recorded is not mapped, so a read there faults and the crash
 * guard ends the walk with an error, as on a live VM. The HotSpot model is built from the
 * recording's layout text by its usual code (vm_model.c over vmstructs.c's lookups).
 * A page whose address this process already uses cannot be mapped: the replay is then
 * refused with that address (it does not happen in a small test process in practice:
 * the recorded pages belong to a JVM's heaps, stacks and libjvm).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../guard.h"
#include "../record/record.h"
#include "../safe_read.h"
#include "walking/codecache.h"
#include "hotspot_backend.h"
#include "model/layout_tables.h"
#include "model/vm_model.h"

static char error[512];
static asgst__layout_tables tables;
static uintptr_t *mapped;
static size_t nmapped;
static asgst__thread recorded_thread;
static asgst__backend replay_backend;
static bool open_;

/* SS. backend.h current_thread(): the recorded thread. */
static int current_thread(asgst__thread *t) {
  *t = recorded_thread;
  return ASGST_JAVA_TRACE;
}

/* SS. backend.h thread_state(): nothing is known of the recorded thread's state. */
static int thread_state(void) { return 0; }

/* N. Fails with a reason. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error, sizeof error, fmt, ap);
  va_end(ap);
  return code;
}

/* N. Checks the header and that the sections add up to the recording's size. */
static int check_header(const uint8_t *rec, size_t len, const asgst__rec_header **out) {
  const asgst__rec_header *h = (const asgst__rec_header *)(const void *)rec;
  if (rec == NULL || len < sizeof *h)
    return fail(ASGST_INVALID_ARGUMENT, "truncated recording: %zu bytes, the header alone is %zu", len, sizeof *h);
  if (memcmp(h->magic, ASGST__REC_MAGIC, 8) != 0)
    return fail(ASGST_INVALID_ARGUMENT, "not an ASGST recording (no ASGSTREC magic)");
  if (h->version != ASGST__REC_VERSION || h->header_size != sizeof *h)
    return fail(ASGST_INVALID_ARGUMENT, "recording format version %u (header of %u bytes); this library reads version %d",
                h->version, h->header_size, ASGST__REC_VERSION);
  uint64_t want = asgst__rec_pad8(sizeof *h) + asgst__rec_pad8(h->layout_len) +
                  asgst__rec_pad8((uint64_t)h->nframes * sizeof(asgst__rec_frame)) +
                  asgst__rec_pad8(h->strings_len) + (uint64_t)h->nabsent * 8 +
                  (uint64_t)h->npages * sizeof(asgst__rec_page);
  if (h->total_size != len || want != len)
    return fail(ASGST_INVALID_ARGUMENT, "truncated or damaged recording: %zu bytes, its header says %lu and its sections %lu",
                len, (unsigned long)h->total_size, (unsigned long)want);
  *out = h;
  return 0;
}

/* N. Maps one recorded page at its address. */
static int map_page(const asgst__rec_page *p) {
  void *want = (void *)(uintptr_t)p->addr;
  if ((p->addr % ASGST__REC_PAGE) || !asgst__plausible((uintptr_t)p->addr, ASGST__REC_PAGE))
    return fail(ASGST_INVALID_ARGUMENT, "damaged recording: page address 0x%lx", (unsigned long)p->addr);
  void *got = mmap(want, ASGST__REC_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED || got != want) {
    if (got != MAP_FAILED) munmap(got, ASGST__REC_PAGE);
    return fail(ASGST_BUSY, "recorded page 0x%lx is already used in this process (%s)",
                (unsigned long)p->addr, got == MAP_FAILED ? strerror(errno) : "moved");
  }
  memcpy(got, p->bytes, ASGST__REC_PAGE);
  mprotect(got, ASGST__REC_PAGE, PROT_READ);
  mapped[nmapped++] = p->addr;
  return 0;
}

/* N. Builds the model from the layout text and applies the values read from the live VM. */
static int bind_model(const char *text, size_t len) {
  char err[400];
  int64_t v;
  if (asgst__layout_parse(text, len, &tables, err, sizeof err) != 0)
    return fail(ASGST_INVALID_ARGUMENT, "damaged recording: %s", err);
  asgst__layout_use(&tables);
  /* The recording is replayed as what it was: a JDK newer than the tested ones included. */
  if (asgst__vm_model_init(0, ASGST_INIT_UNTESTED_JDK, err, sizeof err) != 0)
    return fail(ASGST_UNSUPPORTED_VM, "the recording's layout builds no model: %s", err);
  if (asgst__layout_value(&tables, "mirror_klass_offset", &v)) asgst__vm.mirror_klass_offset = (int)v;
  if (asgst__layout_value(&tables, "mirror_modifiers", &v)) asgst__vm.mirror_modifiers = (long)v;
  if (asgst__layout_value(&tables, "cont_return_pc_addr", &v)) asgst__vm.cont_return_pc_addr = (uintptr_t)v;
  if (asgst__layout_value(&tables, "anonymous_set", &v)) asgst__vm.anonymous_set = (uintptr_t)v;
  return 0;
}

/* N. */
int asgst__replay_open(const void *rec, size_t len, asgst__replay *out) {
  const asgst__rec_header *h = NULL;
  error[0] = '\0';
  if (open_ || asgst__active_backend() != NULL)
    return fail(ASGST_BUSY, "a backend is active (a JVM is bound or a replay is open)");
  int rc = check_header(rec, len, &h);
  if (rc != 0) return rc;
  const uint8_t *p = (const uint8_t *)rec + asgst__rec_pad8(sizeof *h);
  const char *layout = (const char *)p;
  p += asgst__rec_pad8(h->layout_len);
  out->frames = (const asgst__rec_frame *)(const void *)p;
  p += asgst__rec_pad8((uint64_t)h->nframes * sizeof(asgst__rec_frame));
  out->strings = (const char *)p;
  p += asgst__rec_pad8(h->strings_len) + (uint64_t)h->nabsent * 8;
  const asgst__rec_page *pages = (const asgst__rec_page *)(const void *)p;
  open_ = true;
  mapped = calloc(h->npages + 1, sizeof *mapped);
  if (mapped == NULL) rc = fail(ASGST_INVALID_ARGUMENT, "out of memory");
  if (rc == 0 && asgst__guard_install() != 0) rc = fail(ASGST_UNSUPPORTED, "cannot install the crash guard");
  if (rc == 0) rc = bind_model(layout, h->layout_len);
  for (uint32_t i = 0; rc == 0 && i < h->npages; i++) rc = map_page(&pages[i]);
  if (rc != 0) {
    char why[sizeof error];
    memcpy(why, error, sizeof why);
    asgst__replay_close();
    memcpy(error, why, sizeof why);
    return rc;
  }
  asgst__hs_codecache_forget(true);
  recorded_thread = (asgst__thread){(void *)(uintptr_t)h->vm_thread, h->stack_base, h->stack_limit};
  replay_backend = asgst__hotspot_backend;
  replay_backend.name = "replay";
  replay_backend.current_thread = current_thread;
  replay_backend.thread_state = thread_state;
  replay_backend.layout_text = NULL;
  /* Blob names are not recorded (a walk reads them only to classify): unsupported. */
  replay_backend.code_blob_name = NULL;
  replay_backend.to_jmethodid = NULL, replay_backend.from_jmethodid = NULL;
  replay_backend.to_jclass = NULL, replay_backend.from_jclass = NULL;
  asgst__set_backend(&replay_backend);
  out->be = &replay_backend;
  out->thread = recorded_thread;
  out->top = (asgst__regs){h->pc, h->sp, h->fp, 0};
  out->options = h->options;
  out->header = h;
  return 0;
}

/* N. */
void asgst__replay_close(void) {
  if (!open_) return;
  if (asgst__active_backend() == &replay_backend) asgst__set_backend(NULL);
  for (size_t i = 0; i < nmapped; i++) munmap((void *)mapped[i], ASGST__REC_PAGE);
  free(mapped);
  mapped = NULL;
  nmapped = 0;
  asgst__vms_unload();
  asgst__layout_free(&tables);
  asgst__hs_codecache_forget(true);
  open_ = false;
}

/* N. */
const char *asgst__replay_error(void) { return error; }
