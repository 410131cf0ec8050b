/*
 * walker_layout.c - fills the walker's layout table (walker_layout.h) from vmStructs.
 */
#include "walker_layout.h"

#include <stdio.h>
#include <string.h>

#include "vmstructs.h"

asgst__hs_layout asgst__hsl;

/* Collects the names that the tables lack, so that one error names all of them. */
typedef struct {
  char *err;
  size_t cap;
  size_t used;
  int missing;
} misses;

/* N. */
static void miss(misses *m, const char *type, const char *field) {
  m->missing++;
  if (m->used + 1 >= m->cap) return;
  int n = snprintf(m->err + m->used, m->cap - m->used, "%s%s%s%s", m->missing > 1 ? ", " : "",
                   type, field ? "::" : "", field ? field : "");
  if (n > 0) m->used += (size_t)n < m->cap - m->used ? (size_t)n : m->cap - m->used - 1;
}

/* N. */
static long off(misses *m, const char *type, const char *field) {
  long o = asgst__vms_offset(type, field);
  if (o < 0) miss(m, type, field);
  return o;
}

/* N. */
static uintptr_t addr(misses *m, const char *type, const char *field) {
  uintptr_t a = asgst__vms_static(type, field);
  if (a == 0) miss(m, type, field);
  return a;
}

/* N. */
static int int_const(misses *m, const char *name, int fallback_missing) {
  int32_t v;
  if (asgst__vms_int(name, &v)) return v;
  if (fallback_missing) miss(m, name, NULL);
  return 0;
}

/* N. */
static long type_size(misses *m, const char *type) {
  long s = asgst__vms_type_size(type);
  if (s < 0) miss(m, type, NULL);
  return s;
}

/* N. The code cache and code blob part. */
static void code_fields(misses *m, asgst__hs_layout *l) {
  l->codecache_heaps = addr(m, "CodeCache", "_heaps");
  l->codecache_low = addr(m, "CodeCache", "_low_bound");
  l->codecache_high = addr(m, "CodeCache", "_high_bound");
  l->ga_len = off(m, "GrowableArrayBase", "_len");
  l->ga_data = off(m, "GrowableArray<int>", "_data");
  l->heap_memory = off(m, "CodeHeap", "_memory");
  l->heap_segmap = off(m, "CodeHeap", "_segmap");
  l->heap_log2_seg = off(m, "CodeHeap", "_log2_segment_size");
  l->vs_low_boundary = off(m, "VirtualSpace", "_low_boundary");
  l->vs_high_boundary = off(m, "VirtualSpace", "_high_boundary");
  l->vs_low = off(m, "VirtualSpace", "_low");
  l->vs_high = off(m, "VirtualSpace", "_high");
  l->heapblock_size = type_size(m, "HeapBlock");
  l->heapblock_used = off(m, "HeapBlock::Header", "_used");
  l->cb_name = off(m, "CodeBlob", "_name");
  l->cb_size = off(m, "CodeBlob", "_size");
  l->cb_frame_complete = off(m, "CodeBlob", "_frame_complete_offset");
  l->cb_frame_size = off(m, "CodeBlob", "_frame_size");
  l->cb_code_begin = off(m, "CodeBlob", "_code_begin");
  l->cb_code_end = off(m, "CodeBlob", "_code_end");
}

/* N. nmethod and debug information part. */
static void nmethod_fields(misses *m, asgst__hs_layout *l) {
  l->cm_method = off(m, "CompiledMethod", "_method");
  l->cm_scopes_data_begin = off(m, "CompiledMethod", "_scopes_data_begin");
  l->cm_deopt_handler = off(m, "CompiledMethod", "_deopt_handler_begin");
  l->cm_deopt_mh_handler = off(m, "CompiledMethod", "_deopt_mh_handler_begin");
  l->nm_comp_level = off(m, "nmethod", "_comp_level");
  l->nm_comp_level_size = asgst__vms_field_size("nmethod", "_comp_level");
  if (l->nm_comp_level_size <= 0) l->nm_comp_level_size = 4; /* CompLevel is an int enum on 17 */
  l->nm_metadata_offset = off(m, "nmethod", "_metadata_offset");
  l->nm_scopes_pcs_offset = off(m, "nmethod", "_scopes_pcs_offset");
  l->nm_dependencies_offset = off(m, "nmethod", "_dependencies_offset");
  l->nm_orig_pc_offset = off(m, "nmethod", "_orig_pc_offset");
  l->nm_verified_entry = off(m, "nmethod", "_verified_entry_point");
  l->nm_entry = off(m, "nmethod", "_entry_point");
  l->nm_compile_id = off(m, "nmethod", "_compile_id");
  l->pcdesc_size = type_size(m, "PcDesc");
  l->pcdesc_pc_offset = off(m, "PcDesc", "_pc_offset");
  l->pcdesc_scope_offset = off(m, "PcDesc", "_scope_decode_offset");
  l->pcdesc_flags = off(m, "PcDesc", "_flags");
}

/* N. Interpreter, threads and entry frames. */
static void frame_fields(misses *m, asgst__hs_layout *l) {
  l->interpreter_code = addr(m, "AbstractInterpreter", "_code");
  l->sq_stub_buffer = off(m, "StubQueue", "_stub_buffer");
  l->sq_buffer_limit = off(m, "StubQueue", "_buffer_limit");
  l->interp_sender_sp_slot = int_const(m, "frame::interpreter_frame_sender_sp_offset", 1);
  l->interp_last_sp_slot = int_const(m, "frame::interpreter_frame_last_sp_offset", 1);
  l->method_const = off(m, "Method", "_constMethod");
  l->method_access_flags = off(m, "Method", "_access_flags");
  l->constmethod_size = type_size(m, "ConstMethod");
  l->constmethod_code_size = off(m, "ConstMethod", "_code_size");
  l->jt_anchor = off(m, "JavaThread", "_anchor");
  l->jt_thread_state = off(m, "JavaThread", "_thread_state");
  l->jt_terminated = off(m, "JavaThread", "_terminated");
  l->anchor_sp = off(m, "JavaFrameAnchor", "_last_Java_sp");
  l->anchor_pc = off(m, "JavaFrameAnchor", "_last_Java_pc");
  l->anchor_fp = off(m, "JavaFrameAnchor", "_last_Java_fp");
  l->jcw_anchor = off(m, "JavaCallWrapper", "_anchor");
  l->entry_wrapper_slot = int_const(m, "frame::entry_frame_call_wrapper_offset", 1);
  l->call_stub_return = addr(m, "StubRoutines", "_call_stub_return_address");
  l->st_in_native = int_const(m, "_thread_in_native", 1);
  l->st_in_vm = int_const(m, "_thread_in_vm", 1);
  l->st_in_java = int_const(m, "_thread_in_Java", 1);
  l->st_blocked = int_const(m, "_thread_blocked", 1);
  l->term_exiting = int_const(m, "JavaThread::_thread_exiting", 1);
}

/* N. The facts vmStructs does not export, by version. The version is recognised by the
 * shape of the tables: JDK 17 has CompiledMethod and nmethod::_scopes_pcs_offset; JDK 20+
 * dropped CompiledMethod (and 25 moved nmethod data), which this round does not support. */
static int hardcoded(misses *m, asgst__hs_layout *l) {
  if (asgst__vms_type_size("CompiledMethod") > 0 &&
      asgst__vms_offset("nmethod", "_scopes_pcs_offset") >= 0) {
    l->jdk = 17;
    l->interp_method_slot = -3;  /* frame::interpreter_frame_method_offset */
    l->interp_bcp_slot = -8;     /* frame::interpreter_frame_bcp_offset */
    l->scope_int_lg_h = 6;       /* CompressedReadStream: Pack200 UNSIGNED5, H=64 */
    l->scope_int_l = 192;        /* L = 256 - H */
    return 0;
  }
  miss(m, "a supported JDK layout (17: CompiledMethod, nmethod::_scopes_pcs_offset)", NULL);
  return -1;
}

/* N. */
int asgst__hs_walker_layout_init(char *err, size_t errlen) {
  char buf[1024] = "";
  misses m = {buf, sizeof buf, 0, 0};
  asgst__hs_layout l;
  memset(&l, 0, sizeof l);
  code_fields(&m, &l);
  nmethod_fields(&m, &l);
  frame_fields(&m, &l);
  hardcoded(&m, &l);
  if (m.missing) {
    snprintf(err, errlen, "HotSpot stack walker: the VM lacks %s", buf);
    return -1;
  }
  asgst__hsl = l;
  return 0;
}
