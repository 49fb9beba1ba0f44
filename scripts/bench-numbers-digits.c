/*
 * bench-numbers-digits.c — number.c's digit generation alone, for
 * scripts/bench-numbers.c to set beside Dragonbox's and Grisu's: a second
 * copy of number.c, its shared names changed so that it links beside the
 * library's, and its static Schubfach called as number_format calls it
 * past its fast paths.
 */
#define number_format bench_copy_number_format
#define integer_format bench_copy_integer_format
#define number_parse bench_copy_number_parse
#define number_from_decimal bench_copy_number_from_decimal
#define POW10_U64 BENCH_COPY_POW10_U64
#define EXACT_POW10 BENCH_COPY_EXACT_POW10
#define DIGIT_PAIRS BENCH_COPY_DIGIT_PAIRS
#include "core/numbers/number.c"

uint64_t bench_shorn_digits(double v, int *exponent);

uint64_t bench_shorn_digits(double v, int *exponent) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
  int biased = (int)(bits >> 52) & 0x7FF;
  decimal d = biased ? number_shortest(fraction | UINT64_C(1) << 52, biased - 1075, fraction == 0 && biased > 1)
                     : number_shortest(fraction, -1074, false);
  *exponent = d.exponent;
  return d.digits;
}
