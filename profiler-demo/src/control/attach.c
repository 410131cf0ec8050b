/*
 * attach.c - asgst-attach: loads the profiler agent into a running HotSpot JVM.
 *
 *   asgst-attach <pid> <options | start,... | stop | dump> [--agent PATH] [--timeout SEC]
 *   asgst-attach <pid> fds [fd | port | text]   the fd report of the running profile, now
 *
 * HotSpot's attach mechanism on Linux: the JVM opens the UNIX socket .java_pid<pid> in its
 * temp directory when it receives SIGQUIT while a file .attach_pid<pid> exists in its
 * working directory (or temp directory). A client that has the same effective uid and gid
 * as the JVM connects and sends "1\0load\0<library>\0true\0<options>\0"; the JVM answers
 * "0\n" (command accepted) and "return code: N" (Agent_OnAttach's result; JDK 8 sends
 * the bare number on the second line). The agent's own messages come back through a reply
 * file named in the options (reply=); a file of that name + ".failed" says the request
 * failed although Agent_OnAttach returned 0 (the agent stays loaded: agent.c says why).
 * What the agent says (the summary at a stop or dump included) is printed here: on stdout
 * after a success, on stderr after a failure. A relative file=, fds= or record= path is
 * made absolute against our working directory before it is sent, as async-profiler's
 * launcher does.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  pid_t pid;      /* as we see it */
  pid_t nspid;    /* as the JVM sees itself (containers) */
  uid_t uid;
  gid_t gid;
  char tmp[64]; /* the JVM's /tmp as reachable from here */
  time_t started; /* seconds since the epoch; 0 if unknown */
} target;

/* N. Prints the message and exits with status 1. */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("asgst-attach: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* N. Reads uid, gid and the innermost namespace pid from /proc/<pid>/status. */
static void read_status(target *t) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)t->pid);
  FILE *f = fopen(path, "r");
  if (!f) die("cannot read %s: %s", path, strerror(errno));
  t->nspid = t->pid;
  while (fgets(line, sizeof line, f)) {
    unsigned a, b;
    if (sscanf(line, "Uid: %u %u", &a, &b) == 2) t->uid = b;
    if (sscanf(line, "Gid: %u %u", &a, &b) == 2) t->gid = b;
    if (strncmp(line, "NSpid:", 6) == 0) {
      char *last = strrchr(line, '\t');
      if (last) t->nspid = (pid_t)atoi(last + 1);
    }
  }
  fclose(f);
}

/* N. True if the process has libjvm.so mapped. */
static int is_java(pid_t pid) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) die("cannot read %s: %s", path, strerror(errno));
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libjvm.so") != NULL;
  fclose(f);
  return found;
}

/* N. When the process started, in seconds since the epoch (0 if unknown): the start time
 * in /proc/<pid>/stat counts clock ticks from boot, /proc/stat's btime is the boot. */
static time_t start_time(pid_t pid) {
  char path[64], line[4096];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = '\0';
  char *p = strrchr(line, ')'); /* the command name may hold spaces */
  unsigned long long ticks = 0;
  if (!p || sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                          "%*s %*s %*s %llu", &ticks) != 1)
    return 0;
  long long boot = 0;
  f = fopen("/proc/stat", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "btime %lld", &boot) == 1) break;
  if (f) fclose(f);
  return boot ? (time_t)(boot + (long long)(ticks / (unsigned long long)sysconf(_SC_CLK_TCK))) : 0;
}

/* N. Checks the process exists, is a JVM, and that we may attach to it as ourselves. */
static void check_target(target *t) {
  if (kill(t->pid, 0) != 0 && errno == ESRCH) die("no process with pid %d", (int)t->pid);
  read_status(t);
  uid_t me = geteuid();
  if (me != 0 && (me != t->uid || kill(t->pid, 0) != 0))
    die("user mismatch: pid %d runs as uid %u, you are uid %u; the JVM only accepts "
        "attach requests from its own user (run as uid %u or as root)", (int)t->pid,
        (unsigned)t->uid, (unsigned)me, (unsigned)t->uid);
  if (!is_java(t->pid)) die("pid %d is not a Java process (no libjvm.so mapped)", (int)t->pid);
  snprintf(t->tmp, sizeof t->tmp, "/proc/%d/root/tmp", (int)t->pid);
  t->started = start_time(t->pid);
}

/* N. Takes the JVM's uid/gid (as root): the JVM refuses peers with other credentials and
 * ignores attach files it does not own. */
static void become_target_user(const target *t) {
  if (geteuid() != 0 || t->uid == 0) return;
  if (setegid(t->gid) != 0 || seteuid(t->uid) != 0)
    die("cannot switch to uid %u gid %u: %s", (unsigned)t->uid, (unsigned)t->gid,
        strerror(errno));
}

/* N. Sleeps ms milliseconds. */
static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* N. True if sock is a socket made by this process, not one left behind by an earlier
 * process with the same pid that was killed before it could remove it (pids are reused:
 * a connect to such a file is refused). The JVM replaces a stale one when it opens its own.
 * One second of slack: the boot time is in whole seconds. */
static bool socket_is_current(const target *t, const char *sock) {
  struct stat st;
  if (stat(sock, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  return t->started == 0 || st.st_mtime + 1 >= t->started;
}

/* N. Makes the JVM open its attach socket (if it has not already); returns its path. */
static void open_socket(const target *t, char *sock, size_t len, int timeout_s) {
  snprintf(sock, len, "%s/.java_pid%d", t->tmp, (int)t->nspid);
  if (socket_is_current(t, sock)) return;
  char trigger[PATH_MAX];
  snprintf(trigger, sizeof trigger, "/proc/%d/cwd/.attach_pid%d", (int)t->pid, (int)t->nspid);
  FILE *f = fopen(trigger, "w");
  if (!f) {
    snprintf(trigger, sizeof trigger, "%s/.attach_pid%d", t->tmp, (int)t->nspid);
    f = fopen(trigger, "w");
  }
  if (!f) die("cannot create the attach trigger file %s: %s", trigger, strerror(errno));
  fclose(f);
  if (kill(t->pid, SIGQUIT) != 0) die("cannot signal pid %d: %s", (int)t->pid, strerror(errno));
  for (long waited = 0; waited < timeout_s * 1000L; waited += 20) {
    sleep_ms(20);
    if (socket_is_current(t, sock)) {
      unlink(trigger);
      return;
    }
    if (kill(t->pid, 0) != 0 && errno == ESRCH) {
      unlink(trigger);
      die("pid %d exited while attaching", (int)t->pid);
    }
  }
  unlink(trigger);
  die("timeout: pid %d did not open its attach socket %s within %d s (attach disabled with "
      "-XX:+DisableAttachMechanism, or the JVM is hung or not HotSpot)", (int)t->pid, sock,
      timeout_s);
}

/* N. Agent_OnAttach's result in the JVM's answer to a load: "return code: N" (9+), or N
 * alone on the line after the command status (8); -1 if neither is there. */
static int agent_result(const char *answer) {
  const char *rc = strstr(answer, "return code:");
  if (rc) return atoi(rc + 12);
  const char *nl = strchr(answer, '\n');
  if (nl == NULL || (nl[1] != '-' && (nl[1] < '0' || nl[1] > '9'))) return -1;
  return atoi(nl + 1);
}

/* N. Sends the load command; returns the JVM's whole answer (malloc'd). */
static char *send_load(const char *sock, const char *agent, const char *options) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  if (strlen(sock) >= sizeof a.sun_path) die("socket path too long: %s", sock);
  strcpy(a.sun_path, sock);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
    die("cannot connect to %s: %s", sock, strerror(errno));
  const char *parts[] = {"1", "load", agent, "true", options};
  for (int i = 0; i < 5; i++)
    if (write(fd, parts[i], strlen(parts[i]) + 1) != (ssize_t)strlen(parts[i]) + 1)
      die("cannot send the request: %s", strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ssize_t r;
  while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
    n += (size_t)r;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  close(fd);
  return buf;
}

/* N. The agent's reply file's text (malloc'd, "" if there is none; a report may be any
 * length); removes the file. */
static char *take_reply(const char *path) {
  size_t cap = 4096, n = 0, r;
  char *buf = malloc(cap);
  if (!buf) die("out of memory");
  FILE *f = fopen(path, "r");
  while (f && (r = fread(buf + n, 1, cap - n - 1, f)) > 0)
    if ((n += r) + 1 == cap && !(buf = realloc(buf, cap *= 2))) die("out of memory");
  buf[n] = '\0';
  if (f) fclose(f);
  unlink(path);
  return buf;
}

/* N. s on one line: line breaks become ';', trailing ones go. */
static void one_line(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
  for (char *p = s; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ';';
}

/* N. Appends the printf-formatted text to out (len bytes) at *n, counting past the end
 * (so that the caller can tell that the text did not fit). */
static void append(char *out, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t len, size_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(*n < len ? out + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
  va_end(ap);
  if (w > 0) *n += (size_t)w;
}

/* N. Copies options into out with each relative file=, fds= and record= path made
 * absolute against this program's working directory: the JVM would take it against its
 * own, which is rarely where the user ran us. Options are split at every comma, as the
 * agent splits them at any comma that starts a known option (these are known). */
static void absolute_paths(const char *options, char *out, size_t len) {
  static const char *const keys[] = {"file=", "fds=", "record="};
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) die("cannot read the working directory: %s", strerror(errno));
  size_t n = 0;
  out[0] = '\0';
  for (const char *p = options; *p;) {
    size_t item = strcspn(p, ","), kl = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      if (item > strlen(keys[k]) && strncmp(p, keys[k], strlen(keys[k])) == 0 &&
          p[strlen(keys[k])] != '/')
        kl = strlen(keys[k]);
    if (kl) append(out, len, &n, "%.*s%s/%.*s", (int)kl, p, cwd, (int)(item - kl), p + kl);
    else append(out, len, &n, "%.*s", (int)item, p);
    p += item;
    if (*p == ',') append(out, len, &n, ","), p++;
  }
  if (n >= len) die("the options are too long (%zu bytes)", n);
}

/* N. The agent next to this program: <bin>/../lib/libasgstprof.so. */
static void default_agent(char *buf, size_t len) {
  char exe[PATH_MAX - 32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  snprintf(buf, len, "%s/../lib/libasgstprof.so", exe);
  char real[PATH_MAX];
  if (realpath(buf, real)) snprintf(buf, len, "%s", real);
}

/* N. */
int main(int argc, char **argv) {
  char agent[PATH_MAX] = "";
  int timeout_s = 10;
  const char *pos[3] = {NULL, NULL, NULL};
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc) snprintf(agent, sizeof agent, "%s", argv[++i]);
    else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) timeout_s = atoi(argv[++i]);
    else if (npos < 3) pos[npos++] = argv[i];
    else npos = 4;
  }
  bool fds = npos >= 2 && strcmp(pos[1], "fds") == 0;
  if (npos < 2 || npos > (fds ? 3 : 2) || timeout_s <= 0) {
    fprintf(stderr, "usage: asgst-attach <pid> <options|start,...|stop|dump> [--agent PATH] "
            "[--timeout SEC]\n       asgst-attach <pid> fds [fd|port|text]\n");
    return 2;
  }
  char query[512];
  if (fds && pos[2] && strchr(pos[2], ',')) die("fds %s: the filter cannot hold a comma", pos[2]);
  if (fds) snprintf(query, sizeof query, "fds%s%s", pos[2] ? ",fds_match=" : "", pos[2] ? pos[2] : "");
  if (fds) pos[1] = query;
  char *end;
  long pid = strtol(pos[0], &end, 10);
  if (*end || pid <= 0 || pid > INT_MAX) die("not a process id: %s", pos[0]);
  if (!agent[0]) default_agent(agent, sizeof agent);
  if (access(agent, R_OK) != 0) die("agent library %s: %s", agent, strerror(errno));
  /* Before taking the JVM's identity, which may not reach our directory. */
  static char given[8192 - 64];
  absolute_paths(pos[1], given, sizeof given);
  target t = {.pid = (pid_t)pid};
  check_target(&t);
  become_target_user(&t);
  char sock[PATH_MAX], reply[PATH_MAX], opts[8192];
  open_socket(&t, sock, sizeof sock, timeout_s);
  /* The reply file as the JVM names it (its /tmp) and as we reach it. */
  snprintf(reply, sizeof reply, "%s/.asgst-reply-%d", t.tmp, (int)getpid());
  unlink(reply);
  /* A request that failed after the agent set itself up returns 0 to stay loaded (agent.c,
   * Agent_OnAttach) and says so with this file. */
  char failed[PATH_MAX + 8];
  snprintf(failed, sizeof failed, "%s.failed", reply);
  unlink(failed);
  snprintf(opts, sizeof opts, "reply=/tmp/.asgst-reply-%d,%s", (int)getpid(), given);
  char *answer = send_load(sock, agent, opts);
  int code = atoi(answer);
  int agent_rc = agent_result(answer);
  bool refused = unlink(failed) == 0;
  bool ok = code == 0 && agent_rc == 0 && !refused;
  char *said = take_reply(reply);
  if (ok) fputs(said, stdout);
  /* A failure is one line on stderr: the agent's own message if it gave one (it names
   * the option or the state at fault), else the JVM's answer. A longer reply (a stop
   * whose file failed: where the profile went instead, and the summary) is copied whole. */
  if (ok || (refused && strchr(said, '\n') != strrchr(said, '\n'))) {
    if (!ok) fputs(said, stderr);
    free(said);
    free(answer);
    return ok ? 0 : 1;
  }
  one_line(said[0] ? said : answer);
  if (said[0]) fprintf(stderr, "asgst-attach: %s\n", said);
  else fprintf(stderr, "asgst-attach: the JVM refused to load the agent: %s\n", answer);
  free(said);
  free(answer);
  return 1;
}
