/*
 * sigq_fill.c - holds queued real-time signals, to show what the profiler does when the
 * user's queued-signal quota (RLIMIT_SIGPENDING, counted over every process of the user)
 * is exhausted by somebody else.
 *
 *   sigq_fill N    queue N signals to itself (all of them if N is 0: until the kernel
 *                  refuses), print "holding K" and keep them pending until killed.
 *
 * The kernel compares the user's count with the *receiving* process's limit, so a test can
 * hold a few signals here and start the JVM with that many as its limit: the JVM then meets
 * a full quota while the machine's other processes keep theirs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long want = argc > 1 ? atol(argv[1]) : 0;
  int sig = SIGRTMIN + 1;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_BLOCK, &set, NULL); /* pending signals stay queued */
  union sigval v = {0};
  long held = 0;
  while ((want == 0 || held < want) && sigqueue(getpid(), sig, v) == 0) held++;
  if (want && held < want) {
    fprintf(stderr, "sigq_fill: queued %ld of %ld: %s\n", held, want, strerror(errno));
    return 1;
  }
  printf("holding %ld\n", held);
  fflush(stdout);
  for (;;) pause();
}
