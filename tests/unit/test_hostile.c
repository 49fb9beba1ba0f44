/*
 * test_hostile.c — hostile input: what a payload, a JSON text or a schema
 * may make the codec allocate, measured through a counting allocator, and
 * how JSON input at the edges of RFC 8259 and of doubles is read.
 *
 * Every hostile case is refused with its error, and the most the call held
 * at once is bounded by a small multiple of what it read plus what it
 * wrote: a count, a length or a nesting the bytes cannot back costs nothing.
 * The measured figures are printed, as the record of what each case cost.
 */
#include <math.h>

#include "../support/counting.h"
#include "check.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/regex/pattern.h"
#include "core/shape/shape.h"


/* What one call did: its result as text (the JSON, the payload in hex, or
 * "error: <message at where>"), bytes in and out, the peak and the number
 * of allocations it asked for. */
typedef struct outcome {
  char text[1024];
  size_t in, out, peak;
  unsigned long calls;
} outcome;

static void describe(outcome *o, shorn_code rc, const shorn_error *e, const shorn_buffer *b,
                     bool hex) {
  if (rc != SHORN_OK) {
    memcpy(o->text, "error: ", 7);
    shorn_error_format(e, o->text + 7, sizeof o->text - 7);
  } else if (hex) {
    size_t n = b->length < sizeof o->text / 2 ? b->length : sizeof o->text / 2 - 1;
    for (size_t i = 0; i < n; i++) snprintf(o->text + 2 * i, 3, "%02x", b->data[i]);
    o->text[2 * n] = 0;
  } else {
    size_t n = b->length < sizeof o->text ? b->length : sizeof o->text - 1;
    if (n) memcpy(o->text, b->data, n);
    o->text[n] = 0;
  }
}

static void finish(outcome *o, size_t in, size_t out) {
  o->in = in;
  o->out = out;
  o->peak = counting_peak();
  o->calls = counted.calls;
}

/* The schema compiled, or NULL; the compile itself measured in `o`, its
 * output the signature. */
static shorn_schema *compile_measured(const char *schema, outcome *o) {
  shorn_schema *s;
  shorn_error e;
  size_t n = 0;
  counting_mark();
  shorn_code rc = shorn_schema_compile(schema, strlen(schema), &counting_allocator, &s, &e);
  if (rc == SHORN_OK) shorn_schema_signature(s, &n);
  finish(o, strlen(schema), n);
  if (rc == SHORN_OK)
    snprintf(o->text, sizeof o->text, "compiled");
  else
    describe(o, rc, &e, NULL, false);
  return s;
}

static shorn_schema *compile(const char *schema) {
  outcome o;
  shorn_schema *s = compile_measured(schema, &o);
  if (!s) {
    fprintf(stderr, "schema does not compile: %s\n%s\n", o.text, schema);
    exit(1);
  }
  return s;
}

/* One encode (of JSON text) or decode (of bytes), measured. */
/* Whether an encode is shorn_encode_unchecked's, not shorn_encode's. */
static bool unchecked;

static outcome measured(const char *schema, const void *in, size_t n, bool encoding) {
  outcome o;
  shorn_schema *s = compile(schema);
  shorn_buffer out = {.allocator = &counting_allocator};
  shorn_error e;
  counting_mark();
  shorn_code rc = !encoding  ? shorn_decode(s, in, n, 0, &out, &e)
                  : unchecked ? shorn_encode_unchecked(s, in, n, 0, &out, &e)
                              : shorn_encode(s, in, n, 0, &out, &e);
  finish(&o, n, out.length);
  describe(&o, rc, &e, &out, encoding);
  shorn_buffer_free(&out);
  shorn_schema_free(s);
  return o;
}

static outcome decode_bytes(const char *schema, const uint8_t *bytes, size_t n) {
  return measured(schema, bytes, n, false);
}

static outcome decode_hex(const char *schema, const char *hex) {
  uint8_t bytes[64];
  size_t n = strlen(hex) / 2;
  if (n > sizeof bytes) abort(); /* a test's payload, not an input */
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    bytes[i] = (uint8_t)v;
  }
  return decode_bytes(schema, bytes, n);
}

static outcome encode_n(const char *schema, const char *json, size_t n) {
  return measured(schema, json, n, true);
}

static outcome encode(const char *schema, const char *json) {
  return encode_n(schema, json, strlen(json));
}

/* A hostile case: its result, and its peak within the bound. */
static void check_bounded(const char *name, const outcome *o) {
  printf("  %-44s peak %9zu bytes, %3lu allocations (in %zu, out %zu)\n", name, o->peak, o->calls,
         o->in, o->out);
  CHECK(o->peak <= COUNTING_BOUND(o->in, o->out));
}

#define HOSTILE(name, o, want)     \
  do {                             \
    outcome o_ = (o);              \
    CHECK_STR(o_.text, want);      \
    check_bounded(name, &o_);      \
  } while (0)

#define UINT "{\"type\":\"integer\",\"minimum\":0}"
#define STRING "{\"type\":\"string\"}"
#define ANY "{}"
#define ARRAY_OF(t) "{\"type\":\"array\",\"items\":" t "}"
#define FIXED(t, n) "{\"type\":\"array\",\"items\":" t ",\"minItems\":" #n ",\"maxItems\":" #n "}"
#define RECORD_OF(t) "{\"type\":\"object\",\"additionalProperties\":" t "}"
#define SET_OF(t) "{\"type\":\"array\",\"items\":" t ",\"uniqueItems\":true,\"x-shorn\":\"set\"}"
#define MAP_OF(k, v)                                                                       \
  "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" k "," v "],\"items\":false," \
  "\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}"
#define BIGINT "{\"type\":\"string\",\"x-shorn\":\"bigint\"}"
#define BYTES "{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"}"
#define NODE                                                                                  \
  "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{\"type\":" \
  "\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\",\"children\"],"                \
  "\"additionalProperties\":false}"

/* ---- counts and lengths the payload cannot back ------------------------- */

static void test_hostile_counts(void) {
  printf("memory: hostile counts and lengths\n");
  /* 1,000,000 (c0 84 3d) claimed in 4 bytes, for every counted shape. */
  HOSTILE("array of 1000000 in 4 bytes", decode_hex(ARRAY_OF(UINT), "c0843d00"),
          "error: Array length 1000000 exceeds the remaining input at byte 3");
  HOSTILE("array of 1000001 in 4 bytes", decode_hex(ARRAY_OF(UINT), "c1843d00"),
          "error: Array length 1000001 exceeds the limit of 1000000 at byte 3");
  HOSTILE("dynamic array of 1000000 in 5 bytes", decode_hex(ANY, "06c0843d00"),
          "error: Array length 1000000 exceeds the remaining input at byte 4");
  HOSTILE("dynamic object of 1000000 in 5 bytes", decode_hex(ANY, "07c0843d00"),
          "error: Record size 1000000 exceeds the remaining input at byte 4");
  HOSTILE("record of 1000000 in 4 bytes", decode_hex(RECORD_OF(UINT), "c0843d00"),
          "error: Record size 1000000 exceeds the remaining input at byte 3");
  HOSTILE("record of 1000001 in 4 bytes", decode_hex(RECORD_OF(UINT), "c1843d00"),
          "error: Record size 1000001 exceeds the limit of 1000000 at byte 3");
  HOSTILE("set of 1000000 in 4 bytes", decode_hex(SET_OF(UINT), "c0843d00"),
          "error: Array length 1000000 exceeds the remaining input at byte 3");
  HOSTILE("map of 1000000 in 4 bytes", decode_hex(MAP_OF(STRING, UINT), "c0843d00"),
          "error: Map size 1000000 exceeds the remaining input at byte 3");
  HOSTILE("tuple rest of 1000000 in 5 bytes",
          decode_hex("{\"type\":\"array\",\"prefixItems\":[" UINT "],\"items\":" UINT "}", "00c0843d00"),
          "error: Array length 1000000 exceeds the remaining input at byte 4");
  HOSTILE("open object extras of 1000000 in 5 bytes",
          decode_hex("{\"type\":\"object\",\"properties\":{\"a\":" UINT "},\"required\":[\"a\"],"
                     "\"additionalProperties\":" UINT "}",
                     "00c0843d00"),
          "error: Record size 1000000 exceeds the remaining input at byte 4");
  HOSTILE("fixed array of 1000000 uints in 4 bytes", decode_hex(FIXED(UINT, 1000000), "00000000"),
          "error: Array length 1000000 exceeds the remaining input at byte 0");

  /* 64 MiB (80 80 80 20) claimed in a short payload, and one byte more. */
  HOSTILE("string of 64 MiB in 5 bytes", decode_hex(STRING, "8080802061"),
          "error: Unexpected end of input at byte 4");
  HOSTILE("string of 64 MiB + 1 in 5 bytes", decode_hex(STRING, "8180802061"),
          "error: Byte length 67108865 exceeds the limit of 67108864 at byte 4");
  HOSTILE("byte array of 64 MiB in 5 bytes", decode_hex(BYTES, "8080802061"),
          "error: Unexpected end of input at byte 4");
  HOSTILE("record key of 64 MiB in 5 bytes", decode_hex(RECORD_OF(UINT), "0180808020"),
          "error: Unexpected end of input at byte 5");
  /* A BigInt header is the magnitude's length doubled (plus the sign). */
  HOSTILE("BigInt of 64 MiB in 5 bytes", decode_hex(BIGINT, "8080804001"),
          "error: Unexpected end of input at byte 4");
  HOSTILE("BigInt of 64 MiB + 1 in 5 bytes", decode_hex(BIGINT, "8280804001"),
          "error: BigInt magnitude of 67108865 bytes exceeds the limit of 67108864 at byte 4");
  HOSTILE("BigInt of 2^52 - 1 bytes in 9 bytes", decode_hex(BIGINT, "feffffffffffff0f01"),
          "error: BigInt magnitude of 4503599627370495 bytes exceeds the limit of 67108864 at byte 8");
}

/* ---- zero-width elements, recursion and dynamic nesting ----------------- */

static void test_zero_width(void) {
  printf("memory: zero-width elements\n");
  outcome o;
  /* 1000 x 1000 elements of zero width would decode to 1,001,000 values
   * from nothing: refused when the schema compiles, as is a deeper nest
   * whose product passes the bound only at its third level. */
  compile_measured(FIXED(FIXED("{\"const\":1}", 1000), 1000), &o);
  CHECK_STR(o.text,
            "error: This fixed array would decode to more than 1000000 elements from no input at #");
  check_bounded("1000 x 1000 literals (compile)", &o);
  compile_measured(FIXED(FIXED(FIXED("{\"const\":1}", 100), 100), 100), &o);
  CHECK_STR(o.text,
            "error: This fixed array would decode to more than 1000000 elements from no input at #");
  check_bounded("100 x 100 x 100 literals (compile)", &o);
  compile_measured(ARRAY_OF("{\"const\":1}"), &o);
  CHECK(strstr(o.text, "error: Array elements must take at least one byte") == o.text);

  /* Just under the bound it decodes from no input at all, and the output
   * alone accounts for what it holds. */
  o = decode_bytes(FIXED(FIXED("{\"const\":1}", 999), 999), NULL, 0);
  CHECK(o.out == 999 * (2 * 999 + 1) + 998 + 2); /* 999 of [1,...,1], commas, brackets */
  CHECK(strncmp(o.text, "[[1,1,1,", 8) == 0);
  check_bounded("999 x 999 literals from 0 bytes", &o);
}

static void test_nesting_bombs(void) {
  printf("memory: nesting bombs\n");
  /* A Node lists its children before its value, so each level is the
   * byte 01: one child, then that child. */
  uint8_t bomb[2 * 4096];
  memset(bomb, 1, sizeof bomb);
  HOSTILE("recursion 8192 deep in 8 KiB", decode_bytes(NODE, bomb, sizeof bomb),
          "error: Recursive value nests deeper than 256 at byte 256");

  /* Dynamic arrays of one element: [06 01] a level. */
  for (size_t i = 0; i < sizeof bomb; i += 2) bomb[i] = 6, bomb[i + 1] = 1;
  HOSTILE("dynamic nesting 4096 deep in 8 KiB", decode_bytes(ANY, bomb, sizeof bomb),
          "error: Dynamic value nests deeper than 64 at byte 129");
  /* Dynamic objects: [07 01 00] a level (one entry, the empty key). */
  uint8_t objects[3 * 1024];
  for (size_t i = 0; i < sizeof objects; i += 3) objects[i] = 7, objects[i + 1] = 1, objects[i + 2] = 0;
  HOSTILE("dynamic object nesting 1024 deep in 3 KiB", decode_bytes(ANY, objects, sizeof objects),
          "error: Dynamic value nests deeper than 64 at byte 193");

  /* The same bombs as JSON text, for the encoder. */
  static char json[2 * JSON_MAX_DEPTH + 8];
  memset(json, '[', JSON_MAX_DEPTH + 1);
  memset(json + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
  HOSTILE("JSON nesting 10001 deep", encode_n(ANY, json, 2 * JSON_MAX_DEPTH + 2),
          "error: Invalid JSON: nesting deeper than 10000 at byte 10000");
  /* The dynamic limit refuses it at the 64th level, and says where. */
  char want[64 + 3 * SHORN_MAX_DYNAMIC_DEPTH] = "error: Dynamic value nests deeper than 64 at $";
  for (int i = 0; i < SHORN_MAX_DYNAMIC_DEPTH; i++) strcat(want, "[0]");
  HOSTILE("JSON nesting 10000 deep, dynamic", encode_n(ANY, json + 1, 2 * JSON_MAX_DEPTH), want);
}

static void test_large_json(void) {
  printf("memory: large JSON input\n");
  /* 1,000,001 zeros: the DOM costs what the text is long, then the count
   * is refused. */
  size_t n = 2 * 1000001 + 1;
  char *json = malloc(n);
  json[0] = '[';
  for (size_t i = 1; i < n; i += 2) json[i] = '0', json[i + 1] = ',';
  json[n - 1] = ']';
  HOSTILE("array of 1000001 zeros", encode_n(ARRAY_OF(UINT), json, n), "error: Array is too large: 1000001 items, the limit is 1000000 at $");
  free(json);

  /* A "billion laughs" schema: each definition holds the one before twice,
   * so forty of them expand to 2^40 shapes; refused at the first million. */
  char schema[4096], *o = schema;
  o += sprintf(o, "{\"$defs\":{\"d0\":{\"type\":\"integer\"}");
  for (int i = 1; i <= 40; i++)
    o += sprintf(o, ",\"d%d\":{\"type\":\"array\",\"prefixItems\":[{\"$ref\":\"#/$defs/d%d\"},"
                    "{\"$ref\":\"#/$defs/d%d\"}]}", i, i - 1, i - 1);
  sprintf(o, "},\"$ref\":\"#/$defs/d40\"}");
  outcome c;
  compile_measured(schema, &c);
  CHECK(strstr(c.text, "error: The schema expands to more than 1000000 shapes") == c.text);
  check_bounded("schema expanding to 2^40 shapes (compile)", &c);
}

/* ---- validation keywords ------------------------------------------------ */

/* A match may hold what pattern.h lets it backtrack in, and the old
 * backtrack stack while it copies it into one twice as large. */
static void check_bounded_match(const char *name, const outcome *o) {
  printf("  %-44s peak %9zu bytes, %3lu allocations (in %zu, out %zu)\n", name, o->peak, o->calls, o->in, o->out);
  CHECK(o->peak <= COUNTING_BOUND(o->in, o->out) + 2 * ((size_t)PATTERN_HEAP_FIXED_KIB * 1024 + PATTERN_HEAP_PER_BYTE * o->in));
}

static char *repeated(const char *head, const char *unit, size_t n, const char *tail) {
  size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
  char *s = malloc(h + u * n + t + 1);
  memcpy(s, head, h);
  for (size_t i = 0; i < n; i++) memcpy(s + h + i * u, unit, u);
  memcpy(s + h + u * n, tail, t + 1);
  return s;
}

static void test_validation_keywords(void) {
  printf("memory: validation keywords\n");
  /* Catastrophic backtracking stops at the step limit, in the backtrack
   * stack's first block, on the C stack: a string past ASCII, which the
   * pattern's DFA leaves to the backtracker. */
  char *json = repeated("\"", "a", 40, "\303\251\"");
  outcome o = encode("{\"type\":\"string\",\"pattern\":\"^(a+)+$\"}", json);
  CHECK(strstr(o.text, "error: Pattern \"^(a+)+$\" gave up on this string: the match passed its limits") == o.text);
  check_bounded_match("^(a+)+$ on 40 a's and an e acute", &o);
  free(json);
  /* In ASCII the DFA answers, in one pass. */
  json = repeated("\"", "a", 40, "!\"");
  o = encode("{\"type\":\"string\",\"pattern\":\"^(a+)+$\"}", json);
  CHECK(strstr(o.text, "error: Invalid string: must match pattern \"^(a+)+$\"") == o.text);
  free(json);
  /* Backtracking as deep as the string is long: memory by the string's
   * length, and past the ceiling a refusal. */
  json = repeated("\"", "ab", 2000, "\"");
  o = encode("{\"type\":\"string\",\"pattern\":\"^(?:(a)|b|\\\\1)*$\"}", json);
  CHECK(strncmp(o.text, "a01f6162", 8) == 0); /* 4000 bytes */
  check_bounded_match("^(?:(a)|b|\\1)*$ on 4000 characters", &o);
  free(json);
  json = repeated("\"", "ab", 150000, "\"");
  o = encode("{\"type\":\"string\",\"pattern\":\"^(?:(a)|b|\\\\1)*$\"}", json);
  CHECK(strstr(o.text, "gave up on this string") != NULL);
  check_bounded_match("the same on 300000 characters", &o);
  free(json);
  /* A leading .* costs nothing: no quadratic scan of a long string. */
  json = repeated("\"", "z", 200000, "q\"");
  o = encode("{\"type\":\"string\",\"pattern\":\".*z$\"}", json);
  CHECK(strstr(o.text, "error: Invalid string: must match pattern \".*z$\"") == o.text);
  check_bounded_match(".*z$ on 200000 z's and a q", &o);
  free(json);
  /* A bound however large allocates nothing. */
  HOSTILE("minLength 1e300", encode("{\"type\":\"string\",\"minLength\":1e300,\"maxLength\":1e308}", "\"abc\""),
          "error: Too short: expected at least 1e+300 characters at $");
  HOSTILE("minItems 1e300", encode("{\"type\":\"array\",\"minItems\":1e300}", "[]"),
          "error: Too few items: expected at least 1e+300 at $");
  /* uniqueItems: hashed, so a million items cost a sort, not a million
   * squared comparisons; items nested past its depth are refused. */
  json = repeated("[", "[1,{\"a\":2}],", 100000, "0]");
  HOSTILE("uniqueItems over 100000 equal items", encode("{\"type\":\"array\",\"uniqueItems\":true}", json),
          "error: Not unique: repeats item 0 (\"uniqueItems\") at $[1]");
  free(json);
  char *deep = repeated("", "[", 200, ""), *item = repeated(deep, "]", 200, "");
  json = repeated("[", item, 1, ",");
  free(deep);
  deep = json;
  json = repeated(deep, item, 1, "]");
  free(item);
  HOSTILE("uniqueItems over items 200 deep", encode("{\"type\":\"array\",\"uniqueItems\":true}", json),
          "error: Items nest deeper than 128 levels, too deep to compare for \"uniqueItems\" at $");
  free(deep);
  free(json);
  /* Subschemas no shape holds, recursive, over a value 5000 arrays deep:
   * the check stops at its depth bound, its marks freed on the way out. */
  json = repeated("", "[", 5000, "");
  deep = repeated(json, "]", 5000, "");
  free(json);
  HOSTILE("untyped items 5000 deep",
          encode("{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/a\"},\"$defs\":{\"a\":{\"items\":{\"$ref\":\"#/$defs/a\"},"
                 "\"unevaluatedItems\":false}}}",
                 deep),
          "error: The schema's keywords nest deeper than 256 subschemas or take more than 4194304 steps on this value at "
          "$[0][0]");
  free(deep);
  /* Schemas: a pattern too long, groups too deep, a thousand patterns. */
  outcome c;
  char *schema = repeated("{\"type\":\"string\",\"pattern\":\"", "a", 300000, "\"}");
  compile_measured(schema, &c);
  CHECK_STR(c.text, "error: Invalid \"pattern\": the pattern is too long at #/pattern");
  check_bounded("a pattern of 300000 characters (compile)", &c);
  free(schema);
  schema = repeated("{\"type\":\"string\",\"pattern\":\"", "(", 100000, "\"}");
  compile_measured(schema, &c);
  CHECK_STR(c.text, "error: Invalid \"pattern\": groups nest deeper than 250 at #/pattern");
  check_bounded("100000 open groups (compile)", &c);
  free(schema);
  char *properties = malloc(1000 * 64), *o2 = properties;
  for (int i = 0; i < 1000; i++) o2 += sprintf(o2, "%s\"p%d\":{\"type\":\"string\",\"pattern\":\"^[a-z]{%d}$\"}", i ? "," : "", i, i % 50);
  schema = repeated("{\"type\":\"object\",\"properties\":{", properties, 1, "}}");
  shorn_schema *many = compile_measured(schema, &c);
  CHECK_STR(c.text, "compiled");
  check_bounded("1000 patterns (compile)", &c);
  shorn_schema_free(many);
  free(properties);
  free(schema);
}

/* ---- JSON input --------------------------------------------------------- */

static void test_json_utf8(void) {
  /* The text must be UTF-8: a string holding anything else is refused at
   * its opening quote, and a stray byte outside one where it stands. */
  static const char *const bad[] = {"\"\xff\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"",
                                    "\"\xe2\x82\"", "\"\xf4\x90\x80\x80\"", "\"a\x80\""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_STR(encode(STRING, bad[i]).text, "error: Invalid JSON: invalid UTF-8 in string at byte 0");
  CHECK_STR(encode(RECORD_OF(UINT), "{\"\xff\":1}").text,
            "error: Invalid JSON: invalid UTF-8 in string at byte 1");
  CHECK_STR(encode(UINT, "\xff").text, "error: Invalid JSON: unexpected byte 0xff at byte 0");
  /* The longest sequences that are valid pass. */
  CHECK_STR(encode(STRING, "\"\xf4\x8f\xbf\xbf\xef\xbf\xbf\"").text, "07f48fbfbfefbfbf");
}

static void test_json_surrogates(void) {
  /* An escape may name half a surrogate pair, as in JavaScript; no string
   * on the wire can hold one, so the encoder refuses it where it is. */
  CHECK_STR(encode(STRING, "\"\\ud800\"").text, "error: String contains an unpaired surrogate at $");
  CHECK_STR(encode(STRING, "\"\\udc00\"").text, "error: String contains an unpaired surrogate at $");
  CHECK_STR(encode(STRING, "\"\\ud800\\u0041\"").text,
            "error: String contains an unpaired surrogate at $");
  CHECK_STR(encode(STRING, "\"\\udc00\\ud800\"").text,
            "error: String contains an unpaired surrogate at $");
  CHECK_STR(encode(ARRAY_OF(ANY), "[\"ok\",\"\\ud800\"]").text,
            "error: String contains an unpaired surrogate at $[1]");
  CHECK_STR(encode(RECORD_OF(UINT), "{\"\\udfff\":1}").text,
            "error: String contains an unpaired surrogate at $.\"\\udfff\"");
  /* A pair is one character. */
  CHECK_STR(encode(STRING, "\"\\ud83d\\ude00\"").text, "04f09f9880");
  CHECK_STR(encode(STRING, "\"\\uD83D\\uDE00\"").text, "04f09f9880");
  /* A bad escape is a JSON error, at the escape. */
  CHECK_STR(encode(STRING, "\"\\ud8\"").text, "error: Invalid JSON: invalid \\u escape at byte 1");
}

static void test_json_depth(void) {
  /* JSON_MAX_DEPTH levels parse; one more is refused where it opens. */
  static char json[2 * JSON_MAX_DEPTH + 8];
  memset(json, '[', JSON_MAX_DEPTH);
  memset(json + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
  arena a = {.allocator = &counting_allocator};
  json_value *v;
  shorn_error e;
  CHECK(json_parse(&a, json, 2 * JSON_MAX_DEPTH, &v, &e) == SHORN_OK);
  arena_free(&a);
  memset(json, '[', JSON_MAX_DEPTH + 1);
  memset(json + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
  CHECK(json_parse(&a, json, 2 * JSON_MAX_DEPTH + 2, &v, &e) == SHORN_ERROR_JSON);
  CHECK(e.offset == JSON_MAX_DEPTH);
  arena_free(&a);
  /* Objects count as levels too. */
  static char objects[4 * JSON_MAX_DEPTH + 8];
  for (int i = 0; i <= JSON_MAX_DEPTH; i++) memcpy(objects + 4 * i, "{\"\":", 4);
  CHECK(json_parse(&a, objects, 4 * JSON_MAX_DEPTH + 4, &v, &e) == SHORN_ERROR_JSON);
  CHECK_STR(e.message, "Invalid JSON: nesting deeper than 10000");
  CHECK(e.offset == 4 * JSON_MAX_DEPTH);
  arena_free(&a);
}

/* The float64 a JSON number encodes to, as 16 hex digits. */
/* The bytes of a float64 read from `json`, by the structure alone: the
 * validated mode refuses what is past the double range (test_codec.c). */
static const char *float64_of(const char *json) {
  static char text[sizeof ((outcome *)0)->text];
  unchecked = true;
  strcpy(text, encode("{\"type\":\"number\"}", json).text);
  unchecked = false;
  return text;
}

static void test_json_numbers(void) {
  /* Beyond the doubles: overflow is Infinity and underflow zero, with the
   * sign kept, as JSON.parse reads them. */
  CHECK_STR(float64_of("1e400"), "000000000000f07f");
  CHECK_STR(float64_of("-1e400"), "000000000000f0ff");
  CHECK_STR(float64_of("2e-324"), "0000000000000000");
  CHECK_STR(float64_of("-2e-324"), "0000000000000080");
  CHECK_STR(float64_of("5e-324"), "0100000000000000");
  CHECK_STR(float64_of("1.7976931348623157e308"), "ffffffffffffef7f");
  CHECK_STR(float64_of("1.7976931348623159e308"), "000000000000f07f");
  /* An integer field takes neither infinity nor an unsafe integer. */
  CHECK_STR(encode(UINT, "1e400").text, "error: Expected an unsigned integer at $");
  CHECK_STR(encode(UINT, "9007199254740993").text, "error: Expected a safe unsigned integer (at most 2^53 - 1) at $");
  CHECK_STR(encode(UINT, "2e-324").text, "00");
  /* A dynamic value keeps Infinity as a float. */
  CHECK_STR(encode(ANY, "1e400").text, "04000000000000f07f");

  /* 400 digits, correctly rounded whatever their length: as strtod reads
   * them (glibc's is correctly rounded), and as a shorter spelling does. */
  char digits[512], *o = digits;
  for (int i = 0; i < 400; i++) *o++ = (char)('1' + i % 9);
  strcpy(o, "e-300");
  double want = strtod(digits, NULL);
  uint64_t bits;
  memcpy(&bits, &want, 8);
  char hex[17];
  for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", (unsigned)(bits >> (8 * i)) & 0xFF);
  CHECK_STR(float64_of(digits), hex);
  char shorter[sizeof ((outcome *)0)->text];
  strcpy(shorter, float64_of("1.2345678912345679e99")); /* float64_of's text is reused */
  CHECK_STR(float64_of(digits), shorter);
  /* 400 digits of an integer overflow to Infinity; 400 zeros after a
   * point and a one underflow to zero. */
  *o = 0;
  CHECK_STR(float64_of(digits), "000000000000f07f");
  o = digits;
  o += sprintf(o, "0.");
  for (int i = 0; i < 400; i++) *o++ = '0';
  strcpy(o, "1");
  CHECK_STR(float64_of(digits), "0000000000000000");
  /* A long spelling of an exact value. */
  o = digits;
  o += sprintf(o, "1.");
  for (int i = 0; i < 400; i++) *o++ = '0';
  strcpy(o, "e0");
  CHECK_STR(float64_of(digits), "000000000000f03f");
  /* Exponents far past any double. */
  CHECK_STR(float64_of("1e-99999999999999999999"), "0000000000000000");
  CHECK_STR(float64_of("0e99999999999999999999"), "0000000000000000");
  CHECK_STR(float64_of("1e99999999999999999999"), "000000000000f07f");
}

/* `json`, whose objects repeat keys, encodes exactly as `last`, the same
 * value with each repeat dropped but its last: JSON.parse's rule. */
static void check_last_wins(const char *schema, const char *json, const char *last) {
  outcome a = encode(schema, json), b = encode(schema, last);
  CHECK(strncmp(b.text, "error", 5) != 0);
  CHECK_STR(a.text, b.text);
}

static void test_json_repeated_keys(void) {
  const char *closed =
      "{\"type\":\"object\",\"properties\":{\"a\":" UINT ",\"b\":" STRING "},\"required\":[\"a\"]}";
  check_last_wins(closed, "{\"a\":1,\"b\":\"x\",\"a\":2}", "{\"b\":\"x\",\"a\":2}");
  /* The earlier value is gone, not checked: a wrong one is no error... */
  check_last_wins(closed, "{\"a\":\"not a number\",\"a\":2}", "{\"a\":2}");
  /* ...and the last one is the one checked. */
  CHECK_STR(encode(closed, "{\"a\":2,\"a\":\"x\"}").text, "error: Expected an unsigned integer, got a string at $.a");
  /* An optional field given twice is present once. */
  check_last_wins(closed, "{\"a\":1,\"b\":\"x\",\"b\":\"y\"}", "{\"a\":1,\"b\":\"y\"}");

  const char *open = "{\"type\":\"object\",\"properties\":{\"a\":" UINT "},\"required\":[\"a\"],"
                     "\"additionalProperties\":" UINT "}";
  check_last_wins(open, "{\"x\":\"bad\",\"a\":1,\"x\":5,\"a\":2,\"y\":3,\"x\":7}",
                  "{\"a\":2,\"y\":3,\"x\":7}");
  CHECK_STR(encode(open, "{\"a\":1,\"x\":1,\"x\":2}").text, "0101017802");

  check_last_wins(RECORD_OF(UINT), "{\"k\":1,\"j\":2,\"k\":3}", "{\"j\":2,\"k\":3}");
  CHECK_STR(encode(RECORD_OF(UINT), "{\"k\":1,\"k\":3}").text, "01016b03");
  check_last_wins(ANY, "{\"k\":[1],\"j\":null,\"k\":{\"k\":1,\"k\":2}}",
                  "{\"j\":null,\"k\":{\"k\":2}}");

  /* A discriminant is read the same way. */
  const char *tagged =
      "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"a\"},\"n\":" UINT
      "},\"required\":[\"kind\",\"n\"]},{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":"
      "\"b\"},\"s\":" STRING "},\"required\":[\"kind\",\"s\"]}]}";
  check_last_wins(tagged, "{\"kind\":\"a\",\"s\":\"x\",\"kind\":\"b\"}", "{\"kind\":\"b\",\"s\":\"x\"}");
}

/* Bytes no value encodes to are refused, not read as some other value. */
static void test_one_encoding(void) {
  /* The discriminant may be an optional field, taking a presence bit; the
   * union's index stands in for it, so the bit must be set. */
  const char *optional =
      "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"a\"}}},"
      "{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"b\"}}}]}";
  CHECK_STR(decode_hex(optional, "0101").text, "{\"k\":\"b\"}");
  CHECK_STR(encode(optional, "{\"k\":\"b\"}").text, "0101");
  CHECK_STR(decode_hex(optional, "0100").text, "error: Union branch 1 omits its discriminant \"k\" at byte 1");
  CHECK_STR(encode(optional, "{}").text, "error: No union branch: the value has no \"k\" at $");
  /* A bitmap cut short is the bitmap's own error. */
  CHECK_STR(decode_hex(optional, "01").text, "error: Unexpected end of input at byte 1");

  /* The discriminant is chosen from a branch's "properties" before the
   * branch is translated, so a "$ref" beside them replaces the branch, or
   * the discriminant's literal, with something that cannot hold it.  Such
   * a branch encodes nothing, and decodes nothing either. */
  const char *replaced =
      "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"a\"}},\"required\":"
      "[\"k\"],\"$ref\":\"#/$defs/S\"},{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"b\"}},"
      "\"required\":[\"k\"]}],\"$defs\":{\"S\":{\"type\":\"string\"}}}";
  CHECK_STR(decode_hex(replaced, "000178").text,
            "error: Union branch 0 cannot hold its discriminant \"k\" at byte 1");
  CHECK_STR(encode(replaced, "{\"k\":\"a\"}").text, "error: Expected a string, got an object at $");
  CHECK_STR(decode_hex(replaced, "01").text, "{\"k\":\"b\"}");
  const char *literal =
      "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"a\",\"$ref\":"
      "\"#/$defs/Z\"}},\"required\":[\"k\"]},{\"type\":\"object\",\"properties\":{\"k\":{"
      "\"const\":\"b\"}},\"required\":[\"k\"]}],\"$defs\":{\"Z\":{\"const\":\"z\"}}}";
  CHECK_STR(decode_hex(literal, "00").text,
            "error: Union branch 0 cannot hold its discriminant \"k\" at byte 1");
  CHECK_STR(decode_hex(literal, "01").text, "{\"k\":\"b\"}");
}

static void test_json_trailing(void) {
  static const struct {
    const char *json, *error;
  } cases[] = {
      {"1 2", "error: Invalid JSON: text after the value at byte 2"},
      {"{} x", "error: Invalid JSON: text after the value at byte 3"},
      {"[1]]", "error: Invalid JSON: text after the value at byte 3"},
      {"\"a\"\"b\"", "error: Invalid JSON: text after the value at byte 3"},
      {"1,", "error: Invalid JSON: text after the value at byte 1"},
      {"[1,]", "error: Invalid JSON: unexpected character ']' at byte 3"},
      {"", "error: Invalid JSON: unexpected end of text at byte 0"},
      {" \n\t", "error: Invalid JSON: unexpected end of text at byte 3"},
      {"\xef\xbb\xbf" "1", "error: Invalid JSON: unexpected byte 0xef at byte 0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    CHECK_STR(encode(ANY, cases[i].json).text, cases[i].error);
  /* White space around the value is no text after it; a NUL is. */
  CHECK_STR(encode(ANY, " \r\n\t1 \r\n\t").text, "0302");
  CHECK_STR(encode_n(ANY, "1\0", 2).text, "error: Invalid JSON: text after the value at byte 1");
}

int main(void) {
  test_hostile_counts();
  test_zero_width();
  test_nesting_bombs();
  test_large_json();
  test_validation_keywords();
  test_json_utf8();
  test_json_surrogates();
  test_json_depth();
  test_json_numbers();
  test_json_repeated_keys();
  test_json_trailing();
  test_one_encoding();
  CHECK(counted.current == 0 && counted.blocks == 0);
  return check_report("hostile");
}
