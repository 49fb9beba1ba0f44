/*
 * evolve.c — libFuzzer harness for schema evolution (core/evolve): a pair
 * of schemas, a writer and a reader, then payload bytes of the writer's,
 * through evolve_check and evolve_upgrade.
 *
 * The input's first byte says where the pair comes from and how the
 * payload is framed: its low two bits 0 or 3, a pair of the list below,
 * which evolve_check accepts, by the next byte; 1, a writer and a reader
 * from tests/fuzz/schemas.jsonl, by two bytes each (little endian, modulo
 * the line count, as fuzz.h picks); 2, one line of it as both.  Bits 2-4
 * give the fingerprint width (modulo 5), both sides'; bit 5 leaves the
 * payload's fingerprint as the input has it, where otherwise the harness
 * puts the writer's own in front of the rest of the input.
 *
 * evolve_check answers for any pair, never a crash or a leak, each reason
 * at a JSON Pointer; evolve_plan_new makes a plan for the pairs it accepts
 * and refuses the others.  evolve_upgrade, with a plan and any bytes,
 * gives a payload or a decode or encode error, and on failure leaves what
 * its output held; a payload it gives starts with the reader's
 * fingerprint and decodes with the reader to strict canonical JSON.  Of a pair it accepted, every payload the writer
 * decodes is upgraded (NaNs made infinities first, as fuzz.h's round trip
 * does, since JSON carries none); and a schema read as itself decodes to
 * what it did.
 */
#include "fuzz.h"

#include "core/evolve/evolve.h"

#define T(x) "{\"type\":\"" x "\"}"
#define OBJ(props, required) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required "]}"
#define TREE(v, extra, required)                                                                      \
  "{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"v\":" v extra \
  ",\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}},\"required\":[" required "]}}}"
#define MAP(k, v) \
  "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" k "," v "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}"

/* Pairs evolve_check accepts, a rule or a few each.  Only ever appended
 * to, so that a saved input keeps meaning the same pair. */
static const char *const pair_texts[][2] = {
    {OBJ("\"a\":" T("integer") ",\"b\":" T("string"), "\"a\",\"b\""),
     OBJ("\"a\":" T("number") ",\"c\":{\"type\":\"string\",\"default\":\"d\"},\"e\":" T("boolean"), "\"a\",\"c\"")},
    {OBJ("\"a\":" T("integer"), ""), OBJ("\"a\":{\"type\":\"integer\",\"default\":7}", "\"a\"")},
    {OBJ("\"i\":" T("integer") ",\"u\":{\"type\":\"integer\",\"minimum\":0},\"f\":{\"type\":\"number\",\"x-shorn\":\"float32\"}",
         "\"i\",\"u\",\"f\""),
     OBJ("\"i\":" T("number") ",\"u\":" T("integer") ",\"f\":" T("number"), "\"i\",\"u\",\"f\"")},
    {OBJ("\"id\":{\"type\":\"string\",\"format\":\"uuid\"},\"at\":{\"type\":\"string\",\"format\":\"date-time\"}",
         "\"id\",\"at\""),
     OBJ("\"id\":" T("string") ",\"at\":" T("string"), "\"id\"")},
    {OBJ("\"e\":{\"enum\":[\"b\",\"c\"]},\"l\":{\"const\":\"x\"}", "\"e\",\"l\""),
     OBJ("\"e\":{\"enum\":[\"a\",\"b\",\"c\"]},\"l\":{\"enum\":[\"x\",\"y\"]}", "\"e\",\"l\"")},
    {OBJ("\"n\":" T("integer") ",\"m\":{\"type\":[\"string\",\"null\"]}", "\"n\""),
     OBJ("\"n\":{\"type\":[\"number\",\"null\"]},\"m\":{\"type\":[\"string\",\"null\"]}", "\"n\"")},
    {OBJ("\"u\":{\"anyOf\":[" T("string") "," OBJ("\"a\":" T("integer") ",\"b\":" T("integer"), "\"a\"") "]}", "\"u\""),
     OBJ("\"u\":{\"anyOf\":[" T("boolean") "," T("string") "," OBJ(
             "\"a\":" T("number") ",\"c\":{\"type\":\"boolean\",\"default\":false}", "\"a\",\"c\"") "]}",
         "\"u\"")},
    {"{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" T("integer"), "\"k\",\"x\"") "," OBJ(
         "\"k\":{\"const\":\"b\"},\"y\":" T("string") ",\"old\":" T("integer"), "\"k\",\"y\"") "]}",
     "{\"oneOf\":[" OBJ("\"k\":{\"const\":\"c\"}", "\"k\"") "," OBJ(
         "\"k\":{\"const\":\"b\"},\"y\":" T("string") ",\"z\":{\"type\":\"integer\",\"default\":3}",
         "\"k\",\"y\",\"z\"") "," OBJ("\"k\":{\"const\":\"a\"},\"x\":" T("number"), "\"k\",\"x\"") "]}"},
    {"{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ(
         "\"a\":" T("integer") ",\"b\":" T("integer"), "\"a\"") "}",
     "{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ(
         "\"a\":" T("integer") ",\"c\":{\"type\":\"string\",\"default\":\"d\"}", "\"a\",\"c\"") "}"},
    {MAP(T("string"), OBJ("\"a\":" T("integer") ",\"b\":" T("integer"), "\"a\"")),
     MAP(T("string"), OBJ("\"a\":" T("number"), "\"a\""))},
    {"{\"type\":\"array\",\"prefixItems\":[" T("integer") "," OBJ("\"a\":" T("integer") ",\"b\":" T("integer"), "\"a\"")
     "],\"items\":" OBJ("\"z\":" T("integer") ",\"gone\":" T("integer"), "\"z\"") "}",
     "{\"type\":\"array\",\"prefixItems\":[" T("number") "," OBJ("\"a\":" T("integer"), "\"a\"") "],\"items\":" OBJ(
         "\"z\":" T("integer"), "\"z\"") "}"},
    {"{\"type\":\"array\",\"items\":" T("integer") ",\"uniqueItems\":true,\"x-shorn\":\"set\"}",
     "{\"type\":\"array\",\"items\":" T("number") ",\"uniqueItems\":true,\"x-shorn\":\"set\"}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":" T("integer") ",\"b\":" T("integer")
     "},\"required\":[\"a\"],\"additionalProperties\":" T("string") "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" T("integer") "},\"required\":[\"a\"],\"additionalProperties\":" T(
         "string") "}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":" T("integer") "},\"additionalProperties\":" OBJ(
         "\"p\":" T("integer") ",\"q\":" T("integer"), "\"p\"") "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" T("integer") ",\"x\":" OBJ("\"p\":" T("number"), "\"p\"")
     "},\"additionalProperties\":false}"},
    {TREE(T("integer"), "", "\"v\""), TREE(T("number"), ",\"w\":{\"type\":\"string\",\"default\":\"-\"}", "\"v\",\"w\"")},
    {"{\"type\":\"array\",\"items\":" OBJ("\"xs\":{\"type\":\"array\",\"items\":" OBJ("\"a\":" T("integer") ",\"old\":" T(
         "boolean"), "\"a\"") "}", "\"xs\"") "}",
     "{\"type\":\"array\",\"items\":" OBJ("\"xs\":{\"type\":\"array\",\"items\":" OBJ(
         "\"a\":" T("integer") ",\"p\":{\"type\":\"object\",\"properties\":{\"q\":" T("integer") "},\"default\":{\"q\":1}}",
         "\"a\",\"p\"") "}", "\"xs\"") "}"},
    {OBJ("\"a\":{\"type\":\"integer\",\"maximum\":5},\"s\":{\"type\":\"string\",\"maxLength\":2}", "\"a\",\"s\""),
     OBJ("\"a\":{\"type\":\"integer\",\"maximum\":3,\"multipleOf\":2},\"s\":{\"type\":\"string\",\"pattern\":\"^z\"}", "\"a\",\"s\"")},
    {OBJ("\"big\":{\"type\":\"string\",\"x-shorn\":\"bigint\"},\"raw\":{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"}",
         "\"big\""),
     OBJ("\"big\":{\"type\":\"string\",\"x-shorn\":\"bigint\"},\"raw\":{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"},"
         "\"any\":{}",
         "\"big\"")},
    {OBJ("\"a\":" OBJ("\"b\":" T("string"), "\"b\""), "\"a\""), OBJ("\"a\":{}", "\"a\"")},
    {"{\"type\":\"object\",\"properties\":{\"a\":" T("integer") "},\"additionalProperties\":" T("integer") "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" T("number") ",\"x\":" T("number") "},\"additionalProperties\":" T(
         "number") "}"},
};

#define PAIRS (sizeof pair_texts / sizeof *pair_texts)

static shorn_schema *pairs[PAIRS][2];

static void free_pairs(void) {
  for (size_t i = 0; i < PAIRS; i++) shorn_schema_free(pairs[i][0]), shorn_schema_free(pairs[i][1]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_schemas();
  atexit(free_pairs);
  for (size_t i = 0; i < PAIRS; i++) {
    for (int j = 0; j < 2; j++) {
      shorn_error e;
      if (shorn_schema_compile(pair_texts[i][j], strlen(pair_texts[i][j]), &counting_allocator, &pairs[i][j], &e)) {
        fprintf(stderr, "evolve harness: pair %zu, %s does not compile: %s\n", i, j ? "reader" : "writer", e.message);
        exit(2);
      }
    }
    shorn_buffer why = {.allocator = &counting_allocator};
    if (evolve_check(pairs[i][0], pairs[i][1], &why) != SHORN_OK || why.length) {
      fprintf(stderr, "evolve harness: pair %zu is refused: %.*s\n", i, (int)why.length, (const char *)why.data);
      exit(2);
    }
    shorn_buffer_free(&why);
  }
  return 0;
}

static void check_pair(const shorn_schema *w, const shorn_schema *r, bool same, int width, bool as_given,
                       const uint8_t *data, size_t size) {
  counting_mark();
  shorn_buffer why = {.allocator = &counting_allocator};
  FUZZ_CHECK(evolve_check(w, r, &why) == SHORN_OK);
  bool accepted = why.length == 0;
  FUZZ_CHECK(accepted || why.data[0] == '#');
  FUZZ_CHECK(!same || accepted);
  shorn_buffer_free(&why);

  /* The payload: the writer's fingerprint, unless the input's stands,
   * then the input with any NaN made infinite. */
  size_t prefix = as_given ? 0 : (size_t)width, n = prefix + size;
  uint8_t *payload = malloc(n ? n : 1);
  FUZZ_CHECK(payload != NULL);
  shorn_error e;
  if (prefix) FUZZ_CHECK(shorn_schema_fingerprint(w, width, payload, &e) == SHORN_OK);
  if (size) memcpy(payload + prefix, data, size);
  fuzz_replace_nans(payload + prefix, size);

  shorn_buffer before = {.allocator = &counting_allocator}, out = {.allocator = &counting_allocator},
               after = {.allocator = &counting_allocator};
  shorn_code written = shorn_decode(w, payload, n, width, &before, &e);
  FUZZ_CHECK(written == SHORN_OK || written == SHORN_ERROR_DECODE);

  FUZZ_CHECK(buffer_append(&out, "xy", 2));
  /* A plan is made for what the check accepts, and only for that. */
  evolve_plan *plan;
  shorn_buffer scratch = {.allocator = &counting_allocator};
  shorn_code rc = evolve_plan_new(w, r, &plan, &e);
  FUZZ_CHECK(accepted ? rc == SHORN_OK || rc == SHORN_ERROR_NOMEM : rc == SHORN_ERROR_SCHEMA || rc == SHORN_ERROR_NOMEM);
  if (rc == SHORN_OK) rc = evolve_upgrade(plan, payload, n, width, width, &scratch, &out, &e);
  else if (rc == SHORN_ERROR_SCHEMA) rc = SHORN_ERROR_DECODE, written = SHORN_ERROR_DECODE;
  evolve_plan_free(plan);
  shorn_buffer_free(&scratch);
  FUZZ_CHECK(rc == SHORN_OK || rc == SHORN_ERROR_DECODE || rc == SHORN_ERROR_ENCODE);
  FUZZ_CHECK(out.length >= 2 && memcmp(out.data, "xy", 2) == 0);
  if (rc != SHORN_OK) {
    FUZZ_CHECK(out.length == 2 && e.message[0] != 0);
    /* What the writer reads, a pair it accepts upgrades. */
    if (accepted && written == SHORN_OK) {
      fprintf(stderr, "upgrade refused %.*s: %s\n", (int)before.length, (const char *)before.data, e.message);
      FUZZ_CHECK(!"an accepted pair upgrades what the writer reads");
    }
  } else {
    /* Only a payload the writer reads is upgraded. */
    FUZZ_CHECK(written == SHORN_OK);
    uint8_t fingerprint[4];
    FUZZ_CHECK(out.length >= 2 + (size_t)width);
    if (width) {
      FUZZ_CHECK(shorn_schema_fingerprint(r, width, fingerprint, &e) == SHORN_OK);
      FUZZ_CHECK(memcmp(out.data + 2, fingerprint, (size_t)width) == 0);
    }
    if (accepted) {
      shorn_code read = shorn_decode(r, out.data + 2, out.length - 2, width, &after, &e);
      if (read != SHORN_OK) fprintf(stderr, "the reader refuses the upgrade: %s\n", e.message);
      FUZZ_CHECK(read == SHORN_OK);
      fuzz_check_json(&after);
      if (same) FUZZ_CHECK(fuzz_same(before.data, before.length, after.data, after.length));
    }
  }
  shorn_buffer_free(&before);
  shorn_buffer_free(&out);
  shorn_buffer_free(&after);
  free(payload);
  FUZZ_CHECK(counted.current == counted.mark);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0] & 3, width = (data[0] >> 2 & 7) % 5;
  bool as_given = data[0] & 0x20;
  data++, size--;
  if (mode == 0 || mode == 3) {
    if (size < 1) return 0;
    size_t i = data[0] % PAIRS;
    check_pair(pairs[i][0], pairs[i][1], false, (int)width, as_given, data + 1, size - 1);
  } else if (mode == 1) {
    size_t writer, reader;
    if (!fuzz_pick(&data, &size, &writer) || !fuzz_pick(&data, &size, &reader)) return 0;
    check_pair(fuzz_schemas[writer], fuzz_schemas[reader], writer == reader, (int)width, as_given, data, size);
  } else {
    size_t line;
    if (!fuzz_pick(&data, &size, &line)) return 0;
    check_pair(fuzz_schemas[line], fuzz_schemas[line], true, (int)width, as_given, data, size);
  }
  return 0;
}
