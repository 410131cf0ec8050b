/*
 * vm_model.c - the table of the HotSpot model (vm_model.h) and the facts derived from it.
 *
 * One row per vmStructs entry the library reads: where its value goes, its name and an
 * alternative spelling (a JDK that renamed it), the feature versions it applies to, and
 * what depends on it (NULL: the library cannot work without it; otherwise the feature it
 * switches off when missing). Adding a JDK means adding rows or version bounds here and a
 * line in derive(); nothing else in the backend knows versions.
 */
#include "vm_model.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "asgst.h"
#include "../../arch/arch.h"
#include "elf_symtab.h"
#include "../../test_build.h"
#include "vmstructs.h"

asgst__vm_model asgst__vm __attribute__((aligned(64)));

enum kind { OFFSET, STATIC, SIZE, INT };

typedef struct {
  enum kind kind;
  const char *name, *alt;
  void *dest;          /* long* (OFFSET, SIZE), uintptr_t* (STATIC), int32_t* (INT) */
  int *width;          /* OFFSET: receives the field's byte width, if not NULL */
  int from, to;        /* feature versions the row applies to (0: unbounded) */
  const char *feature; /* NULL: required; else what a missing value switches off */
} row;

#define ANY 0, 0
#define UPTO21 0, 21  /* entry points as addresses, PcDescs and metadata at offsets from the blob */
#define PTRS 9, 21    /* the CodeBlob/CompiledMethod pointer layout */
#define ONLY8 8, 8    /* one code heap; code, deopt handlers and scopes at offsets from the blob */
#define FROM9 9, 0    /* segmented code cache; exported frame slots and thread termination */
#define FROM25 25, 0  /* the offset layout */
#define FROM21 21, 0  /* continuations (virtual threads) */
#define UPTO11 0, 11  /* threads in a linked list, before thread-safe memory reclamation */
#define FROM17 17, 0  /* ThreadsSMRSupport's lists (exported from 12 on; 11 does not) */
#define ONLY25 25, 25 /* the method handle deoptimization handler, dropped in 26 */
#define FROM19 19, 0  /* java.lang.Thread's status in Thread.FieldHolder */
#define FROM26 26, 0  /* a jmethodID is a number the VM maps to its Method* */
#define UPTO27 0, 27  /* the transition thread states, dropped in 28 */
/* Frame constants the x86_64 tables export and the arm64 tables do not (derive() sets
 * arm64's from impl/arch/aarch64/interp_frame.h): rows that never apply on arm64. */
#define X86_FROM9 (ASGST__FRAME_SLOTS_EXPORTED ? 9 : 1000), 0
#define X86_ANY (ASGST__FRAME_SLOTS_EXPORTED ? 0 : 1000), 0
#define REQ NULL
/* Optional features, named as ASGST_InitializeError and the notes report them. */
#define F_HIDDEN "unload handlers for hidden classes that unload on their own"
#define F_MONITORS "monitor states of threads"
#define F_STATUS "sleeping, parked and timed thread states (java.lang.Thread's threadStatus)"
#define F_FLAGS "switching DebugNonSafepoints on (non-safepoint pcs of compiled code)"
#define F_GENERIC "class generic signatures"
#define F_VTHREADS "walking from a virtual thread's lazily thawed frames to its carrier (return barrier)"
#define F_JMIDS "converting jmethodIDs through the holder's jmethodID cache (done by name and signature instead, slower)"
#define F_OSR "the loop's bci at a C1 OSR entry's call of the runtime (named by the next debug information instead)"
#define F_MODIFIERS "Klass modifier flags (class modifiers then come from the class mirror)"
/* Every VM has it; recordings made before the row was read lack it. */
#define F_COMMITTED "a code heap's committed end (a pc in its uncommitted part is then looked up, which a fault ends)"

static const row rows[] = {
    {STATIC, "Abstract_VM_Version::_vm_major_version", NULL, &asgst__vm.jdk_major_addr, NULL, ANY, REQ},
    /* Code cache */
    {STATIC, "CodeCache::_heaps", NULL, &asgst__vm.codecache_heaps, NULL, FROM9, REQ},
    {STATIC, "CodeCache::_heap", NULL, &asgst__vm.codecache_heap, NULL, ONLY8, REQ},
    {OFFSET, "GrowableArrayBase::_len", "GenericGrowableArray::_len", &asgst__vm.ga_len, NULL, FROM9, REQ},
    {OFFSET, "GrowableArray<int>::_data", NULL, &asgst__vm.ga_data, NULL, FROM9, REQ},
    {OFFSET, "CodeHeap::_memory", NULL, &asgst__vm.heap_memory, NULL, ANY, REQ},
    {OFFSET, "CodeHeap::_segmap", NULL, &asgst__vm.heap_segmap, NULL, ANY, REQ},
    {OFFSET, "CodeHeap::_log2_segment_size", NULL, &asgst__vm.heap_log2_seg, NULL, ANY, REQ},
    {OFFSET, "VirtualSpace::_low_boundary", NULL, &asgst__vm.vs_low_boundary, NULL, ANY, REQ},
    {OFFSET, "VirtualSpace::_high_boundary", NULL, &asgst__vm.vs_high_boundary, NULL, ANY, REQ},
    {OFFSET, "VirtualSpace::_low", NULL, &asgst__vm.vs_low, NULL, ANY, REQ},
    {OFFSET, "VirtualSpace::_high", NULL, &asgst__vm.vs_high, NULL, ANY, F_COMMITTED},
    {SIZE, "HeapBlock", NULL, &asgst__vm.heapblock_size, NULL, ANY, REQ},
    {OFFSET, "HeapBlock::Header::_used", NULL, &asgst__vm.heapblock_used, NULL, ANY, REQ},
    /* CodeBlob. _name is required, not optional: classifying a pc (codecache.c) tells
     * nmethods by it, so every accepted VM has it, and ASGST_GetCodeBlobName with it. */
    {OFFSET, "CodeBlob::_name", NULL, &asgst__vm.cb_name, NULL, ANY, REQ},
    {OFFSET, "CodeBlob::_size", NULL, &asgst__vm.cb_size, NULL, ANY, REQ},
    {OFFSET, "CodeBlob::_frame_size", NULL, &asgst__vm.cb_frame_size, NULL, ANY, REQ},
    {OFFSET, "CodeBlob::_frame_complete_offset", NULL, &asgst__vm.cb_frame_complete, &asgst__vm.cb_frame_complete_w, ANY, REQ},
    {OFFSET, "CodeBlob::_code_begin", NULL, &asgst__vm.cb_code_begin, NULL, PTRS, REQ},
    {OFFSET, "CodeBlob::_code_offset", NULL, &asgst__vm.cb_code_offset, NULL, ONLY8, REQ},
    {OFFSET, "CodeBlob::_code_offset", NULL, &asgst__vm.cb_code_offset, NULL, FROM25, REQ},
    {OFFSET, "CodeBlob::_mutable_data", NULL, &asgst__vm.cb_mutable_data, NULL, FROM25, REQ},
    {OFFSET, "CodeBlob::_relocation_size", NULL, &asgst__vm.cb_relocation_size, NULL, FROM25, REQ},
    {OFFSET, "CodeBlob::_mutable_data_size", NULL, &asgst__vm.cb_mutable_data_size, NULL, FROM25, REQ},
    /* nmethod */
    {OFFSET, "CompiledMethod::_method", "nmethod::_method", &asgst__vm.nm_method, NULL, ANY, REQ},
    {OFFSET, "nmethod::_comp_level", NULL, &asgst__vm.nm_comp_level, &asgst__vm.nm_comp_level_w, ANY, REQ},
    {OFFSET, "nmethod::_compile_id", NULL, &asgst__vm.nm_compile_id, NULL, ANY, REQ},
    {OFFSET, "nmethod::_orig_pc_offset", NULL, &asgst__vm.nm_orig_pc_offset, NULL, ANY, REQ},
    {OFFSET, "nmethod::_scopes_pcs_offset", NULL, &asgst__vm.nm_scopes_pcs_offset, NULL, ANY, REQ},
    {OFFSET, "nmethod::_dependencies_offset", NULL, &asgst__vm.nm_dependencies_offset, NULL, UPTO21, REQ},
    {OFFSET, "nmethod::_metadata_offset", NULL, &asgst__vm.nm_metadata_offset, NULL, UPTO21, REQ},
    {OFFSET, "CompiledMethod::_scopes_data_begin", NULL, &asgst__vm.nm_scopes_data_begin, NULL, PTRS, REQ},
    {OFFSET, "CompiledMethod::_deopt_handler_begin", NULL, &asgst__vm.nm_deopt_handler, NULL, PTRS, REQ},
    {OFFSET, "CompiledMethod::_deopt_mh_handler_begin", NULL, &asgst__vm.nm_deopt_mh_handler, NULL, PTRS, REQ},
    {OFFSET, "nmethod::_deoptimize_offset", NULL, &asgst__vm.nm_deopt_handler, NULL, ONLY8, REQ},
    {OFFSET, "nmethod::_deoptimize_mh_offset", NULL, &asgst__vm.nm_deopt_mh_handler, NULL, ONLY8, REQ},
    {OFFSET, "nmethod::_scopes_data_offset", NULL, &asgst__vm.nm_scopes_data_offset, NULL, ONLY8, REQ},
    {OFFSET, "nmethod::_entry_point", NULL, &asgst__vm.nm_entry, NULL, UPTO21, REQ},
    {OFFSET, "nmethod::_verified_entry_point", NULL, &asgst__vm.nm_verified_entry, NULL, UPTO21, REQ},
    {OFFSET, "nmethod::_deopt_handler_offset", "nmethod::_deopt_handler_entry_offset", &asgst__vm.nm_deopt_handler, NULL, FROM25, REQ},
    {OFFSET, "nmethod::_deopt_mh_handler_offset", NULL, &asgst__vm.nm_deopt_mh_handler, NULL, ONLY25, REQ},
    {OFFSET, "nmethod::_entry_offset", NULL, &asgst__vm.nm_entry, NULL, FROM25, REQ},
    {OFFSET, "nmethod::_verified_entry_offset", NULL, &asgst__vm.nm_verified_entry, NULL, FROM25, REQ},
    {OFFSET, "nmethod::_scopes_data_offset", NULL, &asgst__vm.nm_scopes_data_offset, NULL, FROM25, REQ},
    {OFFSET, "nmethod::_immutable_data", NULL, &asgst__vm.nm_immutable_data, NULL, FROM25, REQ},
    {OFFSET, "nmethod::_entry_bci", NULL, &asgst__vm.nm_entry_bci, NULL, ANY, F_OSR},
    {OFFSET, "nmethod::_osr_entry_point", NULL, &asgst__vm.nm_osr_entry, NULL, ANY, F_OSR},
    {SIZE, "PcDesc", NULL, &asgst__vm.pcdesc_size, NULL, ANY, REQ},
    {OFFSET, "PcDesc::_pc_offset", NULL, &asgst__vm.pcdesc_pc_offset, NULL, ANY, REQ},
    {OFFSET, "PcDesc::_scope_decode_offset", NULL, &asgst__vm.pcdesc_scope_offset, NULL, ANY, REQ},
    /* Interpreter, frames, anchors */
    {STATIC, "AbstractInterpreter::_code", NULL, &asgst__vm.interpreter_code, NULL, ANY, REQ},
    {OFFSET, "StubQueue::_stub_buffer", NULL, &asgst__vm.sq_stub_buffer, NULL, ANY, REQ},
    {OFFSET, "StubQueue::_buffer_limit", NULL, &asgst__vm.sq_buffer_limit, NULL, ANY, REQ},
    {INT, "frame::interpreter_frame_sender_sp_offset", NULL, &asgst__vm.interp_sender_sp_slot, NULL, X86_FROM9, REQ},
    {INT, "frame::interpreter_frame_last_sp_offset", NULL, &asgst__vm.interp_last_sp_slot, NULL, X86_FROM9, REQ},
    {INT, "frame::entry_frame_call_wrapper_offset", NULL, &asgst__vm.entry_wrapper_slot, NULL, X86_ANY, REQ},
    {STATIC, "StubRoutines::_call_stub_return_address", NULL, &asgst__vm.call_stub_return, NULL, ANY, REQ},
    {OFFSET, "JavaThread::_anchor", NULL, &asgst__vm.jt_anchor, NULL, ANY, REQ},
    {OFFSET, "JavaFrameAnchor::_last_Java_sp", NULL, &asgst__vm.anchor_sp, NULL, ANY, REQ},
    {OFFSET, "JavaFrameAnchor::_last_Java_pc", NULL, &asgst__vm.anchor_pc, NULL, ANY, REQ},
    {OFFSET, "JavaFrameAnchor::_last_Java_fp", NULL, &asgst__vm.anchor_fp, NULL, ANY, REQ},
    {OFFSET, "JavaCallWrapper::_anchor", NULL, &asgst__vm.jcw_anchor, NULL, ANY, REQ},
    /* Method, ConstMethod, ConstantPool, Symbol */
    {OFFSET, "Method::_constMethod", NULL, &asgst__vm.method_const, NULL, ANY, REQ},
    {OFFSET, "Method::_access_flags", NULL, &asgst__vm.method_access, &asgst__vm.method_access_w, ANY, REQ},
    {OFFSET, "ConstMethod::_constants", NULL, &asgst__vm.cm_constants, NULL, ANY, REQ},
    {OFFSET, "ConstMethod::_constMethod_size", NULL, &asgst__vm.cm_size, NULL, ANY, REQ},
    {OFFSET, "ConstMethod::_flags", "ConstMethod::_flags._flags", &asgst__vm.cm_flags, &asgst__vm.cm_flags_w, ANY, REQ},
    {OFFSET, "ConstMethod::_code_size", NULL, &asgst__vm.cm_code_size, NULL, ANY, REQ},
    {OFFSET, "ConstMethod::_name_index", NULL, &asgst__vm.cm_name_index, NULL, ANY, REQ},
    {OFFSET, "ConstMethod::_signature_index", NULL, &asgst__vm.cm_sig_index, NULL, ANY, REQ},
    {OFFSET, "ConstMethod::_method_idnum", NULL, &asgst__vm.cm_idnum, NULL, ANY, REQ},
    {SIZE, "ConstMethod", NULL, &asgst__vm.cm_sizeof, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_linenumber_table", "ConstMethodFlags::_misc_has_linenumber_table", &asgst__vm.cm_has_lines, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_generic_signature", "ConstMethodFlags::_misc_has_generic_signature", &asgst__vm.cm_has_generic, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_method_annotations", "ConstMethodFlags::_misc_has_method_annotations", &asgst__vm.cm_has_method_ann, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_parameter_annotations", "ConstMethodFlags::_misc_has_parameter_annotations", &asgst__vm.cm_has_param_ann, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_type_annotations", "ConstMethodFlags::_misc_has_type_annotations", &asgst__vm.cm_has_type_ann, NULL, ANY, REQ},
    {INT, "ConstMethod::_has_default_annotations", "ConstMethodFlags::_misc_has_default_annotations", &asgst__vm.cm_has_default_ann, NULL, ANY, REQ},
    {OFFSET, "ConstantPool::_pool_holder", NULL, &asgst__vm.cp_holder, NULL, ANY, REQ},
    {OFFSET, "ConstantPool::_length", NULL, &asgst__vm.cp_length, NULL, ANY, REQ},
    {OFFSET, "ConstantPool::_generic_signature_index", NULL, &asgst__vm.cp_generic_index, NULL, FROM17, F_GENERIC},
    {OFFSET, "InstanceKlass::_generic_signature_index", NULL, &asgst__vm.ik_generic_index, NULL, UPTO11, F_GENERIC},
    {SIZE, "ConstantPool", NULL, &asgst__vm.cp_sizeof, NULL, ANY, REQ},
    {OFFSET, "Symbol::_length", NULL, &asgst__vm.sym_length, NULL, ANY, REQ},
    {OFFSET, "Symbol::_body", NULL, &asgst__vm.sym_body, NULL, ANY, REQ},
    /* Klass */
    {OFFSET, "Klass::_name", NULL, &asgst__vm.k_name, NULL, ANY, REQ},
    {OFFSET, "Klass::_access_flags", "InstanceKlass::_access_flags", &asgst__vm.k_access, &asgst__vm.k_access_w, ANY, REQ},
    {OFFSET, "Klass::_java_mirror", NULL, &asgst__vm.k_mirror, NULL, ANY, REQ},
    {OFFSET, "Klass::_modifier_flags", NULL, &asgst__vm.k_modifier, NULL, ANY, F_MODIFIERS},
    {OFFSET, "InstanceKlass::_methods", NULL, &asgst__vm.ik_methods, NULL, ANY, REQ},
    {OFFSET, "InstanceKlass::_constants", NULL, &asgst__vm.ik_constants, NULL, ANY, REQ},
    {OFFSET, "InstanceKlass::_methods_jmethod_ids", NULL, &asgst__vm.ik_jmethod_ids, NULL, FROM26, F_JMIDS},
    {OFFSET, "Array<Klass*>::_length", NULL, &asgst__vm.array_length, NULL, ANY, REQ},
    {OFFSET, "Array<Method*>::_data", "Array<Klass*>::_data", &asgst__vm.array_data, NULL, ANY, REQ},
    /* JDK 8 exports neither: its VM-anonymous classes are told by their JVMTI names
     * (class_info.c). */
    {OFFSET, "Klass::_class_loader_data", NULL, &asgst__vm.k_cld, NULL, FROM9, F_HIDDEN},
    {OFFSET, "ClassLoaderData::_has_class_mirror_holder", "ClassLoaderData::_is_anonymous", &asgst__vm.cld_mirror_holder, NULL, FROM9, F_HIDDEN},
    {STATIC, "java_lang_Class::_klass_offset", NULL, &asgst__vm.mirror_klass_offset_addr, NULL, ANY, REQ},
    /* Threads */
    {OFFSET, "JavaThread::_stack_base", "Thread::_stack_base", &asgst__vm.t_stack_base, NULL, ANY, REQ},
    {OFFSET, "JavaThread::_stack_size", "Thread::_stack_size", &asgst__vm.t_stack_size, NULL, ANY, REQ},
    {OFFSET, "JavaThread::_thread_state", NULL, &asgst__vm.jt_state, NULL, ANY, REQ},
    /* 8 exports neither the termination field nor its values: see walker.c. */
    {OFFSET, "JavaThread::_terminated", NULL, &asgst__vm.jt_terminated, NULL, FROM9, REQ},
    /* Continuations. JDK 21 exports neither: the offset is then taken from the return
     * barrier's own first instruction (walker_code.c), the pc from libjvm's .symtab
     * (derive()). */
    {OFFSET, "JavaThread::_cont_entry", NULL, &asgst__vm.jt_cont_entry, NULL, FROM25, F_VTHREADS},
    {STATIC, "ContinuationEntry::_return_pc", NULL, &asgst__vm.cont_return_pc_addr, NULL, FROM25, F_VTHREADS},
    {OFFSET, "JavaThread::_current_pending_monitor", "Thread::_current_pending_monitor", &asgst__vm.jt_pending_monitor, NULL, ANY, F_MONITORS},
    {OFFSET, "JavaThread::_current_waiting_monitor", "Thread::_current_waiting_monitor", &asgst__vm.jt_waiting_monitor, NULL, ANY, F_MONITORS},
    {OFFSET, "JavaThread::_threadObj", NULL, &asgst__vm.jt_thread_obj, NULL, ANY, F_STATUS},
    {STATIC, "CompressedOops::_base", "CompressedOops::_narrow_oop._base", &asgst__vm.narrow_oop_base_addr, NULL, FROM19, F_STATUS},
    {STATIC, "CompressedOops::_shift", "CompressedOops::_narrow_oop._shift", &asgst__vm.narrow_oop_shift_addr, NULL, FROM19, F_STATUS},
    {INT, "JavaThread::_not_terminated", NULL, &asgst__vm.not_terminated, NULL, FROM9, REQ},
    {INT, "JavaThread::_thread_exiting", NULL, &asgst__vm.term_exiting, NULL, FROM9, REQ},
    {INT, "_thread_new", NULL, &asgst__vm.st_new, NULL, ANY, REQ},
    {INT, "_thread_in_native", NULL, &asgst__vm.st_in_native, NULL, ANY, REQ},
    {INT, "_thread_in_native_trans", NULL, &asgst__vm.st_in_native_trans, NULL, UPTO27, REQ},
    {INT, "_thread_in_vm", NULL, &asgst__vm.st_in_vm, NULL, ANY, REQ},
    {INT, "_thread_in_vm_trans", NULL, &asgst__vm.st_in_vm_trans, NULL, UPTO27, REQ},
    {INT, "_thread_in_Java", NULL, &asgst__vm.st_in_java, NULL, ANY, REQ},
    {INT, "_thread_in_Java_trans", NULL, &asgst__vm.st_in_java_trans, NULL, UPTO27, REQ},
    {INT, "_thread_blocked", NULL, &asgst__vm.st_blocked, NULL, ANY, REQ},
    {INT, "_thread_blocked_trans", NULL, &asgst__vm.st_blocked_trans, NULL, UPTO27, REQ},
    {STATIC, "ThreadsSMRSupport::_java_thread_list", NULL, &asgst__vm.java_thread_list, NULL, FROM17, REQ},
    {OFFSET, "ThreadsList::_length", NULL, &asgst__vm.tl_length, NULL, FROM17, REQ},
    {OFFSET, "ThreadsList::_threads", NULL, &asgst__vm.tl_threads, NULL, FROM17, REQ},
    {STATIC, "Threads::_thread_list", NULL, &asgst__vm.thread_list_head, NULL, UPTO11, REQ},
    {OFFSET, "JavaThread::_next", NULL, &asgst__vm.jt_next, NULL, UPTO11, REQ},
    /* JVM flags */
    {STATIC, "JVMFlag::flags", "Flag::flags", &asgst__vm.flags_addr, NULL, ANY, F_FLAGS},
    {STATIC, "JVMFlag::numFlags", "Flag::numFlags", &asgst__vm.num_flags_addr, NULL, ANY, F_FLAGS},
    {OFFSET, "JVMFlag::_name", "Flag::_name", &asgst__vm.flag_name, NULL, ANY, F_FLAGS},
    {OFFSET, "JVMFlag::_addr", "Flag::_addr", &asgst__vm.flag_addr, NULL, ANY, F_FLAGS},
    {SIZE, "JVMFlag", "Flag", &asgst__vm.flag_sizeof, NULL, ANY, F_FLAGS},
};

/* The spelling each row resolved to (NULL: not found or not applicable), and the layout
 * text of a recording (asgst__vm_model_export). */
static const char *resolved[sizeof rows / sizeof rows[0]];
/* Two layout texts: an export writes the one recordings do not read and then publishes it
 * (current), so a recording that runs while the background lookup re-exports
 * (asgst__vm_late_lookups) reads a whole text. Exports are serialized by export_lock. */
#define LAYOUT_CAP (48 * 1024)
static char layout[2][LAYOUT_CAP];
static size_t layout_len[2];
static atomic_int current = -1; /* the published text, -1: none */
static int writing;               /* the text being written */
static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;


static char features_off[512];
#if ASGST__TEST_BUILD
static char hidden[256]; /* asgst__vm_hide_for_test */

/* N. */
void asgst__vm_hide_for_test(const char *names) {
  snprintf(hidden, sizeof hidden, "%s", names ? names : "");
}

/* N. True if name is in the comma-separated test list. */
static bool is_hidden(const char *name) {
  size_t n = strlen(name);
  for (const char *p = hidden; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0')) return true;
  return false;
}
#else
/* N. The product hides nothing (impl/test_build.h): the test folds away. */
static inline bool is_hidden(const char *name) { (void)name; return false; }
#endif

/* N. Splits "Type::field" at its last "::" (Array<Method*> has none inside it, and a
 * field such as _flags._flags neither). */
static bool split(const char *name, char *type, size_t cap, const char **field) {
  const char *sep = NULL;
  for (const char *p = strstr(name, "::"); p; p = strstr(p + 2, "::")) sep = p;
  if (sep == NULL || (size_t)(sep - name) >= cap) return false;
  memcpy(type, name, (size_t)(sep - name));
  type[sep - name] = '\0';
  *field = sep + 2;
  return true;
}

/* N. Looks up one spelling of a row; true and the value stored if the VM exports it. */
static bool lookup(const row *r, const char *name) {
  char type[128];
  const char *field = NULL;
  if (is_hidden(name)) return false;
  if (r->kind == SIZE) {
    long s = asgst__vms_type_size(name);
    return s > 0 && (*(long *)r->dest = s, true);
  }
  if (r->kind == INT) return asgst__vms_int(name, (int32_t *)r->dest);
  if (!split(name, type, sizeof type, &field)) return false;
  if (r->kind == STATIC) {
    uintptr_t a = asgst__vms_static(type, field);
    return a != 0 && (*(uintptr_t *)r->dest = a, true);
  }
  long off = asgst__vms_offset(type, field);
  if (off < 0) return false;
  *(long *)r->dest = off;
  if (r->width) *r->width = asgst__vms_field_size(type, field);
  return true;
}

/* N. Appends "sep item" to a bounded message. */
static void append(char *buf, size_t cap, const char *sep, const char *item) {
  size_t used = strlen(buf);
  if (used + 1 < cap) snprintf(buf + used, cap - used, "%s%s", used ? sep : "", item);
}

/* N. Notes that a missing optional row switches its feature off (once per feature). */
static void switch_off(const row *r) {
  if (strstr(features_off, r->feature)) return;
  char item[200];
  snprintf(item, sizeof item, "%s (no %s)", r->feature, r->name);
  append(features_off, sizeof features_off, "; ", item);
}

/* The feature versions this project tests; another is refused unless the caller opts in
 * (ASGST_INIT_UNTESTED_JDK). */
static const int tested[] = {8, 11, 17, 21, 25, 26, 27};
#define NEWEST_TESTED 27

/* N. The feature version the tables describe; 0 if unreadable. JDK 8's VM numbers itself
 * HotSpot 25 (it has one code heap, CodeCache::_heap, where 9 and later have _heaps), and
 * only once it initializes its globals: an agent loaded at startup (Agent_OnLoad) reads 0
 * there (9 and later set the number at build time). The JVM's specification version,
 * which the caller compares with this one, tells 8 from an older VM. */
static int read_version(void) {
  uintptr_t a = asgst__vms_static("Abstract_VM_Version", "_vm_major_version");
  if (a == 0 || is_hidden("Abstract_VM_Version::_vm_major_version")) return 0;
  int major = *(const int *)a;
  if ((major == 25 || major == 0) && asgst__vms_static("CodeCache", "_heaps") == 0 &&
      asgst__vms_static("CodeCache", "_heap") != 0)
    return 8;
  return major;
}

/* N. True if this project tests feature version jdk. */
static bool is_tested(int jdk) {
  for (size_t i = 0; i < sizeof tested / sizeof tested[0]; i++)
    if (tested[i] == jdk) return true;
  return false;
}

/* N. Accepts the version or explains why not: a tested one always; a newer one only when
 * the caller opted in (then reported as untested among the features); an older or unknown
 * one never. The JVM's own java.vm.specification.version (spec, 0 if unknown) must agree
 * with the tables. */
static bool accept_version(int jdk, int spec, int32_t flags, char *err, size_t errlen) {
  if (spec && spec != jdk) {
    snprintf(err, errlen, "unsupported VM: its tables describe JDK %d, its "
             "java.vm.specification.version says %d", jdk, spec);
    return false;
  }
  if (is_tested(jdk)) return true;
  if (jdk > NEWEST_TESTED && (flags & ASGST_INIT_UNTESTED_JDK)) {
    char item[96];
    snprintf(item, sizeof item, "untested JDK %d (accepted by ASGST_INIT_UNTESTED_JDK)", jdk);
    append(features_off, sizeof features_off, "; ", item);
    return true;
  }
  snprintf(err, errlen, "unsupported VM: JDK %d (tested: 8, 11, 17, 21, 25, 26 and 27%s)", jdk,
           jdk > NEWEST_TESTED ? "; a newer JDK is accepted with ASGST_INIT_UNTESTED_JDK" : "");
  return false;
}

#define CONT_RETURN_PC "_ZN17ContinuationEntry10_return_pcE"
#define NO_CONT_RETURN_PC F_VTHREADS " (no ContinuationEntry::_return_pc in vmStructs or libjvm's .symtab)"
/* What the late lookup found (libjvm never moves: later bindings take it from here),
 * whether it found nothing, and whether a binding left it to do. */
static _Atomic uintptr_t found_cont_return_pc;
static atomic_bool not_found;
static atomic_bool late_lookup;

/* N. ContinuationEntry::_return_pc where the tables do not export it (JDK 21): the
 * static's address from libjvm's symbol table. Searching that table takes milliseconds
 * (docs/budgets.md), and the answer never refuses a VM, so the binding only checks that
 * libjvm has a .symtab and leaves the search to asgst__vm_late_lookups. Without the
 * address (a stripped libjvm; or until the search ends, a few milliseconds after the
 * binding) the walker does not step over a continuation return barrier: such a walk ends
 * with an error code, and a stripped libjvm reports the feature off. */
static void find_cont_return_pc(asgst__vm_model *v) {
  if (v->jdk < 21 || v->cont_return_pc_addr) return;
  v->cont_return_pc_addr = atomic_load(&found_cont_return_pc);
  if (v->cont_return_pc_addr) return;
  if (!atomic_load(&not_found) && asgst__elf_libjvm_has_symtab()) atomic_store(&late_lookup, true);
  else append(features_off, sizeof features_off, "; ", NO_CONT_RETURN_PC);
}

/* N. */
void asgst__vm_late_lookups(void) {
  if (!atomic_exchange(&late_lookup, false)) return;
  uintptr_t addr = asgst__elf_libjvm_symbol(CONT_RETURN_PC);
  if (addr == 0) {
    atomic_store(&not_found, true);
    asgst__vm_feature_off(NO_CONT_RETURN_PC);
    return;
  }
  atomic_store(&found_cont_return_pc, addr);
  __atomic_store_n(&asgst__vm.cont_return_pc_addr, addr, __ATOMIC_RELEASE);
  asgst__vm_model_export(); /* recordings from now on carry it */
}

/* N. Facts the tables do not export, from the feature version. */
static int derive(char *err, size_t errlen) {
  asgst__vm_model *model = &asgst__vm;
  find_cont_return_pc(model);
  /* Both code layouts and the two stream codings are checked per version: JDK 21 keeps 17's
   * CompiledMethod but codes its streams as UNSIGNED5 (since 20, JDK-8298048). */
  model->code = model->jdk >= 25 ? ASGST__CODE_OFFSETS : model->jdk >= 9 ? ASGST__CODE_POINTERS
                                                              : ASGST__CODE_BLOB_OFFSETS;
  model->stream_excess = model->jdk >= 20 ? 1 : 0;
  model->mirror_handle = model->jdk >= 9;
  model->anonymous_hash_names = model->jdk <= 14;
  model->jmethodid_table = model->jdk >= 26;
  /* frame::interpreter_frame_method_offset and _bcp_offset, not exported, and the slots
   * the tables do not give (JDK 8 exports no interpreter slot; arm64's tables none of the
   * frame constants): the same on 11, 17, 21 and 25, per architecture in
   * impl/arch/<arch>/interp_frame.h. */
  model->interp_method_slot = -3;
  model->interp_bcp_slot = ASGST__INTERP_BCP_SLOT(model->jdk);
  if (model->jdk == 8 || !ASGST__FRAME_SLOTS_EXPORTED) {
    model->interp_sender_sp_slot = ASGST__INTERP_SENDER_SP_SLOT;
    model->interp_last_sp_slot = ASGST__INTERP_LAST_SP_SLOT;
  }
  if (!ASGST__FRAME_SLOTS_EXPORTED) model->entry_wrapper_slot = ASGST__ENTRY_WRAPPER_SLOT;
  model->bcx_may_be_bci = model->jdk == 8;
  if (model->cm_flags_w != 2 && model->cm_flags_w != 4) {
    snprintf(err, errlen, "unsupported VM: ConstMethod flags of %d bytes", model->cm_flags_w);
    return -1;
  }
  if (model->cb_frame_complete_w != 2 && model->cb_frame_complete_w != 4) {
    snprintf(err, errlen, "unsupported VM: CodeBlob::_frame_complete_offset of %d bytes",
             model->cb_frame_complete_w);
    return -1;
  }
  if (model->nm_comp_level_w != 1 && model->nm_comp_level_w != 2 && model->nm_comp_level_w != 4)
    model->nm_comp_level_w = 4; /* CompLevel is an int enum on 17, exported without a size */
  return 0;
}

/* N. True if row r applies to feature version jdk. */
static bool applies(const row *r, int jdk) {
  return (r->from == 0 || jdk >= r->from) && (r->to == 0 || jdk <= r->to);
}

/* N. */
int asgst__vm_model_init(int spec, int32_t flags, char *err, size_t errlen) {
  char missing[1024] = "";
  memset(&asgst__vm, 0, sizeof asgst__vm);
  memset(resolved, 0, sizeof resolved);
  atomic_store(&current, -1);
  features_off[0] = '\0';
  int jdk = read_version();
  if (!accept_version(jdk, spec, flags, err, errlen)) return -1;
  asgst__vm.jdk = jdk;
  /* Every absent offset reads -1 and every absent constant INT32_MIN (no state has it),
   * first for all rows: rows of different versions share a destination, and a row that
   * does not apply must not undo one that does. */
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].kind == OFFSET || rows[i].kind == SIZE) *(long *)rows[i].dest = -1;
    if (rows[i].kind == INT) *(int32_t *)rows[i].dest = INT32_MIN;
  }
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const row *r = &rows[i];
    if (!applies(r, jdk)) continue;
    resolved[i] = lookup(r, r->name) ? r->name : r->alt && lookup(r, r->alt) ? r->alt : NULL;
    if (resolved[i]) continue;
    if (r->feature) switch_off(r);
    else append(missing, sizeof missing, ", ", r->name);
  }
  if (missing[0]) {
    snprintf(err, errlen, "unsupported VM: JDK %d lacks %s", jdk, missing);
    return -1;
  }
  return derive(err, errlen);
}

/* N. Appends one line of the layout text; false when it is full. */
static bool add_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool add_line(const char *fmt, ...) {
  char *text = layout[writing];
  size_t *len = &layout_len[writing];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text + *len, LAYOUT_CAP - *len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= LAYOUT_CAP - *len) return false;
  *len += (size_t)n;
  return true;
}

/* N. The line of one resolved row, in the vmStructs dump format. Field widths travel as
 * types named for their width ("asgst_w2"), declared once at the end. */
static bool export_row(const row *r, const char *name) {
  char type[128];
  const char *field = NULL;
  if (r->kind == SIZE) return add_line("TYPE %s size=%ld\n", name, *(long *)r->dest);
  if (r->kind == INT) return add_line("INT %s = %d\n", name, *(int32_t *)r->dest);
  if (!split(name, type, sizeof type, &field)) return false;
  if (r->kind == STATIC)
    return add_line("STRUCT %s static addr=0x%lx type=?\n", name, (unsigned long)*(uintptr_t *)r->dest);
  int w = asgst__vms_field_size(type, field);
  if (w > 0) return add_line("STRUCT %s offset=%ld type=asgst_w%d\n", name, *(long *)r->dest, w);
  return add_line("STRUCT %s offset=%ld type=?\n", name, *(long *)r->dest);
}

/* N. */
int asgst__vm_model_export(void) {
  const asgst__vm_model *model = &asgst__vm;
  pthread_mutex_lock(&export_lock);
  writing = atomic_load(&current) == 0 ? 1 : 0;
  layout_len[writing] = 0;
  bool ok = true;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0] && ok; i++)
    if (resolved[i]) ok = export_row(&rows[i], resolved[i]);
  for (int w = 1; w <= 8 && ok; w *= 2) ok = add_line("TYPE asgst_w%d size=%d\n", w, w);
  ok = ok && add_line("VALUE jdk = %d\n", model->jdk) &&
       add_line("VALUE mirror_klass_offset = %d\n", model->mirror_klass_offset) &&
       add_line("VALUE mirror_modifiers = %ld\n", model->mirror_modifiers) &&
       add_line("VALUE cont_return_pc_addr = %lu\n", (unsigned long)model->cont_return_pc_addr) &&
       add_line("VALUE anonymous_set = %lu\n", (unsigned long)model->anonymous_set);
  atomic_store(&current, ok ? writing : -1);
  pthread_mutex_unlock(&export_lock);
  return ok ? 0 : -1;
}

/* SS. */
const char *asgst__vm_layout_text(size_t *len) {
  int i = atomic_load(&current);
  *len = i >= 0 ? layout_len[i] : 0;
  return i >= 0 ? layout[i] : NULL;
}

/* N. */
void asgst__vm_feature_off(const char *item) {
  if (strstr(features_off, item) == NULL) append(features_off, sizeof features_off, "; ", item);
}

/* N. */
const char *asgst__vm_features_off(void) {
  return features_off;
}
