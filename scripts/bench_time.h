/* bench_time.h — the clock and the median that scripts/bench/,
 * scripts/bench-patterns.c time with. */
#ifndef SHORN_BENCH_TIME_H
#define SHORN_BENCH_TIME_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most repetitions of one measurement. */
#define REPS_MAX 64

static inline double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n), 0 < n <= REPS_MAX, which is left in its order
 * (repetition r's time stays at r, for paired ratios). */
static inline double median(const double *v, int n) {
  double sorted[REPS_MAX];
  memcpy(sorted, v, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

#endif
