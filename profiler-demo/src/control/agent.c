/*
 * agent.c - the JVMTI side: Agent_OnLoad / Agent_OnAttach, options and actions, and the
 * thread lifecycle events that open and close each Java thread's event sources.
 *
 *   java -agentpath:libasgstprof.so=event=cpu,file=out.html ...   (starts at VM init)
 *   asgst-attach <pid> start,event=cpu,file=out.html | stop | dump
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jvmti.h>

#include "control/control.h"
#include "core/say.h"
#include "core/state.h"
#include "core/thread_names.h"
#include "fd/fd.h"
#include "sampling/sampling.h"
#include "walk/walk.h"

static jvmtiEnv *jvmti;
static JavaVM *jvm;
static bool start_at_init;

/* N. The OS id of the calling thread. */
static pid_t my_tid(void) {
  return (pid_t)syscall(SYS_gettid);
}

/* N. The Java name of thread into name ("?" if it cannot be had). */
static void java_name(jvmtiEnv *env, JNIEnv *jni, jthread thread, char *name, size_t len) {
  jvmtiThreadInfo info;
  memset(&info, 0, sizeof info);
  snprintf(name, len, "?");
  if ((*env)->GetThreadInfo(env, thread, &info) == JVMTI_ERROR_NONE && info.name) {
    snprintf(name, len, "%s", info.name);
    (*env)->Deallocate(env, (unsigned char *)info.name);
    if (info.thread_group) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
  }
}

/* N. Remembers the calling thread's java.lang.Thread id (Thread.getId, which every JDK
 * has) and its thread group's name, for the .jfr output's threads. */
static void remember_java_ids(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  jlong id = 0;
  char group[48] = "";
  jclass c = (*jni)->GetObjectClass(jni, thread);
  jmethodID get_id = c ? (*jni)->GetMethodID(jni, c, "getId", "()J") : NULL;
  if (get_id) id = (*jni)->CallLongMethod(jni, thread, get_id);
  if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni), id = 0;
  if (c) (*jni)->DeleteLocalRef(jni, c);
  jvmtiThreadInfo info;
  memset(&info, 0, sizeof info);
  if ((*env)->GetThreadInfo(env, thread, &info) == JVMTI_ERROR_NONE) {
    jvmtiThreadGroupInfo gi;
    memset(&gi, 0, sizeof gi);
    if (info.thread_group && (*env)->GetThreadGroupInfo(env, info.thread_group, &gi) ==
                                 JVMTI_ERROR_NONE && gi.name) {
      snprintf(group, sizeof group, "%s", gi.name);
      (*env)->Deallocate(env, (unsigned char *)gi.name);
      if (gi.parent) (*jni)->DeleteLocalRef(jni, gi.parent);
    }
    if (info.name) (*env)->Deallocate(env, (unsigned char *)info.name);
    if (info.thread_group) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
  }
  prof_thread_java_remember(my_tid(), (int64_t)id, group);
}

/* N. Keeps the JVM's name and version (system properties) for the .jfr output, and its
 * temporary directory for outputs that cannot be written where asked (profiler.c). */
static void remember_vm(jvmtiEnv *env) {
  static const char *const keys[] = {"java.vm.name", "java.vm.version", "java.io.tmpdir"};
  char *const into[] = {prof.vm_name, prof.vm_version, prof.tmpdir};
  for (int i = 0; i < 3; i++) {
    char *v = NULL;
    if ((*env)->GetSystemProperty(env, keys[i], &v) == JVMTI_ERROR_NONE && v) {
      snprintf(into[i], sizeof prof.vm_name, "%s", v);
      (*env)->Deallocate(env, (unsigned char *)v);
    }
  }
}

/* N. JVMTI ThreadStart: open the new thread's events on the thread itself. The library's
 * and the profiler's own threads (asgst-...: the queue processing threads attach to the
 * JVM) are not profiled, by the same rule as at attach (prof_thread_not_profiled): they
 * run no Java code, and their time is the profiler's cost, which the summary reports. */
static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  char name[64];
  java_name(env, jni, thread, name, sizeof name);
  if (prof_thread_not_profiled(name)) return;
  /* The queue first: a sample between the two would find none (the first registration
   * starts the library's processing threads: milliseconds). */
  prof_queue_thread_start(jni);
  prof_threads_add(my_tid(), name, true);
  remember_java_ids(env, jni, thread);
}

/* N. JVMTI ThreadEnd. */
static void JNICALL on_thread_end(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  (void)env, (void)thread;
  /* Its events first: a sample while the queue goes would find none. */
  prof_threads_remove(my_tid());
  prof_queue_thread_end(jni);
}

/* N. JVMTI VMInit: the VM is fully up; bind the library and start if asked to. A library
 * that refuses the VM (its self-check runs now) leaves the JVM running unprofiled. */
static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
  char err[512], name[64];
  /* VMInit runs on the main thread, which has no ThreadStart: its Java name ("main"). */
  java_name(env, jni, thread, name, sizeof name);
  prof_thread_name_remember(my_tid(), name, true);
  remember_java_ids(env, jni, thread);
  if (prof_bind_asgst(jvm) != 0) {
    if (start_at_init)
      prof_say("asgst-prof: not profiling: the ASGST library refuses this JVM: %s\n",
               prof.init_error);
    return;
  }
  if (start_at_init) prof_wait_bound(2000);
  if (start_at_init && prof_start(false, err, sizeof err) != 0) {
    prof_say("asgst-prof: cannot start: %s\n", err);
  } else if (start_at_init) {
    prof_fd_interval_start();
    /* Main's queue (walk=queue), registered with its own JNIEnv: VMInit runs on it. */
    prof_queue_thread_start(jni);
  }
}

/* N. At Agent_OnLoad: asks the library whether it knows this JVM's layout (its answer is
 * final for an unknown version or missing fields; the live self-check follows at VMInit),
 * then lets go again, so that binding happens at VMInit as before. */
static int check_early(JavaVM *vm, char *err, size_t errlen) {
  int r = ASGST_Initialize(vm, prof_init_flags());
  if (r != 0) {
    snprintf(err, errlen, "the ASGST library refuses this JVM: %s: %s", ASGST_ErrorName(r),
             ASGST_InitializeError());
    return -1;
  }
  ASGST_Shutdown();
  return 0;
}

/* N. JVMTI VMDeath: a run still going writes its outputs. */
static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni) {
  (void)env, (void)jni;
  char err[512];
  if (atomic_load(&prof.running) && prof_stop(err, sizeof err) != 0)
    prof_say("asgst-prof: %s\n", err);
}

/* N. Gets the JVMTI environment and enables the events, once. */
static int setup_jvmti(JavaVM *vm, bool live) {
  if (jvmti) return 0;
  jvm = vm;
  /* An attach that arrives while the JVM is still starting can find JVMTI not offered yet
   * (seen on a loaded machine right after the JVM mapped libjvm): wait up to 2 s for it. */
  for (int i = 0; (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK; i++) {
    if (!live || i == 200) return -1;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE) return -1;
  jvmtiEvent evs[] = {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_VM_DEATH,
                      JVMTI_EVENT_VM_INIT};
  for (int i = 0; i < (live ? 3 : 4); i++)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, evs[i], NULL);
  return 0;
}

/* N. Carries out the action of one option string; 0, or after saying why 1 (nothing of
 * ours is set up in the JVM) or 2 (a live request failed after our JVMTI callbacks, and
 * maybe signal handlers and the ASGST library's, were set up). */
static int run(JavaVM *vm, const char *options, bool live) {
  static prof_options o;
  char err[512];
  if (prof_parse_options(options, &o, err, sizeof err) != 0) {
    prof_set_reply(o.reply);
    prof_say("asgst-prof: %s\n", err);
    return 1;
  }
  prof_set_reply(o.reply);
  if (setup_jvmti(vm, live) != 0) {
    prof_say("asgst-prof: cannot get a JVMTI environment\n");
    return 1;
  }
  remember_vm(jvmti);
  int rc = 0;
  if (o.action == ACT_FDS) {
    /* A query reads the current run's records; it changes nothing. */
    rc = prof_fd_query(o.fds_match, o.reply, err, sizeof err);
  } else if (o.action == ACT_STOP || o.action == ACT_DUMP) {
    prof_replace_files(&o);
    rc = o.action == ACT_STOP ? prof_stop(err, sizeof err) : prof_dump(err, sizeof err);
  } else if (atomic_load(&prof.running)) {
    snprintf(err, sizeof err, "already profiling; stop first");
    rc = -1;
  } else {
    prof.opts = o;
    prof_note_files();
    if (live) {
      if (prof_bind_asgst(vm) != 0) {
        snprintf(err, sizeof err, "not profiling: the ASGST library refuses this JVM: %s",
                 prof.init_error);
        rc = -1;
      } else {
        rc = prof_start(true, err, sizeof err);
        if (rc == 0) prof_fd_interval_start();
      }
    } else if ((rc = check_early(vm, err, sizeof err)) == 0) {
      start_at_init = true;
    }
  }
  if (rc != 0) prof_say("asgst-prof: %s\n", err);
  /* See Agent_OnAttach: once our JVMTI callbacks are set, a failed attach keeps the
   * library loaded and tells asgst-attach otherwise. */
  bool keep = rc != 0 && live && jvmti;
  if (keep) prof_reply_failed();
  prof_set_reply(NULL);
  return keep ? 2 : rc != 0;
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  return run(vm, options, false) ? JNI_ERR : JNI_OK;
}

/* N. HotSpot unloads an agent library whose Agent_OnAttach fails. Once our JVMTI
 * callbacks (thread start and end) and perhaps signal handlers point into it, that would
 * leave the JVM calling unmapped code at the next thread start or signal (seen: a start
 * refused after the signals were being taken crashed the JVM at the next attach). Such a
 * failure returns JNI_OK; asgst-attach learns of it from the reply's ".failed" file. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  return run(vm, options, true) == 1 ? JNI_ERR : JNI_OK;
}

/* N. */
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm) {
  (void)vm;
}
