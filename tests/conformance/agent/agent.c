/*
 * agent.c - the conformance test agent's entry points: Agent_OnLoad loads the
 * implementation under test (option impl=PATH) and binds it to the JVM when it offers our
 * ASGST_Initialize extension (an implementation inside the JVM needs no binding); the
 * natives of conf.Native dispatch the workload's requests to the checks.
 * Options: impl=PATH,run=int|c1|c2.
 */
#include <dlfcn.h>
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

#include "conf_agent.h"

conf_api api;
jvmtiEnv *jvmti;
JavaVM *conf_vm;
char run_label[16] = "int";

/* N. Splits "impl=PATH,run=LABEL"; the path may not contain a comma. */
static void parse_options(const char *options, char *impl, size_t cap) {
  impl[0] = '\0';
  for (const char *p = options; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (strncmp(p, "impl=", 5) == 0) snprintf(impl, cap, "%.*s", (int)len - 5, p + 5);
    if (strncmp(p, "run=", 4) == 0) snprintf(run_label, sizeof run_label, "%.*s", (int)len - 4, p + 4);
    p = end ? end + 1 : NULL;
  }
}

/* N. Loads and binds the implementation; returns 0 or prints why not. */
static int load_impl(JavaVM *vm, const char *impl) {
  void *h = dlopen(impl, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    printf("AGENT cannot load %s: %s\n", impl, dlerror());
    return -1;
  }
  char missing[1024];
  if (conf_api_load(h, &api, missing, sizeof missing))
    point_fail(CONF_C01, "missing: %s", missing);
  else
    point_pass(CONF_C01);
  if (api.Initialize) {
    int rc = api.Initialize(vm, 0);
    if (rc != 0) {
      printf("AGENT ASGST_Initialize failed with %d: %s\n", rc,
             api.InitializeError ? api.InitializeError() : "");
      return -1;
    }
  }
  return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
  (void)reserved;
  char impl[512];
  conf_vm = vm;
  parse_options(options, impl, sizeof impl);
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_get_line_numbers = 1;
  (*jvmti)->AddCapabilities(jvmti, &caps);
  if (load_impl(vm, impl) != 0) return JNI_ERR;
  return JNI_OK;
}

/* N. End of the workload: the checks that wait for something decide, then all print. */
static void finish(void) {
  check_stack_finish();
  if (strcmp(run_label, "int") == 0) {
    unload_poll(true);
    queue_poll(true);
  }
  points_print();
}

/* N. conf.Native.probe(what): HotSpot also looks up natives in agent libraries, so the
 * exported name binds it. */
JNIEXPORT jint JNICALL Java_conf_Native_probe(JNIEnv *env, jclass cls, jint what) {
  (void)cls;
  switch (what) {
    case PROBE_STACK: check_stack(env); break;
    case PROBE_SPINNER: spinner_register(); break;
    case PROBE_SIGNALS: check_signals(env); break;
    case PROBE_THREADS: check_threads(); break;
    case PROBE_INFO: check_errors_and_extensions(); break;
    case PROBE_UNLOADED: return unload_poll(false);
    case PROBE_QUEUE: check_queue(); break;
    case PROBE_QUEUE_DONE: return queue_poll(false);
    case PROBE_QUEUE_FILLED: return queue_filled();
    case PROBE_FINISH: finish(); break;
    default: break;
  }
  return 0;
}

/* N. conf.Native.noteClass(c): the class whose unloading the handlers must report. */
JNIEXPORT void JNICALL Java_conf_Native_noteClass(JNIEnv *env, jclass cls, jclass c) {
  (void)cls;
  unload_note(env, c);
}
