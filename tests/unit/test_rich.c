/* test_rich.c — date-times, base64 and BigInt conversions. */
#include "../support/counting.h"
#include "../support/bigints.h"
#include "check.h"
#include "core/text/base64.h"
#include "core/numbers/bigint.h"
#include "core/numbers/datetime.h"
#include "core/base/memory.h"

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
  size_t m = 99, bad;
  CHECK(base64_decode(text, strlen(text), out, &m, &bad) && m == n && memcmp(out, raw, n) == 0);
  shorn_buffer_free(&b);
}

/* Where the text stops being canonical base64, or -1 when it is. */
static long refused_at(const char *text) {
  uint8_t out[64];
  size_t m, bad;
  return base64_decode(text, strlen(text), out, &m, &bad) ? -1 : (long)bad;
}

static void test_base64(void) {
  check_base64("", 0, "");
  check_base64("\x09\x09", 2, "CQk=");
  check_base64("f", 1, "Zg==");
  check_base64("fo", 2, "Zm8=");
  check_base64("foo", 3, "Zm9v");
  check_base64("\xff\xfe\xfd\x00", 4, "//79AA==");
  CHECK(refused_at("CQk") == 3);       /* padding required */
  CHECK(refused_at("CQl=") == 2);      /* non-zero pad bits */
  CHECK(refused_at("CR==") == 1);
  CHECK(refused_at("Zm9v\n") == 5);    /* whitespace */
  CHECK(refused_at("Zm9vZ m9v") == 5);
  CHECK(refused_at("-_8=") == 0);      /* URL-safe alphabet */
  CHECK(refused_at("Zg=a") == 2);
  CHECK(refused_at("=Zg=") == 0);
  CHECK(refused_at("Zg==Zg==") == 2);  /* padding only at the end */
}

static void check_bigint(const char *decimal, const char *hex) {
  shorn_buffer b = {0};
  CHECK(bigint_encode(NULL, &b, decimal, strlen(decimal)) == BIGINT_OK);
  char got[128] = {0};
  for (size_t i = 0; i < b.length && i < 60; i++) sprintf(got + 2 * i, "%02x", b.data[i]);
  CHECK_STR(got, hex);
  /* And back: the header's low bit is the sign, the rest the width. */
  const uint8_t *p = b.data;
  uint64_t header = 0;
  int shift = 0;
  do header |= (uint64_t)(*p & 0x7F) << shift, shift += 7; while (*p++ & 0x80);
  shorn_buffer text = {0};
  CHECK(bigint_json(NULL, &text, header & 1, p, header >> 1) == BIGINT_OK);
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
    CHECK(bigint_encode(NULL, &b, bad[i], strlen(bad[i])) == BIGINT_SPELLING);
  CHECK(b.length == 0);
  shorn_buffer_free(&b);
}

/* ---- BigInt conversions at every size ----------------------------------- */

/* Conversions independent of GMP, as a reference: a base-10^9 limb at a
 * time against base-2^32 limbs, so quadratic, for sizes up to about 20 KB.
 * Both return malloc'd results. */
#define DECIMAL_LIMB 1000000000u

static char *reference_decimal(const uint8_t *magnitude, size_t n) {
  size_t limbs = (n + 3) / 4, cap = n * 241 / 100 + 10;
  uint32_t *x = calloc(limbs + 1, sizeof *x);
  char *digits = malloc(cap + 1), *end = digits + cap, *o = end;
  for (size_t i = 0; i < n; i++) x[i / 4] |= (uint32_t)magnitude[i] << (8 * (i % 4));
  while (limbs && !x[limbs - 1]) limbs--;
  do {
    uint64_t rem = 0;
    for (size_t i = limbs; i-- > 0;) {
      uint64_t cur = rem << 32 | x[i];
      x[i] = (uint32_t)(cur / DECIMAL_LIMB);
      rem = cur % DECIMAL_LIMB;
    }
    while (limbs && !x[limbs - 1]) limbs--;
    for (int k = 0; k < 9 && (limbs || rem || o == end); k++) {
      *--o = (char)('0' + rem % 10);
      rem /= 10;
    }
  } while (limbs);
  memmove(digits, o, (size_t)(end - o));
  digits[end - o] = 0;
  free(x);
  return digits;
}

static uint8_t *reference_magnitude(const char *digits, size_t count, size_t *bytes) {
  size_t limbs = 0;
  uint32_t *x = calloc(count / 9 + 2, sizeof *x);
  size_t first = count % 9 ? count % 9 : 9;
  for (size_t i = 0; i < count; i += (i ? 9 : first)) {
    size_t width = i ? 9 : first;
    uint32_t chunk = 0, scale = 1;
    for (size_t k = 0; k < width; k++) {
      chunk = chunk * 10 + (uint32_t)(digits[i + k] - '0');
      scale *= 10;
    }
    uint64_t carry = chunk;
    for (size_t k = 0; k < limbs; k++) {
      uint64_t cur = (uint64_t)x[k] * scale + carry;
      x[k] = (uint32_t)cur;
      carry = cur >> 32;
    }
    if (carry) x[limbs++] = (uint32_t)carry;
  }
  size_t n = limbs * 4;
  while (n && !((x[(n - 1) / 4] >> (8 * ((n - 1) % 4))) & 0xFF)) n--;
  uint8_t *m = malloc(n + 1);
  for (size_t i = 0; i < n; i++) m[i] = (uint8_t)(x[i / 4] >> (8 * (i % 4)));
  free(x);
  *bytes = n;
  return m;
}

/* datetime_parse accepts exactly what datetime_format writes: every text
 * written is read back to its instant (each day of 1600-2399, under every
 * leap rule, then instants anywhere in the range), and of one-character
 * changes of them, whatever is accepted is what datetime_format writes for
 * the instant read: changes to the characters of the spelling, and in one
 * text in 4096, every byte value at every position (a byte just outside
 * the digits, or one with the top bit set, must not read as a digit). */
static void test_datetime_spellings(void) {
  static const char alphabet[] = "0123456789+-:.TZ";
  const int64_t year_1600 = -11676096000000LL, days_1600_to_2400 = 292194;
  char text[DATETIME_TEXT_MAX], changed[DATETIME_TEXT_MAX], again[DATETIME_TEXT_MAX];
  long changes = 0, accepted = 0;
  for (int64_t i = 0; i < 2 * days_1600_to_2400; i++) {
    int64_t ms = i < days_1600_to_2400
                     ? year_1600 + i * 86400000LL + (int64_t)(random_next() % 86400000u)
                     : (int64_t)(random_next() % (2 * DATETIME_LIMIT + 1)) - DATETIME_LIMIT;
    size_t n = datetime_format(ms, text);
    int64_t back = 0;
    CHECK(datetime_parse(text, n, &back) && back == ms);
    /* Every day's day-of-month digits change (each month's last day, each
     * leap rule), and every character of one text in 64. */
    size_t day = n - 16;
    for (size_t k = 0; k < n; k++) {
      if (i % 64 && k != day && k != day + 1) continue;
      bool every_byte = i % 4096 == 0;
      for (int b = 0; every_byte ? b < 256 : alphabet[b] != 0; b++) {
        char c = every_byte ? (char)b : alphabet[b];
        if (c == text[k]) continue;
        memcpy(changed, text, n);
        changed[k] = c;
        changes++;
        if (!datetime_parse(changed, n, &back)) continue;
        accepted++;
        CHECK(datetime_format(back, again) == n && memcmp(again, changed, n) == 0);
      }
    }
  }
  CHECK(changes > 1000000 && accepted > changes / 10 && accepted < changes / 2);
}

/* A canonical random magnitude: no zero high byte. */
static uint8_t *random_magnitude(size_t n) {
  uint8_t *m = malloc(n + 1);
  for (size_t i = 0; i < n; i++) m[i] = (uint8_t)(random_next() >> 32);
  if (n && !m[n - 1]) m[n - 1] = 1;
  return m;
}

/* A BigInt's JSON text is a string of canonical decimal digits. */
static bool canonical_json(const shorn_buffer *text, bool negative) {
  size_t n = text->length;
  if (n < (size_t)3 + negative || text->data[0] != '"' || text->data[n - 1] != '"') return false;
  if (negative != (text->data[1] == '-')) return false;
  const unsigned char *d = text->data + 1 + negative;
  size_t count = n - 2 - negative;
  if (d[0] == '0' && count > 1) return false;
  for (size_t i = 0; i < count; i++)
    if (d[i] < '0' || d[i] > '9') return false;
  return true;
}

/* The wire form of a BigInt is its header (width * 2 + sign), then the
 * magnitude. */
static bool wire_is(const shorn_buffer *wire, bool negative, const uint8_t *magnitude, size_t n) {
  uint64_t header = 0;
  size_t h = 0;
  for (int shift = 0; h < wire->length; shift += 7) {
    header |= (uint64_t)(wire->data[h] & 0x7F) << shift;
    if (!(wire->data[h++] & 0x80)) break;
  }
  return header == (uint64_t)n * 2 + (negative && n) && wire->length == h + n &&
         (!n || memcmp(wire->data + h, magnitude, n) == 0);
}

/* Magnitude to decimal and back; the decimal checked against the reference
 * or, when that would be too slow, by residues.  Both are appended after a
 * byte the buffers already hold, as the codec appends them. */
static void check_magnitude(const uint8_t *magnitude, size_t n, bool negative, bool reference) {
  shorn_buffer text = {0}, wire = {0};
  CHECK(buffer_byte(&text, '[') && buffer_byte(&wire, 0xAA));
  CHECK(bigint_json(NULL, &text, negative, magnitude, n) == BIGINT_OK);
  shorn_buffer json = {.data = text.data + 1, .length = text.length - 1};
  CHECK(text.data[0] == '[' && canonical_json(&json, negative));
  const char *digits = (const char *)json.data + 1 + negative;
  size_t count = json.length - 2 - negative;
  if (reference) {
    char *want = reference_decimal(magnitude, n);
    CHECK(count == strlen(want) && memcmp(digits, want, count) == 0);
    free(want);
  } else {
    CHECK(same_residues(magnitude, n, digits, count));
  }
  CHECK(bigint_encode(NULL, &wire, (const char *)json.data + 1, json.length - 2) == BIGINT_OK);
  shorn_buffer form = {.data = wire.data + 1, .length = wire.length - 1};
  CHECK(wire.data[0] == 0xAA && wire_is(&form, negative, magnitude, n));
  shorn_buffer_free(&text);
  shorn_buffer_free(&wire);
}

/* Decimal to magnitude and back, the same way. */
static void check_decimal(const char *digits, size_t count, bool reference) {
  shorn_buffer text = {0}, wire = {0};
  CHECK(buffer_byte(&text, '[') && buffer_byte(&wire, 0xAA));
  CHECK(bigint_encode(NULL, &wire, digits, count) == BIGINT_OK);
  shorn_buffer form = {.data = wire.data + 1, .length = wire.length - 1};
  size_t h = 0;
  while (h < form.length && form.data[h] & 0x80) h++;
  const uint8_t *magnitude = form.data + h + 1;
  size_t n = form.length - h - 1;
  if (reference) {
    size_t want_n;
    uint8_t *want = reference_magnitude(digits, count, &want_n);
    CHECK(wire_is(&form, false, want, want_n));
    free(want);
  } else {
    CHECK(wire_is(&form, false, magnitude, n) && (!n || magnitude[n - 1]));
    CHECK(same_residues(magnitude, n, digits, count));
  }
  CHECK(wire.data[0] == 0xAA && bigint_json(NULL, &text, false, magnitude, n) == BIGINT_OK);
  CHECK(text.length == count + 3 && memcmp(text.data, "[\"", 2) == 0 &&
        memcmp(text.data + 2, digits, count) == 0 && text.data[count + 2] == '"');
  shorn_buffer_free(&text);
  shorn_buffer_free(&wire);
}

/* A decimal string of `count` digits: a leading digit, then `fill` (or
 * random digits when fill is 0). */
static char *decimal_text(size_t count, char lead, char fill) {
  char *d = malloc(count + 1);
  d[0] = lead;
  for (size_t i = 1; i < count; i++) d[i] = fill ? fill : (char)('0' + random_next() % 10);
  d[count] = 0;
  return d;
}

/* Reference checks up to this size, residues above. */
#define REFERENCE_MAX 20000

static void test_bigint_sizes(void) {
  /* Every width up to 320 bytes, both signs: GMP's schoolbook conversion
   * and, from about thirty limbs, its divide and conquer, with the limbs in
   * bigint.c's storage on the stack. */
  for (size_t n = 0; n <= 320; n++) {
    uint8_t *m = random_magnitude(n);
    check_magnitude(m, n, n % 2, true);
    free(m);
  }
  /* Around each power of two of 32-bit limbs, one limb short, exact, one
   * over (128 64-bit limbs, 1024 bytes, is where the limbs leave the stack
   * for the schema's allocator).  And sizes that hit no boundary. */
  static const size_t odd[] = {333, 1000, 1500, 2047, 2049, 3333, 7777, 12345, 20000};
  for (size_t limbs = 32; limbs * 4 <= REFERENCE_MAX; limbs *= 2) {
    size_t sizes[] = {limbs * 4 - 4, limbs * 4 - 1, limbs * 4, limbs * 4 + 1};
    for (size_t i = 0; i < 4; i++) {
      uint8_t *m = random_magnitude(sizes[i]);
      check_magnitude(m, sizes[i], false, true);
      free(m);
    }
  }
  for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
    uint8_t *m = random_magnitude(odd[i]);
    check_magnitude(m, odd[i], true, true);
    free(m);
  }
  /* Digit counts around multiples of nine, and every count around 711,
   * where the digits and the limbs of encode leave the stack. */
  static const size_t digit_limbs[] = {47, 48, 49, 63, 64, 65};
  for (size_t i = 0; i < sizeof digit_limbs / sizeof *digit_limbs; i++) {
    for (size_t delta = 0; delta < 3; delta++) {
      size_t count = digit_limbs[i] * 9 - 1 + delta;
      char *d = decimal_text(count, (char)('1' + random_next() % 9), 0);
      check_decimal(d, count, true);
      free(d);
    }
  }
  for (size_t count = 700; count <= 720; count++) {
    char *d = decimal_text(count, (char)('1' + random_next() % 9), 0);
    check_decimal(d, count, true);
    free(d);
  }
  for (size_t limbs = 32; limbs * 9 <= 2 * REFERENCE_MAX; limbs *= 2) {
    size_t counts[] = {limbs * 9 - 9, limbs * 9, limbs * 9 + 1};
    for (size_t i = 0; i < 3; i++) {
      char *d = decimal_text(counts[i], (char)('1' + random_next() % 9), 0);
      check_decimal(d, counts[i], true);
      free(d);
    }
  }
  /* Larger, up to 1 MB, checked by residues: one limb above a power of two
   * (the top split lopsided) and a power of two (balanced). */
  static const size_t large[] = {32769, 1048573};
  for (size_t i = 0; i < sizeof large / sizeof *large; i++) {
    uint8_t *m = random_magnitude(large[i]);
    check_magnitude(m, large[i], i % 2, false);
    free(m);
  }
}

/* 2^k: k / 8 zero bytes, then a power of two; 2^k - 1: all ones. */
static void check_power_of_two(size_t k, bool reference) {
  size_t n = k / 8 + 1;
  uint8_t *m = calloc(n, 1);
  m[n - 1] = (uint8_t)(1u << (k % 8));
  check_magnitude(m, n, false, reference);
  memset(m, 0xFF, n);
  m[n - 1] = (uint8_t)((1u << (k % 8)) - 1);
  check_magnitude(m, n - !m[n - 1], false, reference);
  free(m);
}

/* 10^k and 10^k - 1. */
static void check_power_of_ten(size_t k, bool reference) {
  char *d = decimal_text(k + 1, '1', '0');
  check_decimal(d, k + 1, reference);
  free(d);
  if (k) {
    d = decimal_text(k, '9', '9');
    check_decimal(d, k, reference);
    free(d);
  }
}

static void test_bigint_special(void) {
  /* Powers of two around limb and byte boundaries, and powers of ten. */
  static const size_t bits[] = {0,    1,    7,    8,     31,    32,    33,    63,
                                64,   255,  256,  1023,  1024,  1025,  2048,  4096,
                                8191, 8192, 16384, 32768, 65536, 65537, 131072, 160000};
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) check_power_of_two(bits[i], true);
  check_power_of_two(1u << 19, false); /* 64 KB */
  static const size_t tens[] = {0,   1,   9,   18,  19,   287,  288,  289,   431,
                                432, 433, 576, 1000, 2304, 4608, 9216, 18431, 36864};
  for (size_t i = 0; i < sizeof tens / sizeof *tens; i++) check_power_of_ten(tens[i], true);
  check_power_of_ten(150000, false);

  /* Exact values, from Python: str(2**4096), and 10**1000 = 5**1000 * 2**1000,
   * which is 125 zero bytes and then 5**1000's 291 bytes. */
  static const char two_4096[] =
      "104438888141315250669175271071662438257996424904738378038423348328395390797155745684882681"
      "193499755834089010671443926283798757343818579360726323608785136527794595697654370999834036"
      "159013438371831442807001185594622637631883939771274567233468434458661749680790870580370407"
      "128404874011860911446797778359802900668693897688178778594690563019026094059957945343282346"
      "930302669644305902501597239986771421554169383555988529148631823791443449673408781187263949"
      "647510018904134900841706167509366833385055103297208826955076998361636941193301521379682583"
      "718809183365675122131849284636812555022599830041234478486259567449219461702380650591324561"
      "082573183538008760862210283427019769820231316901767800667519548507992163641937028537512478"
      "401490715913545998279051339961155179427110683113409058427288427979155484978295432353451706"
      "522326906139490598769300212296339568778287894844061600741294567491982305057164237715481632"
      "138063104590291613692670834285644073044789997190178146576347322385026725305989979599609079"
      "946920177462481771844986745565925017832907047311943316555080756822184657174637329688491281"
      "952031745700244092661691087414838507841192980452298185733897764810312608590300130241346718"
      "9726673216491511131602920781738033436090243804708340403154190336";
  static const char five_1000[] =
      "61266ee73c465fa797c29a8fd5e526b455f421808e534b4819cb9bd39027c5327c5e8069db2d61787487a48405d17a4b"
      "a9a9bca176ccd4169dc73b1b5987c3224a86c64e77bd0d675bd93aa914b507fdf84a5d18ab8119493b516e7fbf98821a"
      "fc06ddcc9959229c770d007a86cc1e21c6858b67d343b2cc2db72f8ca8ad5cf996b3829cd33cf53e88cb9390d4f7afb5"
      "3ebca07d78ea2a52555d16a060e5343be582a2806281c0f098467e9d7277fee00e719d3d4eec988d224095b5c342e5a0"
      "679be03b53d2a75d989f94869e1b6468056a16aa6b4eb8df0a51552917f62be6c68fc1e83a44fb8a842af122a7598f04"
      "410362af8e5477d35cf1d7efd521112f6b14a29ab55364f3ece8a3c732aeb2ca87be4adbf2e6545a4ae315b0f674e7c7"
      "36ce03";
  uint8_t magnitude[416] = {0};
  for (size_t i = 0; i < 291; i++) {
    unsigned byte;
    sscanf(five_1000 + 2 * i, "%2x", &byte);
    magnitude[125 + i] = (uint8_t)byte;
  }
  char *ten_1000 = decimal_text(1001, '1', '0');
  shorn_buffer text = {0}, wire = {0};
  CHECK(bigint_encode(NULL, &wire, ten_1000, 1001) == BIGINT_OK);
  CHECK(wire_is(&wire, false, magnitude, sizeof magnitude));
  CHECK(bigint_json(NULL, &text, false, magnitude, sizeof magnitude) == BIGINT_OK);
  CHECK(text.length == 1003 && memcmp(text.data + 1, ten_1000, 1001) == 0);
  free(ten_1000);

  uint8_t two[513] = {0};
  two[512] = 1;
  text.length = wire.length = 0;
  CHECK(bigint_json(NULL, &text, true, two, sizeof two) == BIGINT_OK);
  CHECK(text.length == 1237 && text.data[1] == '-' && memcmp(text.data + 2, two_4096, 1234) == 0);
  CHECK(bigint_encode(NULL, &wire, (const char *)text.data + 1, 1235) == BIGINT_OK);
  CHECK(wire_is(&wire, true, two, sizeof two));
  shorn_buffer_free(&text);
  shorn_buffer_free(&wire);
}

/* The digit limit holds above any conversion: 161,614,249 digits can spell
 * a 64 MiB magnitude, one more cannot. */
static void test_bigint_limits(void) {
  size_t count = 161614250;
  char *d = malloc(count + 1);
  memset(d, '1', count);
  d[count] = 0;
  shorn_buffer b = {0};
  CHECK(bigint_encode(NULL, &b, d, count) == BIGINT_TOO_LARGE);
  d[count / 2] = 'x';
  CHECK(bigint_encode(NULL, &b, d, count) == BIGINT_SPELLING); /* spelling is checked first */
  CHECK(b.length == 0);
  free(d);

  /* The build's own limit, BIGINT_MAX_BYTES: the largest magnitude converts
   * both ways, one byte more is refused both ways before any conversion,
   * by the codec with a message naming the limit (and, without GMP, what
   * lifts it).  The magnitudes: 255 2^(8 (max - 1)), then 2^(8 max). */
  size_t max = BIGINT_MAX_BYTES;
  uint8_t *m = calloc(max + 1, 1);
  m[max - 1] = 0xff;
  shorn_buffer text = {0}, wire = {0};
  if (BIGINT_MAX_BYTES < SHORN_MAX_BYTES) { /* GMP's, the layout's, takes a minute: check-limits has it */
    CHECK(bigint_json(NULL, &text, false, m, max) == BIGINT_OK);
    CHECK(bigint_encode(NULL, &wire, (const char *)text.data + 1, text.length - 2) == BIGINT_OK);
  }
  m[max] = 1;
  text.length = 0;
  CHECK(bigint_json(NULL, &text, false, m, max + 1) == BIGINT_TOO_LARGE && text.length == 0);
  free(m);
  shorn_schema *schema;
  shorn_error e;
  static const char bigint_schema[] = "{\"type\":\"string\",\"x-shorn\":\"bigint\"}";
  CHECK(shorn_schema_compile(bigint_schema, strlen(bigint_schema), NULL, &schema, &e) == SHORN_OK);
  /* Encode: one more digit than any magnitude of max bytes has. */
  size_t digits = (size_t)((double)max * 8 * 0.30102999566398) + 2;
  char *json = malloc(digits + 2);
  json[0] = '"', json[1] = '1';
  memset(json + 2, '0', digits - 1);
  json[digits + 1] = '"';
  char expected[256];
  snprintf(expected, sizeof expected, "BigInt is too large: its magnitude passes the limit of %ld bytes%s",
           (long)BIGINT_MAX_BYTES, BIGINT_LIMIT_NOTE);
  wire.length = 0;
  CHECK(shorn_encode(schema, json, digits + 2, 0, &wire, &e) == SHORN_ERROR_ENCODE);
  CHECK_STR(e.message, expected);
  free(json);
  /* Decode, where the layout allows more than the build. */
  if (BIGINT_MAX_BYTES < SHORN_MAX_BYTES) {
    uint8_t *payload = calloc(max + 11, 1), *o = payload;
    for (uint64_t h = (uint64_t)(max + 1) * 2; h; h >>= 7) *o++ = (uint8_t)(h & 0x7f) | (h >= 0x80 ? 0x80 : 0);
    o[max] = 1;
    snprintf(expected, sizeof expected, "BigInt magnitude of %ld bytes exceeds the limit of %ld bytes%s",
             (long)max + 1, (long)BIGINT_MAX_BYTES, BIGINT_LIMIT_NOTE);
    text.length = 0;
    CHECK(shorn_decode(schema, payload, (size_t)(o - payload) + max + 1, 0, &text, &e) == SHORN_ERROR_DECODE);
    CHECK_STR(e.message, expected);
    CHECK(strstr(e.message, "SHORN_BIGINT_MAX_BYTES") && strstr(e.message, "-DSHORN_WITH_GMP"));
    free(payload);
  }
  shorn_schema_free(schema);
  shorn_buffer_free(&text);
  shorn_buffer_free(&wire);
}

/* Out of memory at each allocation in turn: a clean failure, nothing held
 * afterwards; and what a conversion holds stays a small multiple of it. */
static void test_bigint_nomem(void) {
  static const size_t sizes[] = {16, 5000, 40000};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s], count = n * 12 / 5;
    uint8_t *m = random_magnitude(n);
    char *digits = decimal_text(count, '7', 0);
    for (int direction = 0; direction < 2; direction++) {
      bool failed = false, done = false;
      for (unsigned long fail = 1; !done; fail++) {
        shorn_buffer b = {.allocator = &counting_allocator};
        counting_mark();
        counted.fail_at = fail;
        bool ok;
        if (direction) {
          bigint_status rc = bigint_encode(&counting_allocator, &b, digits, count);
          ok = rc == BIGINT_OK;
          CHECK(ok || rc == BIGINT_NOMEM);
        } else {
          bigint_status rc = bigint_json(&counting_allocator, &b, false, m, n);
          ok = rc == BIGINT_OK;
          CHECK(ok || rc == BIGINT_NOMEM);
        }
        done = counted.failures == 0;
        CHECK(ok == done); /* fails exactly when an allocation did */
        failed |= !ok;
        shorn_buffer_free(&b);
        CHECK(counted.blocks == 0);
        if (fail > 100) break;
      }
      CHECK(failed && done);
      shorn_buffer b = {.allocator = &counting_allocator};
      counting_mark();
      CHECK(direction ? bigint_encode(&counting_allocator, &b, digits, count) == BIGINT_OK
                      : bigint_json(&counting_allocator, &b, false, m, n) == BIGINT_OK);
#ifdef SHORN_WITH_GMP
      /* Beside the output, the allocator holds the limbs, and for encode the
       * digits' values too: under 1.5 bytes per input byte.  (GMP's own
       * scratch is not the allocator's: radix_gmp.c says why.) */
      size_t input = direction ? count : n;
      CHECK(counting_peak() <= input * 3 / 2 + 64 + b.capacity);
#else
      /* Beside the output, the built-in conversion holds all its work: at
       * most 7.5 limbs per input limb (radix_builtin.c), 32-bit limbs of
       * nine digits or of four bytes, and bigint.c's limbs, about one
       * more. */
      size_t input = direction ? (count + 8) / 9 * 4 : (n + 3) / 4 * 4;
      CHECK(counting_peak() <= 9 * input + 64 + b.capacity);
#endif
      shorn_buffer_free(&b);
    }
    free(m);
    free(digits);
  }
}

int main(void) {
  test_datetime();
  test_base64();
  test_bigint();
  test_bigint_sizes();
  test_bigint_special();
  test_bigint_limits();
  test_bigint_nomem();
  test_datetime_spellings();
  return check_report("rich");
}
