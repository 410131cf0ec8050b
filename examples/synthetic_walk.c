/*
 * synthetic_walk.c - the ASGST API over a synthetic VM, no JVM needed: an example for
 * profiler authors.
 *
 * Builds the stack of a small program, caller first:
 *     demo/App.main          interpreted
 *     demo/Server.serve      compiled by C2 (tier 4) with Handler.handle and
 *                            Codec.decode inlined into it
 *     demo/Codec.read        native method wrapper
 *     read_socket            a C function called by the native method
 * then walks it with ASGST_RunWithIterator as a signal handler would, and prints it like
 * a Java stack trace, top frame first, with the frame type and compilation tier.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "asgst.h"
#include "asgst_synthetic.h"

/* N. A C function of this program; the example's C frame executes in it. Exported (the
 * executable is linked with -rdynamic) so dladdr can name it. */
static volatile int bytes_read;
__attribute__((noinline)) void read_socket(void) {
  for (int i = 0; i < 4; i++) bytes_read += i;
}

/* N. One line of the trace: class name with dots, method, source line or "Native Method",
 * then the frame type and compilation tier. */
static void print_frame(const ASGST_Frame *f) {
  static const char *types[] = {"?", "java", "inlined", "native", "c/stub"};
  const char *type = f->type <= ASGST_FRAME_NON_JAVA ? types[f->type] : "?";
  if (f->type == ASGST_FRAME_NON_JAVA) {
    Dl_info info;
    const char *name = dladdr(f->pc, &info) && info.dli_sname ? info.dli_sname : "??";
    printf("  at %s (C code, pc %p)  [%s]\n", name, f->pc, type);
    return;
  }
  char method[64], klass[96];
  ASGST_MethodInfo mi = {.method_name = method, .method_name_length = sizeof method};
  ASGST_GetMethodInfo(f->method, &mi);
  ASGST_ClassInfo ci = {.class_name = klass, .class_name_length = sizeof klass};
  ASGST_GetClassInfo(mi.klass, &ci);
  for (char *p = klass; *p; p++)
    if (*p == '/') *p = '.';
  char where[32];
  if (f->type == ASGST_FRAME_JAVA_NATIVE)
    snprintf(where, sizeof where, "Native Method");
  else
    snprintf(where, sizeof where, "line %d, bci %d", ASGST_GetMethodLineNumber(f->method, f->bci),
             f->bci);
  char tier[16];
  if (f->comp_level == 0 && f->type != ASGST_FRAME_JAVA_NATIVE)
    snprintf(tier, sizeof tier, "interpreted");
  else if (f->comp_level > 0)
    snprintf(tier, sizeof tier, "tier %d", f->comp_level);
  else
    snprintf(tier, sizeof tier, "-");
  printf("  at %s.%s(%s)  [%s, %s]\n", klass, method, where, type, tier);
}

/* SS except for the printing, which a real profiler would defer. */
static void print_trace(ASGST_Iterator *it, void *arg) {
  int *frames = arg;
  ASGST_Frame f;
  int r;
  while ((r = ASGST_NextFrame(it, &f)) == 1) {
    print_frame(&f);
    ++*frames;
  }
  if (r < 0) printf("  walk ended with %s\n", ASGST_ErrorName(r));
}

int main(void) {
  ASGST_SynthVM *vm = ASGST_SynthCreateVM();
  if (vm == NULL || ASGST_SynthActivate(vm) != 0 || ASGST_SynthAttachThread(vm) != 0) {
    fprintf(stderr, "asgst-synthetic-walk: cannot set up the synthetic VM\n");
    return 1;
  }
  ASGST_MethodLineNumberEntry app_lines[] = {{0, 5}, {8, 7}};
  ASGST_MethodLineNumberEntry serve_lines[] = {{0, 20}, {10, 24}, {30, 31}};
  ASGST_MethodLineNumberEntry handle_lines[] = {{0, 40}, {6, 42}};
  ASGST_MethodLineNumberEntry decode_lines[] = {{0, 60}, {3, 61}, {9, 64}};
  ASGST_Class app = ASGST_SynthDeclareClass(vm, "demo/App", NULL, 0x0001, 1);
  ASGST_Class server = ASGST_SynthDeclareClass(vm, "demo/Server", NULL, 0x0001, 2);
  ASGST_Class handler = ASGST_SynthDeclareClass(vm, "demo/Handler", NULL, 0x0001, 3);
  ASGST_Class codec = ASGST_SynthDeclareClass(vm, "demo/Codec", NULL, 0x0001, 4);
  ASGST_Method main_m = ASGST_SynthDeclareMethod(vm, app, "main", "([Ljava/lang/String;)V",
                                                 NULL, 0x0009, 1, app_lines, 2);
  ASGST_Method serve = ASGST_SynthDeclareMethod(vm, server, "serve", "()V", NULL, 0x0001, 1,
                                                serve_lines, 3);
  ASGST_Method handle = ASGST_SynthDeclareMethod(vm, handler, "handle", "(I)V", NULL, 0x0001,
                                                 1, handle_lines, 2);
  ASGST_Method decode = ASGST_SynthDeclareMethod(vm, codec, "decode", "([B)I", NULL, 0x0001,
                                                 1, decode_lines, 3);
  ASGST_Method read = ASGST_SynthDeclareMethod(vm, codec, "read", "([B)I", NULL, 0x0109, 2,
                                               NULL, 0);

  ASGST_SynthBlob *c2 = ASGST_SynthDeclareCompiled(vm, serve, 4, 4096);
  ASGST_SynthScope scopes[] = {{decode, 9}, {handle, 6}, {serve, 12}};
  ASGST_SynthAddScopes(c2, 0x120, scopes, 3);
  ASGST_SynthBlob *wrapper = ASGST_SynthDeclareNativeWrapper(vm, read);

  ASGST_SynthStack *s = ASGST_SynthCreateStack(vm, 64 * 1024);
  ASGST_SynthPushInterpreted(s, main_m, 8);
  ASGST_SynthPushCompiled(s, c2, 0x124);
  ASGST_SynthPushNative(s, wrapper);
  ASGST_SynthPushC(s, (const void *)((uintptr_t)&read_socket + 1));

  ucontext_t uc;
  ASGST_SynthContext(s, &uc);
  int frames = 0;
  printf("Synthetic thread \"main\" (all frames):\n");
  int kind = ASGST_RunWithIterator(&uc, ASGST_INCLUDE_NON_JAVA_FRAMES, print_trace, &frames);
  printf("trace kind %d (%s), %d frames\n\n", kind,
         kind == ASGST_JAVA_TRACE ? "Java" : kind > 0 ? "non-Java" : ASGST_ErrorName(kind),
         frames);
  int java = 0;
  printf("Java frames only:\n");
  ASGST_RunWithIterator(&uc, 0, print_trace, &java);

  ASGST_SynthDestroyStack(s);
  ASGST_SynthDestroyVM(vm);
  return kind == ASGST_JAVA_TRACE && frames == 6 && java == 5 ? 0 : 1;
}
