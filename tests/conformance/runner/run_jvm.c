/*
 * run_jvm.c - compiling the Java workload with JAVA_HOME's javac and running one JVM with
 * the test agent, then reading the agent's "POINT id status reason" lines.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

/* N. Runs argv with stdout and stderr into `out`; kills it after timeout_s. Returns the
 * exit status, 128+signal, or -1 if it could not start. */
static int spawn(char *const argv[], const char *out, int timeout_s) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  struct timespec tick = {0, 20 * 1000000};
  for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited += 20) {
    if (waited >= timeout_s * 1000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return 128 + SIGKILL;
    }
    nanosleep(&tick, NULL);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* N. javac -d WORK/classes JAVA_SRC/conf/NAME.java for the fixed list of names. */
int compile_workload(const conf_options *o) {
  static const char *const files[] = {"Native", "Chain", "Spinner", "Unloadee", "Workload"};
  char javac[512], classes[512], out[512], paths[5][512];
  char *argv[12];
  int n = 0;
  snprintf(javac, sizeof javac, "%s/bin/javac", o->java_home);
  snprintf(classes, sizeof classes, "%s/classes", o->work);
  snprintf(out, sizeof out, "%s/javac.out", o->work);
  mkdir(classes, 0755); /* JDK 8's javac does not create it */
  argv[n++] = javac;
  argv[n++] = "-d";
  argv[n++] = classes;
  for (int i = 0; i < 5; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/conf/%s.java", o->java_src, files[i]);
    argv[n++] = paths[i];
  }
  argv[n] = NULL;
  return spawn(argv, out, 120);
}

/* The JVM flags of each run: -Xint; C1 only; C2 only. Compilation is synchronous
 * (-BackgroundCompilation) so that the warm-up has compiled the chain when it is checked,
 * and inlining in the chain is forced both ways so that T04 knows what to expect. */
static const char *const c1_flags[] = {"-XX:TieredStopAtLevel=1", NULL};
static const char *const c2_flags[] = {"-XX:-TieredCompilation", NULL};
static const char *const compiled_flags[] = {"-XX:-BackgroundCompilation",
    "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,conf.Chain::inner",
    "-XX:CompileCommand=dontinline,conf.Chain::generic",
    "-XX:CompileCommand=dontinline,conf.Chain::outer", NULL};

/* N. Appends a NULL-terminated list to argv. */
static int add_all(char **argv, int n, const char *const *list) {
  for (; *list; list++) argv[n++] = (char *)*list;
  return n;
}

/* N. Reads the agent's results out of one run's output into results[]. */
static int read_points(const char *out, const char *label, conf_result *results) {
  FILE *f = fopen(out, "r");
  if (!f) return 0;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char id[8], status[8];
    int off = 0;
    line[strcspn(line, "\n")] = '\0';
    if (sscanf(line, "POINT %7s %7s %n", id, status, &off) < 2) continue;
    int i = point_index(id);
    if (i < 0) continue;
    int st = strcmp(status, "pass") == 0 ? R_PASS : strcmp(status, "skip") == 0 ? R_SKIP : R_FAIL;
    result_merge(&results[i], st, label, off ? line + off : "");
    n++;
  }
  fclose(f);
  return n;
}

/* N. One JVM run; appends "label: exit N, K results, T s" to note. Returns the exit status. */
int run_jvm(const conf_options *o, const char *label, conf_result *results, char *note, int cap) {
  char java[512], agent[1200], classes[512], out[512];
  char *argv[32];
  int n = 0;
  snprintf(java, sizeof java, "%s/bin/java", o->java_home);
  snprintf(agent, sizeof agent, "-agentpath:%s=impl=%s,run=%s", o->agent, o->impl, label);
  snprintf(classes, sizeof classes, "%s/classes", o->work);
  snprintf(out, sizeof out, "%s/run-%s.out", o->work, label);
  argv[n++] = java;
  argv[n++] = agent;
  argv[n++] = "-XX:+UseSerialGC";
  argv[n++] = "-Xmx128m";
  if (strcmp(label, "int") == 0) argv[n++] = "-Xint";
  if (strcmp(label, "c1") == 0) n = add_all(argv, add_all(argv, n, c1_flags), compiled_flags);
  if (strcmp(label, "c2") == 0) n = add_all(argv, add_all(argv, n, c2_flags), compiled_flags);
  argv[n++] = "-cp";
  argv[n++] = classes;
  argv[n++] = "conf.Workload";
  argv[n++] = (char *)label;
  argv[n] = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = spawn(argv, out, o->timeout_s);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int got = read_points(out, label, results);
  size_t len = strlen(note);
  snprintf(note + len, (size_t)cap - len, "%s%s: exit %d, %d results, %.1f s (%s)", len ? "; " : "",
           label, rc, got, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, out);
  return rc;
}
