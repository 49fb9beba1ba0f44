/* test_rich.c — date-times, base64 and BigInt conversions. */
#include "check.h"
#include "internal.h"

static void check_datetime(long long ms, const char *text) {
  char out[DATETIME_TEXT_MAX];
  size_t n = datetime_format(ms, out);
  CHECK_STR(out, text);
  CHECK(n == strlen(text));
  int64_t back = 0;
  CHECK(datetime_parse(text, strlen(text), &back) && back == ms);
}

static bool parses(const char *text) {
  int64_t ms;
  return datetime_parse(text, strlen(text), &ms);
}

static void test_datetime(void) {
  check_datetime(0, "1970-01-01T00:00:00.000Z");
  check_datetime(1788436800000LL, "2026-09-03T12:00:00.000Z");
  check_datetime(-1, "1969-12-31T23:59:59.999Z");
  check_datetime(951782400000LL, "2000-02-29T00:00:00.000Z");
  check_datetime(-62167219200000LL, "0000-01-01T00:00:00.000Z");
  check_datetime(-62167219200001LL, "-000001-12-31T23:59:59.999Z");
  check_datetime(253402300799999LL, "9999-12-31T23:59:59.999Z");
  check_datetime(253402300800000LL, "+010000-01-01T00:00:00.000Z");
  check_datetime(DATETIME_LIMIT, "+275760-09-13T00:00:00.000Z");
  check_datetime(-DATETIME_LIMIT, "-271821-04-20T00:00:00.000Z");
  check_datetime(2199023255551LL, "2039-09-07T15:47:35.551Z"); /* 2^41 - 1: the last 6-byte instant */

  CHECK(!parses("2026-09-03T12:00:00Z"));          /* no milliseconds */
  CHECK(!parses("2026-09-03T12:00:00.000+00:00")); /* an offset */
  CHECK(!parses("2026-09-03T12:00:00.000z"));      /* lowercase z */
  CHECK(!parses("2026-09-03T12:00:00.0000Z"));     /* four fractional digits */
  CHECK(!parses("2026-09-03 12:00:00.000Z"));
  CHECK(!parses("+002026-09-03T12:00:00.000Z"));   /* expanded year inside 0000-9999 */
  CHECK(!parses("-000000-01-01T00:00:00.000Z"));
  CHECK(!parses("2026-02-30T00:00:00.000Z"));
  CHECK(!parses("2026-13-01T00:00:00.000Z"));
  CHECK(!parses("2026-09-03T24:00:00.000Z"));
  CHECK(!parses("2026-09-03T12:60:00.000Z"));
  CHECK(!parses("2026-09-03T12:00:60.000Z"));
  CHECK(!parses("+275760-09-13T00:00:00.001Z"));   /* one past the end */
  CHECK(!parses("-271821-04-19T23:59:59.999Z"));   /* one before the start */
  CHECK(!parses("not a date"));
  CHECK(!parses(""));
}

static void check_base64(const char *raw, size_t n, const char *text) {
  shorn_buffer b = {0};
  CHECK(base64_json(&b, (const uint8_t *)raw, n));
  CHECK(b.length == strlen(text) + 2 && memcmp(b.data + 1, text, b.length - 2) == 0);
  uint8_t out[64];
  size_t m = 99;
  CHECK(base64_decode(text, strlen(text), out, &m) && m == n && memcmp(out, raw, n) == 0);
  shorn_buffer_free(&b);
}

static bool decodes(const char *text) {
  uint8_t out[64];
  size_t m;
  return base64_decode(text, strlen(text), out, &m);
}

static void test_base64(void) {
  check_base64("", 0, "");
  check_base64("\x09\x09", 2, "CQk=");
  check_base64("f", 1, "Zg==");
  check_base64("fo", 2, "Zm8=");
  check_base64("foo", 3, "Zm9v");
  check_base64("\xff\xfe\xfd\x00", 4, "//79AA==");
  CHECK(!decodes("CQk"));    /* padding required */
  CHECK(!decodes("CQl="));   /* non-zero pad bits */
  CHECK(!decodes("CR=="));
  CHECK(!decodes("Zm9v\n")); /* whitespace */
  CHECK(!decodes("-_8="));   /* URL-safe alphabet */
  CHECK(!decodes("Zg=a"));
  CHECK(!decodes("=Zg="));
}

static void check_bigint(const char *decimal, const char *hex) {
  shorn_buffer b = {0};
  CHECK(bigint_encode(&b, decimal, strlen(decimal)) == BIGINT_OK);
  char got[128] = {0};
  for (size_t i = 0; i < b.length && i < 60; i++) sprintf(got + 2 * i, "%02x", b.data[i]);
  CHECK_STR(got, hex);
  /* And back: the header's low bit is the sign, the rest the width. */
  const uint8_t *p = b.data;
  uint64_t header = 0;
  int shift = 0;
  do header |= (uint64_t)(*p & 0x7F) << shift, shift += 7; while (*p++ & 0x80);
  shorn_buffer text = {0};
  CHECK(bigint_json(&text, header & 1, p, header >> 1));
  CHECK(text.length == strlen(decimal) + 2 && memcmp(text.data + 1, decimal, text.length - 2) == 0);
  shorn_buffer_free(&b);
  shorn_buffer_free(&text);
}

static void test_bigint(void) {
  check_bigint("0", "00");
  check_bigint("1", "0201");
  check_bigint("-1", "0301");
  check_bigint("255", "02ff");
  check_bigint("256", "040001");
  check_bigint("-256", "050001");
  check_bigint("18446744073709551616", "12000000000000000001");
  check_bigint("1000000000", "0800ca9a3b");
  check_bigint("-123456789012345678901234567890", "1bd20a3f4eeee073c3f60fe98e01");
  shorn_buffer b = {0};
  static const char *bad[] = {"", "-", "-0", "01", "+1", "1.0", "1e3", " 1", "0x10", "--1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(bigint_encode(&b, bad[i], strlen(bad[i])) == BIGINT_SPELLING);
  CHECK(b.length == 0);
  shorn_buffer_free(&b);
}

int main(void) {
  test_datetime();
  test_base64();
  test_bigint();
  return check_report("rich");
}
