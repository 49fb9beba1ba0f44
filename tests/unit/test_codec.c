/*
 * test_codec.c — the core codec through its public header: varints and
 * ZigZag, each shape's base cases both ways, and every decoder limit of the
 * byte layout.
 */
#include "check.h"
#include "core/shape/shape.h"

/* Results as text so a failed CHECK_STR shows both sides: the payload in
 * lowercase hex, the decoded JSON, or "error: <message at where>". */
static char result[1 << 16];

static const char *error_text(const shorn_error *e) {
  memcpy(result, "error: ", 7);
  shorn_error_format(e, result + 7, sizeof result - 7);
  return result;
}

static shorn_schema *compile(const char *schema) {
  shorn_schema *s;
  shorn_error e;
  if (shorn_schema_compile(schema, strlen(schema), NULL, &s, &e) != SHORN_OK) {
    fprintf(stderr, "schema does not compile: %s\n%s\n", error_text(&e), schema);
    exit(1);
  }
  return s;
}

/* Whether encode_n is shorn_encode_unchecked's, not shorn_encode's. */
static bool unchecked;

static const char *encode_n(const char *schema, const char *json, size_t n, int width) {
  shorn_schema *s = compile(schema);
  shorn_buffer out = {0};
  shorn_error e;
  const char *r = result;
  if ((unchecked ? shorn_encode_unchecked : shorn_encode)(s, json, n, width, &out, &e) != SHORN_OK) {
    r = error_text(&e);
  } else {
    size_t shown = out.length < sizeof result / 2 - 1 ? out.length : sizeof result / 2 - 1;
    for (size_t i = 0; i < shown; i++) sprintf(result + 2 * i, "%02x", out.data[i]);
    result[2 * shown] = 0;
  }
  shorn_buffer_free(&out);
  shorn_schema_free(s);
  return r;
}

static const char *encode(const char *schema, const char *json) {
  return encode_n(schema, json, strlen(json), 0);
}

static const char *decode_bytes(const char *schema, const uint8_t *bytes, size_t n, int width) {
  shorn_schema *s = compile(schema);
  shorn_buffer out = {0};
  shorn_error e;
  const char *r = result;
  if (shorn_decode(s, bytes, n, width, &out, &e) != SHORN_OK) {
    r = error_text(&e);
  } else {
    size_t shown = out.length < sizeof result - 1 ? out.length : sizeof result - 1;
    memcpy(result, out.data, shown);
    result[shown] = 0;
  }
  shorn_buffer_free(&out);
  shorn_schema_free(s);
  return r;
}

static const char *decode(const char *schema, const char *hex) {
  static uint8_t bytes[1 << 15];
  size_t n = strlen(hex) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    bytes[i] = (uint8_t)v;
  }
  return decode_bytes(schema, bytes, n, 0);
}

#define UINT "{\"type\":\"integer\",\"minimum\":0}"
#define INT "{\"type\":\"integer\"}"
#define STRING "{\"type\":\"string\"}"
#define NUMBER "{\"type\":\"number\"}"
#define ANY "{}"

static void test_varints(void) {
  CHECK_STR(encode(UINT, "0"), "00");
  CHECK_STR(encode(UINT, "127"), "7f");
  CHECK_STR(encode(UINT, "128"), "8001");
  CHECK_STR(encode(UINT, "300"), "ac02");
  CHECK_STR(encode(UINT, "9007199254740991"), "ffffffffffffff0f");
  CHECK_STR(encode(UINT, "-0"), "00");
  /* The validated mode words the shape's lower bound as any other bound's
   * refusal; the structure alone says what the wire takes. */
  CHECK_STR(encode(UINT, "-1"), "error: Too small: expected at least 0 at $");
  unchecked = true;
  CHECK_STR(encode(UINT, "-1"), "error: Expected an unsigned integer at $");
  unchecked = false;
  CHECK_STR(encode(UINT, "1.5"), "error: Expected an unsigned integer at $");
  CHECK_STR(encode(UINT, "9007199254740992"), "error: Expected a safe unsigned integer (at most 2^53 - 1) at $");
  CHECK_STR(encode(UINT, "\"1\""), "error: Expected an unsigned integer, got a string at $");
  CHECK_STR(decode(UINT, "ffffffffffffff0f"), "9007199254740991");
  CHECK_STR(decode(UINT, "8100"), "error: Non-canonical variable-length integer at byte 2");
  CHECK_STR(decode(UINT, "808000"), "error: Non-canonical variable-length integer at byte 3");
  CHECK_STR(decode(UINT, "8080808080808010"), "error: Integer exceeds JavaScript's safe range at byte 8");
  CHECK_STR(decode(UINT, "8080808080808080"), "error: Invalid or unsafe variable-length integer at byte 8");
  CHECK_STR(decode(UINT, "80"), "error: Unexpected end of input at byte 1");
  CHECK_STR(decode(UINT, ""), "error: Unexpected end of input at byte 0");

  /* ZigZag: 0, -1, 1, -2, 2 -> 0, 1, 2, 3, 4. */
  CHECK_STR(encode(INT, "-1"), "01");
  CHECK_STR(encode(INT, "1"), "02");
  CHECK_STR(encode(INT, "-2"), "03");
  CHECK_STR(encode(INT, "63"), "7e");
  CHECK_STR(encode(INT, "64"), "8001");
  CHECK_STR(encode(INT, "-100"), "c701");
  CHECK_STR(encode(INT, "-0"), "00");
  CHECK_STR(encode(INT, "9007199254740991"), "feffffffffffff1f");
  CHECK_STR(encode(INT, "-9007199254740991"), "fdffffffffffff1f");
  CHECK_STR(encode(INT, "4503599627370496"), "8080808080808010");
  CHECK_STR(encode(INT, "9007199254740992"), "error: Expected a safe integer (at most 2^53 - 1 in magnitude) at $");
  CHECK_STR(encode(INT, "-9007199254740993"), "error: Expected a safe integer (at most 2^53 - 1 in magnitude) at $");
  CHECK_STR(encode(INT, "1.5"), "error: Expected an integer at $");
  CHECK_STR(decode(INT, "fdffffffffffff1f"), "-9007199254740991");
  CHECK_STR(decode(INT, "ffffffffffffff1f"), "error: Integer exceeds JavaScript's safe range at byte 8");
  CHECK_STR(decode(INT, "80808080808080808001"), "error: Integer exceeds JavaScript's safe range at byte 10");
  CHECK_STR(decode(INT, "80808080808080808080"), "error: Invalid variable-length integer at byte 10");
  CHECK_STR(decode(INT, "ffffffffffffffff00"), "error: Non-canonical variable-length integer at byte 9");
}

/* A varint as the byte layout reads it, byte by byte: the value, or the
 * error and the offset just past the byte that shows it.  Up to 8 bytes
 * for a uint, 10 for ZigZag, and only the first 56 bits count. */
typedef struct varint_model {
  const char *error;
  size_t at;
  uint64_t value;
} varint_model;

static varint_model model_varint(const uint8_t *p, bool zigzag) {
  const uint64_t safe = 9007199254740991u, most = zigzag ? 2 * safe : safe;
  uint64_t total = 0;
  bool unsafe = false;
  for (size_t i = 0; i < (zigzag ? 10u : 8u); i++) {
    uint8_t b = p[i];
    if (i < 8)
      total |= (uint64_t)(b & 0x7F) << (7 * i);
    else if (b & 0x7F)
      unsafe = true;
    if (!zigzag && total > most) return (varint_model){"Integer exceeds JavaScript's safe range", i + 1, 0};
    if (!(b & 0x80)) {
      if (i > 0 && b == 0) return (varint_model){"Non-canonical variable-length integer", i + 1, 0};
      if (unsafe || total > most) return (varint_model){"Integer exceeds JavaScript's safe range", i + 1, 0};
      return (varint_model){NULL, i + 1, total};
    }
  }
  return (varint_model){zigzag ? "Invalid variable-length integer" : "Invalid or unsafe variable-length integer",
                        zigzag ? 10u : 8u, 0};
}

/* Varints with bytes after them, as in any record, where the decoder reads
 * eight bytes at once: every outcome must be the byte-by-byte reading's. */
static void test_varints_in_context(void) {
  shorn_schema *schemas[2] = {
      compile("{\"type\":\"array\",\"prefixItems\":[" UINT "," STRING "],\"items\":false}"),
      compile("{\"type\":\"array\",\"prefixItems\":[" INT "," STRING "],\"items\":false}")};
  static const uint8_t edges[] = {0x00, 0x01, 0x0F, 0x10, 0x1F, 0x20, 0x3F, 0x40, 0x7E, 0x7F};
  uint64_t seed = 0x9E3779B97F4A7C15u;
  int mismatches = 0;
  for (int trial = 0; trial < 200000; trial++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    bool zigzag = trial & 1;
    size_t length = 1 + (size_t)(seed % 11); /* 1..11: past either limit too */
    uint8_t payload[32];
    for (size_t i = 0; i < length; i++) {
      uint64_t r = seed >> (5 * (i % 12));
      uint8_t bits = r & 1 ? edges[(r >> 1) % sizeof edges] : (uint8_t)(r >> 4) & 0x7F;
      payload[i] = (uint8_t)(bits | (i + 1 < length ? 0x80 : 0));
    }
    payload[length] = 9;
    memcpy(payload + length + 1, "abcdefghi", 9);
    varint_model m = model_varint(payload, zigzag);
    char want[128];
    /* Every byte but the last has its continuation bit, so a varint that
     * is read whole ends at `length`. */
    if (m.error) {
      snprintf(want, sizeof want, "error: %s at byte %zu", m.error, m.at);
    } else {
      int64_t v = zigzag ? ((m.value & 1) ? -(int64_t)(m.value >> 1) - 1 : (int64_t)(m.value >> 1))
                         : (int64_t)m.value;
      snprintf(want, sizeof want, "[%lld,\"abcdefghi\"]", (long long)v);
    }
    shorn_buffer out = {0};
    shorn_error e;
    const char *got = result;
    if (shorn_decode(schemas[zigzag], payload, length + 10, 0, &out, &e) != SHORN_OK) {
      got = error_text(&e);
    } else {
      memcpy(result, out.data, out.length);
      result[out.length] = 0;
    }
    shorn_buffer_free(&out);
    check_count++;
    if (strcmp(got, want) != 0 && mismatches++ < 10) {
      check_failures++;
      fprintf(stderr, "varint of %zu bytes (%s): got \"%s\", want \"%s\"\n", length,
              zigzag ? "int" : "uint", got, want);
    }
  }
  CHECK(mismatches == 0);
  shorn_schema_free(schemas[0]);
  shorn_schema_free(schemas[1]);
}

static void test_scalars(void) {
  CHECK_STR(encode(NUMBER, "1.5"), "000000000000f83f");
  CHECK_STR(encode(NUMBER, "-0"), "0000000000000080");
  /* JSON.parse reads 1e400 as Infinity: the validated mode refuses it, as
   * z.number() does; the structure alone writes it. */
  CHECK_STR(encode(NUMBER, "1e400"), "error: Expected a finite number at $");
  CHECK_STR(encode("{\"type\":\"array\",\"items\":{\"type\":\"number\",\"x-shorn\":\"float32\"}}", "[1,-1e400]"),
            "error: Expected a finite number at $[1]");
  unchecked = true;
  CHECK_STR(encode(NUMBER, "1e400"), "000000000000f07f");
  CHECK_STR(encode(NUMBER, "-1e400"), "000000000000f0ff");
  unchecked = false;
  CHECK_STR(decode(NUMBER, "0000000000000080"), "-0");
  CHECK_STR(decode(NUMBER, "000000000000f07f"), "9e999");
  CHECK_STR(decode(NUMBER, "000000000000f0ff"), "-9e999");
  CHECK_STR(decode(NUMBER, "010000000000f87f"), "null"); /* any NaN payload */
  CHECK_STR(decode(NUMBER, "9a9999999999b93f"), "0.1");
  CHECK_STR(decode(NUMBER, "000000000000f8"), "error: Unexpected end of input at byte 0");

  CHECK_STR(encode("{\"type\":\"boolean\"}", "true"), "01");
  CHECK_STR(encode("{\"type\":\"boolean\"}", "1"), "error: Expected a boolean, got a number at $");
  CHECK_STR(decode("{\"type\":\"boolean\"}", "02"), "error: Invalid boolean 2 at byte 0");

  CHECK_STR(encode(STRING, "\"ab\""), "026162");
  CHECK_STR(encode(STRING, "\"h\\u00e9\""), "0368c3a9");
  CHECK_STR(encode(STRING, "\"\\ud83d\\ude00\""), "04f09f9880");
  CHECK_STR(encode(STRING, "\"\\ud800\""), "error: String contains an unpaired surrogate at $");
  CHECK_STR(decode(STRING, "03efbfbd"), "\"\xef\xbf\xbd\"");
  CHECK_STR(decode(STRING, "02c328"), "error: Invalid UTF-8 at byte 1");
  CHECK_STR(decode(STRING, "03eda080"), "error: Invalid UTF-8 at byte 1");
  CHECK_STR(decode(STRING, "0561"), "error: Unexpected end of input at byte 1");
  CHECK_STR(decode(STRING, "0a0a22085c0d1f7f"), "error: Unexpected end of input at byte 1");
  CHECK_STR(decode(STRING, "070a22085c0d1f7f"), "\"\\n\\\"\\b\\\\\\r\\u001f\x7f\"");
  /* A string that starts with U+FEFF keeps it, U+FFFD or not. */
  CHECK_STR(decode(STRING, "06efbbbfefbfbd"), "\"\xef\xbb\xbf\xef\xbf\xbd\"");

  const char *uuid = "{\"type\":\"string\",\"format\":\"uuid\"}";
  CHECK_STR(encode(uuid, "\"0192e4c6-3c0e-7000-8000-0000000000ff\""), "0192e4c63c0e700080000000000000ff");
  CHECK_STR(encode(uuid, "\"0192E4C6-3C0E-7000-8000-0000000000FF\""), "error: Expected a lowercase UUID at $");
  CHECK_STR(encode(uuid, "\"0192e4c63c0e-7000-8000-0000000000ff0\""), "error: Expected a lowercase UUID at $");
  CHECK_STR(decode(uuid, "0192e4c63c0e700080000000000000ff"), "\"0192e4c6-3c0e-7000-8000-0000000000ff\"");

  CHECK_STR(encode("{\"const\":\"x\"}", "\"x\""), "");
  CHECK_STR(encode("{\"const\":\"x\"}", "\"y\""), "error: Expected the literal \"x\" at $");
  CHECK_STR(encode("{\"const\":0}", "-0"), "error: Expected the literal 0 at $");
  CHECK_STR(decode("{\"const\":1e21}", ""), "1e+21");

  const char *sexes = "{\"enum\":[\"M\",\"F\",\"X\"]}";
  CHECK_STR(encode(sexes, "\"X\""), "02");
  CHECK_STR(encode(sexes, "\"Y\""), "error: Unknown enum value \"Y\" at $");
  CHECK_STR(decode(sexes, "00"), "\"F\"");
  CHECK_STR(decode(sexes, "03"), "error: Unknown enum index 3 at byte 1");
  const char *mixed = "{\"enum\":[404,200,\"ok\",null,false]}";
  CHECK_STR(encode(mixed, "200"), "01");
  CHECK_STR(encode(mixed, "200.0"), "01");
  CHECK_STR(encode("{\"enum\":[0,1]}", "-0"), "error: Unknown enum value 0 at $");
  CHECK_STR(decode(mixed, "04"), "null");
}

static void test_collections(void) {
  const char *uints = "{\"type\":\"array\",\"items\":" UINT "}";
  CHECK_STR(encode(uints, "[1,2,3]"), "03010203");
  CHECK_STR(encode(uints, "[]"), "00");
  CHECK_STR(encode(uints, "[1,-2]"), "error: Too small: expected at least 0 at $[1]");
  CHECK_STR(decode(uints, "03010203"), "[1,2,3]");
  CHECK_STR(decode(uints, "0401"), "error: Array length 4 exceeds the remaining input at byte 1");
  const char *fixed = "{\"type\":\"array\",\"items\":" UINT ",\"minItems\":3,\"maxItems\":3}";
  CHECK_STR(encode(fixed, "[1,2,3]"), "010203");
  CHECK_STR(encode(fixed, "[1,2]"), "error: Expected an array of 3 items at $");
  CHECK_STR(decode(fixed, "0102"), "error: Array length 3 exceeds the remaining input at byte 0");

  const char *tuple = "{\"type\":\"array\",\"prefixItems\":[" UINT ",{\"type\":\"boolean\"}]}";
  CHECK_STR(encode(tuple, "[7,true]"), "0701");
  CHECK_STR(encode(tuple, "[7]"), "error: Expected a tuple of 2 items at $");
  const char *rest = "{\"type\":\"array\",\"prefixItems\":[" STRING "],\"items\":" INT "}";
  CHECK_STR(encode(rest, "[\"a\",1,2]"), "0161020204");
  CHECK_STR(encode(rest, "[\"a\"]"), "016100");
  CHECK_STR(encode(rest, "[\"a\",1,0.5]"), "error: Expected an integer at $[2]");
  CHECK_STR(decode(rest, "0161020204"), "[\"a\",1,2]");

  const char *record = "{\"type\":\"object\",\"additionalProperties\":" INT "}";
  CHECK_STR(encode(record, "{\"b\":2,\"a\":1}"), "02016102016204");
  CHECK_STR(encode(record, "{\"a\":1,\"a\":2}"), "01016104"); /* the last of a repeated key */
  CHECK_STR(encode(record, "{\"\xef\xbc\xa1\":1,\"\xf0\x9f\x98\x80\":2}"), "0204f09f98800403efbca102");
  CHECK_STR(decode(record, "02016102016204"), "{\"a\":1,\"b\":2}");
  CHECK_STR(decode(record, "02016204016102"), "error: Record keys are out of canonical order at byte 6");
  CHECK_STR(decode(record, "02016102016104"), "error: Record keys are out of canonical order at byte 6");
  CHECK_STR(decode(record, "0203efbca10204f09f988004"), "error: Record keys are out of canonical order at byte 11");
  /* Keys as the key writers tell them apart: short plain ASCII, copied
   * whole; escaped; not UTF-8. */
  const char *ids = "{\"138586341\":1,\"138587578\":2}";
  CHECK_STR(encode(record, ids), "0209313338353836333431020931333835383735373804");
  CHECK_STR(decode(record, "0209313338353836333431020931333835383735373804"), ids);
  CHECK_STR(decode(record, "0209313338353837353738020931333835383633343104"),
            "error: Record keys are out of canonical order at byte 22");
  CHECK_STR(encode(record, "{\"a\\\"b\":1}"), "010361226202");
  CHECK_STR(decode(record, "010361226202"), "{\"a\\\"b\":1}");
  CHECK_STR(decode(record, "0108746162096865726502"), "{\"tab\\there\":1}");
  CHECK_STR(decode(record, "01093133383538363334c302"), "error: Invalid UTF-8 at byte 2");
}

#define OBJECT_AB \
  "{\"type\":\"object\",\"properties\":{\"a\":" UINT ",\"b\":" UINT "},\"required\":[\"b\"]}"

static void test_objects(void) {
  CHECK_STR(encode(OBJECT_AB, "{\"a\":1,\"b\":2}"), "010102");
  CHECK_STR(encode(OBJECT_AB, "{\"b\":2}"), "0002");
  CHECK_STR(encode(OBJECT_AB, "{\"a\":1}"), "error: Missing required property at $.b");
  CHECK_STR(encode(OBJECT_AB, "{\"b\":2,\"c\":3}"), "error: Unknown object property \"c\" at $");
  CHECK_STR(encode(OBJECT_AB, "[]"), "error: Expected an object, got an array at $");
  CHECK_STR(decode(OBJECT_AB, "0002"), "{\"b\":2}");
  CHECK_STR(decode(OBJECT_AB, "010102"), "{\"a\":1,\"b\":2}");
  CHECK_STR(decode(OBJECT_AB, "0202"), "error: Non-canonical presence bitmap padding at byte 1");
  const char *dropping = "{\"type\":\"object\",\"properties\":{\"b\":" UINT "},\"required\":[\"b\"],"
                         "\"additionalProperties\":false}";
  CHECK_STR(encode(dropping, "{\"b\":2,\"c\":3}"), "02");

  const char *loose = "{\"type\":\"object\",\"properties\":{\"a\":" STRING "},\"required\":[\"a\"],"
                      "\"additionalProperties\":{}}";
  CHECK_STR(encode(loose, "{\"a\":\"x\"}"), "017800");
  CHECK_STR(encode(loose, "{\"a\":\"x\",\"n\":5}"), "017801016e030a");
  CHECK_STR(decode(loose, "017801016e030a"), "{\"a\":\"x\",\"n\":5}");
  CHECK_STR(decode(loose, "0178010161050179"),
            "error: Extra property \"a\" repeats a declared field at byte 8");
  /* Declared fields and extras come out together in canonical order. */
  const char *catchall = "{\"type\":\"object\",\"properties\":{\"a\":" STRING ",\"o\":" UINT "},"
                         "\"required\":[\"a\"],\"additionalProperties\":" UINT "}";
  CHECK_STR(encode(catchall, "{\"a\":\"x\",\"o\":3,\"z\":9,\"b\":8}"), "0101780302016208017a09");
  CHECK_STR(decode(catchall, "0101780302016208017a09"), "{\"a\":\"x\",\"b\":8,\"o\":3,\"z\":9}");

  /* Declared c, a, b: the encoder tries the declared successor of each
   * matched field first, so every member order, repeats included, must
   * still find its field. */
  const char *declared = "{\"type\":\"object\",\"properties\":{\"c\":" UINT ",\"a\":" UINT
                         ",\"b\":" UINT "},\"required\":[\"a\",\"b\",\"c\"],"
                         "\"additionalProperties\":false}";
  static const char *const orders[] = {
      "{\"c\":3,\"a\":1,\"b\":2}", "{\"a\":1,\"b\":2,\"c\":3}", "{\"b\":2,\"a\":1,\"c\":3}",
      "{\"c\":9,\"a\":1,\"b\":2,\"c\":3}", "{\"c\":3,\"c\":3,\"a\":1,\"b\":2}",
      "{\"a\":7,\"b\":2,\"c\":3,\"a\":1}"};
  for (size_t i = 0; i < sizeof orders / sizeof *orders; i++)
    CHECK_STR(encode(declared, orders[i]), "010203");
  CHECK_STR(encode(declared, "{\"c\":3,\"a\":1}"), "error: Missing required property at $.b");

  const char *nullable = "{\"anyOf\":[" UINT ",{\"type\":\"null\"}]}";
  CHECK_STR(encode(nullable, "null"), "00");
  CHECK_STR(encode(nullable, "5"), "0105");
  CHECK_STR(decode(nullable, "0105"), "5");
  CHECK_STR(decode(nullable, "02"), "error: Invalid nullable marker at byte 0");

  const char *event = "{\"oneOf\":["
                      "{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"key\"},\"code\":" STRING "},\"required\":[\"kind\",\"code\"]},"
                      "{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"click\"},\"x\":" INT "},\"required\":[\"kind\",\"x\"]}]}";
  CHECK_STR(encode(event, "{\"kind\":\"click\",\"x\":3}"), "0006");
  CHECK_STR(encode(event, "{\"kind\":\"key\",\"code\":\"a\"}"), "010161");
  CHECK_STR(encode(event, "{\"kind\":\"drag\"}"), "error: No union branch has \"kind\" = \"drag\" at $");
  CHECK_STR(decode(event, "010161"), "{\"code\":\"a\",\"kind\":\"key\"}");
  CHECK_STR(decode(event, "02"), "error: Unknown union branch 2 at byte 1");

  const char *disjoint = "{\"anyOf\":[" STRING "," NUMBER "]}";
  CHECK_STR(encode(disjoint, "\"hi\""), "01026869");
  CHECK_STR(encode(disjoint, "42"), "000000000000004540");
  CHECK_STR(encode(disjoint, "true"), "error: No union branch holds boolean at $");
}

#define NODE                                                                                        \
  "{\"type\":\"object\",\"properties\":{\"value\":" STRING ",\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}}," \
  "\"required\":[\"value\",\"children\"]}"

static void test_dynamic_and_recursion(void) {
  CHECK_STR(encode(ANY, "null"), "00");
  CHECK_STR(encode(ANY, "5"), "030a");
  CHECK_STR(encode(ANY, "-0"), "040000000000000080");
  CHECK_STR(encode(ANY, "1.0"), "0302");
  CHECK_STR(encode(ANY, "9007199254740992"), "040000000000004043");
  CHECK_STR(encode(ANY, "{\"b\":1,\"a\":2}"), "07020161030401620302");
  CHECK_STR(encode(ANY, "[1,\"a\"]"), "06020302050161");
  CHECK_STR(decode(ANY, "04000000000000f03f"), "error: Non-canonical dynamic number at byte 9");
  CHECK_STR(decode(ANY, "040000000000000080"), "-0");
  CHECK_STR(decode(ANY, "08"), "error: Unknown dynamic tag 8 at byte 0");
  CHECK_STR(decode(ANY, "0702016100016100"), "error: Record keys are out of canonical order at byte 7");

  /* 64 nested containers are fine, 65 are not, on both sides. */
  char deep[200], bytes_hex[400];
  for (int n = 64; n <= 65; n++) {
    memset(deep, '[', (size_t)n);
    memset(deep + n, ']', (size_t)n);
    deep[2 * n] = 0;
    const char *r = encode(ANY, deep);
    if (n == 64) {
      CHECK(strlen(r) == 4 * 64);
      strcpy(bytes_hex, r);
      CHECK_STR(decode(ANY, bytes_hex), deep);
    } else {
      CHECK_STR(r, "error: Dynamic value nests deeper than 64 at $[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]");
    }
  }
  /* 200 bytes of 0x06: each level is a tag and a count of 6, so the 65th
   * tag sits at byte 128. */
  char tags[401];
  for (int i = 0; i < 200; i++) memcpy(tags + 2 * i, "06", 2);
  tags[400] = 0;
  CHECK_STR(decode(ANY, tags), "error: Dynamic value nests deeper than 64 at byte 129");

  CHECK_STR(encode(NODE, "{\"value\":\"a\",\"children\":[]}"), "000161");
  CHECK_STR(encode(NODE, "{\"value\":\"a\",\"children\":[{\"value\":\"b\",\"children\":[]}]}"), "010001620161");
  CHECK_STR(decode(NODE, "010001620161"), "{\"children\":[{\"children\":[],\"value\":\"b\"}],\"value\":\"a\"}");

  /* 256 levels of one definition decode and encode; 257 do not. */
  static char json[16384], payload[4096];
  for (int levels = 256; levels <= 257; levels++) {
    char *j = json;
    for (int i = 0; i < levels; i++) j += sprintf(j, "{\"value\":\"\",\"children\":[");
    for (int i = 0; i < levels; i++) j += sprintf(j, "]}");
    const char *r = encode(NODE, json);
    if (levels == 256) {
      CHECK(strncmp(r, "error", 5) != 0);
      strcpy(payload, r);
      const char *prefix = "{\"children\":[{\"children\":[{";
      CHECK(strncmp(decode(NODE, payload), prefix, strlen(prefix)) == 0);
    } else {
      CHECK(strstr(r, "error: Recursive value nests deeper than 256 at $.children[0]") == r);
    }
  }
  char over[1200];
  for (int i = 0; i < 257; i++) memcpy(over + 2 * i, "01", 2);
  over[514] = 0;
  CHECK(strstr(decode(NODE, over), "error: Recursive value nests deeper than 256 at byte 256") != NULL);
}

static void test_limits(void) {
  const char *uints = "{\"type\":\"array\",\"items\":" UINT "}";
  /* A count over the limit is refused before the input is consulted. */
  CHECK_STR(decode(uints, "c1843d00"), "error: Array length 1000001 exceeds the limit of 1000000 at byte 3");
  CHECK_STR(decode(uints, "c0843d00"), "error: Array length 1000000 exceeds the remaining input at byte 3");
  CHECK_STR(decode(STRING, "8180808001"), "error: Byte length 268435457 exceeds the limit of 67108864 at byte 5");
  CHECK_STR(decode(STRING, "8180802061"), "error: Byte length 67108865 exceeds the limit of 67108864 at byte 4");
  CHECK_STR(decode(STRING, "8080802061"), "error: Unexpected end of input at byte 4");
  CHECK_STR(decode("{\"type\":\"object\",\"additionalProperties\":" UINT "}", "c0843d"),
            "error: Record size 1000000 exceeds the remaining input at byte 3");

  /* Zero-width elements: a fixed count of them decodes from nothing, up to
   * the slot bound the schema is checked against. */
  const char *xs = "{\"type\":\"array\",\"items\":{\"const\":\"x\"},\"minItems\":3,\"maxItems\":3}";
  CHECK_STR(decode(xs, ""), "[\"x\",\"x\",\"x\"]");
  shorn_schema *s;
  shorn_error e;
  const char *huge = "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"const\":1},"
                     "\"minItems\":1000,\"maxItems\":1000},\"minItems\":1000,\"maxItems\":1000}";
  CHECK(shorn_schema_compile(huge, strlen(huge), NULL, &s, &e) == SHORN_ERROR_SCHEMA);
  const char *zero_width = "{\"type\":\"array\",\"items\":{\"const\":1}}";
  CHECK(shorn_schema_compile(zero_width, strlen(zero_width), NULL, &s, &e) == SHORN_ERROR_SCHEMA);

  CHECK_STR(decode(UINT, "0100"), "error: Unexpected trailing data at byte 1");
}

static void test_fingerprints(void) {
  const char *person = "{\"type\":\"object\",\"properties\":{\"name\":" STRING ",\"age\":" UINT
                       ",\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]}},\"required\":[\"name\",\"age\",\"sex\"]}";
  const char *grace = "{\"name\":\"Grace\",\"age\":45,\"sex\":\"F\"}";
  CHECK_STR(encode(person, grace), "2d05477261636500");
  CHECK_STR(encode_n(person, grace, strlen(grace), 3), "7236d12d05477261636500");
  CHECK_STR(encode_n(person, grace, strlen(grace), 4), "a3b4e3de2d05477261636500");
  static const uint8_t enveloped[] = {0x72, 0x36, 0xd1, 0x2d, 0x05, 'G', 'r', 'a', 'c', 'e', 0x00};
  CHECK_STR(decode_bytes(person, enveloped, sizeof enveloped, 3), "{\"age\":45,\"name\":\"Grace\",\"sex\":\"F\"}");
  CHECK_STR(decode_bytes(person, enveloped, 2, 3), "error: Unexpected end of input at byte 2");
  CHECK_STR(decode_bytes(person, enveloped, sizeof enveloped, 2),
            "error: Payload was written by a different schema (expected fingerprint da68) at byte 0");
  CHECK_STR(encode_n(person, grace, strlen(grace), 5), "error: Fingerprint width must be 0 (no fingerprint), 1, 2, 3 or 4");
  CHECK_STR(decode_bytes(person, enveloped, sizeof enveloped, -1),
            "error: Fingerprint width must be 0 (no fingerprint), 1, 2, 3 or 4");
}

#define DATETIME "{\"type\":\"string\",\"format\":\"date-time\"}"
#define BIGINT "{\"type\":\"string\",\"x-shorn\":\"bigint\"}"
#define BYTES "{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"}"
#define FLOAT32 "{\"type\":\"number\",\"x-shorn\":\"float32\"}"
#define SET_OF(t) "{\"type\":\"array\",\"items\":" t ",\"uniqueItems\":true,\"x-shorn\":\"set\"}"
#define MAP_OF(k, v)                                                                       \
  "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" k "," v "],\"items\":false," \
  "\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}"

/* Encode, then decode the payload again: the value must come back. */
static void check_round_trip(const char *schema, const char *json, const char *hex) {
  CHECK_STR(encode(schema, json), hex);
  char payload[1024];
  snprintf(payload, sizeof payload, "%s", hex);
  CHECK_STR(decode(schema, payload), json);
}

static void test_datetime(void) {
  check_round_trip(DATETIME, "\"2026-09-03T12:00:00.000Z\"", "80889ff28c68");
  check_round_trip(DATETIME, "\"1970-01-01T00:00:00.000Z\"", "00");
  check_round_trip(DATETIME, "\"1969-12-31T23:59:59.999Z\"", "01");
  check_round_trip(DATETIME, "\"2039-09-07T15:47:35.551Z\"", "feffffffff7f");     /* six bytes */
  check_round_trip(DATETIME, "\"2039-09-07T15:47:35.552Z\"", "80808080808001"); /* seven */
  check_round_trip(DATETIME, "\"+275760-09-13T00:00:00.000Z\"", "8080e0ad9882d91e");
  check_round_trip(DATETIME, "\"-271821-04-20T00:00:00.000Z\"", "ffffdfad9882d91e");
  CHECK_STR(decode(DATETIME, "8280e0ad9882d91e"),
            "error: Date-time 8640000000000001 ms is outside the range of a Date at byte 8");
  CHECK_STR(decode(DATETIME, "8180e0ad9882d91e"),
            "error: Date-time -8640000000000001 ms is outside the range of a Date at byte 8");
  const char *refusal = "error: Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ) at $";
  /* Only the milliseconds missing: the refusal names the spelling that encodes. */
  CHECK_STR(encode(DATETIME, "\"2026-09-03T12:00:00Z\""), "error: Expected a date-time as toISOString writes it "
                                                         "(YYYY-MM-DDTHH:mm:ss.sssZ); 2026-09-03T12:00:00.000Z encodes at $");
  CHECK_STR(encode(DATETIME, "\"2026-09-03T12:00:00.000+00:00\""), refusal);
  CHECK_STR(encode(DATETIME, "\"2026-09-03t12:00:00.000z\""), refusal);
  CHECK_STR(encode(DATETIME, "\"+275760-09-13T00:00:00.001Z\""), refusal);
  CHECK_STR(encode(DATETIME, "1788436800000"), refusal);
}

static void test_bigint(void) {
  check_round_trip(BIGINT, "\"0\"", "00");
  check_round_trip(BIGINT, "\"-256\"", "050001");
  check_round_trip(BIGINT, "\"18446744073709551616\"", "12000000000000000001");
  CHECK_STR(encode(BIGINT, "5"), "0205");   /* a safe integer is accepted */
  CHECK_STR(encode(BIGINT, "-0"), "00");
  CHECK_STR(encode(BIGINT, "9007199254740992"), "error: Expected a BigInt as a decimal string, or a safe integer at $");
  CHECK_STR(encode(BIGINT, "\"007\""), "error: Expected a BigInt as a decimal string, or a safe integer at $");
  CHECK_STR(encode(BIGINT, "\"-0\""), "error: Expected a BigInt as a decimal string, or a safe integer at $");
  CHECK_STR(decode(BIGINT, "01"), "error: Non-canonical bigint at byte 1");
  CHECK_STR(decode(BIGINT, "040100"), "error: Non-canonical bigint at byte 3");
  /* A header claiming 64 MiB + 1 bytes is refused before the input is; one
   * claiming 64 MiB is checked against the (short) input. */
  CHECK_STR(decode(BIGINT, "82808040"), "error: BigInt magnitude of 67108865 bytes exceeds the limit of 67108864 at byte 4");
  CHECK_STR(decode(BIGINT, "8080804000"), "error: Unexpected end of input at byte 4");
}

static void test_bytes_and_float32(void) {
  check_round_trip(BYTES, "\"CQk=\"", "020909");
  check_round_trip(BYTES, "\"\"", "00");
  check_round_trip(BYTES, "\"//79\"", "03fffefd");
  CHECK_STR(encode(BYTES, "\"CQk\""), "error: Expected standard base64 with padding at $");
  CHECK_STR(encode(BYTES, "\"CQl=\""), "error: Expected standard base64 with padding at $");
  CHECK_STR(decode(BYTES, "0309"), "error: Unexpected end of input at byte 1");

  check_round_trip(FLOAT32, "1.5", "0000c03f");
  CHECK_STR(encode(FLOAT32, "0.1"), "cdcccc3d");
  CHECK_STR(decode(FLOAT32, "cdcccc3d"), "0.10000000149011612"); /* the float32, as a double */
  CHECK_STR(encode(FLOAT32, "3.4028235e38"), "ffff7f7f");         /* FLT_MAX */
  CHECK_STR(encode(FLOAT32, "3.4028235677973362e38"), "ffff7f7f"); /* still rounds down */
  CHECK_STR(encode(FLOAT32, "3.4028235677973366e38"), "0000807f"); /* 2^128 - 2^103 rounds up */
  CHECK_STR(encode(FLOAT32, "1e39"), "0000807f");
  CHECK_STR(encode(FLOAT32, "-1e39"), "000080ff");
  CHECK_STR(decode(FLOAT32, "0000807f"), "9e999");
  CHECK_STR(encode(FLOAT32, "1e-50"), "00000000");
  CHECK_STR(encode(FLOAT32, "-1e-50"), "00000080");
  CHECK_STR(decode(FLOAT32, "00000080"), "-0");
  CHECK_STR(encode(FLOAT32, "\"1\""), "error: Expected a number, got a string at $");
}

#define POINT "{\"type\":\"object\",\"properties\":{\"k\":" UINT "},\"required\":[\"k\"]}"

static void test_sets_and_maps(void) {
  check_round_trip(SET_OF(STRING), "[\"a\",\"b\"]", "0201610162");
  CHECK_STR(encode(SET_OF(STRING), "[\"a\",\"a\"]"), "error: Set element repeats an earlier element at $[1]");
  CHECK_STR(decode(SET_OF(STRING), "0201610161"), "error: Set element repeats an earlier element at byte 3");
  /* SameValueZero: 0 and -0 are one element; objects never repeat. */
  CHECK_STR(encode(SET_OF(NUMBER), "[0,-0]"), "error: Set element repeats an earlier element at $[1]");
  CHECK_STR(encode(SET_OF(ANY), "[1,1.0]"), "error: Set element repeats an earlier element at $[1]");
  CHECK_STR(encode(SET_OF(ANY), "[0,-0]"), "error: Set element repeats an earlier element at $[1]");
  CHECK_STR(encode(SET_OF(ANY), "[null,null]"), "error: Set element repeats an earlier element at $[1]");
  CHECK_STR(encode(SET_OF("{\"anyOf\":[" STRING ",{\"type\":\"null\"}]}"), "[null,\"a\",null]"),
            "error: Set element repeats an earlier element at $[2]");
  CHECK_STR(decode(SET_OF(ANY), "02030004000000000000008000"), "error: Set element repeats an earlier element at byte 3");
  CHECK_STR(decode(SET_OF(NUMBER), "02010000000000f87f020000000000f87f"),
            "error: Set element repeats an earlier element at byte 9"); /* NaN equals NaN */
  check_round_trip(SET_OF(POINT), "[{\"k\":1},{\"k\":1}]", "020101");
  check_round_trip(SET_OF(ANY), "[[1],[1]]", "020601030206010302");
  check_round_trip(SET_OF(BYTES), "[\"CQk=\",\"CQk=\"]", "02020909020909");
  /* Nested Sets: the inner Sets are objects, so equal ones do not clash;
   * a repeat inside one does. */
  check_round_trip(SET_OF(SET_OF(STRING)), "[[\"a\"],[\"a\"]]", "02010161010161");
  CHECK_STR(encode(SET_OF(SET_OF(STRING)), "[[\"a\",\"a\"]]"), "error: Set element repeats an earlier element at $[0][1]");

  check_round_trip(MAP_OF(STRING, UINT), "[[\"x\",1],[\"y\",300]]", "020178010179ac02");
  CHECK_STR(encode(MAP_OF(STRING, UINT), "[[\"x\",1],[\"x\",2]]"), "error: Map key repeats an earlier key at $[1][0]");
  CHECK_STR(decode(MAP_OF(STRING, UINT), "02017801017802"), "error: Map key repeats an earlier key at byte 4");
  CHECK_STR(encode(MAP_OF(STRING, UINT), "[[\"x\"]]"), "error: Expected a [key, value] pair at $[0]");
  CHECK_STR(encode(MAP_OF(STRING, UINT), "{\"x\":1}"), "error: Expected an array of [key, value] pairs at $");
  check_round_trip(MAP_OF(POINT, UINT), "[[{\"k\":1},1],[{\"k\":1},2]]", "0201010102");
  check_round_trip(MAP_OF(STRING, MAP_OF(UINT, BIGINT)), "[[\"a\",[[1,\"-1\"]]],[\"b\",[]]]",
                   "02016101010301016200");
  CHECK_STR(decode(MAP_OF(STRING, UINT), "c0843d"), "error: Map size 1000000 exceeds the remaining input at byte 3");
}

/* A string value of every length around the encoder's inline copy (up to
 * 32 bytes) and past it, plain and with an escape (copied from the parser's
 * arena then): its length and its bytes, whatever their count, and back. */
static void test_string_lengths(void) {
  for (size_t n = 0; n <= 80; n++) {
    for (int escaped = 0; escaped < 2; escaped++) {
      if (escaped && !n) continue;
      char json[100], want[300], body[90];
      for (size_t i = 0; i < n; i++) body[i] = (char)('a' + i % 26);
      if (escaped) body[n / 2] = '"';
      size_t j = 0;
      json[j++] = '"';
      for (size_t i = 0; i < n; i++) {
        if (body[i] == '"') json[j++] = '\\';
        json[j++] = body[i];
      }
      json[j++] = '"';
      json[j] = 0;
      size_t w = (size_t)sprintf(want, "%02x", (unsigned)n);
      for (size_t i = 0; i < n; i++) w += (size_t)sprintf(want + w, "%02x", (unsigned char)body[i]);
      CHECK_STR(encode(STRING, json), want);
      CHECK_STR(decode(STRING, want), json);
    }
  }
}

int main(void) {
  test_varints();
  test_varints_in_context();
  test_scalars();
  test_collections();
  test_objects();
  test_dynamic_and_recursion();
  test_limits();
  test_fingerprints();
  test_datetime();
  test_bigint();
  test_bytes_and_float32();
  test_sets_and_maps();
  test_string_lengths();
  return check_report("codec");
}
