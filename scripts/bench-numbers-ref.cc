// bench-numbers-ref.cc — the reference implementations scripts/bench-numbers.c
// measures shorn's number printing and parsing against, behind plain C
// functions: fmt (Dragonbox), double-conversion (Grisu3 and its fallback,
// the ECMAScript converter), fast_float (Eisel-Lemire).  Built only for the
// benchmark, from Debian's packages; nothing of it goes into shorn.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <double-conversion/double-conversion.h>
#include <fast_float/fast_float.h>
#include <fmt/format.h>

using double_conversion::DoubleToStringConverter;
using double_conversion::StringBuilder;
using double_conversion::StringToDoubleConverter;

extern "C" {

// fmt's "{}": Dragonbox's shortest digits in C++'s spelling ("1e+21",
// "1e-07", "100000.0" for some), not JavaScript's.
size_t ref_fmt_format(double v, char *out) {
  char *end = fmt::format_to(out, "{}", v);
  *end = 0;
  return (size_t)(end - out);
}

// Dragonbox's digits alone: significand and exponent, nothing written.
uint64_t ref_fmt_digits(double v, int *exponent) {
  auto d = fmt::detail::dragonbox::to_decimal(v);
  *exponent = d.exponent;
  return d.significand;
}

// double-conversion's ECMAScript converter: JavaScript's spelling exactly.
size_t ref_dc_format(double v, char *out) {
  StringBuilder b(out, 40);
  DoubleToStringConverter::EcmaScriptConverter().ToShortest(v, &b);
  size_t n = (size_t)b.position();
  b.Finalize();
  return n;
}

// Its shortest digits alone (Grisu3, Bignum when Grisu3 gives up).
uint64_t ref_dc_digits(double v, int *exponent) {
  char digits[20];
  bool sign;
  int length, point;
  DoubleToStringConverter::DoubleToAscii(v, DoubleToStringConverter::SHORTEST, 0, digits, sizeof digits, &sign,
                                         &length, &point);
  uint64_t d = 0;
  for (int i = 0; i < length; i++) d = d * 10 + (uint64_t)(digits[i] - '0');
  *exponent = point - length;
  return d;
}

double ref_dc_parse(const char *s, size_t n) {
  static const StringToDoubleConverter c(StringToDoubleConverter::NO_FLAGS, 0.0, 0.0, "Infinity", "NaN");
  int processed;
  return c.StringToDouble(s, (int)n, &processed);
}

double ref_ff_parse(const char *s, size_t n) {
  double v = 0;
  fast_float::from_chars(s, s + n, v);
  return v;
}

}  // extern "C"
