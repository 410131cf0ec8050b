/*
 * jfr_info.c - the recording's, its settings', the JVM's and the OS's events (jfr_info.h).
 * Their fields are jfr_writer.c's metadata table's, in its order. The JVM's name and
 * version are the system properties the agent kept (control/agent.c); its arguments,
 * start time and the OS are read from /proc and uname.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/state.h"
#include "output/jfr_info.h"
#include "output/jfr_pools.h"

/* N. A setting of event type id. */
static void setting(jfr_buf *b, uint64_t ticks, uint64_t id, const char *name,
                    const char *value) {
  size_t start = jfr_event_begin(b, T_ACTIVE_SETTING, ticks);
  jfr_put_varint(b, id);
  jfr_put_string(b, name);
  jfr_put_string(b, value);
  jfr_event_end(b, start);
}

/* N. enabled and, for timed events, period of every event type the run's events give. */
static void settings(jfr_buf *b, uint64_t ticks) {
  for (int i = 0; i < prof.opts.nevents; i++) {
    const prof_event *ev = &prof.opts.events[i];
    char period[40];
    snprintf(period, sizeof period, "%llu us", (unsigned long long)(ev->interval / 1000));
    if (ev->kind == EV_PERF) {
      char every[40];
      snprintf(every, sizeof every, "%llu events", (unsigned long long)ev->interval);
      setting(b, ticks, T_PERF_SAMPLE, "enabled", "true");
      setting(b, ticks, T_PERF_SAMPLE, "period", every);
      continue;
    }
    if (ev->kind == EV_TRACEPOINT) {
      setting(b, ticks, T_TRACEPOINT, "enabled", "true");
      setting(b, ticks, T_FILE_DESCRIPTOR, "enabled", "true");
      continue;
    }
    setting(b, ticks, T_EXECUTION_SAMPLE, "enabled", "true");
    setting(b, ticks, T_EXECUTION_SAMPLE, "period", period);
    if (ev->kind == EV_WALL) {
      setting(b, ticks, T_NATIVE_METHOD_SAMPLE, "enabled", "true");
      setting(b, ticks, T_NATIVE_METHOD_SAMPLE, "period", period);
    }
  }
}

/* N. The JVM's command line: the launcher's options (up to the main class or -jar's jar)
 * into jvm, the rest into java, each space-separated. */
static void command_line(char *jvm, size_t jlen, char *java, size_t alen) {
  char buf[8192];
  jvm[0] = java[0] = 0;
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  bool options = true, value_next = false;
  size_t jl = 0, al = 0;
  for (size_t at = strlen(buf) + 1; at < n; at += strlen(buf + at) + 1) { /* after argv[0] */
    const char *a = buf + at;
    bool jvm_arg = options && (value_next || a[0] == '-');
    if (options && !jvm_arg) options = false;
    value_next = jvm_arg && (strcmp(a, "-cp") == 0 || strcmp(a, "-classpath") == 0 ||
                             strcmp(a, "--class-path") == 0 || strcmp(a, "-jar") == 0);
    if (jvm_arg && jl < jlen)
      jl += (size_t)snprintf(jvm + jl, jlen - jl, "%s%s", jl ? " " : "", a);
    if (!jvm_arg && al < alen)
      al += (size_t)snprintf(java + al, alen - al, "%s%s", al ? " " : "", a);
  }
}

/* N. The process's start, ms since the epoch (0 if unknown): its start in clock ticks
 * after boot (/proc/self/stat field 22) and the boot time (/proc/stat btime). */
static uint64_t process_start_ms(void) {
  char buf[2048];
  unsigned long long start = 0, btime = 0;
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the name may hold spaces */
  if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                   "%*d %*d %llu", &start) != 1)
    return 0;
  f = fopen("/proc/stat", "r");
  if (!f) return 0;
  while (fgets(buf, sizeof buf, f))
    if (sscanf(buf, "btime %llu", &btime) == 1) break;
  fclose(f);
  long hz = sysconf(_SC_CLK_TCK);
  return btime && hz > 0 ? btime * 1000 + start * 1000 / (unsigned long long)hz : 0;
}

/* N. "Linux 6.1.0 #1 SMP ... x86_64", and the distribution's PRETTY_NAME if any. */
static void os_version(char *buf, size_t len) {
  struct utsname u;
  char pretty[256] = "";
  FILE *f = fopen("/etc/os-release", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "PRETTY_NAME=\"%255[^\"]\"", pretty) == 1) break;
    fclose(f);
  }
  if (uname(&u) != 0) memset(&u, 0, sizeof u);
  snprintf(buf, len, "%s%s%s %s %s %s", pretty, pretty[0] ? "\n" : "", u.sysname, u.release,
           u.version, u.machine);
}

/* N. */
void jfr_info_events(jfr_buf *b, uint64_t ticks, uint64_t start_ms, uint64_t duration_ns) {
  size_t start = jfr_event_begin(b, T_ACTIVE_RECORDING, ticks);
  jfr_put_varint(b, 1);                    /* id */
  jfr_put_string(b, "asgst-prof");         /* name */
  jfr_put_string(b, NULL);                 /* destination: the file the demo renames to */
  jfr_put_varint(b, 0);                    /* maxAge: none */
  jfr_put_varint(b, 0);                    /* maxSize: none */
  jfr_put_varint(b, start_ms);             /* recordingStart */
  jfr_put_varint(b, duration_ns / 1000000); /* recordingDuration, ms */
  jfr_event_end(b, start);

  settings(b, ticks);

  static char jvm[4096], java[4096], os[1024]; /* N code, one dump at a time (output lock) */
  command_line(jvm, sizeof jvm, java, sizeof java);
  start = jfr_event_begin(b, T_JVM_INFO, ticks);
  jfr_put_string(b, prof.vm_name[0] ? prof.vm_name : NULL);
  jfr_put_string(b, prof.vm_version[0] ? prof.vm_version : NULL);
  jfr_put_string(b, jvm);
  jfr_put_string(b, ""); /* jvmFlags: from a flags file, none here */
  jfr_put_string(b, java);
  jfr_put_varint(b, process_start_ms());
  jfr_put_varint(b, (uint64_t)getpid());
  jfr_event_end(b, start);

  os_version(os, sizeof os);
  start = jfr_event_begin(b, T_OS_INFO, ticks);
  jfr_put_string(b, os);
  jfr_event_end(b, start);
}
