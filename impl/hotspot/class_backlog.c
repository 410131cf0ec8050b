/*
 * class_backlog.c - registers the classes that were loaded before the binding, off the
 * ASGST_Initialize path.
 *
 * Registering a class costs microseconds (JVMTI tag and status, the Method* copy, a shadow
 * of an unloadable class's metadata: class_register.c); done inline, a profiler attached to a
 * JVM with 50,000 classes spent 0.2-0.4 s in ASGST_Initialize. Now the binding only lists
 * the classes and pins them: they go into one Java Object[] held by a global reference, so
 * none of them can be unloaded before it is registered (an unregistered class that unloads
 * would never reach the unload handlers). A daemon thread, "asgst-classes", attached to the
 * VM, then registers them one by one and clears each array slot as it goes, which lets the
 * class be unloaded again. Classes prepared meanwhile register themselves through
 * ClassPrepare; registration is idempotent (the class tag), so the two paths may overlap.
 *
 * What needs the whole registry waits for the thread (asgst__hs_backlog_wait): converting a
 * class to a jclass (ASGST_ClassToJClass, ASGST_MethodToJMethodID) and the unbinding.
 * Walking, metadata and unload handlers never wait.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "hotspot.h"
#include "init_timing.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static bool running;   /* the worker thread exists and has not been joined */
static bool done;      /* the worker has registered (or given up on) every pinned class */
static bool stop;      /* the unbinding asks the worker to stop early */
static jobjectArray pinned;
static jint npinned;

/* N. True if the unbinding asked the worker to stop. */
static bool stop_asked(void) {
  pthread_mutex_lock(&lock);
  bool s = stop;
  pthread_mutex_unlock(&lock);
  return s;
}

/* N. Registers every pinned class, releasing each pin once it is registered. */
static void register_pinned(JNIEnv *env) {
  for (jint i = 0; i < npinned && !stop_asked(); i++) {
    jclass c = (jclass)(*env)->GetObjectArrayElement(env, pinned, i);
    if (c == NULL) continue;
    asgst__hs_register_class(asgst__hs_jvmti, env, c);
    (*env)->SetObjectArrayElement(env, pinned, i, NULL);
    (*env)->DeleteLocalRef(env, c);
  }
  (*env)->DeleteGlobalRef(env, pinned);
  pinned = NULL;
}

/* N. The worker thread: attaches as a daemon (the VM does not wait for it at exit). */
static void *work(void *arg) {
  (void)arg;
  JNIEnv *env = NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "asgst-classes", NULL};
  pthread_setname_np(pthread_self(), "asgst-classes"); /* the kernel's name too */
  JavaVM *vm = asgst__hs_vm;
  if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, &args) == JNI_OK) {
    register_pinned(env);
    (*vm)->DetachCurrentThread(vm);
  }
  pthread_mutex_lock(&lock);
  done = true;
  pthread_cond_broadcast(&finished);
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* N. An Object[] holding every class in `classes`, as a global reference (NULL if the VM
 * has no memory for it). */
static jobjectArray pin(JNIEnv *env, jclass *classes, jint count) {
  jclass object = (*env)->FindClass(env, "java/lang/Object");
  jobjectArray a = object ? (*env)->NewObjectArray(env, count, object, NULL) : NULL;
  for (jint i = 0; a != NULL && i < count; i++)
    (*env)->SetObjectArrayElement(env, a, i, classes[i]);
  jobjectArray global = a ? (jobjectArray)(*env)->NewGlobalRef(env, a) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (a) (*env)->DeleteLocalRef(env, a);
  if (object) (*env)->DeleteLocalRef(env, object);
  return global;
}

/* N. Lists and pins the loaded classes and starts the worker. If the array or the thread
 * cannot be had, registers them here instead (slow, but complete). 0 or -1 with a reason. */
int asgst__hs_backlog_start(jvmtiEnv *jvmti, JNIEnv *env, char *err, size_t errlen) {
  jint count = 0;
  jclass *classes = NULL;
  if ((*jvmti)->GetLoadedClasses(jvmti, &count, &classes) != JVMTI_ERROR_NONE) {
    snprintf(err, errlen, "cannot list the loaded classes");
    return -1;
  }
  asgst__init_timing_mark("list classes");
  pthread_mutex_lock(&lock);
  pinned = pin(env, classes, count);
  asgst__init_timing_mark("pin classes");
  npinned = count;
  done = stop = false;
  running = pinned != NULL && pthread_create(&worker, NULL, work, NULL) == 0;
  pthread_mutex_unlock(&lock);
  asgst__init_timing_mark("class worker start");
  for (jint i = 0; i < count; i++) {
    if (!running) asgst__hs_register_class(jvmti, env, classes[i]);
    /* JDK 8: which classes are VM-anonymous is known only from registration; noting that
     * here, ahead of the worker, puts the hash suffix on their names at once. */
    uintptr_t k = running && asgst__vm.jdk == 8 ? asgst__hs_klass_of(env, classes[i]) : 0;
    if (k) asgst__hs_note_anonymous(jvmti, classes[i], k);
    (*env)->DeleteLocalRef(env, classes[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
  if (!running && pinned != NULL) {
    (*env)->DeleteGlobalRef(env, pinned);
    pinned = NULL;
  }
  return 0;
}

/* N. Blocks until every class loaded before the binding is registered. Must not be called
 * from the worker itself (it never is: the worker makes no ASGST calls). */
void asgst__hs_backlog_wait(void) {
  pthread_mutex_lock(&lock);
  while (running && !done) pthread_cond_wait(&finished, &lock);
  pthread_mutex_unlock(&lock);
}

/* N. Stops the worker early and joins it (the unbinding). */
void asgst__hs_backlog_stop(void) {
  pthread_mutex_lock(&lock);
  stop = true;
  bool join = running;
  running = false;
  pthread_mutex_unlock(&lock);
  if (join) pthread_join(worker, NULL);
}
