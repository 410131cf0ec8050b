/*
 * self_check.c - proves the HotSpot model on the live VM before the library says yes.
 *
 * Fields that exist are no proof that they are read right (JDK 21 kept 17's nmethod
 * fields and changed its stream coding underneath). So initialization reads things the
 * VM can also tell through JVMTI, with the library's own code, and compares:
 *   - names, signatures and modifiers of the methods of a few core classes
 *     (Method, ConstMethod, ConstantPool, Symbol), each method found from its jmethodID
 *     as the conversions find it (JDK 26+: the holder's jmethodID cache and the idnums);
 *   - their line number tables, whose escaped entries use the compressed stream integers
 *     that the debug information of compiled code uses too;
 *   - the class names and modifiers (Klass, or the mirror on JDK 24+);
 *   - the code cache: the call stub's return address must be found in a code blob of the
 *     code heaps (segment map, HeapBlock header, CodeBlob size) and be classified as the
 *     entry point.
 * Any difference refuses the VM with a reason naming what disagreed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../guard.h"
#include "hotspot_backend.h"
#include "classes/classes.h"
#include "classes/metadata.h"
#include "model/vm_model.h"
#include "walking/codecache.h"

#define MAX_LINES 512

typedef struct {
  jvmtiEnv *jvmti;
  char *err;
  size_t errlen;
  int methods, lines; /* compared so far */
} check;

/* N. Formats the reason into err; returns -1. */
static int fail(check *c, const char *what, const char *cls, const char *name) {
  snprintf(c->err, c->errlen, "the HotSpot model of JDK %d disagrees with JVMTI on %s of "
           "%s.%s; refusing this VM", asgst__vm.jdk, what, cls, name);
  return -1;
}

/* N. Our view of one method, read under the crash guard; false if it faulted. */
static bool read_method(ASGST_Method m, ASGST_MethodInfo *mi, ASGST_MethodLineNumberEntry *e,
                        int *nlines) {
  volatile bool ok = true;
  ASGST__GUARDED({
    asgst__hs_method_info(m, mi);
    *nlines = asgst__hs_line_table(m, 0, e, MAX_LINES);
  }, ok = false);
  return ok;
}

/* N. Compares JVMTI's line table of method id with ours (n entries in e). */
static bool same_lines(check *c, jmethodID id, const ASGST_MethodLineNumberEntry *e, int n) {
  jint count = 0;
  jvmtiLineNumberEntry *t = NULL;
  jvmtiError r = (*c->jvmti)->GetLineNumberTable(c->jvmti, id, &count, &t);
  if (r != JVMTI_ERROR_NONE) return n <= 0; /* absent (native, abstract) on both sides */
  bool same = count == n && count <= MAX_LINES;
  for (jint i = 0; same && i < count; i++)
    same = t[i].start_location == e[i].start_bci && t[i].line_number == e[i].line_number;
  c->lines += count;
  (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)t);
  return same;
}

/* N. Compares one method, m being our Method* of id; 0 or -1 with the reason. */
static int check_method(check *c, jmethodID id, ASGST_Method m, const char *cls) {
  char *name = NULL, *sig = NULL;
  if ((*c->jvmti)->GetMethodName(c->jvmti, id, &name, &sig, NULL) != JVMTI_ERROR_NONE) return 0;
  char our_name[256], our_sig[1024];
  ASGST_MethodInfo mi = {NULL, our_name, sizeof our_name, our_sig, sizeof our_sig, NULL, 0, 0, 0, 0};
  static ASGST_MethodLineNumberEntry e[MAX_LINES];
  int nlines = 0;
  jint mods = 0;
  (*c->jvmti)->GetMethodModifiers(c->jvmti, id, &mods);
  int rc = 0;
  if (!read_method(m, &mi, e, &nlines)) rc = fail(c, "reading (a fault)", cls, name);
  else if (strcmp(our_name, name) != 0) rc = fail(c, "the name", cls, name);
  else if (strcmp(our_sig, sig) != 0) rc = fail(c, "the signature", cls, name);
  else if ((mi.modifiers & 0xFFF) != (mods & 0xFFF)) rc = fail(c, "the modifiers", cls, name);
  else if (!same_lines(c, id, e, nlines)) rc = fail(c, "the line number table", cls, name);
  c->methods++;
  (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)name);
  (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)sig);
  return rc;
}

/* N. Compares the class name and every method of class `cls` (internal form). */
static int check_class(check *c, JNIEnv *env, const char *cls) {
  jclass k = (*env)->FindClass(env, cls);
  if (k == NULL) {
    (*env)->ExceptionClear(env);
    return 0;
  }
  char our[256];
  ASGST_ClassInfo ci = {our, sizeof our, NULL, 0, 0, 0};
  ASGST_Class klass = (ASGST_Class)asgst__hs_klass_of(env, k);
  volatile bool ok = klass != NULL;
  if (ok) ASGST__GUARDED(asgst__hs_class_info(klass, &ci), ok = false);
  jint mods = 0;
  (*c->jvmti)->GetClassModifiers(c->jvmti, k, &mods);
  int rc = ok && strcmp(our, cls) == 0 ? 0 : fail(c, "the class name", cls, "<class>");
  if (rc == 0 && ci.modifiers != mods) rc = fail(c, "the modifiers", cls, "<class>");
  jint n = 0;
  jmethodID *ids = NULL;
  if (rc == 0 && (*c->jvmti)->GetClassMethods(c->jvmti, k, &n, &ids) == JVMTI_ERROR_NONE) {
    /* All of the class's ids at once: on JDK 26+ converting them one by one searches the
     * class for each (jmethodids.c). */
    ASGST_Method *ms = n > 0 ? calloc((size_t)n, sizeof *ms) : NULL;
    if (n > 0 && ms == NULL) rc = fail(c, "memory for the methods", cls, "<class>");
    else if (ms) asgst__hs_from_jmethodids((uintptr_t)klass, ids, n, ms);
    for (jint i = 0; i < n && rc == 0; i++) rc = check_method(c, ids[i], ms[i], cls);
    free(ms);
    (*c->jvmti)->Deallocate(c->jvmti, (unsigned char *)ids);
  }
  (*env)->DeleteLocalRef(env, k);
  return rc;
}

/* Where the code cache lookup finds the call stub's return address. */
typedef struct {
  int kind; /* asgst__hs_classify's, -1 if not read */
  uintptr_t csr, blob, code;
  uint32_t size;
} stub_place;

/* N (under the guard). Looks up the call stub's return address into *p (fields it does
 * not find are left as they were). */
static void find_call_stub(stub_place *p) {
  if (!asgst__load_ptr(asgst__vm.call_stub_return, &p->csr) || p->csr == 0) return;
  p->kind = asgst__hs_classify(p->csr, &p->blob);
  if (p->blob) asgst__vm_code_begin(p->blob, &p->code), asgst__vm_blob_size(p->blob, &p->size);
}

/* N. The call stub's return address is an entry in a blob the code cache lookup finds. */
static int check_code_cache(check *c) {
  const stub_place none = {-1, 0, 0, 0, 0};
  stub_place p = none;
  /* A fault: every field written again after the jump, so none is left stale. */
  ASGST__GUARDED(find_call_stub(&p), p = none);
  if (p.kind != ASGST__HK_ENTRY || p.blob == 0 || p.code < p.blob || p.csr < p.code ||
      p.csr >= p.blob + p.size) {
    snprintf(c->err, c->errlen, "the HotSpot model of JDK %d does not find the call stub in "
             "the code cache (kind %d); refusing this VM", asgst__vm.jdk, p.kind);
    return -1;
  }
  return 0;
}

/* N. */
int asgst__hs_self_check(jvmtiEnv *jvmti, JNIEnv *env, char *err, size_t errlen) {
  static const char *const classes[] = {"java/lang/Object", "java/lang/String",
                                        "java/lang/Thread", "java/util/HashMap", NULL};
  check c = {jvmti, err, errlen, 0, 0};
  if (asgst__guard_install() != 0) {
    snprintf(err, errlen, "cannot install the crash guard's signal handlers");
    return -1;
  }
  for (int i = 0; classes[i]; i++)
    if (check_class(&c, env, classes[i]) != 0) return -1;
  if (c.methods < 50 || c.lines < 200) {
    snprintf(err, errlen, "self-check compared too little (%d methods, %d line entries)",
             c.methods, c.lines);
    return -1;
  }
  return check_code_cache(&c);
}
