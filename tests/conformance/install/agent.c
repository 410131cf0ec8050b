/*
 * agent.c - a small agent built against an installed asgst by test_install.sh (once
 * through pkg-config, once through find_package; the README's own agent is run there too):
 * it initializes the library when loaded, walks its own thread at VMInit, where a walk
 * always has frames, and says what it got on stdout.
 */
#include <asgst.h>
#include <jvmti.h>
#include <stdio.h>

/* N. Counts the frames of a walk (the handler of ASGST_RunWithIterator). */
static void count_frames(ASGST_Iterator *it, void *arg) {
  ASGST_Frame f;
  int *n = arg;
  while (ASGST_NextFrame(it, &f) == 1) ++*n;
}

/* N. The VM is up: a walk of this thread (C frames included, as it has no Java frame). */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
  (void)jvmti, (void)env, (void)thread;
  int n = 0;
  int kind = ASGST_RunWithIterator(NULL, ASGST_INCLUDE_NON_JAVA_FRAMES, count_frames, &n);
  printf("asgst agent: walk kind %d, %d frames\n", kind, n);
  fflush(stdout);
}

/* N. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)options, (void)reserved;
  if (ASGST_Initialize(vm, 0) != 0) {
    printf("asgst agent: %s\n", ASGST_InitializeError());
    return JNI_ERR;
  }
  jvmtiEnv *jvmti;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb = {0};
  cb.VMInit = on_vm_init;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  printf("asgst agent: initialized\n");
  fflush(stdout);
  return JNI_OK;
}
