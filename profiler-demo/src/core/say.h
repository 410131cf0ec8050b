/*
 * say.h - messages for the user and error strings, for every room (say.c), and the
 * monotonic clock every room times with.
 *
 * Signal-safety classes as in asgst.h: SS async-signal-safe, N ordinary code.
 */
#ifndef ASGSTPROF_CORE_SAY_H
#define ASGSTPROF_CORE_SAY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* N. Messages for the user: stderr, and the reply file for asgst-attach when set. */
void prof_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* N. Where prof_say also writes (the reply file of the current asgst-attach request);
 * NULL: nowhere else. */
void prof_set_reply(const char *path);
/* N. Tells asgst-attach that the request failed although Agent_OnAttach returns JNI_OK
 * (agent.c says why): creates the reply file's name + ".failed". */
void prof_reply_failed(void);
/* N. Formats an error message into err; always returns -1. */
int prof_fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* SS. Monotonic time in ns (vDSO, no syscall). Inline: signal handlers read it two or
 * three times a sample. */
static inline uint64_t prof_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif /* ASGSTPROF_CORE_SAY_H */
