/*
 * compare.c — BigInt conversions of random values of many sizes, from one
 * byte up to the built-in conversion's limit (SHORN_BIGINT_MAX_BYTES), as
 * lines of sizes and hashes: built once with GMP and once without, the two
 * outputs must be the same (make check-gmp compares them).  Each value is
 * also checked within the run: the decimal text encodes back to the same
 * bytes, and agrees with the magnitude modulo a few primes.
 *
 *   compare           the lines; exit status 1 when a check failed
 *   compare --time    seconds per conversion instead, size by size, up to
 *                     this build's limit (docs/performance.md)
 */
/* clock_gettime: beyond C11. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/numbers/bigint.h"
#include "../support/bigints.h"

static uint64_t fnv1a(const void *p, size_t n) {
  const uint8_t *s = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

/* n random bytes, the last not zero, as a canonical magnitude's. */
static uint8_t *random_magnitude(size_t n) {
  uint8_t *m = malloc(n);
  for (size_t i = 0; i < n; i++) m[i] = (uint8_t)random_next();
  while (!m[n - 1]) m[n - 1] = (uint8_t)random_next();
  return m;
}

static char *random_digits(size_t count) {
  char *d = malloc(count);
  for (size_t i = 0; i < count; i++) d[i] = (char)('0' + random_next() % 10);
  while (d[0] == '0') d[0] = (char)('0' + random_next() % 10);
  return d;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int failures;

/* A magnitude of n bytes to decimal and back: the line gives the decimal
 * text's length and hash. */
static double check_magnitude(size_t n, bool timed) {
  uint8_t *m = random_magnitude(n);
  shorn_buffer text = {0}, wire = {0};
  double start = seconds();
  bool ok = bigint_json(NULL, &text, n % 2, m, n) == BIGINT_OK;
  double took = seconds() - start;
  /* The text less its quotes and sign encodes back to the magnitude. */
  const char *digits = (const char *)text.data + 1 + n % 2;
  size_t count = ok ? text.length - 2 - n % 2 : 0;
  ok = ok && same_residues(m, n, digits, count) &&
       bigint_encode(NULL, &wire, digits, count) == BIGINT_OK && wire.length >= n &&
       memcmp(wire.data + wire.length - n, m, n) == 0;
  if (!ok) {
    failures++;
    fprintf(stderr, "compare: the magnitude of %zu bytes does not convert back\n", n);
  }
  if (!timed) printf("bytes %zu: %zu characters, %016llx\n", n, text.length, (unsigned long long)fnv1a(text.data, text.length));
  shorn_buffer_free(&text);
  shorn_buffer_free(&wire);
  free(m);
  return took;
}

/* `count` random digits to the wire: the line gives its length and hash. */
static double check_digits(size_t count, bool timed) {
  char *d = random_digits(count);
  shorn_buffer wire = {0};
  double start = seconds();
  bigint_status rc = bigint_encode(NULL, &wire, d, count);
  double took = seconds() - start;
  if (rc != BIGINT_OK) {
    failures++;
    fprintf(stderr, "compare: %zu digits do not encode\n", count);
  }
  if (!timed) printf("digits %zu: %zu bytes, %016llx\n", count, wire.length, (unsigned long long)fnv1a(wire.data, wire.length));
  shorn_buffer_free(&wire);
  free(d);
  return took;
}

/* The digits of the largest magnitude of `bytes` bytes, less one, so that
 * every value of that many digits fits. */
static size_t digits_within(size_t bytes) { return (size_t)((double)bytes * 8 * 0.30102999566398) - 1; }

int main(int argc, char **argv) {
  bool timed = argc == 2 && strcmp(argv[1], "--time") == 0;
  if (timed) {
    printf("| magnitude | decode to decimal | encode from decimal |\n| --- | --- | --- |\n");
    for (size_t n = 1024; n <= BIGINT_MAX_BYTES; n *= 2)
      printf("| %zu KiB | %.3f s | %.3f s |\n", n >> 10, check_magnitude(n, true), check_digits(digits_within(n), true));
    return failures != 0;
  }
  /* Every size up to 600 bytes (both back-ends' short cases and first
   * splits), then sizes growing by about a fifth, each with a random part,
   * up to the limit itself. */
  for (size_t n = 1; n <= 600; n++) check_magnitude(n, false);
  for (size_t n = 600; n < SHORN_BIGINT_MAX_BYTES; n += n / 5 + random_next() % (n / 5))
    check_magnitude(n, false);
  check_magnitude(SHORN_BIGINT_MAX_BYTES, false);
  for (size_t count = 1; count <= 1500; count++) check_digits(count, false);
  for (size_t count = 1500; count < digits_within(SHORN_BIGINT_MAX_BYTES); count += count / 5 + random_next() % (count / 5))
    check_digits(count, false);
  check_digits(digits_within(SHORN_BIGINT_MAX_BYTES), false);
  return failures != 0;
}
