/*
 * layout.h - every metadata and thread offset, flag bit and per-version fact the hotspot
 * backend's binding and metadata code needs (the walker keeps its own in walker_layout.h).
 *
 * Filled once by asgst__hs_layout_init from the vmStructs tables. Fields are looked up by
 * name, with alternative names where a JDK renamed them (JDK 21 moved ConstMethod's flags
 * into ConstMethodFlags), so a new JDK is supported by adding names to the table in
 * layout.c, not by version #ifdefs. Only facts the tables do not export are derived from
 * the JDK's feature version there, each with its reason.
 */
#ifndef ASGST_HOTSPOT_LAYOUT_H
#define ASGST_HOTSPOT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uintptr_t jdk_major_addr; /* &Abstract_VM_Version::_vm_major_version (int) */
  int jdk_major;

  /* Method */
  long method_const;        /* Method::_constMethod (ConstMethod*) */
  long method_access;       /* Method::_access_flags (AccessFlags, 4 bytes) */

  /* ConstMethod */
  long cm_constants;        /* ConstantPool* */
  long cm_size;             /* _constMethod_size, in words */
  long cm_flags;            /* flags word (u2 on 17, u4 ConstMethodFlags on 21+) */
  int cm_flags_size;
  long cm_code_size;        /* u2 */
  long cm_name_index;       /* u2 */
  long cm_sig_index;        /* u2 */
  long cm_idnum;            /* u2 _method_idnum */
  long cm_sizeof;           /* sizeof(ConstMethod): the bytecodes follow it */
  uint32_t cm_has_lines;    /* flag bits */
  uint32_t cm_has_generic;
  uint32_t cm_has_method_ann;
  uint32_t cm_has_param_ann;
  uint32_t cm_has_type_ann;
  uint32_t cm_has_default_ann;

  /* ConstantPool: Symbol* slots follow the header (sizeof(ConstantPool)) */
  long cp_holder;           /* _pool_holder (InstanceKlass*) */
  long cp_length;           /* int */
  long cp_generic_index;    /* u2 class generic signature index, -1 if absent */
  long cp_sizeof;

  /* Symbol */
  long sym_length;          /* u2 */
  long sym_body;

  /* Klass / InstanceKlass */
  long k_name;              /* Symbol* */
  long k_access;            /* AccessFlags */
  int k_access_size;
  long k_mirror;            /* OopHandle _java_mirror (oop*) */
  long k_modifier;          /* jint _modifier_flags, -1 if absent (removed in JDK 24) */
  long ik_methods;          /* Array<Method*>* */
  long ik_constants;        /* ConstantPool* */
  long array_length;        /* Array<T>::_length (int) */
  long array_data;          /* Array<T>::_data */
  long k_cld;               /* Klass::_class_loader_data (ClassLoaderData*), -1 if absent */
  long cld_mirror_holder;   /* bool ClassLoaderData::_has_class_mirror_holder (a hidden
                             * class that can be unloaded on its own), -1 if absent */

  /* Threads */
  long t_stack_base;        /* address (Thread, exported under JavaThread) */
  long t_stack_size;        /* size_t */
  long jt_state;            /* JavaThreadState (int) */
  long jt_terminated;       /* TerminatedTypes (int) */
  long jt_pending_monitor;  /* ObjectMonitor*, -1 if absent */
  long jt_waiting_monitor;  /* ObjectMonitor*, -1 if absent */
  int32_t not_terminated;   /* JavaThread::_not_terminated */
  int32_t st_new, st_in_native, st_in_native_trans, st_in_vm, st_in_vm_trans;
  int32_t st_in_java, st_in_java_trans, st_blocked, st_blocked_trans;
  uintptr_t java_thread_list; /* &ThreadsSMRSupport::_java_thread_list */
  long tl_length;           /* ThreadsList::_length (uint) */
  long tl_threads;          /* ThreadsList::_threads (JavaThread**) */

  /* Class mirrors */
  uintptr_t mirror_klass_offset_addr; /* &java_lang_Class::_klass_offset (int) */
  int mirror_klass_offset;

  /* JVM flags (optional: only needed to switch DebugNonSafepoints on) */
  uintptr_t flags_addr;     /* &JVMFlag::flags */
  uintptr_t num_flags_addr; /* &JVMFlag::numFlags */
  long flag_name;
  long flag_addr;
  long flag_sizeof;

  /* The compressed line number stream's integer coding: Pack200-style on JDK <= 19,
   * UNSIGNED5 from JDK 20 (JDK-8298048); the tables do not say which. */
  bool lines_unsigned5;
} asgst__hs_layout_t;

extern asgst__hs_layout_t asgst__hs;

/* N. Fills asgst__hs from the vmStructs tables (loaded). Returns 0, or -1 with
 * "unsupported VM: missing A, B, ..." naming every required piece that is absent.
 * Test hook: the environment variable ASGST_TEST_HIDE_FIELD, a comma-separated list of
 * names ("Method::_constMethod"), makes those names count as missing, so the failure
 * path can be tested on a supported JVM. */
int asgst__hs_layout_init(char *err, size_t errlen);

/* N. True if `name` is listed in ASGST_TEST_HIDE_FIELD. */
bool asgst__hs_hidden(const char *name);

#endif
