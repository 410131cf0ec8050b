/*
 * class_loaders.c - which classes can be unloaded, so need a shadow copy of their
 * metadata (class_shadow.h): those of a class loader other than the boot, platform and
 * system loaders, and hidden classes that have a ClassLoaderData of their own.
 *
 * Classes of the built-in loaders are not shadowed: those loaders live as long as the VM,
 * so their classes are never unloaded in practice, and shadowing them would copy the
 * metadata of every JDK and application class (megabytes) for nothing.
 */
#include "class_loaders.h"
#include "classes.h"
#include "../model/vm_read.h"
#include "../model/vm_model.h"

#include "../../guard.h"

#include <stdatomic.h>

static jobject builtin_loaders[6]; /* global refs: platform, system and its parents */
/* Published after the array is filled: ClassPrepare on other threads may already ask. */
static atomic_int nbuiltin;

/* N. Global references to the class loaders whose classes are never unloaded in practice:
 * the platform loader, the system loader and its parents (the app loader when a custom
 * system loader is set). Fetched once; if that fails, every class of a non-boot loader
 * counts as unloadable (more shadows, nothing missed). Called once, from the binding. */
void asgst__hs_loaders_init(JNIEnv *env) {
  int n = 0;
  jclass cl = atomic_load(&nbuiltin) ? NULL : (*env)->FindClass(env, "java/lang/ClassLoader");
  if (cl == NULL) return;
  const char *sig = "()Ljava/lang/ClassLoader;";
  jmethodID plat = (*env)->GetStaticMethodID(env, cl, "getPlatformClassLoader", sig);
  /* JDK 8 has none (its extension loader is the system loader's parent, found below). */
  if (plat == NULL) (*env)->ExceptionClear(env);
  jmethodID sys = (*env)->GetStaticMethodID(env, cl, "getSystemClassLoader", sig);
  jmethodID parent = (*env)->GetMethodID(env, cl, "getParent", sig);
  jobject l = plat ? (*env)->CallStaticObjectMethod(env, cl, plat) : NULL;
  if (l != NULL) builtin_loaders[n++] = (*env)->NewGlobalRef(env, l);
  (*env)->DeleteLocalRef(env, l);
  l = sys && !(*env)->ExceptionCheck(env) ? (*env)->CallStaticObjectMethod(env, cl, sys) : NULL;
  while (l != NULL && n < 6 && parent && !(*env)->ExceptionCheck(env)) {
    builtin_loaders[n++] = (*env)->NewGlobalRef(env, l);
    jobject up = (*env)->CallObjectMethod(env, l, parent);
    (*env)->DeleteLocalRef(env, l);
    l = up;
  }
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (l != NULL) (*env)->DeleteLocalRef(env, l);
  (*env)->DeleteLocalRef(env, cl);
  atomic_store(&nbuiltin, n);
}

/* N. True if k lives in a ClassLoaderData of its own (a hidden class defined without
 * STRONG, or a VM-anonymous class: it can be unloaded while its loader lives). On JDK 8,
 * whose tables do not tell, the VM-anonymous classes noted from JVMTI's names. False when
 * neither is known. */
static bool has_mirror_holder(uintptr_t k) {
  if (asgst__vm.jdk == 8) return asgst__hs_is_anonymous(k);
  if (asgst__vm.k_cld < 0 || asgst__vm.cld_mirror_holder < 0) return false;
  uintptr_t cld = asgst__guarded_ptr(k + (uintptr_t)asgst__vm.k_cld);
  volatile uint64_t holder = 0;
  if (cld) ASGST__GUARDED(holder = asgst__hs_field(cld, asgst__vm.cld_mirror_holder, 1), holder = 0);
  return holder != 0;
}

/* N. Whether class c (InstanceKlass k) can be unloaded, so needs a shadow: classes of the
 * boot, platform and system loaders never are in practice (the loaders live as long as
 * the VM), except hidden classes with a ClassLoaderData of their own. */
bool asgst__hs_can_unload(jvmtiEnv *jvmti, JNIEnv *env, jclass c, uintptr_t k) {
  jobject loader = NULL;
  if ((*jvmti)->GetClassLoader(jvmti, c, &loader) != JVMTI_ERROR_NONE) return false;
  bool builtin = loader == NULL;
  int n = atomic_load(&nbuiltin);
  for (int i = 0; i < n && !builtin; i++)
    builtin = (*env)->IsSameObject(env, loader, builtin_loaders[i]);
  if (loader != NULL) (*env)->DeleteLocalRef(env, loader);
  return !builtin || has_mirror_holder(k);
}
