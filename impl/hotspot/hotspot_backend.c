/*
 * hotspot_backend.c - the hotspot backend's callback table: the walker (walker.h) for
 * frames, this directory's metadata, thread and conversion code for the rest.
 *
 * The metadata accessors first ask the shadow copies (class_shadow.h): while a class
 * unload handler runs, the unloaded class's metadata is already freed on JDK 17 and the
 * answers must come from the copy taken while the class was alive. Outside unload
 * reporting that costs one relaxed load and a not-taken branch per call.
 */
#include "classes/class_shadow.h"
#include "walking/codecache.h"
#include "hotspot_backend.h"
#include "classes/classes.h"
#include "classes/metadata.h"
#include "threads/threads.h"
#include "queues/queues.h"
#include "model/bound_vm.h"
#include "walking/walker.h"
#include "walking/framecache.h"
#include "model/vm_model.h"

/* SS (all of the following; the caller holds the guard). */
static void method_info(ASGST_Method m, ASGST_MethodInfo *info) {
  if (asgst__hs_shadow_maybe() && asgst__hs_shadow_method_info(m, info)) return;
  asgst__hs_method_info(m, info);
}

static void class_info(ASGST_Class k, ASGST_ClassInfo *info) {
  if (asgst__hs_shadow_maybe() && asgst__hs_shadow_class_info(k, info)) return;
  asgst__hs_class_info(k, info);
}

static ASGST_Class method_class(ASGST_Method m) {
  ASGST_Class k;
  if (asgst__hs_shadow_maybe() && asgst__hs_shadow_method_class(m, &k)) return k;
  return asgst__hs_method_class(m);
}

static jint method_idnum(ASGST_Method m) {
  jint id;
  if (asgst__hs_shadow_maybe() && asgst__hs_shadow_method_idnum(m, &id)) return id;
  return asgst__hs_method_idnum(m);
}

static int line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e, int length) {
  int total;
  if (asgst__hs_shadow_maybe() && asgst__hs_shadow_line_table(m, offset, e, length, &total))
    return total;
  return asgst__hs_line_table(m, offset, e, length);
}

/* SS. backend.h prefetch(): a sampled thread is mostly interrupted in compiled code whose
 * top frame the frame cache knows; its row is the walk's first dependent miss after the
 * thread lookup's. */
ASGST__HOT static void prefetch(const asgst__regs *top) { asgst__hs_fc_prefetch(top->pc); }

/* SS. backend.h capabilities(): queues need the JVMTI suspend capability. */
static int capabilities(void) { return asgst__hs_can_suspend ? ASGST_REGISTER_QUEUE : 0; }

const asgst__backend asgst__hotspot_backend = {
    .name = "hotspot",
    .current_thread = asgst__hs_current_thread,
    .current_thread_unguarded = asgst__hs_current_thread_unguarded,
    .prefetch = prefetch,
    .begin = asgst__hs_begin,
    .decode = asgst__hs_decode,
    .step = asgst__hs_step,
    .fill = asgst__hs_fill,
    .top_java_frame = asgst__hs_top_java_frame,
    .method_info = method_info,
    .class_info = class_info,
    .method_class = method_class,
    .method_idnum = method_idnum,
    /* No VM read: the id is the InstanceKlass address (method_info.c). */
    .class_idnum = asgst__hs_class_idnum,
    .line_table = line_table,
    .code_blob_name = asgst__hs_code_blob_name,
    .may_be_blob = asgst__hs_may_be_blob,
    .thread_state = asgst__hs_thread_state,
    .capabilities = capabilities,
    .queue_bind = asgst__hs_queue_bind,
    .queue_unbind = asgst__hs_queue_unbind,
    .frame_identity = asgst__hs_frame_identity,
    .frame_position = asgst__hs_frame_position,
    .layout_text = asgst__vm_layout_text,
    .to_jmethodid = asgst__hs_to_jmethodid,
    .from_jmethodid = asgst__hs_from_jmethodid,
    .to_jclass = asgst__hs_to_jclass,
    .from_jclass = asgst__hs_from_jclass,
};

/* ---- The backend while the classes loaded before the binding are listed ----
 * A binding in the live phase answers before the asgst-classes thread has listed (and so
 * pinned) the classes loaded before it (class_backlog.c). Until then this table is the
 * active one: it is the table above except that no walk starts (ASGST_INIT_PENDING) and
 * the conversions that hand out a class or method first wait for the listing. So no handle
 * of an unlisted class reaches the profiler, and a class that unloads before it is listed
 * is one the profiler cannot have seen: its missing unload handler call is unobservable.
 * The thread makes the table above active once the listing is done. */

/* SS. backend.h begin(): no walk while the listing runs. */
static int begin_pending(asgst__cursor *wc, const asgst__regs *top) {
  (void)wc, (void)top;
  return ASGST_INIT_PENDING;
}

/* N. Conversions that wait for the listing first (a few ms at most, once). */
static ASGST_Method from_jmethodid_listed(jmethodID id) {
  asgst__hs_backlog_wait_listed();
  return asgst__hs_from_jmethodid(id);
}

static ASGST_Class from_jclass_listed(jclass c) {
  asgst__hs_backlog_wait_listed();
  return asgst__hs_from_jclass(c);
}

static asgst__backend listing_backend;

/* N. Called by the binding under its lock. Filled once: a later binding may publish it
 * again while a signal handler of an earlier one still reads it. */
const asgst__backend *asgst__hs_listing_backend(void) {
  if (listing_backend.begin == begin_pending) return &listing_backend;
  listing_backend = asgst__hotspot_backend;
  listing_backend.name = "hotspot (listing classes)";
  listing_backend.begin = begin_pending;
  listing_backend.from_jmethodid = from_jmethodid_listed;
  listing_backend.from_jclass = from_jclass_listed;
  return &listing_backend;
}
