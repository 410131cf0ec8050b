/*
 * fd_capture.c - what a traced fd syscall did, read in the signal handler from the
 * registers it left behind. Everything here is async-signal-safe.
 *
 * The signal of a syscall tracepoint is delivered on the way out of the syscall, so the
 * registers hold its arguments and its result (read_syscall_regs; arch/syscall_regs.h),
 * and memory the call wrote (pipe's int[2], accept's peer address) or read (bind's
 * sockaddr, open's path) is still there. The instruction before the pc must be the system
 * call instruction, else nothing is claimed. On arm64 the result overwrites the first
 * argument (x0): the calls that name their fd or array there (bind, connect, listen,
 * close, pipe2) are not claimed, socket's domain is asked of the new socket, and accept's
 * listening fd is unknown (-1).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/syscall_regs.h"
#include "fd/fd.h"

/* SS. Copies len bytes at addr of this process into buf without risking a fault (the
 * kernel reports a bad address as an error instead); false if not all could be read. */
static bool read_own(void *buf, const void *addr, size_t len) {
  struct iovec local = {buf, len}, remote = {(void *)addr, len};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* SS. Copies the NUL-terminated string at addr (at most PROF_ADDR_MAX - 1 bytes) into fi.
 * Read in two pieces split at the page boundary: a string that ends just before an
 * unmapped page still comes through (the kernel stops at the first piece it cannot read). */
static bool read_path(prof_fdinfo *fi, uintptr_t addr) {
  size_t want = PROF_ADDR_MAX - 1, first = 4096 - (addr & 4095);
  if (first > want) first = want;
  struct iovec local = {fi->addr, want};
  struct iovec remote[2] = {{(void *)addr, first}, {(void *)(addr + first), want - first}};
  ssize_t got = process_vm_readv(getpid(), &local, 1, remote, want > first ? 2 : 1, 0);
  if (got <= 0) return false;
  fi->addr[got] = 0;
  fi->addrlen = (uint16_t)strnlen((const char *)fi->addr, (size_t)got);
  return true;
}

/* SS. Copies a sockaddr of len bytes at addr into fi. */
static bool read_sockaddr(prof_fdinfo *fi, uintptr_t addr, size_t len) {
  if (len > PROF_ADDR_MAX) len = PROF_ADDR_MAX;
  if (!read_own(fi->addr, (const void *)addr, len)) return false;
  fi->addrlen = (uint16_t)len;
  return true;
}

/* SS. Inode of an open fd (0 if fstat fails). */
static uint64_t inode_of(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* SS. The arguments and result of the system call that just returned to uc's pc (the
 * instructions and registers per architecture: arch/syscall_regs.h); false unless the
 * instruction before the pc is the system call instruction. */
static bool read_syscall_regs(const ucontext_t *uc, prof_syscall_regs *s) {
  uint8_t insn[PROF_SYSCALL_INSN_LEN];
  if (!read_own(insn, (const uint8_t *)prof_syscall_pc(uc) - sizeof insn, sizeof insn) ||
      memcmp(insn, prof_syscall_insn, sizeof insn) != 0)
    return false;
  prof_syscall_args(uc, s);
  return true;
}

/* SS. accept's peer: the kernel wrote its length to *arg2 and the address to arg1 (both
 * optional). */
static void read_peer(prof_fdinfo *fi, const prof_syscall_regs *s) {
  socklen_t len;
  if (s->arg[1] && s->arg[2] && read_own(&len, (const void *)s->arg[2], sizeof len))
    read_sockaddr(fi, s->arg[1], len);
}

/* SS. socket's domain: its first argument, or where that is gone, the new socket's. */
static int64_t socket_domain(const prof_syscall_regs *s) {
  if (s->arg0_kept) return (int64_t)s->arg[0];
  int domain = -1;
  socklen_t l = sizeof domain;
  return getsockopt((int)s->ret, SOL_SOCKET, SO_DOMAIN, &domain, &l) == 0 ? domain : -1;
}

/* SS. Whether the call names what it is about (an fd, a path, an array) in its first
 * argument only. */
static bool needs_arg0(enum prof_fd_call call) {
  return call == FDC_PATH_ARG0 || call == FDC_PAIR_ARG0 || call == FDC_BIND ||
         call == FDC_CONNECT || call == FDC_LISTEN || call == FDC_CLOSE;
}

/* SS. The call-specific part; false if the call is not understood. */
static bool decode(enum prof_fd_call call, const prof_syscall_regs *s, prof_fdinfo *fi) {
  long ret = s->ret;
  if (!s->arg0_kept && needs_arg0(call)) return false;
  switch (call) {
    case FDC_RESULT_FD: fi->fd[0] = (int)ret; return true;
    case FDC_SOCKET:
      fi->args[0] = socket_domain(s), fi->args[1] = (int64_t)s->arg[1], fi->fd[0] = (int)ret;
      return true;
    case FDC_PATH_ARG0: fi->fd[0] = (int)ret; return read_path(fi, s->arg[0]);
    case FDC_PATH_ARG1: fi->fd[0] = (int)ret; return read_path(fi, s->arg[1]);
    case FDC_ACCEPT:
      fi->fd[0] = (int)ret, fi->args[0] = s->arg0_kept ? (int64_t)s->arg[0] : -1;
      read_peer(fi, s);
      return true;
    case FDC_PAIR_ARG0:
    case FDC_PAIR_ARG3: {
      int sv[2];
      if (!read_own(sv, (const void *)s->arg[call == FDC_PAIR_ARG0 ? 0 : 3], sizeof sv))
        return false;
      fi->fd[0] = sv[0], fi->fd[1] = sv[1];
      return true;
    }
    case FDC_BIND:
    case FDC_CONNECT:
      fi->fd[0] = (int)s->arg[0];
      return read_sockaddr(fi, s->arg[1], (size_t)s->arg[2]);
    case FDC_LISTEN:
    case FDC_CLOSE: fi->fd[0] = (int)s->arg[0]; return true;
    default: return false;
  }
}

/* SS. Which failed calls are kept (fi->ret holds -errno): a bind or connect that failed
 * on a real socket says what the program tried (glibc's connect to nscd's socket, a
 * refused port). EINPROGRESS is a non-blocking connect (Java's with a timeout) going on.
 * A bad fd (EBADF, ENOTSOCK) names no socket of the program, and EALREADY / EISCONN only
 * repeat a connect seen before: dropped. */
static bool failure_kept(enum prof_fd_call call, long ret) {
  return (call == FDC_CONNECT || call == FDC_BIND) && ret != -EBADF && ret != -ENOTSOCK &&
         ret != -EALREADY && ret != -EISCONN;
}

/* SS. */
bool prof_fd_capture(const prof_event *ev, const void *ucontext, prof_fdinfo *fi) {
  prof_syscall_regs s;
  if (!read_syscall_regs(ucontext, &s)) return false;
  long ret = s.ret;
  if (ret < 0 && !failure_kept(ev->fd_call, ret)) return false;
  memset(fi, 0, offsetof(prof_fdinfo, addr));
  fi->local[0] = 0;
  fi->fd[0] = fi->fd[1] = -1;
  fi->ret = ret;
  fi->addr[0] = 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  fi->time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  if (!decode(ev->fd_call, &s, fi)) return false;
  /* The address the kernel gave the socket: bind to port 0 and connect pick a port that
   * is gone once the socket is closed. getsockname is async-signal-safe. */
  enum prof_fd_call c = ev->fd_call;
  if (c == FDC_BIND || c == FDC_CONNECT || c == FDC_ACCEPT) {
    socklen_t l = sizeof fi->local;
    if (getsockname(fi->fd[0], (struct sockaddr *)(void *)fi->local, &l) == 0)
      fi->locallen = (uint16_t)(l < sizeof fi->local ? l : sizeof fi->local);
  }
  /* After close the number is free: its inode is 0, unless another thread took the number
   * again before this handler ran (fd_table.c tells the two apart with it). */
  for (int i = 0; i < 2; i++)
    if (fi->fd[i] >= 0) fi->ino[i] = inode_of(fi->fd[i]);
  return true;
}
