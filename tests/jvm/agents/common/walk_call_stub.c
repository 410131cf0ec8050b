/*
 * walk_call_stub.c - the walk test agent's figures on samples whose top pc lies in the
 * call stub outside its call (impl/arch/call_stub.h): the VM's C++ code calling Java,
 * interrupted before the Java callee runs or after it returned, where AsyncGetCallTrace
 * answers not_walkable_not_Java. The walk then shows no frame of the new Java call and
 * goes on to the previous Java segment (from the JavaCallWrapper's anchor, or through the
 * stub's C caller before the wrapper is stored): each such walk must reach the thread's
 * root method like any other, and (JNI callbacks) its first Java frame is the native
 * method that called the JNI function.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "asgst.h"
#include "impl/arch/call_stub.h"
#include "../walk_agent.h"
#include "walk_stats.h"

typedef struct {
  long samples, by_caller, errors, ok, whole, root, native_first;
} cs_stats;

static cs_stats before_call, after_call;

/* N. True if the last of the walk's n frames is a thread's root method (main or run). */
static bool at_root(const wframe *f, int n) {
  char name[160];
  walk_method_name(f[n - 1].method, name, sizeof name);
  const char *dot = strrchr(name, '.');
  return dot && (strcmp(dot, ".main") == 0 || strcmp(dot, ".run") == 0);
}

/* N. The non-Java walk of one sample, frame by frame (C frames by symbol), to show what a
 * walk from the call stub reports. */
static void print_example(const sample *s) {
  fprintf(stderr, "WALK # call stub example (%s, phase %d):", s->call_stub_after ? "after the call" : "before the call",
          s->call_stub);
  for (int i = 0; i < s->n_n && i < 12; i++) {
    const wframe *f = &s->nj[i];
    char name[160] = "?";
    Dl_info di = {0};
    if (f->type != ASGST_FRAME_NON_JAVA) walk_method_name(f->method, name, sizeof name);
    else if (dladdr((void *)f->method, &di) && di.dli_sname) snprintf(name, sizeof name, "%s", di.dli_sname);
    else if (di.dli_fname && di.dli_fbase) /* libjvm's symbols are hidden: its offset */
      snprintf(name, sizeof name, "%s+%#lx", strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname,
               (unsigned long)(f->method - (uintptr_t)di.dli_fbase));
    else snprintf(name, sizeof name, "%#lx", (unsigned long)f->method);
    fprintf(stderr, " %s%s", f->type == ASGST_FRAME_NON_JAVA ? "C:" : "", name);
  }
  fprintf(stderr, "%s\n", s->n_n > 12 ? " ..." : "");
}

/* N. */
void walk_call_stub_count(const sample *s) {
  if (s->call_stub == ASGST__CS_NONE) return;
  cs_stats *t = s->call_stub_after ? &after_call : &before_call;
  /* One example of each way a walk leaves the stub (its frame record, or its C caller). */
  static bool shown[2];
  bool by_caller = s->call_stub != ASGST__CS_WRAPPER;
  if (walk_opts.nonjava && s->n_rc == 0 && s->n_n > 0 && !shown[by_caller]) {
    shown[by_caller] = true;
    print_example(s);
  }
  t->samples++;
  t->by_caller += s->call_stub != ASGST__CS_WRAPPER; /* walked on through the stub's C caller */
  t->errors += s->a_rc < 0;
  if (s->a_rc != 0 || s->a_n <= 0) return;
  t->ok++;
  t->native_first += s->a[0].type == ASGST_FRAME_JAVA_NATIVE;
  if (s->a_n >= MAXF) return; /* the walk was cut at MAXF frames: no root to see */
  t->whole++;
  t->root += at_root(s->a, s->a_n);
}

/* N. One figure line if any sample was in the call stub; the check once there are 10. */
void walk_call_stub_report(void) {
  long n = before_call.samples + after_call.samples;
  if (n == 0) return;
  fprintf(stderr, "WALK # figure: call_stub=%s", walk_opts.label);
  const cs_stats *t[2] = {&before_call, &after_call};
  const char *label[2] = {"before_call", "after_call"};
  for (int i = 0; i < 2; i++)
    fprintf(stderr, " %s=%ld/by_caller=%ld/errors=%ld/ok=%ld/native_first=%ld/whole=%ld/root=%ld", label[i],
            t[i]->samples, t[i]->by_caller, t[i]->errors, t[i]->ok, t[i]->native_first, t[i]->whole, t[i]->root);
  fprintf(stderr, "\n");
  long errors = before_call.errors + after_call.errors, whole = before_call.whole + after_call.whole;
  long root = before_call.root + after_call.root;
  char msg[200];
  snprintf(msg, sizeof msg, "samples in the call stub walk to the thread's root: %ld of %ld whole walks, errors %ld of %ld (<= 2%%)",
           root, whole, errors, n);
  bool ok = root == whole && errors * 50 <= n;
  if (n >= 10) fprintf(stderr, "WALK %s - %s: %s\n", ok ? "ok" : "not ok", walk_opts.label, msg);
}
