/* bigints.h — what the unit and the limits tests of BigInts share: random
 * magnitudes, and for those too long to check against a reference, the
 * value modulo a few primes computed from the magnitude's bytes and from
 * the decimal digits, which must agree. */
#ifndef SHORN_TESTS_BIGINTS_H
#define SHORN_TESTS_BIGINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static uint64_t random_state = 0x9E3779B97F4A7C15ull;

static uint64_t random_next(void) { /* xorshift64 */
  random_state ^= random_state << 13;
  random_state ^= random_state >> 7;
  random_state ^= random_state << 17;
  return random_state;
}

static bool same_residues(const uint8_t *magnitude, size_t n, const char *digits, size_t count) {
  static const uint64_t primes[] = {2147483647u, 2147483629u, 1000000007u, 998244353u};
  for (size_t k = 0; k < sizeof primes / sizeof *primes; k++) {
    uint64_t p = primes[k], from_bytes = 0, from_digits = 0;
    /* Three bytes or nine digits a step keep the residue times the step's
     * scale below 2^64. */
    for (size_t i = n; i > 0;) {
      uint64_t chunk = 0, scale = 1;
      for (size_t stop = i > 3 ? i - 3 : 0; i > stop; scale <<= 8) chunk = chunk << 8 | magnitude[--i];
      from_bytes = (from_bytes * scale + chunk) % p;
    }
    for (size_t i = 0; i < count;) {
      uint64_t chunk = 0, scale = 1;
      for (size_t stop = count - i > 9 ? i + 9 : count; i < stop; scale *= 10)
        chunk = chunk * 10 + (uint64_t)(digits[i++] - '0');
      from_digits = (from_digits * scale + chunk) % p;
    }
    if (from_bytes != from_digits) return false;
  }
  return true;
}

#endif
