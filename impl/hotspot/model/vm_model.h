/*
 * vm_model.h - the one model of the HotSpot VM this library reads: every type, field and
 * constant, the facts the tables do not export, and the accessors that read VM memory
 * through them.
 *
 * vm_model.c holds the table (one row per vmStructs entry, with alternative names and the
 * JDK feature versions it applies to) and derives the rest from the JDK's feature version:
 * the stream integer coding, where a code blob keeps its code and an nmethod its debug
 * information, the interpreter frame slots. The walker, scopes, code cache, frame cache
 * and metadata code hold no version knowledge: they read through asgst__vm and the
 * accessors below.
 *
 * Supported: JDK 8, 11, 17, 21, 25, 26 and 27 (the versions this project tests). Another
 * version is refused with a reason, because fields that exist are no proof that they mean
 * the same; a newer one is accepted when the caller opts in (ASGST_INIT_UNTESTED_JDK).
 */
#ifndef ASGST_HOTSPOT_VM_MODEL_H
#define ASGST_HOTSPOT_VM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../safe_read.h"

/* Where code blobs keep their code and nmethods their data. */
enum asgst__vm_code_layout {
  ASGST__CODE_POINTERS = 1, /* 17, 21: CodeBlob::_code_begin and CompiledMethod pointers;
                               nmethod data at offsets from the blob */
  ASGST__CODE_OFFSETS,      /* 25: code at blob + _code_offset; debug information in
                               _immutable_data, metadata in _mutable_data */
  ASGST__CODE_BLOB_OFFSETS  /* 8: code, deopt handlers, PcDescs, scopes data and metadata
                               at int offsets from the blob; entry points as addresses */
};

/* Offsets are in bytes (-1: not exported), statics are addresses (0: not exported);
 * *_w are the exported byte widths of fields whose width changed between versions. */
typedef struct {
  /* ---- What every walk reads, together in the first two cache lines (asgst__vm is
   * aligned to them): each further line is a miss in a walk that starts cold, as one in a
   * signal handler between stretches of the program does. */
  int jdk;                        /* feature version: 8 to 27 (newer when opted in) */
  enum asgst__vm_code_layout code;
  int interp_method_slot;         /* frame slots (words from fp) the tables do not export */
  int interp_bcp_slot;
  int32_t interp_sender_sp_slot, interp_last_sp_slot, entry_wrapper_slot;
  int32_t not_terminated, term_exiting;
  long jt_terminated;             /* -1 on 8, which exports neither it nor its values */
  long nm_compile_id;
  long jt_anchor, anchor_sp, anchor_pc, anchor_fp, jcw_anchor;
  long method_const;              /* Method::_constMethod (ConstMethod*) */
  long cm_sizeof;                 /* sizeof(ConstMethod): the bytecodes follow it */
  long jt_state;
  int32_t st_new, st_in_native, st_in_native_trans, st_in_vm, st_in_vm_trans;
  int32_t st_in_java, st_in_java_trans, st_blocked, st_blocked_trans; /* _trans: INT32_MIN
                                     where the VM has no such state (28) */

  /* ---- Derived facts ---- */
  uint32_t stream_excess;         /* compressed ints: 0 = Pack200 (17), 1 = UNSIGNED5 (20+) */
  bool mirror_handle;             /* Klass::_java_mirror is an OopHandle (9+); an oop on 8 */
  bool anonymous_hash_names;      /* 8, 11: JVMTI names a VM-anonymous class "name/hash" */
  bool jmethodid_table;           /* 26+: a jmethodID is a number, not a Method* slot */
  bool bcx_may_be_bci;            /* 8: an interpreter frame's bcp slot holds the bci while a
                                     GC runs (frame::gc_prologue) */

  /* ---- VM version ---- */
  uintptr_t jdk_major_addr;       /* &Abstract_VM_Version::_vm_major_version (int) */

  /* ---- Code cache ---- */
  uintptr_t codecache_heaps;      /* &CodeCache::_heaps (GrowableArray<CodeHeap*>*), 9+ */
  uintptr_t codecache_heap;       /* 8: &CodeCache::_heap (CodeHeap*), the only heap */
  long ga_len, ga_data;           /* GrowableArray _len, _data */
  long heap_memory, heap_segmap;  /* CodeHeap::_memory, _segmap (VirtualSpace) */
  long heap_log2_seg;             /* CodeHeap::_log2_segment_size */
  long vs_low_boundary, vs_high_boundary, vs_low, vs_high; /* VirtualSpace */
  long heapblock_size;            /* sizeof(HeapBlock): the blob follows the header */
  long heapblock_used;            /* HeapBlock::Header::_used (bool) */

  /* ---- CodeBlob ---- */
  long cb_name, cb_size, cb_frame_size;
  long cb_frame_complete; int cb_frame_complete_w; /* int on 17/21, int16_t on 25 */
  long cb_code_begin;             /* POINTERS: address */
  long cb_code_offset;            /* OFFSETS, BLOB_OFFSETS: int, from the blob */
  long cb_mutable_data;           /* OFFSETS: address of relocations + metadata */
  long cb_relocation_size;        /* OFFSETS: int */
  long cb_mutable_data_size;      /* OFFSETS: int */

  /* ---- nmethod ---- */
  long nm_method;                 /* Method* (CompiledMethod:: on 11-21) */
  long nm_comp_level; int nm_comp_level_w; /* CompLevel: int on 17/21, 1 byte on 25 */
  long nm_orig_pc_offset;
  long nm_scopes_pcs_offset;      /* int: from the blob (POINTERS, BLOB_OFFSETS), from
                                     immutable data (OFFSETS) */
  long nm_dependencies_offset;    /* POINTERS, BLOB_OFFSETS: int, end of the PcDescs */
  long nm_metadata_offset;        /* POINTERS, BLOB_OFFSETS: int, from the blob */
  long nm_scopes_data_begin;      /* POINTERS: address */
  long nm_deopt_handler, nm_deopt_mh_handler; /* POINTERS: address; OFFSETS, BLOB_OFFSETS:
                                     int from the blob */
  long nm_entry, nm_verified_entry; /* POINTERS, BLOB_OFFSETS: address; OFFSETS: u2 from code */
  long nm_scopes_data_offset;     /* OFFSETS: int, from immutable data; BLOB_OFFSETS: from
                                     the blob */
  long nm_immutable_data;         /* OFFSETS: address */
  long nm_entry_bci, nm_osr_entry; /* int (-1: not an OSR compilation); address */
  long pcdesc_size, pcdesc_pc_offset, pcdesc_scope_offset;

  /* ---- Interpreter and frames ---- */
  uintptr_t interpreter_code;     /* &AbstractInterpreter::_code (StubQueue*) */
  long sq_stub_buffer, sq_buffer_limit;
  uintptr_t call_stub_return;     /* &StubRoutines::_call_stub_return_address */

  /* ---- Method, ConstMethod, ConstantPool, Symbol ---- */
  long method_access; int method_access_w; /* Method::_access_flags: 4 bytes, 2 on 25 */
  long cm_constants;              /* ConstantPool* */
  long cm_size;                   /* _constMethod_size, in words */
  long cm_flags; int cm_flags_w;  /* u2 on 17, u4 ConstMethodFlags on 21+ */
  long cm_code_size, cm_name_index, cm_sig_index, cm_idnum; /* u2 */
  int32_t cm_has_lines, cm_has_generic, cm_has_method_ann, cm_has_param_ann;
  int32_t cm_has_type_ann, cm_has_default_ann; /* flag bits */
  long cp_holder, cp_length;
  long cp_generic_index;          /* u2 class generic signature index, -1 if absent */
  long ik_generic_index;          /* the same in InstanceKlass (8, 11), -1 if absent */
  long cp_sizeof;                 /* Symbol* slots follow the header */
  long sym_length, sym_body;

  /* ---- Klass ---- */
  long k_name, k_mirror, k_modifier;
  long k_access; int k_access_w;
  long ik_methods, ik_constants, array_length, array_data;
  long ik_jmethod_ids;            /* optional (26+): InstanceKlass::_methods_jmethod_ids, the
                                     class's jmethodIDs by idnum (jmethodids.c) */
  long k_cld;                     /* optional: Klass::_class_loader_data */
  long cld_mirror_holder;         /* optional: ClassLoaderData::_has_class_mirror_holder */
  uintptr_t mirror_klass_offset_addr; /* &java_lang_Class::_klass_offset (int) */
  uintptr_t anonymous_set;        /* 8: the set of VM-anonymous classes (class_info.c), read
                                     like VM memory so that recordings carry it; 0 elsewhere */
  int mirror_klass_offset;        /* read once the VM is live (hotspot_init.c) */
  long mirror_modifiers;          /* JDK 24+: java.lang.Class.modifiers (u2) in a mirror,
                                     learned once the VM is live (class_info.c); -1 if not */

  /* ---- Threads ---- */
  long t_stack_base, t_stack_size;
  long jt_cont_entry;             /* optional (25): JavaThread::_cont_entry (ContinuationEntry*) */
  uintptr_t cont_return_pc_addr;  /* optional (21+): &ContinuationEntry::_return_pc (address);
                                     from libjvm's .symtab on 21 */
  long jt_pending_monitor, jt_waiting_monitor; /* optional */
  long jt_thread_obj;             /* optional: JavaThread::_threadObj (an oop up to 15, an
                                     OopHandle from 16 on) */
  uintptr_t narrow_oop_base_addr, narrow_oop_shift_addr; /* optional (19+): &CompressedOops'
                                     base (address) and shift (int), to follow Thread.holder */
  uintptr_t java_thread_list;     /* &ThreadsSMRSupport::_java_thread_list */
  long tl_length, tl_threads;
  uintptr_t thread_list_head;     /* 8, 11: &Threads::_thread_list (JavaThread*) */
  long jt_next;                   /* 8, 11: JavaThread::_next */

  /* ---- JVM flags (optional: only to switch DebugNonSafepoints on) ---- */
  uintptr_t flags_addr, num_flags_addr;
  long flag_name, flag_addr, flag_sizeof;
} asgst__vm_model;

extern asgst__vm_model asgst__vm;

/* N. Fills asgst__vm from the loaded vmStructs tables. spec: the JVM's own
 * java.vm.specification.version as a feature version, 0 if unknown (it must agree with the
 * tables); flags: ASGST_INIT_* bits of ASGST_Initialize. 0, or -1 with a reason in err that
 * names every missing required piece (or the unsupported version). Optional pieces that
 * are missing switch their feature off; asgst__vm_features_off() says which. */
int asgst__vm_model_init(int spec, int32_t flags, char *err, size_t errlen);
/* N. Writes the layout text of recordings (impl/record/format.h) from the model's
 * resolved rows and the values learned from the live VM; call once those are known.
 * 0, or -1 if it does not fit. */
int asgst__vm_model_export(void);
/* N. The lookups asgst__vm_model_init leaves to a thread of the library because they
 * take milliseconds and cannot refuse a VM (JDK 21: ContinuationEntry::_return_pc from
 * libjvm's .symtab); publishes what they find into asgst__vm and exports the layout again.
 * Nothing to do after a binding that left none. */
void asgst__vm_late_lookups(void);
/* SS. The text asgst__vm_model_export wrote last (*len bytes), NULL if none. */
const char *asgst__vm_layout_text(size_t *len);
/* N. "" or a list of features switched off for missing optional pieces, with the names. */
const char *asgst__vm_features_off(void);
/* N. Reports a feature off that no table row decides (found by other means at init). */
void asgst__vm_feature_off(const char *item);

/* ---- Accessors: the only code that adds an offset to a VM pointer (SS) ---- */

/* SS. First instruction of a code blob. */
static inline bool asgst__vm_code_begin(uintptr_t blob, uintptr_t *out) {
  if (asgst__vm.code == ASGST__CODE_POINTERS) return asgst__load_ptr(blob + asgst__vm.cb_code_begin, out);
  uint32_t off;
  if (!asgst__load_u32(blob + asgst__vm.cb_code_offset, &off)) return false;
  *out = blob + off;
  return true;
}

/* SS. A field of `width` bytes (1, 2 or 4) at addr, sign-extended. */
static inline bool asgst__vm_load_int(uintptr_t addr, int width, int32_t *out) {
  if (width == 4) return asgst__load_u32(addr, (uint32_t *)out);
  if (width == 2) {
    uint16_t v;
    if (!asgst__load_u16(addr, &v)) return false;
    *out = (int16_t)v;
    return true;
  }
  uint8_t v;
  if (!asgst__load_u8(addr, &v)) return false;
  *out = (int8_t)v;
  return true;
}

/* SS. Size of a blob in bytes. */
static inline bool asgst__vm_blob_size(uintptr_t blob, uint32_t *out) {
  return asgst__load_u32(blob + asgst__vm.cb_size, out);
}

/* SS. The blob's _name (a static string of libjvm). */
static inline bool asgst__vm_blob_name(uintptr_t blob, uintptr_t *out) {
  return asgst__load_ptr(blob + asgst__vm.cb_name, out);
}

/* SS. Frame size in words and frame-complete offset from the code begin (< 0: never). */
static inline bool asgst__vm_blob_frame(uintptr_t blob, int32_t *size, int32_t *complete) {
  return asgst__load_u32(blob + asgst__vm.cb_frame_size, (uint32_t *)size) &&
         asgst__vm_load_int(blob + asgst__vm.cb_frame_complete, asgst__vm.cb_frame_complete_w,
                            complete);
}

/* SS. An nmethod's entry and verified entry points. */
static inline bool asgst__vm_nm_entries(uintptr_t nm, uintptr_t *entry, uintptr_t *verified) {
  if (asgst__vm.code != ASGST__CODE_OFFSETS)
    return asgst__load_ptr(nm + asgst__vm.nm_entry, entry) &&
           asgst__load_ptr(nm + asgst__vm.nm_verified_entry, verified);
  uint16_t e, v;
  uintptr_t code;
  if (!asgst__vm_code_begin(nm, &code) || !asgst__load_u16(nm + asgst__vm.nm_entry, &e) ||
      !asgst__load_u16(nm + asgst__vm.nm_verified_entry, &v))
    return false;
  *entry = code + e;
  *verified = code + v;
  return true;
}

/* SS. For an OSR compilation (one entered from the interpreter in a loop): the loop's bci
 * and the OSR entry point. False for a standard compilation, or a model without them. */
static inline bool asgst__vm_nm_osr(uintptr_t nm, int32_t *bci, uintptr_t *entry) {
  if (asgst__vm.nm_entry_bci < 0 || asgst__vm.nm_osr_entry < 0) return false;
  return asgst__load_u32(nm + asgst__vm.nm_entry_bci, (uint32_t *)bci) && *bci >= 0 &&
         asgst__load_ptr(nm + asgst__vm.nm_osr_entry, entry);
}

/* SS. An nmethod's two deoptimization handler addresses (OFFSETS and BLOB_OFFSETS: from
 * the blob start, not the code; a negative offset gives an address no pc can have). 26
 * and later have one handler (no method handle one): both are that one. */
static inline bool asgst__vm_nm_deopt(uintptr_t nm, uintptr_t *d1, uintptr_t *d2) {
  if (asgst__vm.code == ASGST__CODE_POINTERS)
    return asgst__load_ptr(nm + asgst__vm.nm_deopt_handler, d1) &&
           asgst__load_ptr(nm + asgst__vm.nm_deopt_mh_handler, d2);
  uint32_t o1, o2;
  long mh = asgst__vm.nm_deopt_mh_handler >= 0 ? asgst__vm.nm_deopt_mh_handler
                                               : asgst__vm.nm_deopt_handler;
  if (!asgst__load_u32(nm + asgst__vm.nm_deopt_handler, &o1) || !asgst__load_u32(nm + mh, &o2))
    return false;
  *d1 = nm + (uintptr_t)(intptr_t)(int32_t)o1;
  *d2 = nm + (uintptr_t)(intptr_t)(int32_t)o2;
  return true;
}

/* SS. Byte offset from sp where a deoptimized frame keeps its original pc. */
static inline bool asgst__vm_nm_orig_pc_offset(uintptr_t nm, uint32_t *out) {
  return asgst__load_u32(nm + asgst__vm.nm_orig_pc_offset, out);
}

/* SS. A Method's access flags (JVM_ACC_* bits). */
static inline bool asgst__vm_method_access(uintptr_t m, int32_t *out) {
  return asgst__vm_load_int(m + asgst__vm.method_access, asgst__vm.method_access_w, out);
}

/* SS. The Method* an nmethod was compiled from. */
static inline bool asgst__vm_nm_method(uintptr_t nm, uintptr_t *out) {
  return asgst__load_ptr(nm + asgst__vm.nm_method, out);
}

/* SS. Compile id and tier of an nmethod. */
static inline bool asgst__vm_nm_compile_id(uintptr_t nm, uint32_t *out) {
  return asgst__load_u32(nm + asgst__vm.nm_compile_id, out);
}
static inline bool asgst__vm_nm_level(uintptr_t nm, int32_t *out) {
  return asgst__vm_load_int(nm + asgst__vm.nm_comp_level, asgst__vm.nm_comp_level_w, out);
}

/* SS. The nmethod's PcDesc array [begin, end). */
static inline bool asgst__vm_nm_pcs(uintptr_t nm, uintptr_t *begin, uintptr_t *end) {
  uint32_t a, b;
  uintptr_t base = nm;
  if (asgst__vm.code != ASGST__CODE_OFFSETS) {
    if (!asgst__load_u32(nm + asgst__vm.nm_scopes_pcs_offset, &a) ||
        !asgst__load_u32(nm + asgst__vm.nm_dependencies_offset, &b))
      return false;
  } else if (!asgst__load_ptr(nm + asgst__vm.nm_immutable_data, &base) ||
             !asgst__load_u32(nm + asgst__vm.nm_scopes_pcs_offset, &a) ||
             !asgst__load_u32(nm + asgst__vm.nm_scopes_data_offset, &b)) {
    return false;
  }
  if (b <= a) return false;
  *begin = base + a;
  *end = base + b;
  return true;
}

/* SS. Where the scopes data of a POINTERS or BLOB_OFFSETS nmethod begins. */
static inline bool asgst__vm_nm_scopes_data(uintptr_t nm, uintptr_t *data) {
  if (asgst__vm.code == ASGST__CODE_POINTERS)
    return asgst__load_ptr(nm + asgst__vm.nm_scopes_data_begin, data);
  uint32_t off;
  if (!asgst__load_u32(nm + asgst__vm.nm_scopes_data_offset, &off)) return false;
  *data = nm + off;
  return true;
}

/* SS. The scopes data stream and the metadata array (Method*s that scopes index, 1-based)
 * of an nmethod. */
static inline bool asgst__vm_nm_scopes(uintptr_t nm, uintptr_t *data, uintptr_t *meta,
                                       uint32_t *nmeta) {
  uintptr_t m, end;
  if (asgst__vm.code != ASGST__CODE_OFFSETS) {
    uint32_t off;
    if (!asgst__vm_nm_scopes_data(nm, data) ||
        !asgst__load_u32(nm + asgst__vm.nm_metadata_offset, &off))
      return false;
    m = nm + off;
    end = *data; /* the metadata ends where the scopes data begins */
  } else {
    /* Metadata: the mutable data holds relocations, then the metadata array (then JVMCI
     * data, absent for C1/C2 code; with it the array only looks longer, and an index into
     * the JVMCI part would still be caught by the Method* checks of the caller). */
    uintptr_t imm, mut;
    uint32_t sd, rel, msize;
    if (!asgst__load_ptr(nm + asgst__vm.nm_immutable_data, &imm) ||
        !asgst__load_u32(nm + asgst__vm.nm_scopes_data_offset, &sd) ||
        !asgst__load_ptr(nm + asgst__vm.cb_mutable_data, &mut) ||
        !asgst__load_u32(nm + asgst__vm.cb_relocation_size, &rel) ||
        !asgst__load_u32(nm + asgst__vm.cb_mutable_data_size, &msize) || mut == 0)
      return false;
    *data = imm + sd;
    m = mut + rel;
    end = mut + msize;
  }
  if (end <= m) return false;
  *meta = m;
  *nmeta = (uint32_t)((end - m) / 8);
  return true;
}

/* SS. One compressed unsigned integer of a debug-information or line-number stream at
 * *p (advanced), not reading at or past `end`: up to 5 bytes of 6 bits each after the
 * first, a byte below 192 ends it, every byte counts minus stream_excess. */
static inline bool asgst__vm_read_uint(uintptr_t *p, uintptr_t end, uint32_t *out) {
  const uint32_t x = asgst__vm.stream_excess;
  uint32_t sum = 0;
  for (int i = 0, shift = 0; i < 5; i++, shift += 6) {
    uint8_t b;
    if (*p >= end || !asgst__load_u8(*p, &b) || b < x) return false;
    (*p)++;
    sum += (uint32_t)(b - x) << shift;
    if (b < 192) break;
  }
  *out = sum;
  return true;
}

#endif
