/* test_text.c — UTF-8 validation, UTF-16 order, JSON escapes, the JSON parser. */
#include "check.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/numbers/number.h"
#include "core/text/text.h"

static bool valid(const char *s) { return utf8_valid((const uint8_t *)s, strlen(s), strlen(s)); }

static void test_utf8(void) {
  CHECK(valid(""));
  CHECK(valid("plain ascii, longer than eight bytes"));
  CHECK(valid("h\xc3\xa9"));                 /* é */
  CHECK(valid("\xef\xbf\xbd"));              /* U+FFFD */
  CHECK(valid("\xef\xbf\xbe\xef\xbf\xbf"));  /* noncharacters U+FFFE, U+FFFF */
  CHECK(valid("\xf4\x8f\xbf\xbf"));          /* U+10FFFF */
  CHECK(valid("\xf0\x9f\x98\x80"));          /* 😀 */
  CHECK(valid("\xed\x9f\xbf"));              /* U+D7FF, last before surrogates */
  CHECK(!valid("\xc0\xaf"));                 /* overlong '/' */
  CHECK(!valid("\xc1\xbf"));
  CHECK(!valid("\xe0\x9f\xbf"));             /* overlong 3-byte */
  CHECK(!valid("\xf0\x8f\xbf\xbf"));         /* overlong 4-byte */
  CHECK(!valid("\xed\xa0\x80"));             /* encoded surrogate */
  CHECK(!valid("\xed\xbf\xbf"));
  CHECK(!valid("\xf4\x90\x80\x80"));         /* above U+10FFFF */
  CHECK(!valid("\xf5\x80\x80\x80"));
  CHECK(!valid("\xff"));
  CHECK(!valid("\x80"));                     /* stray continuation */
  CHECK(!valid("abc\xc3"));                  /* truncated at the end */
  CHECK(!valid("\xe2\x82"));
  CHECK(!valid("\xc3\x28"));                 /* bad continuation */
  CHECK(!valid("\xe2\x28\xa1"));
  CHECK(!valid("abcdefgh\xf0\x9f\x98"));     /* truncated after the fast path */
}

static int cmp(const char *a, const char *b) {
  int c = utf16_compare(a, strlen(a), b, strlen(b));
  return c < 0 ? -1 : c > 0;
}

static void test_utf16_order(void) {
  CHECK(cmp("a", "b") == -1);
  CHECK(cmp("b", "a") == 1);
  CHECK(cmp("a", "a") == 0);
  CHECK(cmp("", "a") == -1);
  CHECK(cmp("ab", "a") == 1);
  CHECK(cmp("Z", "a") == -1);
  CHECK(cmp("a\"b", "\xc3\xa9") == -1);
  /* 😀 (D83D DE00) sorts before Ａ (FF21) in UTF-16, after it in UTF-8. */
  CHECK(cmp("\xf0\x9f\x98\x80", "\xef\xbc\xa1") == -1);
  CHECK(cmp("\xef\xbc\xa1", "\xf0\x9f\x98\x80") == 1);
  CHECK(cmp("x\xf0\x9f\x98\x80", "x\xee\x80\x80") == -1); /* U+E000 */
  CHECK(cmp("\xed\x9f\xbf", "\xf0\x9f\x98\x80") == -1);   /* U+D7FF < D83D */
  /* Lone surrogates (WTF-8): DC00 sorts after any high surrogate. */
  CHECK(cmp("\xed\xb0\x80", "\xf0\x9f\x98\x80") == 1);
  /* A lone D83D is a prefix of 😀's units, so it sorts first. */
  CHECK(cmp("\xed\xa0\xbd", "\xf0\x9f\x98\x80") == -1);
  CHECK(cmp("\xed\xa0\xbd" "a", "\xf0\x9f\x98\x80") == -1); /* 'a' < DE00 */
  CHECK(cmp("\xed\xa0\xbd\xef\xbf\xbf", "\xf0\x9f\x98\x80") == 1); /* FFFF > DE00 */
  CHECK(cmp("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x81") == -1);
  CHECK(cmp("\xc3\xa9", "\xc3\xa8") == 1);
  /* A shared prefix of eight bytes and more, skipped a word at a time. */
  CHECK(cmp("created_at", "created_by") == -1);
  CHECK(cmp("user_name_first", "user_name_last") == -1);
  CHECK(cmp("user_name", "user_nam") == 1);
  CHECK(cmp("abcdefgh", "abcdefgh") == 0);
  CHECK(cmp("abcdefghijklmnopq", "abcdefghijklmnopq") == 0);
  CHECK(cmp("abcdefghi\xf0\x9f\x98\x80", "abcdefghi\xef\xbc\xa1") == -1);
  CHECK(cmp("abcdefg\xc3\xa9", "abcdefg\xc3\xa8") == 1);
}

static void test_escape(void) {
  shorn_buffer b = {0};
  const char in[] = "a\"\\\b\t\n\f\r\x01\x1f\x7f\xe2\x80\xa8/\xed\xa0\x80z";
  CHECK(buffer_json_string(&b, in, sizeof in - 1));
  CHECK(b.length == strlen("\"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\xe2\x80\xa8/\\ud800z\""));
  CHECK(memcmp(b.data, "\"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\xe2\x80\xa8/\\ud800z\"", b.length) == 0);
  shorn_buffer_free(&b);

  /* buffer_json_utf8 writes what buffer_json_string writes, for UTF-8 of
   * every length around the sixteen- and eight-byte blocks, and refuses
   * what utf8_valid refuses. */
  static const char *const pieces[] = {"a", "\"", "\\", "\n", "\x01", "\xc3\xa9", "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80", "0123456789", "\xc3", "\xed\xa0\x80"};
  uint64_t seed = 12345;
  for (int i = 0; i < 20000; i++) {
    char text[160];
    size_t n = 0;
    for (int k = (int)(i % 24); k > 0; k--) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      /* The last two pieces, bad UTF-8, one time in sixteen. */
      size_t pick = (seed >> 33) % (sizeof pieces / sizeof *pieces - ((seed >> 60) ? 2 : 0));
      size_t len = strlen(pieces[pick]);
      memcpy(text + n, pieces[pick], len);
      n += len;
    }
    shorn_buffer want = {0}, got = {0}, past = {0};
    bool valid = utf8_valid((const uint8_t *)text, n, n);
    CHECK(buffer_json_string(&want, text, n));
    int written = buffer_json_utf8(&got, (const uint8_t *)text, n, n);
    CHECK(written == (valid ? 1 : -1));
    if (valid) CHECK(got.length == want.length && memcmp(got.data, want.data, got.length) == 0);
    /* Readable bytes past the string, of every kind that stops a scan,
     * change nothing. */
    memcpy(text + n, "\"\\\x01\xff\xed" "0123456789abcdef", 21);
    CHECK(buffer_json_utf8(&past, (const uint8_t *)text, n, n + 21) == written);
    if (valid) CHECK(past.length == want.length && memcmp(past.data, want.data, past.length) == 0);
    shorn_buffer_free(&want);
    shorn_buffer_free(&got);
    shorn_buffer_free(&past);
  }
}

/* text_quote escapes as JSON.stringify, lone surrogates included, and cuts
 * a quote too long for its room after a whole character, marked with "…";
 * shorn_error_format cuts the same way. */
static void test_quote(void) {
  char out[48];
  CHECK_STR(text_quote(out, sizeof out, "\xed\xa0\x80", 3), "\"\\ud800\"");
  CHECK_STR(text_quote(out, sizeof out, "a\"b\n\\", 5), "\"a\\\"b\\n\\\\\"");
  CHECK_STR(text_quote(out, sizeof out, "\xff", 1), "\"\xef\xbf\xbd\"");
  char e30[1 + 60];
  e30[0] = 'a';
  for (int i = 0; i < 30; i++) memcpy(e30 + 1 + 2 * i, "\xc3\xa9", 2);
  text_quote(out, sizeof out, e30, sizeof e30);
  CHECK(valid(out) && strlen(out) < sizeof out);
  CHECK(strncmp(out, "\"a\xc3\xa9", 4) == 0 && strcmp(out + strlen(out) - 4, TEXT_ELLIPSIS "\"") == 0);
  /* Every room and every length: strict UTF-8 that fits, and whole when
   * it can be. */
  for (size_t cap = 8; cap < 24; cap++)
    for (size_t n = 0; n <= 12; n++) {
      const char *s = "\xed\xb0\x80\xc3\xa9\"\x01\xf0\x9f\x98\x80z";
      char small[24];
      text_quote(small, cap, s, n);
      CHECK(valid(small) && strlen(small) < cap && small[strlen(small) - 1] == '"');
    }

  shorn_error e = {.where = SHORN_WHERE_PATH};
  strcpy(e.message, "Unknown enum value");
  strcpy(e.path, "$.\xc3\xa9\xc3\xa9\xc3\xa9");
  for (size_t cap = 1; cap < 32; cap++) {
    char text[32];
    size_t n = shorn_error_format(&e, text, cap);
    CHECK(n == strlen(text) && n < cap && valid(text));
  }
}

/* Strict UTF-8 by code point, independently of utf8_sequence's byte
 * ranges: the oracle for the block checks. */
static bool reference_utf8(const uint8_t *s, size_t n) {
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  for (size_t i = 0; i < n;) {
    uint32_t c = s[i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || n - i < len) return false;
    uint32_t cp = len == 1 ? c : c & (0x7Fu >> len);
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3F);
    }
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

static uint64_t text_seed = 0x2545F4914F6CDD1Dull;
static uint32_t text_random(uint32_t below) {
  text_seed ^= text_seed << 13;
  text_seed ^= text_seed >> 7;
  text_seed ^= text_seed << 17;
  return (uint32_t)(text_seed >> 32) % below;
}

/* Texts of every length to 300 from characters of every UTF-8 length,
 * the edges of each range included, and now and then a fault (stray,
 * overlong, surrogate, past U+10FFFF, cut short), so that faults and
 * sequences fall on every side of the sixteen- and sixty-four-byte
 * blocks: utf8_valid and buffer_json_utf8 agree with reference_utf8, read
 * to the string's end or far past it, and so does the JSON parser on the
 * same text in a string followed by more non-ASCII text. */
static void test_utf8_blocks(void) {
  static const char *const good[] = {
      "a", "Z", " ", "0123456789abcdef", "\xc2\x80", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80",
      "\xe2\x80\x9c", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
      "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xc3\xbc\xc3\xa7", "naïve déjà"};
  static const char *const bad[] = {"\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc3", "\xe2\x82",
                                    "\xf0\x9f\x98", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80",
                                    "\xed\xbf\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
                                    "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe"};
  const size_t goods = sizeof good / sizeof *good, bads = sizeof bad / sizeof *bad;
  long faulty = 0, sound = 0;
  for (int round = 0; round < 60000; round++) {
    uint8_t text[400 + 96];
    size_t n = 0, want = (size_t)round % 301;
    while (n < want) {
      const char *piece = text_random(40) ? good[text_random((uint32_t)goods)] : bad[text_random((uint32_t)bads)];
      size_t len = strlen(piece);
      if (n + len > 400) break;
      memcpy(text + n, piece, len);
      n += len;
    }
    /* Past the string, bytes of every kind: a scan must not count them. */
    for (size_t k = 0; k < 96; k++) text[n + k] = (uint8_t)(k % 3 ? 0x80 + text_random(0x80) : text_random(0x100));
    bool valid = reference_utf8(text, n);
    valid ? sound++ : faulty++;
    CHECK(utf8_valid(text, n, n) == valid);
    CHECK(utf8_valid(text, n, n + 96) == valid);
    shorn_buffer want_json = {0}, got = {0}, past = {0};
    CHECK(buffer_json_string(&want_json, (const char *)text, n));
    CHECK(buffer_json_utf8(&got, text, n, n) == (valid ? 1 : -1));
    CHECK(buffer_json_utf8(&past, text, n, n + 96) == (valid ? 1 : -1));
    if (valid) {
      CHECK(got.length == want_json.length && memcmp(got.data, want_json.data, got.length) == 0);
      CHECK(past.length == want_json.length && memcmp(past.data, want_json.data, past.length) == 0);
    }
    /* The same bytes as a JSON string (the pieces need no escape). */
    shorn_buffer json = {0};
    static const char tail[] = "\",\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 tail\"]";
    CHECK(buffer_append(&json, "[\"", 2) && buffer_append(&json, text, n) &&
          buffer_append(&json, tail, sizeof tail - 1));
    arena a = {0};
    json_value *v;
    shorn_error e;
    shorn_code rc = json_parse(&a, (const char *)json.data, json.length, &v, &e);
    CHECK(rc == (valid ? SHORN_OK : SHORN_ERROR_JSON));
    if (rc == SHORN_OK)
      CHECK(v->length == 2 && v->u.items[0].length == n && memcmp(v->u.items[0].u.string, text, n) == 0);
    else
      CHECK(e.offset == 1 && strstr(e.message, "invalid UTF-8") != NULL);
    arena_free(&a);
    shorn_buffer_free(&json);
    shorn_buffer_free(&want_json);
    shorn_buffer_free(&got);
    shorn_buffer_free(&past);
  }
  CHECK(faulty > 10000 && sound > 10000);

  /* Strings of up to sixteen bytes, which utf8_valid answers from one or
   * two loads and buffer_json_utf8 copies from two when they are plain:
   * ASCII with one piece, good or bad or to be escaped, at every place,
   * and high bytes past the end that must not count, or none readable. */
  static const char *const escaped[] = {"\"", "\\", "\n", "\x01", "\x1f"};
  const size_t escapes = sizeof escaped / sizeof *escaped;
  for (size_t n = 0; n <= 16; n++) {
    for (size_t at = 0; at <= n; at++) {
      for (size_t k = 0; k < goods + bads + escapes + 1; k++) {
        const char *piece = k < goods ? good[k]
                            : k < goods + bads ? bad[k - goods]
                            : k < goods + bads + escapes ? escaped[k - goods - bads] : "";
        size_t len = strlen(piece);
        if (at + len > n) continue;
        uint8_t text[16 + 96];
        memset(text, 'a', n);
        memcpy(text + at, piece, len);
        memset(text + n, 0x80 + (int)(n + at) % 0x7F, 96);
        bool valid = reference_utf8(text, n);
        CHECK(utf8_valid(text, n, n + 96) == valid);
        CHECK(utf8_valid(text, n, 16) == valid);
        CHECK(utf8_valid(text, n, n) == valid);
        shorn_buffer want = {0}, got = {0};
        CHECK(buffer_json_string(&want, (const char *)text, n));
        CHECK(buffer_json_utf8(&got, text, n, n) == (valid ? 1 : -1));
        if (valid) CHECK(got.length == want.length && memcmp(got.data, want.data, got.length) == 0);
        shorn_buffer_free(&want);
        shorn_buffer_free(&got);
      }
    }
  }

  /* One sequence of three or four bytes, good or bad, at every place in
   * text otherwise of two-byte characters and ASCII, whose blocks take the
   * narrow check: the block after it must still check it whole. */
  static const char *const wide[] = {"\xe2\x80\x9c", "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "\xe0\x80\x80",
                                     "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xe2\x80"};
  for (size_t w = 0; w < sizeof wide / sizeof *wide; w++) {
    for (size_t at = 0; at < 150; at++) {
      uint8_t text[200 + 96];
      size_t n = 0;
      while (n < at) n += (n % 5 == 3 && n + 2 <= at) ? (memcpy(text + n, "\xc3\xa9", 2), 2) : (text[n] = 'a', 1);
      size_t len = strlen(wide[w]);
      memcpy(text + n, wide[w], len);
      n += len;
      while (n < 170) n += n % 3 ? (memcpy(text + n, "\xc3\xbc", 2), 2) : (text[n] = 'z', 1);
      memset(text + n, 'x', 96);
      bool valid = reference_utf8(text, n);
      shorn_buffer got = {0};
      CHECK(utf8_valid(text, n, n) == valid && utf8_valid(text, n, n + 96) == valid);
      CHECK(buffer_json_utf8(&got, text, n, n + 96) == (valid ? 1 : -1));
      shorn_buffer_free(&got);
      arena a = {0};
      json_value *v;
      shorn_error e;
      shorn_buffer json = {0};
      CHECK(buffer_byte(&json, '"') && buffer_append(&json, text, n) && buffer_byte(&json, '"'));
      CHECK(json_parse(&a, (const char *)json.data, json.length, &v, &e) == (valid ? SHORN_OK : SHORN_ERROR_JSON));
      arena_free(&a);
      shorn_buffer_free(&json);
    }
  }
}

/* Parse `text`; return the error code and leave the root in *out. */
static shorn_code parse(arena *a, const char *text, json_value **out, shorn_error *e) {
  return json_parse(a, text, strlen(text), out, e);
}

static void test_json_accepts(void) {
  arena a = {0};
  json_value *v;
  shorn_error e;
  CHECK(parse(&a, " {\"a\":[1,-0,2.5e3,true,false,null,\"x\"],\"b\":{}} ", &v, &e) == SHORN_OK);
  CHECK(v->type == JSON_OBJECT && v->length == 2);
  const json_value *arr = json_get(v, "a", 1);
  CHECK(arr && arr->type == JSON_ARRAY && arr->length == 7);
  CHECK(arr->u.items[0].u.number == 1);
  CHECK(arr->u.items[1].u.number == 0 && 1 / arr->u.items[1].u.number < 0); /* -0 kept */
  CHECK(arr->u.items[2].u.number == 2500);
  CHECK(arr->u.items[3].type == JSON_TRUE && arr->u.items[5].type == JSON_NULL);
  CHECK(json_get(v, "b", 1)->type == JSON_OBJECT);

  /* A repeated key: both kept, the lookup sees the last. */
  CHECK(parse(&a, "{\"k\":1,\"k\":2}", &v, &e) == SHORN_OK);
  CHECK(v->length == 2 && json_get(v, "k", 1)->u.number == 2);

  /* Escapes, pairs and lone surrogates. */
  CHECK(parse(&a, "\"\\u00e9\\ud83d\\ude00\\/\\n\"", &v, &e) == SHORN_OK);
  CHECK(v->length == 2 + 4 + 2 && memcmp(v->u.string, "\xc3\xa9\xf0\x9f\x98\x80/\n", 8) == 0);
  CHECK(!(v->flags & JSON_LONE_SURROGATE));
  CHECK(parse(&a, "\"\\ud800x\"", &v, &e) == SHORN_OK);
  CHECK(v->flags & JSON_LONE_SURROGATE);
  CHECK(v->length == 4 && memcmp(v->u.string, "\xed\xa0\x80x", 4) == 0);
  CHECK(parse(&a, "\"\\udc00\\ud800\"", &v, &e) == SHORN_OK); /* reversed pair: two lone */
  CHECK(v->length == 6 && (v->flags & JSON_LONE_SURROGATE));
  CHECK(parse(&a, "\"plain\"", &v, &e) == SHORN_OK && v->length == 5);

  /* Deep but within the limit; the parser does not recurse. */
  size_t depth = JSON_MAX_DEPTH;
  char *deep = malloc(2 * depth + 1);
  memset(deep, '[', depth);
  memset(deep + depth, ']', depth);
  deep[2 * depth] = 0;
  CHECK(parse(&a, deep, &v, &e) == SHORN_OK);
  deep[0] = '{'; /* mismatched brackets */
  CHECK(parse(&a, deep, &v, &e) == SHORN_ERROR_JSON);
  free(deep);
  arena_free(&a);
}

static void test_json_refuses(void) {
  static const char *bad[] = {
      "", " ", "01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity",
      "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "[1 2]", "{\"a\" 1}", "\"unterminated",
      "\"bad \\x escape\"", "\"\\u12\"", "\"tab\there\"", "tru", "nul", "[", "{", "1 2", "[] x",
      "\"\xc3\x28\"", "\"\xed\xa0\x80\"", "\xef\xbb\xbf{}", "//c\n1", "[1]]", "{\"a\":1}}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    arena a = {0};
    json_value *v;
    shorn_error e;
    shorn_code rc = parse(&a, bad[i], &v, &e);
    if (rc != SHORN_ERROR_JSON) fprintf(stderr, "accepted: %s\n", bad[i]);
    CHECK(rc == SHORN_ERROR_JSON && e.where == SHORN_WHERE_OFFSET);
    arena_free(&a);
  }
  arena a = {0};
  json_value *v;
  shorn_error e;
  char msg[300];
  CHECK(parse(&a, "[1,01]", &v, &e) == SHORN_ERROR_JSON && e.offset == 3);
  shorn_error_format(&e, msg, sizeof msg);
  CHECK_STR(msg, "Invalid JSON: leading zero in number at byte 3");
  size_t depth = JSON_MAX_DEPTH + 1;
  char *deep = malloc(depth + 1);
  memset(deep, '[', depth);
  deep[depth] = 0;
  CHECK(parse(&a, deep, &v, &e) == SHORN_ERROR_JSON && e.offset == JSON_MAX_DEPTH);
  free(deep);
  arena_free(&a);
}

/* The parser reads short numbers itself (an integer or a decimal of at
 * most 15 digits) and leaves the rest to number_parse: both must give the
 * same double, bit for bit, on either side of every boundary. */
static void test_json_numbers(void) {
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  int mismatches = 0;
  for (int i = 0; i < 200000; i++) {
    seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
    uint64_t r = seed * 0x2545F4914F6CDD1Dull;
    char text[64], *o = text;
    int digits = 1 + (int)(r % 18), point = (int)((r >> 8) % (uint64_t)(digits + 1));
    if (r >> 63) *o++ = '-';
    for (int d = 0; d < digits; d++) {
      if (d == point && d > 0) *o++ = '.';
      /* No leading zero, except a lone one before the point. */
      uint64_t digit = (r >> (16 + 2 * (d % 20))) % 10;
      if (d == 0 && point != 1 && digits > 1 && digit == 0) digit = 1;
      *o++ = (char)('0' + digit);
    }
    if ((r >> 60 & 7) == 0) o += sprintf(o, "e%d", (int)((r >> 50) % 40) - 20);
    *o = 0;
    arena a = {0};
    json_value *v;
    shorn_error e;
    if (parse(&a, text, &v, &e) != SHORN_OK) {
      fprintf(stderr, "refused: %s\n", text);
      mismatches++;
    } else {
      double want = number_parse(text, strlen(text));
      if (memcmp(&want, &v->u.number, sizeof want) != 0 && mismatches++ < 10)
        fprintf(stderr, "%s: parsed %.17g, number_parse %.17g\n", text, v->u.number, want);
    }
    arena_free(&a);
  }
  CHECK(mismatches == 0);
  static const char *edges[] = {"0", "-0", "0.0", "-0.0", "-0.000", "999999999999999", "9999999999999999",
                                "0.999999999999999", "0.9999999999999999", "123456789012.345",
                                "1234567890123.456", "9007199254740993", "0.1", "-0.3", "1e0", "5e-324"};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
    arena a = {0};
    json_value *v;
    shorn_error e;
    double want = number_parse(edges[i], strlen(edges[i]));
    CHECK(parse(&a, edges[i], &v, &e) == SHORN_OK && memcmp(&want, &v->u.number, sizeof want) == 0);
    arena_free(&a);
  }
}

/* UTF-8 is checked as the string is scanned, but reported only after the
 * string's other faults, as when it was checked afterwards. */
static void test_json_string_faults(void) {
  static const struct {
    const char *text, *message;
  } cases[] = {
      {"\"\xff", "Invalid JSON: unterminated string at byte 0"},
      {"[\"\xff\x01\"]", "Invalid JSON: control character in string at byte 3"},
      {"[\"\xc3\\q\"]", "Invalid JSON: invalid escape at byte 3"},
      {"[\"ab\xc3\"]", "Invalid JSON: invalid UTF-8 in string at byte 1"},
      {"[\"\\n\xe2\x82\"]", "Invalid JSON: invalid UTF-8 in string at byte 1"},
      {"{\"caf\xc3\xa9\":\"\xf0\x9f\x98\x80 0123456789abcdef\xff\"}",
       "Invalid JSON: invalid UTF-8 in string at byte 9"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    arena a = {0};
    json_value *v;
    shorn_error e;
    char msg[300];
    CHECK(parse(&a, cases[i].text, &v, &e) == SHORN_ERROR_JSON);
    shorn_error_format(&e, msg, sizeof msg);
    CHECK_STR(msg, cases[i].message);
    arena_free(&a);
  }
  arena a = {0};
  json_value *v;
  shorn_error e;
  /* Long strings take the sixteen- and eight-byte paths; escapes and
   * multi-byte characters on either side of a block's edge. */
  const char *text = "[\"0123456789abcdef\xc3\xa9\\n0123456\xe2\x82\xac" "89abcdef0123\\u00e9\"]";
  CHECK(parse(&a, text, &v, &e) == SHORN_OK && v->length == 1);
  CHECK(v->u.items[0].length == 16 + 2 + 1 + 7 + 3 + 12 + 2);
  arena_free(&a);
}

/* Strings that end within thirty-two bytes of their quote, which the
 * parser finds from one block or two: the sixteen bytes after the quote
 * and, when they are plain, the sixteen after those, or the text's last
 * sixteen when fewer follow (else by its scan): ASCII with one piece
 * at every place, a character good or bad, an escape, a control byte, text
 * before the string that must not count (and makes the text long enough
 * for its last block), and text after it that must not count either. */
static void test_json_short_strings(void) {
  static const struct {
    const char *raw, *value; /* value NULL: the string is refused */
  } pieces[] = {{"", ""},           {"\xc3\xa9", "\xc3\xa9"}, {"\xe2\x82\xac", "\xe2\x82\xac"},
                {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},     {"\x7f", "\x7f"},
                {"\\n", "\n"},      {"\\\"", "\""},           {"\\u00e9", "\xc3\xa9"},
                {"\\/", "/"},        {"\xc3", NULL},          {"\xe0\x80\x80", NULL},
                {"\xff", NULL},       {"\x01", NULL},          {"\x1f", NULL},
                {"\\q", NULL},       {"\\u00g0", NULL}};
  static const char *const before[] = {"[\"", "[\"\\\"\xc3\xa9\",\n\"", "[\"\\\"\xc3\xa9" "0123456\",\n\""};
  static const char *const after[] = {"]", ",\"0123456789abcdef0123456789\"]",
                                      ",\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"]"};
  long refused = 0, read = 0;
  for (size_t n = 0; n <= 34; n++) {
    for (size_t at = 0; at <= n; at++) {
      for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        size_t len = strlen(pieces[k].raw);
        if (at + len > n || (k == 0 && at)) continue;
        for (size_t b = 0; b < sizeof before / sizeof *before; b++) {
          for (size_t t = 0; t < sizeof after / sizeof *after; t++) {
            /* On the heap at its exact length, so ASan sees a block read
             * past the text's end. */
            size_t head = strlen(before[b]), tail = strlen(after[t]), length = head + n + 1 + tail;
            char *json = malloc(length), want[40];
            memcpy(json, before[b], head);
            memset(json + head, 'a', n);
            memcpy(json + head + at, pieces[k].raw, len);
            json[head + n] = '"';
            memcpy(json + head + n + 1, after[t], tail);
            arena a = {0};
            json_value *v;
            shorn_error e;
            shorn_code rc = json_parse(&a, json, length, &v, &e);
            if (!pieces[k].value) {
              refused++;
              CHECK(rc == SHORN_ERROR_JSON);
            } else {
              read++;
              size_t value_length = strlen(pieces[k].value), want_length = n - len + value_length;
              memset(want, 'a', want_length);
              memcpy(want + at, pieces[k].value, value_length);
              const json_value *s = rc == SHORN_OK ? &v->u.items[b > 0] : NULL;
              CHECK(rc == SHORN_OK && v->length == 1u + (b > 0) + (t > 0) && s->type == JSON_STRING &&
                    s->length == want_length && memcmp(s->u.string, want, want_length) == 0);
            }
            arena_free(&a);
            free(json);
          }
        }
      }
    }
  }
  CHECK(refused > 1000 && read > 1000);
}

/* json_unescape copies the runs between escapes by blocks of 64, 16 and 8
 * bytes and then a byte at a time: an escape or two at every place in
 * bodies up to past three blocks of 64, each unescaped into a heap block
 * of the body's exact length, so that ASan sees a store past it, and
 * parsed as JSON text too. */
static void test_json_unescape(void) {
  static const struct {
    const char *raw, *value;
  } escapes[] = {{"\\n", "\n"}, {"\\\"", "\""}, {"\\\\", "\\"}, {"\\u00e9", "\xc3\xa9"},
                 {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"}};
  long checked = 0;
  for (size_t n = 0; n <= 200; n++) {
    for (size_t at = 0; at <= n; at++) {
      for (size_t k = 0; k < sizeof escapes / sizeof *escapes; k++) {
        for (int twice = 0; twice < 2; twice++) {
          /* The body: n bytes of prose with the escape at `at` and, the
           * second time, again at its end. */
          size_t len = strlen(escapes[k].raw), vlen = strlen(escapes[k].value);
          if (at + len > n || (twice && at + 2 * len > n)) continue;
          char body[256], want[256];
          for (size_t i = 0; i < n; i++) body[i] = (char)('a' + i % 26);
          memcpy(body + at, escapes[k].raw, len);
          if (twice) memcpy(body + n - len, escapes[k].raw, len);
          size_t want_length = 0, middle = twice ? n - len - (at + len) : n - (at + len);
          memcpy(want, body, at), want_length += at;
          memcpy(want + want_length, escapes[k].value, vlen), want_length += vlen;
          memcpy(want + want_length, body + at + len, middle), want_length += middle;
          if (twice) memcpy(want + want_length, escapes[k].value, vlen), want_length += vlen;
          uint8_t *out = malloc(n ? n : 1);
          uint8_t *end = json_unescape(out, (const uint8_t *)body, n, false, NULL);
          CHECK((size_t)(end - out) == want_length && memcmp(out, want, want_length) == 0);
          free(out);
          char *json = malloc(n + 2);
          json[0] = '"', memcpy(json + 1, body, n), json[n + 1] = '"';
          arena a = {0};
          json_value *v;
          shorn_error e;
          CHECK(json_parse(&a, json, n + 2, &v, &e) == SHORN_OK && v->type == JSON_STRING &&
                v->length == want_length && memcmp(v->u.string, want, want_length) == 0);
          arena_free(&a);
          free(json);
          checked++;
        }
      }
    }
  }
  CHECK(checked > 90000);
}

int main(void) {
  test_utf8();
  test_utf16_order();
  test_escape();
  test_quote();
  test_utf8_blocks();
  test_json_accepts();
  test_json_refuses();
  test_json_numbers();
  test_json_string_faults();
  test_json_short_strings();
  test_json_unescape();
  return check_report("text");
}
