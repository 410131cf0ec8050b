/*
 * jfr_pools.c - the constant pools of a JFR recording (jfr_pools.h). A pool is its type
 * id, its count, then per entry its key and its fields in the metadata's order. The
 * reader resolves references once every pool is read, so each pool is written whole into
 * a buffer of its own: writing the stack traces interns the methods they name, writing
 * the methods interns classes and symbols, and so on down to the symbols.
 *
 * Names as the JDK's own recordings have them: a class is its dotted name and a package,
 * a method its name, descriptor and modifiers; frame types "Interpreted", "JIT compiled",
 * "Inlined", "Native". A C frame (cstack) is a method named as the demo's other outputs
 * name it (symbol, or "[stub] name" for VM code), of the pseudo-class "[native]" (no
 * package), with the descriptor "()V" and the frame type "Native": JMC and `jfr print`
 * show it as "[native].poll()".
 */
#include <stdio.h>
#include <string.h>

#include "asgst.h"
#include "core/thread_names.h"
#include "core/thread_state.h"
#include "output/jfr_pools.h"
#include "symbols/symbols.h"

/* Keys from 0, as the JDK numbers its frame types: async-profiler's converter takes the
 * key as the type itself (0 interpreted, 1 JIT compiled, 2 inlined, 3 native). */
enum { FRAME_INTERPRETED, FRAME_JIT, FRAME_INLINED, FRAME_NATIVE, FRAME_KERNEL };
static const char *const frame_type_names[] = {"Interpreted", "JIT compiled",
                                               "Inlined", "Native", "Kernel"};

/* N. */
uint32_t jfr_pool_thread(jfr_pools *p, pid_t tid) {
  int32_t key = (int32_t)tid;
  return jfr_map_id(&p->threads, &key, sizeof key, NULL);
}

/* N. */
uint32_t jfr_pool_stack(jfr_pools *p, const prof_frame *frames, int n, bool truncated) {
  uint8_t key[1 + PROF_MAX_FRAMES * sizeof(prof_frame)];
  key[0] = truncated;
  memcpy(key + 1, frames, (size_t)n * sizeof *frames);
  return jfr_map_id(&p->stacks, key, 1 + (uint32_t)(n * (int)sizeof *frames), NULL);
}

/* N. */
static uint32_t symbol(jfr_pools *p, const char *s) {
  return jfr_map_id(&p->symbols, s, (uint32_t)strlen(s), NULL);
}

/* N. */
static int frame_type(const prof_frame *f) {
  switch (f->type) {
    case ASGST_FRAME_JAVA_INLINED: return FRAME_INLINED;
    case ASGST_FRAME_JAVA_NATIVE:
    case ASGST_FRAME_NON_JAVA: return FRAME_NATIVE;
    case PROF_FRAME_KERNEL: return FRAME_KERNEL;
    default: return f->comp_level > 0 ? FRAME_JIT : FRAME_INTERPRETED;
  }
}

/* N. The pool key of a frame's method. */
static uint32_t method_of(jfr_pools *p, const prof_frame *f) {
  uint8_t key[1 + 1024];
  uint32_t len;
  if (!prof_frame_is_java(f)) {
    const char *name = prof_sym_name(prof_sym_frame(f));
    len = (uint32_t)strnlen(name, sizeof key - 1);
    key[0] = 'C';
    memcpy(key + 1, name, len);
  } else {
    key[0] = 'J';
    len = sizeof f->method;
    memcpy(key + 1, &f->method, len);
  }
  return jfr_map_id(&p->methods, key, 1 + len, NULL);
}

/* N. A stack trace: truncated, then its frames (method, line, bci, type). */
static void write_stack(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  int n = (int)((len - 1) / sizeof(prof_frame));
  jfr_put_u8(b, key[0]);
  jfr_put_varint(b, (uint64_t)n);
  for (int i = 0; i < n; i++) {
    prof_frame f;
    memcpy(&f, key + 1 + (size_t)i * sizeof f, sizeof f);
    bool java = prof_frame_is_java(&f);
    int line = java ? ASGST_GetMethodLineNumber((ASGST_Method)f.method, f.bci) : -1;
    jfr_put_varint(b, method_of(p, &f));
    jfr_put_int(b, line);
    jfr_put_int(b, java ? f.bci : -1);
    jfr_put_varint(b, (uint64_t)frame_type(&f));
  }
}

/* N. The pool key of a class: modifiers and its name in the JVM's form ("pkg/Name", from
 * "Lpkg/Name;" too). */
static uint32_t class_of(jfr_pools *p, const char *internal, int32_t modifiers) {
  uint8_t key[4 + 512];
  const char *s = internal;
  size_t n = strlen(s);
  if (n >= 2 && s[0] == 'L' && s[n - 1] == ';') s++, n -= 2;
  if (n > sizeof key - 4) n = sizeof key - 4;
  memcpy(key, &modifiers, 4);
  memcpy(key + 4, s, n);
  return jfr_map_id(&p->classes, key, 4 + (uint32_t)n, NULL);
}

/* N. A method: class, name, descriptor, modifiers. A method the VM no longer knows (its
 * class unloaded) is named so. */
static void write_method(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  /* A descriptor the readers can parse even where there is none (a C function): the
   * jfr tool's frame printing takes one as given. */
  char name[1100], desc[512] = "()V", cname[512] = "[native]";
  int32_t modifiers = 0, cmodifiers = 0;
  if (key[0] == 'C') {
    snprintf(name, sizeof name, "%.*s", (int)(len - 1), (const char *)key + 1);
  } else {
    ASGST_Method m;
    memcpy(&m, key + 1, sizeof m);
    ASGST_MethodInfo mi = {.method_name = name, .method_name_length = sizeof name,
                           .signature = desc, .signature_length = sizeof desc};
    ASGST_GetMethodInfo(m, &mi);
    if (mi.method_name_length <= 0 || !mi.method_name)
      snprintf(name, sizeof name, "[unknown method %p]", (void *)m);
    /* Readers parse the descriptor (JDK 21+'s jfr print takes what lies between '(' and the
     * last ')'): one that is missing, cut at the buffer's end or not a method descriptor
     * (a method freed since the sample, its memory reused) is written as "()V". */
    if (!mi.signature || mi.signature_length <= 0 || mi.signature_length >= (jint)sizeof desc ||
        desc[0] != '(' || !strchr(desc, ')'))
      snprintf(desc, sizeof desc, "()V");
    modifiers = mi.modifiers;
    ASGST_ClassInfo ci = {.class_name = cname, .class_name_length = sizeof cname};
    if (mi.klass) ASGST_GetClassInfo(mi.klass, &ci);
    if (!mi.klass || !ci.class_name || ci.class_name_length <= 0)
      snprintf(cname, sizeof cname, "[unknown]");
    cmodifiers = ci.modifiers;
  }
  jfr_put_varint(b, class_of(p, cname, cmodifiers));
  jfr_put_varint(b, symbol(p, name));
  jfr_put_varint(b, symbol(p, desc));
  jfr_put_int(b, modifiers);
  jfr_put_u8(b, 0); /* hidden: ASGST does not say */
}

/* N. '/' to '.' in place. */
static void dotted(char *s) {
  for (; *s; s++)
    if (*s == '/') *s = '.';
}

/* N. True for the suffix a hidden class (JDK 15+: "/0x7f..."), or a VM-anonymous one
 * (JDK 8-14: "/123456"), has after its name. */
static bool hidden_suffix(const char *s) {
  if (strncmp(s, "/0x", 3) == 0) return true;
  if (!s[0] || !s[1]) return false;
  for (s++; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

/* N. A class: name, package, modifiers. The package is the name up to its last '/', not
 * counting a hidden class's suffix ("pkg/Foo$$Lambda$2/0x0000..." is in pkg). */
static void write_class(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  char name[512], pkg[512];
  int32_t modifiers;
  memcpy(&modifiers, key, 4);
  snprintf(name, sizeof name, "%.*s", (int)(len - 4), (const char *)key + 4);
  char *slash = strrchr(name, '/');
  if (slash && hidden_suffix(slash)) {
    *slash = 0;
    char *before = strrchr(name, '/');
    *slash = '/';
    slash = before;
  }
  snprintf(pkg, sizeof pkg, "%.*s", slash ? (int)(slash - name) : 0, name);
  dotted(name);
  dotted(pkg);
  jfr_put_varint(b, 0); /* class loader: none given (null), ASGST does not say */
  jfr_put_varint(b, symbol(p, name));
  jfr_put_varint(b, jfr_map_id(&p->packages, pkg, (uint32_t)strlen(pkg), NULL));
  jfr_put_int(b, modifiers);
  jfr_put_u8(b, 0); /* hidden */
}

/* N. A package: its name. */
static void write_package(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  char name[512];
  snprintf(name, sizeof name, "%.*s", (int)len, (const char *)key);
  jfr_put_varint(b, symbol(p, name));
}

/* N. A thread: OS name, OS thread id, Java name (the demo knows one name), Java thread
 * id and thread group (0 and null for a thread only seen in /proc: attached to). */
static void write_thread(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  (void)len;
  int32_t tid;
  memcpy(&tid, key, 4);
  char name[64], group[48];
  int64_t java_id;
  prof_thread_name(tid, name, sizeof name);
  prof_thread_java(tid, &java_id, group, sizeof group);
  jfr_put_string(b, name);
  jfr_put_varint(b, (uint64_t)(int64_t)tid);
  jfr_put_string(b, name);
  jfr_put_varint(b, (uint64_t)java_id);
  jfr_put_varint(b, group[0] ? jfr_map_id(&p->groups, group, (uint32_t)strlen(group), NULL) : 0);
}

/* N. A thread group: parent (not known: null), name. */
static void write_group(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  (void)p;
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)len, (const char *)key);
  jfr_put_varint(b, 0);
  jfr_put_string(b, name);
}

/* N. A symbol: its string. */
static void write_symbol(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len) {
  (void)p;
  char s[1100];
  snprintf(s, sizeof s, "%.*s", (int)len, (const char *)key);
  jfr_put_string(b, s);
}

typedef void (*entry_writer)(jfr_pools *p, jfr_buf *b, const uint8_t *key, uint32_t len);

/* N. One pool into out: type, count, then key and fields of every entry. Entries written
 * may add entries to later pools, never to this one. */
static void pool(jfr_pools *p, jfr_buf *out, uint64_t type, jfr_map *m, entry_writer w) {
  jfr_put_varint(out, type);
  jfr_put_varint(out, m->n);
  for (uint32_t id = 1; id <= m->n; id++) {
    uint32_t len;
    const uint8_t *key = jfr_map_key(m, id, &len);
    jfr_put_varint(out, id);
    w(p, out, key, len);
  }
}

/* N. A pool of fixed strings: keys first..last, names[key]. */
static void string_pool(jfr_buf *out, uint64_t type, const char *const *names, int first,
                        int last) {
  jfr_put_varint(out, type);
  jfr_put_varint(out, (uint64_t)(last - first + 1));
  for (int i = first; i <= last; i++) {
    jfr_put_varint(out, (uint64_t)i);
    jfr_put_string(out, names[i]);
  }
}

/* N. */
void jfr_pools_write(jfr_pools *p, jfr_buf *b, uint64_t ticks) {
  jfr_buf pools = {0};
  pool(p, &pools, T_THREAD, &p->threads, write_thread);
  pool(p, &pools, T_THREAD_GROUP, &p->groups, write_group);
  pool(p, &pools, T_STACK_TRACE, &p->stacks, write_stack);
  pool(p, &pools, T_METHOD, &p->methods, write_method);
  pool(p, &pools, T_CLASS, &p->classes, write_class);
  pool(p, &pools, T_PACKAGE, &p->packages, write_package);
  pool(p, &pools, T_SYMBOL, &p->symbols, write_symbol);
  string_pool(&pools, T_FRAME_TYPE, frame_type_names, FRAME_INTERPRETED, FRAME_KERNEL);
  string_pool(&pools, T_THREAD_STATE, prof_tstate_jfr_names, TS_RUNNABLE, TS_COUNT - 1);

  size_t start = jfr_event_begin(b, 1, ticks);
  jfr_put_varint(b, 0); /* duration */
  jfr_put_varint(b, 0); /* offset to the previous checkpoint: none */
  jfr_put_u8(b, 0);     /* checkpoint kind: generic */
  jfr_put_varint(b, 9); /* pools */
  jfr_put_bytes(b, pools.data, pools.len);
  jfr_event_end(b, start);
  jfr_buf_free(&pools);
}

/* N. */
void jfr_pools_free(jfr_pools *p) {
  jfr_map_free(&p->threads);
  jfr_map_free(&p->stacks);
  jfr_map_free(&p->methods);
  jfr_map_free(&p->classes);
  jfr_map_free(&p->packages);
  jfr_map_free(&p->symbols);
  jfr_map_free(&p->groups);
}
