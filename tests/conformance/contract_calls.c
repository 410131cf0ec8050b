/*
 * contract_calls.c - calls every function of the ASGST contract (and the library's
 * extensions) through include/asgst.h only. Compiled twice, as C11 and as C++, with
 * -Wall -Wextra -Werror, and linked against the shared library: the header is usable from
 * both languages. Run without a JVM, it also checks the "no backend" answers.
 * Output is TAP.
 */
#include <stdio.h>
#include <string.h>

#include "asgst.h"

static int failures, count;

static void check(int ok, const char *what) {
  count++;
  if (!ok) failures++;
  printf("%s %d - %s\n", ok ? "ok" : "not ok", count, what);
}

static void on_frames(ASGST_Iterator *it, void *arg) {
  ASGST_Frame f;
  int *state = (int *)arg;
  *state = ASGST_State(it);
  while (ASGST_NextFrame(it, &f) > 0) {
  }
  ASGST_RewindIterator(it);
}

static void on_element(ASGST_Iterator *it, void *queue_arg, void *element_arg) {
  (void)it;
  (void)queue_arg;
  (void)element_arg;
}

static void on_safepoint(ASGST_Queue *q, ASGST_Iterator *it, void *arg) {
  (void)q;
  (void)it;
  (void)arg;
}

static void on_unload(ASGST_Class k, ASGST_Method *methods, int n, bool redefined, void *arg) {
  (void)k;
  (void)methods;
  (void)n;
  (void)redefined;
  (void)arg;
}

int main(void) {
  int state = 99;
  char name[16], sig[16], gen[16];
  ASGST_MethodInfo mi;
  ASGST_ClassInfo ci;
  ASGST_MethodLineNumberEntry lines[4];
  ASGST_QueueElement e;

  memset(&mi, 0, sizeof mi);
  memset(&ci, 0, sizeof ci);
  mi.method_name = name;
  mi.method_name_length = (jint)sizeof name;
  mi.signature = sig;
  mi.signature_length = (jint)sizeof sig;
  mi.generic_signature = gen;
  mi.generic_signature_length = (jint)sizeof gen;

  printf("1..13\n");
  check(ASGST_Capabilities() & ASGST_REGISTER_QUEUE, "capabilities include queues");
  check(ASGST_RunWithIterator(NULL, ASGST_INCLUDE_NON_JAVA_FRAMES, on_frames, &state) ==
            ASGST_NOT_INITIALIZED && state == ASGST_NOT_INITIALIZED,
        "RunWithIterator without a JVM says not initialized");
  check(ASGST_RunWithIteratorFromFrame(NULL, NULL, NULL, 0, on_frames, &state) <= 0,
        "RunWithIteratorFromFrame without a JVM fails");
  check(ASGST_ThreadState() == ASGST_NOT_INITIALIZED, "ThreadState without a JVM");
  ASGST_GetMethodInfo(NULL, &mi);
  check(mi.method_name_length == 0 && name[0] == '\0', "method info of NULL is empty");
  ASGST_GetClassInfo(NULL, &ci);
  check(ASGST_GetMethodIdNum(NULL) == 0 && ASGST_GetClassIdNum(NULL) == 0 &&
            ASGST_GetClass(NULL) == NULL,
        "idnums and class of NULL");
  check(ASGST_GetMethodLineNumberTable(NULL, lines, 4) == 0 &&
            ASGST_GetMethodLineNumber(NULL, 0) == -1,
        "line table of NULL");
  check(ASGST_MethodToJMethodID(NULL) == NULL && ASGST_JMethodIDToMethod(NULL) == NULL &&
            ASGST_ClassToJClass(NULL) == NULL && ASGST_JClassToClass(NULL) == NULL,
        "conversions of NULL");
  ASGST_RegisterClassUnloadHandler(on_unload, NULL);
  check(ASGST_DeregisterClassUnloadHandler(on_unload, NULL) &&
            !ASGST_DeregisterClassUnloadHandler(on_unload, NULL),
        "unload handler registry");
  ASGST_Queue *q = ASGST_RegisterQueue(NULL, 4, 0, on_element, NULL);
  ASGST_SetOnQueueProcessingStart(q, 0, false, on_safepoint, NULL);
  ASGST_SetOnQueueProcessingEnd(q, 0, true, on_safepoint, NULL);
  ASGST_ResizeQueue(q, 8);
  ASGST_QueueSizeInfo si = ASGST_GetQueueSizeInfo(q);
  check(ASGST_Enqueue(NULL, NULL, NULL) == ASGST_ENQUEUE_NO_QUEUE &&
            ASGST_GetQueueElement(q, 0) == NULL && si.size == 0,
        "queue calls");
  (void)ASGST_GetEnqueuableElement(NULL, &e);
  check(ASGST_ProcessQueues() >= 0, "processing an idle thread's queues");
  if (q) ASGST_DeregisterQueue(NULL, q);
  check(ASGST_Initialize(NULL, 0) < -16 && ASGST_InitializeError() != NULL,
        "Initialize(NULL) fails with a library error and a reason");
  ASGST_Shutdown();
  check(strcmp(ASGST_ErrorName(ASGST_NO_TOP_JAVA_FRAME), "ASGST_NO_TOP_JAVA_FRAME") == 0 &&
            ASGST_RunWithIteratorOnThread(0, 0, 1000, on_frames, &state) < 0,
        "error names and out-of-thread argument check");
  return failures ? 1 : 0;
}
