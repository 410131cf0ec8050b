/*
 * test_other_arch.h - the whole program of a unit test whose checks are for another
 * architecture's code (a decoder built into that architecture's libraries only): one TAP
 * skip, written by hand because cmocka's own skip prints "not ok ... # SKIP".
 */
#ifndef ASGST_TEST_OTHER_ARCH_H
#define ASGST_TEST_OTHER_ARCH_H
#include <stdio.h>

/* The program's main(): says why its checks do not run in this build. */
#define TEST_OTHER_ARCH_MAIN(why)                 \
  int main(void) {                                \
    printf("1..1\nok 1 # SKIP %s\n", why);        \
    return 0;                                     \
  }

#endif
