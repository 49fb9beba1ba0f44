/*
 * datetime.c — the byte layout's date-time: epoch milliseconds to and from
 * the one ISO 8601 spelling Date.prototype.toISOString writes.
 */
#include "datetime.h"
#include "core/text/lanes.h"
#include "core/text/text.h"
#include "number.h"

#define MS_PER_DAY 86400000LL

/* Days since 1970-01-01 of a proleptic Gregorian date, counted in 400-year
 * eras (146,097 days each) from a year that starts in March, so that the
 * leap day falls at the end of the year. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t year_of_era = y - era * 400;
  int64_t day_of_year = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  /* The rest of the way in 32 unsigned bits, since the day of the era is
   * 0..146096: each division is then one multiplication and a shift. */
  uint32_t day_of_era = (uint32_t)(z - era * 146097);
  uint32_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  uint32_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  uint32_t mp = (5 * day_of_year + 2) / 153;
  *d = (int)(day_of_year - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = year_of_era + era * 400 + (*m <= 2);
}

static char *datetime_put_digits(char *o, int64_t v, int width) {
  for (int i = width - 1; i >= 0; i--) {
    o[i] = (char)('0' + v % 10);
    v /= 10;
  }
  return o + width;
}

/* The two digits of v < 100, in 32 bits: datetime_put_digits' 64-bit lanes are
 * more work than six small fields need. */
static inline char *datetime_put_pair(char *o, uint32_t v) {
  write_pair(o, v);
  return o + 2;
}

size_t datetime_format(int64_t ms, char out[DATETIME_TEXT_MAX]) {
  int64_t days = ms / MS_PER_DAY, in_day = ms % MS_PER_DAY;
  if (in_day < 0) in_day += MS_PER_DAY, days--;
  uint32_t rest = (uint32_t)in_day;
  int64_t year;
  int month, day;
  civil_from_days(days, &year, &month, &day);
  char *o = out;
  /* toISOString writes four digits, or a sign and six beyond 0000-9999. */
  if (year >= 0 && year <= 9999) {
    o = datetime_put_pair(o, (uint32_t)year / 100);
    o = datetime_put_pair(o, (uint32_t)year % 100);
  } else {
    *o++ = year < 0 ? '-' : '+';
    o = datetime_put_digits(o, year < 0 ? -year : year, 6);
  }
  *o++ = '-';
  o = datetime_put_pair(o, (uint32_t)month);
  *o++ = '-';
  o = datetime_put_pair(o, (uint32_t)day);
  *o++ = 'T';
  o = datetime_put_pair(o, rest / 3600000);
  *o++ = ':';
  o = datetime_put_pair(o, rest / 60000 % 60);
  *o++ = ':';
  o = datetime_put_pair(o, rest / 1000 % 60);
  *o++ = '.';
  *o++ = (char)('0' + rest / 100 % 10);
  o = datetime_put_pair(o, rest % 100);
  *o++ = 'Z';
  *o = 0;
  return (size_t)(o - out);
}

static bool datetime_read_digits(const char *s, int width, int64_t *v) {
  *v = 0;
  for (int i = 0; i < width; i++) {
    if (!is_digit(s[i])) return false;
    *v = *v * 10 + (s[i] - '0');
  }
  return true;
}

static int days_in_month(int64_t year, int64_t month) {
  static const uint8_t days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return month == 2 && leap ? 29 : days[month - 1];
}

/* The fields' ranges, then the instant: each field checked against what
 * datetime_format would write, the day within its month (no February
 * 30th). */
static bool datetime_from_fields(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                                 int64_t second, int64_t milli, int64_t *ms) {
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59)
    return false;
  int64_t days = days_from_civil(year, (int)month, (int)day);
  int64_t value = days * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
  if (value > DATETIME_LIMIT || value < -DATETIME_LIMIT) return false;
  *ms = value;
  return true;
}

/* YYYY-MM-DDTHH:MM:SS.sssZ, the spelling of years 0000-9999, as three
 * words: in each, 0xFF in the lanes where a digit stands, and the
 * separators in the others: read a word at a time, its digits checked in
 * their lanes at once, where a byte at a time cost more than the rest of
 * the parse. */
static const uint64_t COMMON_DIGITS[3] = {0x00FFFF00FFFFFFFFull, 0xFFFF00FFFF00FFFFull, 0x00FFFFFF00FFFF00ull};
static const uint64_t COMMON_SEPARATORS[3] = {
    (uint64_t)'-' << 32 | (uint64_t)'-' << 56,
    (uint64_t)'T' << 16 | (uint64_t)':' << 40,
    (uint64_t)':' | (uint64_t)'.' << 24 | (uint64_t)'Z' << 56};

/* Word k of the common spelling: its digits' values in their lanes, or
 * false when a separator or a digit is not there. */
static inline bool datetime_common_word(const char *s, int k, uint64_t *digits) {
  uint64_t w = load_le64((const uint8_t *)s + 8 * k);
  if ((w & ~COMMON_DIGITS[k]) != COMMON_SEPARATORS[k]) return false;
  /* A digit lane holds 0-9 after the XOR: its high nibble clear, and
   * adding 6 leaves it so (no lane carries into the next). */
  uint64_t d = (w ^ LANES('0')) & COMMON_DIGITS[k];
  *digits = d;
  return !((d | (d + LANES(6))) & COMMON_DIGITS[k] & LANES(0xF0));
}

/* Lane i of w as a number. */
static inline int64_t datetime_lane(uint64_t w, int i) { return (int64_t)(w >> (8 * i) & 0xFF); }

/* Lane i of the digits d paired with lane i + 1: a two-digit number. */
static inline int64_t datetime_pair(uint64_t d, int i) { return datetime_lane(d, i) * 10 + datetime_lane(d, i + 1); }

static bool datetime_parse_common(const char *s, int64_t *ms) {
  uint64_t a, b, c;
  if (!datetime_common_word(s, 0, &a) || !datetime_common_word(s, 1, &b) || !datetime_common_word(s, 2, &c)) return false;
  return datetime_from_fields(datetime_pair(a, 0) * 100 + datetime_pair(a, 2), datetime_pair(a, 5), datetime_pair(b, 0), datetime_pair(b, 3), datetime_pair(b, 6),
                              datetime_pair(c, 1), datetime_lane(c, 4) * 100 + datetime_pair(c, 5), ms);
}

/* Only the text datetime_format writes is accepted, so each field is
 * checked against what it would write, and six signed year digits stand
 * exactly when the year is outside 0000-9999 (no "+002026", no "-000000").
 * Writing the instant back and comparing did the same at twice the cost. */
bool datetime_parse(const char *s, size_t n, int64_t *ms) {
  if (n == 24) return datetime_parse_common(s, ms);
  /* Every field is fixed-width, so the year's width fixes the length. */
  if (n != 27 || (s[0] != '+' && s[0] != '-')) return false;
  int64_t year, month, day, hour, minute, second, milli;
  if (!datetime_read_digits(s + 1, 6, &year)) return false;
  if (s[0] == '+' ? year <= 9999 : year == 0) return false;
  if (s[0] == '-') year = -year;
  const char *t = s + 7;
  if (t[0] != '-' || t[3] != '-' || t[6] != 'T' || t[9] != ':' || t[12] != ':' || t[15] != '.' ||
      t[19] != 'Z')
    return false;
  if (!datetime_read_digits(t + 1, 2, &month) || !datetime_read_digits(t + 4, 2, &day) ||
      !datetime_read_digits(t + 7, 2, &hour) || !datetime_read_digits(t + 10, 2, &minute) ||
      !datetime_read_digits(t + 13, 2, &second) || !datetime_read_digits(t + 16, 3, &milli))
    return false;
  return datetime_from_fields(year, month, day, hour, minute, second, milli, ms);
}
