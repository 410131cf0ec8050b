/*
 * init_agent.c - initialization a caller can see (tests/jvm/test_init.sh).
 *
 * ASGST_Initialize from Agent_OnLoad, before the VM is live: it answers 0 (accepted),
 * ASGST_InitializeStatus says ASGST_INIT_PENDING and so does a walk, until the library's
 * own VMInit completes the binding; the callback of ASGST_SetInitializeCallback then
 * learns the outcome. With the option `refuse`, the test build refuses the VM at VMInit
 * (ASGST_TEST_REFUSE_LIVE): the callback and ASGST_InitializeStatus report the refusal,
 * with its reason in ASGST_InitializeError, and walks say ASGST_NOT_INITIALIZED.
 * Prints "INIT ok - ..." / "INIT not ok - ..." lines.
 */
#include <asgst.h>
#include <jvmti.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/agent_setup.h"

static bool refuse;
static int callbacks;
static int callback_status = 1;
static int walk_in_callback = 1;

/* N. One check line. */
static void check(bool ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("INIT %s - ", ok ? "ok" : "not ok");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
}

/* SS. */
static void nothing(ASGST_Iterator *it, void *arg) { (void)it, (void)arg; }

/* N. A walk of the calling thread, here: its kind or error. */
static int walk_here(void) { return ASGST_RunWithIterator(NULL, 0, nothing, NULL); }

/* N. ASGST_SetInitializeCallback's callback. */
static void on_outcome(int status, void *arg) {
  callbacks++;
  callback_status = status;
  walk_in_callback = walk_here();
  check(arg == &callbacks, "the callback gets its argument back");
}

/* N. The agent's own VMInit: JVMTI does not order it against the library's. */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread t) {
  (void)jvmti, (void)env, (void)t;
  int status = ASGST_InitializeStatus();
  check(status == 0 || status == ASGST_INIT_PENDING || (refuse && status == ASGST_UNSUPPORTED_VM),
        "in the agent's own VMInit the status is one of bound, pending or (refused) the refusal (%s)",
        ASGST_ErrorName(status));
}

/* N. After VMInit, at VMDeath: the outcome as a caller sees it later. */
static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env) {
  (void)jvmti, (void)env;
  check(callbacks == 1, "the callback ran once (%d)", callbacks);
  int status = ASGST_InitializeStatus();
  if (refuse) {
    check(callback_status == ASGST_UNSUPPORTED_VM, "the callback learned the refusal at VMInit (%s)",
          ASGST_ErrorName(callback_status));
    check(status == ASGST_UNSUPPORTED_VM, "ASGST_InitializeStatus reports the refusal (%s)",
          ASGST_ErrorName(status));
    check(strstr(ASGST_InitializeError(), "ASGST_TEST_REFUSE_LIVE") != NULL,
          "ASGST_InitializeError says why (%s)", ASGST_InitializeError());
    check(walk_in_callback == ASGST_NOT_INITIALIZED && walk_here() == ASGST_NOT_INITIALIZED,
          "walks after the refusal say ASGST_NOT_INITIALIZED (%s, %s)", ASGST_ErrorName(walk_in_callback),
          ASGST_ErrorName(walk_here()));
  } else {
    check(callback_status == 0, "the callback learned the binding at VMInit (%s)", ASGST_ErrorName(callback_status));
    check(status == 0, "ASGST_InitializeStatus says bound (%s)", ASGST_ErrorName(status));
    check(walk_in_callback > 0 && walk_here() > 0, "walks from the callback on work (kinds %d, %d)",
          walk_in_callback, walk_here());
  }
  int late = 0;
  ASGST_SetInitializeCallback(on_outcome, &callbacks);
  late = callbacks;
  check(late == 2, "a callback asked for once the outcome is known runs at once (%d)", late);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  refuse = options && strstr(options, "refuse");
  jvmtiEnv *jvmti = NULL;
  jvmtiEventCallbacks cb = {.VMInit = on_vm_init, .VMDeath = on_vm_death};
  jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH};
  if (agent_setup(vm, &jvmti, &cb, ev, 2) != 0) return JNI_ERR;
  check(walk_here() == ASGST_NOT_INITIALIZED, "a walk before ASGST_Initialize says ASGST_NOT_INITIALIZED (%s)",
        ASGST_ErrorName(walk_here()));
  check(ASGST_InitializeStatus() == ASGST_NOT_INITIALIZED, "so does ASGST_InitializeStatus (%s)",
        ASGST_ErrorName(ASGST_InitializeStatus()));
  int rc = ASGST_Initialize(vm, agent_init_flags());
  check(rc == 0, "ASGST_Initialize in Agent_OnLoad accepts (%s)", ASGST_ErrorName(rc));
  check(ASGST_InitializeStatus() == ASGST_INIT_PENDING, "ASGST_InitializeStatus says pending (%s)",
        ASGST_ErrorName(ASGST_InitializeStatus()));
  check(walk_here() == ASGST_INIT_PENDING, "a walk before VMInit says ASGST_INIT_PENDING (%s)",
        ASGST_ErrorName(walk_here()));
  ASGST_SetInitializeCallback(on_outcome, &callbacks);
  check(callbacks == 0, "the callback waits for VMInit while the binding is pending");
  return JNI_OK;
}
