/* number.h — JavaScript number spelling (Number::toString) and correctly
 * rounded parsing (JSON.parse). */
#ifndef SHORN_NUMBER_H
#define SHORN_NUMBER_H

#include "core/base/platform.h"

/* Room for number_format: its longest spelling, 25 bytes with the NUL
 * ("-1.2345678901234567e-308"), and the bytes its fixed-size copies may
 * write past a shorter one (34 at most). */
#define NUMBER_TEXT_MAX 40

/* ECMAScript Number::toString(v): the shortest digits that read back to v,
 * "1e+21", "5e-324", "0.000001"; -0 gives "0", and "NaN", "Infinity",
 * "-Infinity" for the non-finite values.  Returns the length; NUL-terminates. */
SHORN_PRIVATE size_t number_format(double v, char out[NUMBER_TEXT_MAX]);

/* The digits of u, no sign, no NUL; returns how many.  out[length..20)
 * may be overwritten. */
SHORN_PRIVATE size_t integer_format(uint64_t u, char out[20]);

/* 10^0 .. 10^19, every power of ten in 64 bits. */
SHORN_PRIVATE_DATA const uint64_t POW10_U64[20];

/* 10^0 .. 10^22, every power of ten a double holds exactly. */
SHORN_PRIVATE_DATA const double EXACT_POW10[23];

/* "00" .. "99": the two digits of x < 100 written at p. */
SHORN_PRIVATE_DATA const char DIGIT_PAIRS[201];
static inline void write_pair(char *p, uint32_t x) { memcpy(p, DIGIT_PAIRS + 2 * x, 2); }

/* The double nearest to a JSON number (already checked against the JSON
 * grammar), as JSON.parse reads it: overflow gives +-Infinity, underflow
 * gives +-0, and "-0" keeps its sign.  Never fails. */
SHORN_PRIVATE double number_parse(const char *s, size_t n);

/* The same for a reader that has the digits already: the number's value is
 * man * 10^exponent, with at most 19 significant digits in man, and s, n
 * its text, read again only when no fast path settles the rounding. */
SHORN_PRIVATE double number_from_decimal(const char *s, size_t n, bool negative, uint64_t man, int64_t exponent);

#endif
