/*
 * shim_rest.c - what the AsyncGetCallTrace shim does not really offer: class unload
 * handlers are kept but never called (the shim has no unload events), queues are absent
 * (capability bit clear, functions fail with -25, ASGST_UNSUPPORTED), and ASGST_Initialize
 * (our extension) binds the shim to the JVM and prepares ASGCT's jmethodIDs.
 */
#include <pthread.h>
#include <string.h>

#include "shim.h"

enum { MAX_HANDLERS = 16 };
static struct {
  ASGST_ClassUnloadHandler h;
  void *arg;
} handlers[MAX_HANDLERS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* SS. */
int ASGST_Capabilities(void) {
  return 0;
}

/* N. Kept, never called. */
void ASGST_RegisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_HANDLERS; i++)
    if (!handlers[i].h) {
      handlers[i].h = h, handlers[i].arg = arg;
      break;
    }
  pthread_mutex_unlock(&lock);
}

/* N. */
bool ASGST_DeregisterClassUnloadHandler(ASGST_ClassUnloadHandler h, void *arg) {
  bool found = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_HANDLERS && !found; i++)
    if (handlers[i].h == h && handlers[i].arg == arg) {
      handlers[i].h = NULL;
      found = true;
    }
  pthread_mutex_unlock(&lock);
  return found;
}

/* N. */
ASGST_Queue *ASGST_RegisterQueue(JNIEnv *env, int size, int options, ASGST_Handler fun, void *queue_arg) {
  (void)env, (void)size, (void)options, (void)fun, (void)queue_arg;
  return NULL;
}

/* N. */
bool ASGST_DeregisterQueue(JNIEnv *env, ASGST_Queue *q) {
  (void)env, (void)q;
  return false;
}

/* SS. */
int ASGST_Enqueue(ASGST_Queue *q, void *ucontext, void *element_arg) {
  (void)q, (void)ucontext, (void)element_arg;
  return ASGST_UNSUPPORTED;
}

/* SS. */
int ASGST_GetEnqueuableElement(void *ucontext, ASGST_QueueElement *e) {
  (void)ucontext, (void)e;
  return ASGST_UNSUPPORTED;
}

/* SS. */
ASGST_QueueElement *ASGST_GetQueueElement(ASGST_Queue *q, int n) {
  (void)q, (void)n;
  return NULL;
}

/* SS. */
void ASGST_ResizeQueue(ASGST_Queue *q, int size) {
  (void)q, (void)size;
}

/* SS. */
ASGST_QueueSizeInfo ASGST_GetQueueSizeInfo(ASGST_Queue *q) {
  (void)q;
  return (ASGST_QueueSizeInfo){0, 0, 0};
}

/* N. */
void ASGST_SetOnQueueProcessingStart(ASGST_Queue *q, int options, bool offer_iterator,
                                     ASGST_OnQueueSafepointHandler h, void *arg) {
  (void)q, (void)options, (void)offer_iterator, (void)h, (void)arg;
}

/* N. */
void ASGST_SetOnQueueProcessingEnd(ASGST_Queue *q, int options, bool offer_iterator,
                                   ASGST_OnQueueSafepointHandler h, void *arg) {
  (void)q, (void)options, (void)offer_iterator, (void)h, (void)arg;
}

/* N. jmethodIDs for the classes loaded before the shim could see them. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread t) {
  (void)env, (void)t;
  asgct_oracle_prepare_loaded(j);
}

/* N. Extension: binds the shim (its own JVMTI environment); a second call does nothing. */
int ASGST_Initialize(JavaVM *vm, int32_t flags) {
  (void)flags;
  if (shim_jvmti) return 0;
  jvmtiEnv *j = NULL;
  if ((*vm)->GetEnv(vm, (void **)&j, JVMTI_VERSION_1_2) != JNI_OK) return ASGST_UNSUPPORTED_VM;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_get_line_numbers = 1;
  caps.can_tag_objects = 1;
  (*j)->AddCapabilities(j, &caps);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  asgct_oracle_callbacks(&cb);
  cb.VMInit = on_vm_init;
  (*j)->SetEventCallbacks(j, &cb, sizeof cb);
  asgct_oracle_enable(j);
  (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  shim_vm = vm;
  shim_jvmti = j;
  return 0;
}
