/* check.h — the few assertions the C unit tests share. */
#ifndef SHORN_CHECK_H
#define SHORN_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                          \
  do {                                                                       \
    check_count++;                                                           \
    if (!(cond)) {                                                           \
      check_failures++;                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

#define CHECK_STR(got, want)                                                 \
  do {                                                                       \
    const char *g_ = (got), *w_ = (want);                                    \
    check_count++;                                                           \
    if (strcmp(g_, w_) != 0) {                                               \
      check_failures++;                                                      \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, g_, w_); \
    }                                                                        \
  } while (0)

/* Print the tally and give main's exit status. */
static inline int check_report(const char *suite) {
  printf("%s: %d checks, %d failed\n", suite, check_count, check_failures);
  return check_failures ? 1 : 0;
}

#endif
