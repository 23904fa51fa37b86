/* expect.h — the adapters' C and C++ tests count their checks the one way:
 * EXPECT(condition, printf-style message) adds to passed or failed, and a
 * failure prints where and why. The program ends by printing
 * "NAME: N passed, N failed" (tests/run-all adds them up). */
#ifndef SKN_TESTS_EXPECT_H
#define SKN_TESTS_EXPECT_H

#include <stdio.h>

static int passed, failed;

#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (cond) {                                              \
      ++passed;                                              \
    } else {                                                 \
      ++failed;                                              \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    }                                                        \
  } while (0)

#endif
