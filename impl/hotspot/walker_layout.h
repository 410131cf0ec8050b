/*
 * walker_layout.h - every version-specific fact the HotSpot stack walker uses, in one
 * table.
 *
 * Most entries are field offsets and static addresses read from the vmStructs tables by
 * asgst__hs_walker_layout_init(); the few facts the tables do not export (interpreter
 * frame slots, HeapBlock header size, nmethod blob names, the metadata index base) are
 * per-version constants chosen in walker_layout.c from which fields exist. Adding a JDK
 * version means adding a row there, not touching the walker.
 */
#ifndef ASGST_HOTSPOT_WALKER_LAYOUT_H
#define ASGST_HOTSPOT_WALKER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Offsets are in bytes unless named *_slot (words relative to fp). Sizes (*_size) are the
 * exported byte sizes of fields whose width varies between versions. */
typedef struct {
  int jdk;                      /* feature version the hardcoded facts were chosen for */

  /* CodeCache and CodeHeap */
  uintptr_t codecache_heaps;    /* address of CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
  uintptr_t codecache_low;      /* address of CodeCache::_low_bound */
  uintptr_t codecache_high;     /* address of CodeCache::_high_bound */
  long ga_len, ga_data;         /* GrowableArray _len, _data */
  long heap_memory, heap_segmap;/* CodeHeap::_memory, _segmap (VirtualSpace) */
  long heap_log2_seg;           /* CodeHeap::_log2_segment_size */
  long vs_low_boundary, vs_high_boundary, vs_low, vs_high; /* VirtualSpace fields */
  long heapblock_size;          /* sizeof(HeapBlock): the blob follows the header */
  long heapblock_used;          /* HeapBlock::Header::_used */

  /* CodeBlob / CompiledMethod / nmethod */
  long cb_name, cb_size, cb_frame_complete, cb_frame_size, cb_code_begin, cb_code_end;
  long cm_method, cm_scopes_data_begin, cm_deopt_handler, cm_deopt_mh_handler;
  long nm_comp_level; int nm_comp_level_size;
  long nm_metadata_offset, nm_scopes_pcs_offset, nm_dependencies_offset;
  long nm_orig_pc_offset, nm_verified_entry, nm_entry, nm_compile_id;
  long pcdesc_size, pcdesc_pc_offset, pcdesc_scope_offset, pcdesc_flags;
  int scope_int_lg_h, scope_int_l; /* compressed int coding (Pack200 L=192 on 17) */

  /* Interpreter */
  uintptr_t interpreter_code;   /* address of AbstractInterpreter::_code (StubQueue*) */
  long sq_stub_buffer, sq_buffer_limit;
  int interp_sender_sp_slot;    /* fp[-1] */
  int interp_last_sp_slot;      /* fp[-2] */
  int interp_method_slot;       /* fp[-3] */
  int interp_bcp_slot;          /* fp[-8] */
  long method_const, method_access_flags, constmethod_size, constmethod_code_size;

  /* Threads, anchors, entry frames */
  long jt_anchor, jt_thread_state, jt_terminated;
  long anchor_sp, anchor_pc, anchor_fp;
  long jcw_anchor;
  int entry_wrapper_slot;       /* frame::entry_frame_call_wrapper_offset (-6) */
  uintptr_t call_stub_return;   /* address of StubRoutines::_call_stub_return_address */
  int st_in_native, st_in_vm, st_in_java, st_blocked;
  int term_exiting;             /* JavaThread::_thread_exiting */
} asgst__hs_layout;

/* The one layout, filled by asgst__hs_walker_layout_init. */
extern asgst__hs_layout asgst__hsl;

/* N. Fills asgst__hsl from the vmStructs tables. 0, or -1 with the missing names in err. */
int asgst__hs_walker_layout_init(char *err, size_t errlen);

#endif
