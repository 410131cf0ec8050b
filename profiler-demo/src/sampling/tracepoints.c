/*
 * tracepoints.c - kernel tracepoints: tracefs, ids, filters, and what a syscall
 * tracepoint tells about file descriptors.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/say.h"
#include "sampling/sampling.h"


/* N. */
const char *prof_tracefs(char *err, size_t errlen) {
  static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
  struct stat st;
  for (int i = 0; i < 2; i++) {
    char p[128];
    snprintf(p, sizeof p, "%s/events", dirs[i]);
    if (stat(p, &st) == 0) return dirs[i];
    if (errno == EACCES) {
      snprintf(err, errlen, "%s is not readable (%s): tracepoints need root", dirs[i],
               strerror(errno));
      return NULL;
    }
  }
  /* Not mounted (common in containers and minimal VMs): mounting needs root. */
  if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0) return dirs[0];
  int e = errno;
  snprintf(err, errlen, "tracefs is not mounted at %s and mounting it failed (%s)%s", dirs[0],
           strerror(e), e == EPERM ? "; run as root or mount it: mount -t tracefs nodev "
                                     "/sys/kernel/tracing" : "");
  return NULL;
}

/* Syscalls that can block: a signal sent at their sys_enter interrupts them, they restart
 * and hit sys_enter again, forever. They are sampled at sys_exit instead. */
static const char *const blocking[] = {
    "accept", "accept4", "read", "readv", "pread64", "recvfrom", "recvmsg", "recvmmsg",
    "connect", "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "futex", "nanosleep", "clock_nanosleep", "wait4", "waitid", "write",
    "writev", "sendto", "sendmsg", "sendmmsg", "pause", "rt_sigsuspend", "rt_sigtimedwait",
    "msgrcv", "semop", "semtimedop", "flock", "open", "openat", "openat2", NULL};

/* N. */
static bool is_blocking(const char *sys) {
  for (int i = 0; blocking[i]; i++)
    if (strcmp(sys, blocking[i]) == 0) return true;
  return false;
}

/* What event=fds traces: every way a JVM gets a descriptor that a checkpoint (CRaC) or a
 * leak hunt asks about, plus close to tell when each went. The blocking ones are named at
 * sys_exit_ directly (see `blocking`). */
const char *const prof_fd_tracepoints[] = {
    "syscalls:sys_enter_socket", "syscalls:sys_enter_socketpair", "syscalls:sys_enter_bind",
    "syscalls:sys_enter_listen", "syscalls:sys_exit_accept", "syscalls:sys_exit_accept4",
    "syscalls:sys_exit_connect", "syscalls:sys_exit_open", "syscalls:sys_exit_openat",
    "syscalls:sys_enter_pipe", "syscalls:sys_enter_pipe2", "syscalls:sys_enter_eventfd",
    "syscalls:sys_enter_eventfd2", "syscalls:sys_enter_epoll_create",
    "syscalls:sys_enter_epoll_create1", "syscalls:sys_enter_inotify_init1",
    "syscalls:sys_enter_close", NULL};

/* N. What the syscall's result and arguments say about fds. */
static enum prof_fd_call fd_call_of(const char *sys) {
  static const struct {
    const char *sys;
    enum prof_fd_call call;
  } calls[] = {
      {"socket", FDC_SOCKET}, {"open", FDC_PATH_ARG0}, {"creat", FDC_PATH_ARG0},
      {"openat", FDC_PATH_ARG1}, {"openat2", FDC_PATH_ARG1}, {"accept", FDC_ACCEPT},
      {"accept4", FDC_ACCEPT}, {"pipe", FDC_PAIR_ARG0}, {"pipe2", FDC_PAIR_ARG0},
      {"socketpair", FDC_PAIR_ARG3}, {"bind", FDC_BIND}, {"connect", FDC_CONNECT},
      {"listen", FDC_LISTEN}, {"close", FDC_CLOSE}, {NULL, FDC_NONE}};
  static const char *const result_fd[] = {
      "eventfd", "eventfd2", "epoll_create", "epoll_create1", "timerfd_create", "signalfd4",
      "memfd_create", "inotify_init1", "dup", NULL};
  for (int i = 0; result_fd[i]; i++)
    if (strcmp(sys, result_fd[i]) == 0) return FDC_RESULT_FD;
  for (int i = 0; calls[i].sys; i++)
    if (strcmp(sys, calls[i].sys) == 0) return calls[i].call;
  return FDC_NONE;
}

/* N. Reads the id of events/<cat>/<name>; -1 with errno set if absent. */
static int read_id(const char *tracefs, const char *cat, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/events/%s/%s/id", tracefs, cat, name);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int id = -1;
  if (fscanf(f, "%d", &id) != 1) id = -1;
  fclose(f);
  return id;
}

/* N. */
int prof_tracepoint_resolve(prof_event *ev, char *note, size_t notelen, char *err,
                            size_t errlen) {
  char cat[32], name[95];
  const char *colon = strchr(ev->name, ':');
  size_t cl = (size_t)(colon - ev->name);
  if (cl == 0 || cl >= sizeof cat || strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof name
      || strchr(colon + 1, ':') || strchr(ev->name, '/') || strstr(ev->name, ".."))
    return prof_fail(err, errlen, "event=%s: not a tracepoint name (category:name)", ev->name);
  memcpy(cat, ev->name, cl);
  cat[cl] = 0;
  snprintf(name, sizeof name, "%s", colon + 1);
  char why[384];
  const char *tracefs = prof_tracefs(why, sizeof why);
  if (!tracefs) return prof_fail(err, errlen, "event=%s: %s", ev->name, why);
  if (strcmp(cat, "syscalls") == 0 && strncmp(name, "sys_enter_", 10) == 0 &&
      is_blocking(name + 10)) {
    snprintf(note, notelen, "event=%s: %s can block, sampling it at sys_exit_%s instead",
             ev->name, name + 10, name + 10);
    char exit_name[sizeof name];
    snprintf(exit_name, sizeof exit_name, "sys_exit_%s", name + 10);
    snprintf(name, sizeof name, "%s", exit_name);
    snprintf(ev->name, sizeof ev->name, "%s:%s", cat, name);
  }
  ev->tp_id = read_id(tracefs, cat, name);
  if (ev->tp_id < 0)
    return prof_fail(err, errlen, "event=%s: unknown tracepoint (no %s/events/%s/%s/id)", ev->name,
                tracefs, cat, name);
  if (strcmp(cat, "syscalls") == 0) {
    const char *sys = strncmp(name, "sys_enter_", 10) == 0 ? name + 10
                      : strncmp(name, "sys_exit_", 9) == 0 ? name + 9 : "";
    snprintf(ev->syscall, sizeof ev->syscall, "%s", sys);
    ev->fd_call = fd_call_of(sys);
  }
  return 0;
}

/* N. */
int prof_tracepoint_check(const prof_event *ev, char *err, size_t errlen) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = (uint64_t)ev->tp_id;
  a.sample_period = 1;
  a.disabled = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return prof_fail(err, errlen, "event=%s: perf_event_open failed (%s)%s", ev->name,
                strerror(errno),
                errno == EACCES || errno == EPERM
                    ? "; tracepoints need root or kernel.perf_event_paranoid=-1" : "");
  int rc = 0;
  if (ev->filter[0] && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter) != 0)
    rc = prof_fail(err, errlen, "filter=%s: rejected by the kernel for %s (%s)", ev->filter,
              ev->name, strerror(errno));
  close(fd);
  return rc;
}
