/*
 * main.c - asgst-conformance: checks an ASGST implementation against the contract
 * (the API as include/asgst.h states it; points in ../points.h, explained in ../README.md).
 *
 *   asgst-conformance [--impl LIB] [--java-home DIR] [--agent SO] [--work DIR]
 *                     [--java-src DIR] [--runs int,c1,c2] [--timeout SECONDS]
 *
 * It resolves the contract's names in LIB (reporting the missing ones), compiles the Java
 * workload with DIR's javac, runs one JVM per run label with the test agent (which loads
 * LIB inside the JVM and does the checks), and prints TAP: one line per contract point and
 * a summary. Exit status 0 when no point failed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../api_table.h"
#include "runner.h"

/* N. */
static void usage(void) {
  fprintf(stderr, "usage: asgst-conformance [--impl LIB] [--java-home DIR] [--agent SO] [--work DIR]\n"
                  "                         [--java-src DIR] [--runs int,c1,c2] [--timeout S]\n");
  exit(2);
}

/* N. Defaults come from the build (CMake definitions) and JAVA_HOME. */
static void parse(int argc, char **argv, conf_options *o) {
  const char *jh = getenv("JAVA_HOME");
  *o = (conf_options){ASGST_CONF_IMPL, jh && *jh ? jh : "/usr/lib/jvm/java-17-openjdk-amd64",
                      ASGST_CONF_AGENT, ASGST_CONF_WORK, ASGST_CONF_JAVA_SRC, "int,c1,c2", 40};
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) usage();
    if (strcmp(argv[i], "--impl") == 0) o->impl = v;
    else if (strcmp(argv[i], "--java-home") == 0) o->java_home = v;
    else if (strcmp(argv[i], "--agent") == 0) o->agent = v;
    else if (strcmp(argv[i], "--work") == 0) o->work = v;
    else if (strcmp(argv[i], "--java-src") == 0) o->java_src = v;
    else if (strcmp(argv[i], "--runs") == 0) o->runs = v;
    else if (strcmp(argv[i], "--timeout") == 0) o->timeout_s = atoi(v);
    else usage();
    i++;
  }
}

/* N. C01 outside the JVM: the library loads and exports every contract name. A library
 * that needs the JVM's symbols (a shim over AsyncGetCallTrace) is loaded lazily, so
 * unresolved references to libjvm do not stop the check. */
static int check_exports(const conf_options *o, conf_result *results) {
  void *h = dlopen(o->impl, RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    result_merge(&results[CONF_C01], R_FAIL, "runner", dlerror());
    return -1;
  }
  conf_api api;
  char missing[1024];
  if (conf_api_load(h, &api, missing, sizeof missing)) {
    char why[1100];
    snprintf(why, sizeof why, "missing: %s", missing);
    result_merge(&results[CONF_C01], R_FAIL, "runner", why);
  }
  return 0;
}

int main(int argc, char **argv) {
  conf_options o;
  static conf_result results[CONF_NPOINTS];
  char note[2048] = "";
  parse(argc, argv, &o);
  printf("# implementation %s, JVM %s\n", o.impl, o.java_home);
  fflush(stdout);
  mkdir(o.work, 0755);
  if (check_exports(&o, results) == 0) {
    if (compile_workload(&o) != 0) {
      snprintf(note, sizeof note, "javac failed (%s/javac.out)", o.work);
    } else {
      char runs[64];
      snprintf(runs, sizeof runs, "%s", o.runs);
      for (char *save = NULL, *r = strtok_r(runs, ",", &save); r; r = strtok_r(NULL, ",", &save))
        run_jvm(&o, r, results, note, sizeof note);
    }
  }
  return print_tap(results, note[0] ? note : "none") == 0 ? 0 : 1;
}
