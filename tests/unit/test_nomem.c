/*
 * test_nomem.c — out of memory in the core codec.
 *
 * Each workload (compile a schema, encode a value, decode a payload) is
 * run once to count its allocations and record what it gives; then again
 * for every N up to that count plus one, with the Nth allocation failing:
 * once failing that call alone (the code must notice and not carry on),
 * once failing it and every call after (the cleanup must need no memory).
 * A step that saw a failure returns SHORN_ERROR_NOMEM, or the very error it
 * gives anyway (its message may lose a detail); a step that saw none gives
 * exactly what it gave the first time; and when the results are freed,
 * nothing is left allocated.
 */
#include "../support/counting.h"
#include "check.h"
#include "core/json/json.h"
#include "core/shape/shape.h"

typedef struct workload {
  const char *name, *schema, *json;
  const char *payload; /* hex to decode; NULL: what the json encodes to */
} workload;

#define UINT "{\"type\":\"integer\",\"minimum\":0}"
#define STRING "{\"type\":\"string\"}"
#define NODE                                                                                  \
  "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{\"type\":" \
  "\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\",\"children\"],"                \
  "\"additionalProperties\":false}"

/* Seventeen recursive definitions: more than the decoder's and encoder's
 * depth counters on the stack hold, so they allocate theirs. */
static char many_definitions[4096];

/* Values past the first growth of every growable thing: the parser's
 * stacks, the encoder's scratch and path, an open object's member list,
 * an arena's first block. */
static char big_string[3 + 100000], many_entries[4096], many_extras[4096], deep_error[4096];

/* Past the first storage of the encoder's one pass: an escaped string
 * longer than its decoding room, in an object whose members arrive out
 * of wire order with more bytes than its room for reordering them. */
static char out_of_order[4096];

/* BigInts long enough that both conversions take work space of the
 * schema's allocator, one of them through several of the built-in
 * conversion's splits. */
static char long_bigints[32 + 3000 + 30000];

static void make_values(void) {
  big_string[0] = '[', big_string[1] = '"';
  memset(big_string + 2, 'x', sizeof big_string - 5);
  memcpy(big_string + sizeof big_string - 3, "\"]", 3);
  char *o = many_entries;
  *o++ = '{';
  for (int i = 0; i < 70; i++) o += sprintf(o, "%s\"k\\u00e9%d\":\"v%d\"", i ? "," : "", 69 - i, i);
  strcpy(o, "}");
  o = many_extras;
  o += sprintf(o, "{\"a\":1,\"c\":3");
  for (int i = 0; i < 20; i++) o += sprintf(o, ",\"%c%d\":%d", 'b' + 2 * (i % 2), i, i);
  strcpy(o, "}");
  o = out_of_order;
  o += sprintf(o, "{\"b\":\"");
  for (int i = 0; i < 600; i++) o += sprintf(o, "ab\\n");
  strcpy(o, "\",\"a\":1}");
  o = long_bigints;
  o += sprintf(o, "[\"-");
  for (int i = 0; i < 3000; i++) *o++ = (char)('1' + i % 9);
  o += sprintf(o, "\",\"");
  for (int i = 0; i < 30000; i++) *o++ = (char)('9' - i % 7);
  strcpy(o, "\"]");
  o = deep_error;
  for (int i = 0; i < 20; i++) o += sprintf(o, "{\"value\":\"\",\"children\":[");
  o += sprintf(o, "{\"value\":1,\"children\":[]}");
  for (int i = 0; i < 20; i++) o += sprintf(o, "]}");
}

static workload workloads[] = {
    {"closed object",
     "{\"type\":\"object\",\"properties\":{\"name\":" STRING ",\"age\":" UINT ",\"sex\":{\"enum\":"
     "[\"M\",\"F\",\"X\"]},\"email\":" STRING "},\"required\":[\"name\",\"age\",\"sex\"]}",
     "{\"name\":\"Grace\",\"age\":45,\"sex\":\"F\",\"email\":\"grace@example.org\"}", NULL},
    {"record", "{\"type\":\"object\",\"additionalProperties\":" STRING "}",
     many_entries, NULL},
    {"members out of order",
     "{\"type\":\"object\",\"properties\":{\"a\":" UINT ",\"b\":" STRING "},\"required\":[\"a\",\"b\"]}",
     out_of_order, NULL},
    {"open object",
     "{\"type\":\"object\",\"properties\":{\"a\":" UINT ",\"c\":" UINT "},\"required\":[\"a\"],"
     "\"additionalProperties\":" UINT "}",
     many_extras, NULL},
    {"set and map",
     "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"array\",\"items\":" STRING
     ",\"uniqueItems\":true,\"x-shorn\":\"set\"},\"m\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"array\",\"prefixItems\":[{\"type\":\"number\"}," UINT "],\"items\":false,\"minItems\":2,"
     "\"maxItems\":2},\"x-shorn\":\"map\"}},\"required\":[\"s\",\"m\"]}",
     "{\"s\":[\"x\",\"y\",\"z\",\"w\",\"v\",\"u\",\"t\",\"r\",\"q\"],\"m\":[[1.5,1],[-0,2],[3,3]]}",
     NULL},
    {"recursion", NODE,
     "{\"value\":\"a\",\"children\":[{\"value\":\"b\",\"children\":[]},{\"value\":\"c\","
     "\"children\":[{\"value\":\"d\",\"children\":[]}]}]}",
     NULL},
    {"seventeen definitions", many_definitions, "{\"p0\":[[[]]],\"p16\":[[]]}", NULL},
    {"bigint", "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-shorn\":\"bigint\"}}",
     "[\"-1234567890123456789012345678901234567890123456789012345678901234567890123456789012345"
     "67890123456789012345678901234567890123456789012345678901234567890123456789012345678901234"
     "5678901234567890\",\"0\",9007199254740991]",
     NULL},
    {"long bigints", "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-shorn\":\"bigint\"}}",
     long_bigints, NULL},
    {"big strings", "{\"type\":\"array\",\"items\":" STRING "}", big_string, NULL},
    {"dynamic", "{}",
     "{\"a\":[1,2.5,\"x\",null,true,false,{\"b\":-0,\"c\":1e400}],\"c\":{},\"\\ud83d\\ude00\":[]}",
     NULL},
    {"unions",
     "{\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"k\":{"
     "\"const\":\"n\"},\"v\":{\"type\":[\"number\",\"string\"]}},\"required\":[\"k\",\"v\"]},{"
     "\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"s\"},\"v\":{\"anyOf\":[" STRING
     ",{\"type\":\"null\"}]}},\"required\":[\"k\",\"v\"]}]}}",
     "[{\"k\":\"n\",\"v\":1},{\"k\":\"n\",\"v\":\"one\"},{\"k\":\"s\",\"v\":null},{\"k\":\"s\",\"v\":"
     "\"x\"}]",
     NULL},
    {"rich scalars",
     "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\",\"contentEncoding\":\"base64\","
     "\"x-shorn\":\"bytes\"},{\"type\":\"string\",\"format\":\"uuid\"},{\"type\":\"string\","
     "\"format\":\"date-time\"},{\"type\":\"number\",\"x-shorn\":\"float32\"}],\"items\":false}",
     "[\"AAECAwQFBgcICQ==\",\"123e4567-e89b-12d3-a456-426614174000\","
     "\"2026-09-03T12:00:00.000Z\",0.1]",
     NULL},
    /* Validation keywords: patterns compiled with the schema (one with a
     * backreference that backtracks deep on a long string, its backtrack
     * stack on the heap; one whose DFA's tables grow a few times; one whose
     * whole DFA passes its bounds, on a string the backtracker's trial
     * leaves to the lazy DFA, its cache made and grown), allOf,
     * propertyNames, uniqueItems. */
    {"validation keywords",
     "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"allOf\":[{\"pattern\":\"^(?:(a)|b|\\\\1)*$\"},"
     "{\"maxLength\":300}]},\"r\":{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"^k\"},"
     "\"additionalProperties\":{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"type\":\"integer\"}}},"
     "\"d\":{\"type\":\"string\",\"pattern\":\"^\\\\d{4}-\\\\d\\\\d-\\\\d\\\\dT\\\\d\\\\d:\\\\d\\\\d(?::\\\\d\\\\d(?:\\\\.\\\\d+)?)?Z$\"},"
     "\"l\":{\"type\":\"string\",\"pattern\":\"a(a|b){12}c\"}},"
     "\"required\":[\"s\",\"r\",\"d\"]}",
     "{\"s\":\"abababababababababababababababababababababababababababababababababababababababababababababab"
     "ababababababababababababababababababababababababababababababababababababababababababababababab\","
     "\"r\":{\"k1\":[1,2,3],\"k2\":[4,5]},\"d\":\"2026-09-03T12:00:07.5Z\","
     "\"l\":\"bbabaaaabbabaaaabbabaaabaaaaaaaabbaaaabbabbaababbababbbbbabbaababbabbbabaaaaabbbbbabbabaabbabbabbb"
     "aaabbaaabaabbbbaaabbaaaababababababc\"}",
     NULL},
    /* Keywords no wire shape reads: subschemas compiled whole, and marks
     * of what each evaluated for unevaluatedProperties. */
    {"subschemas",
     "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"not\":{\"type\":\"integer\"}},"
     "\"a\":{\"type\":\"array\",\"contains\":{\"const\":1},\"maxContains\":2},"
     "\"u\":{\"properties\":{\"x\":{\"enum\":[[1],{\"b\":2}]}},\"patternProperties\":{\"^y\":{\"type\":\"string\"}},"
     "\"dependentSchemas\":{\"x\":{\"required\":[\"y1\"]}},\"if\":{\"required\":[\"z\"]},\"then\":{\"properties\":{\"z\":true}},"
     "\"unevaluatedProperties\":false}}}",
     "{\"n\":1.5,\"a\":[1,2,1],\"u\":{\"x\":{\"b\":2},\"y1\":\"s\",\"z\":0}}", NULL},
    {"validation keyword error",
     "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"object\",\"additionalProperties\":{\"type\":"
     "\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}}}}",
     "{\"a\":{\"b\":[\"x\",\"Y\"]}}", NULL},
    /* Failures: a value, a JSON text, a schema, a payload. */
    {"encode error deep", NODE, deep_error, NULL},
    {"JSON error", "{}", "{\"a\":[1,2,}", NULL},
    {"schema error deep",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"b\":{\"type\":\"strin\"}}}}}}",
     NULL, NULL},
    {"decode error", "{\"type\":\"array\",\"items\":" STRING "}", NULL, "03016101620263"},
};

/* What one step gave: its code, and its output or its error message (the
 * location apart, since a failure may cost an error its location). */
typedef struct outcome {
  shorn_code code;
  char *text;
  size_t length;
  bool failed; /* an allocation failed during the step */
} outcome;

typedef struct results {
  outcome compiled, encoded, decoded;
  shorn_buffer payload; /* what was decoded */
} results;

/* Record a step's result; `failures` is the count before the step. */
static void record(outcome *o, unsigned long failures, shorn_code code, const shorn_error *e,
                   const void *text, size_t n) {
  o->code = code;
  o->failed = counted.failures > failures;
  if (code != SHORN_OK) text = e->message, n = strlen(e->message);
  /* The test's own memory, not the codec's: plain malloc. */
  o->text = malloc(n + 1);
  if (n) memcpy(o->text, text, n);
  o->text[n] = 0;
  o->length = n;
}

static void release(outcome *o) {
  free(o->text);
  memset(o, 0, sizeof *o);
}

static void hex_to(shorn_buffer *b, const char *hex) {
  size_t n = strlen(hex) / 2;
  b->data = malloc(n ? n : 1);
  b->length = n;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) abort(); /* a workload's payload, written here */
    b->data[i] = (unsigned char)v;
  }
}

/* Run the workload; `reference` is NULL on the first run, which fills
 * `out` and decides the payload, and the run to compare with after. */
static void run(const workload *w, const results *reference, results *out) {
  shorn_schema *s;
  shorn_error e;
  unsigned long failures = counted.failures;
  shorn_code rc = shorn_schema_compile(w->schema, strlen(w->schema), &counting_allocator, &s, &e);
  size_t n = 0;
  const char *signature = rc == SHORN_OK ? shorn_schema_signature(s, &n) : NULL;
  record(&out->compiled, failures, rc, &e, signature, n);
  if (rc != SHORN_OK) return;
  if (w->json) {
    shorn_buffer bytes = {.allocator = &counting_allocator};
    failures = counted.failures;
    rc = shorn_encode(s, w->json, strlen(w->json), 3, &bytes, &e);
    record(&out->encoded, failures, rc, &e, bytes.data, bytes.length);
    shorn_buffer_free(&bytes);
  }
  const outcome *encoded = reference ? &reference->encoded : &out->encoded;
  if (w->payload) {
    hex_to(&out->payload, w->payload);
  } else if (encoded->code == SHORN_OK && encoded->length >= 3) {
    out->payload.length = encoded->length - 3; /* past the fingerprint */
    out->payload.data = malloc(out->payload.length + 1);
    memcpy(out->payload.data, encoded->text + 3, out->payload.length);
  }
  if (out->payload.data) {
    shorn_buffer json = {.allocator = &counting_allocator};
    failures = counted.failures;
    rc = shorn_decode(s, out->payload.data, out->payload.length, 0, &json, &e);
    record(&out->decoded, failures, rc, &e, json.data, json.length);
    shorn_buffer_free(&json);
  }
  shorn_schema_free(s);
}

static void release_results(results *r) {
  release(&r->compiled);
  release(&r->encoded);
  release(&r->decoded);
  free(r->payload.data);
  memset(r, 0, sizeof *r);
}

static bool same(const outcome *a, const outcome *b) {
  return a->code == b->code && a->length == b->length &&
         (!a->length || memcmp(a->text, b->text, a->length) == 0);
}

/* A step that saw no allocation fail gives what it gave the first time; one
 * that saw one gives NOMEM, or the error it gives anyway (whose message
 * may then lack a detail it would have quoted: a name, a path). */
static bool acceptable(const outcome *got, const outcome *want) {
  if (!got->failed) return same(got, want);
  return got->code == SHORN_ERROR_NOMEM || (want->code != SHORN_OK && got->code == want->code);
}

static int sweep(const workload *w, const results *reference, unsigned long calls, bool persistent) {
  int bad = 0;
  for (unsigned long n = 1; n <= calls + 1; n++) {
    results r = {0};
    counting_mark();
    counted.fail_at = n;
    counted.persistent = persistent;
    run(w, reference, &r);
    bool failed = counted.failures > 0;
    bool ok = acceptable(&r.compiled, &reference->compiled);
    /* A compile that ran out of memory leaves nothing to encode with. */
    if (r.compiled.code == SHORN_OK) {
      ok = ok && acceptable(&r.encoded, &reference->encoded);
      ok = ok && acceptable(&r.decoded, &reference->decoded);
    }
    ok = ok && failed == (n <= calls);
    ok = ok && counted.current == 0 && counted.blocks == 0;
    if (!ok && bad++ < 5)
      fprintf(stderr, "%s: failing allocation %lu of %lu (%s): %s / %s / %s, %zu bytes left\n",
              w->name, n, calls, persistent ? "and after" : "alone",
              r.compiled.text ? r.compiled.text : "-", r.encoded.text ? r.encoded.text : "-",
              r.decoded.text ? r.decoded.text : "-", counted.current);
    release_results(&r);
  }
  return bad;
}

int main(void) {
  char *o = many_definitions;
  o += sprintf(o, "{\"type\":\"object\",\"$defs\":{");
  for (int i = 0; i < 17; i++)
    o += sprintf(o, "%s\"d%d\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/d%d\"}}",
                 i ? "," : "", i, i);
  o += sprintf(o, "},\"properties\":{");
  for (int i = 0; i < 17; i++) o += sprintf(o, "%s\"p%d\":{\"$ref\":\"#/$defs/d%d\"}", i ? "," : "", i, i);
  sprintf(o, "}}");
  make_values();

  unsigned long total = 0;
  for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++) {
    const workload *w = &workloads[i];
    results reference = {0};
    counting_mark();
    run(w, NULL, &reference);
    unsigned long calls = counted.calls;
    total += calls;
    /* The workload does what it is there for: the three steps succeed,
     * or the one step it names fails. */
    bool expected = strstr(w->name, "error") ? reference.compiled.code != SHORN_OK ||
                                                   reference.encoded.code != SHORN_OK ||
                                                   reference.decoded.code != SHORN_OK
                                             : reference.decoded.code == SHORN_OK;
    CHECK(expected);
    CHECK(counted.current == 0);
    int bad = sweep(w, &reference, calls, false) + sweep(w, &reference, calls, true);
    CHECK(bad == 0);
    printf("  %-24s %4lu allocations, each failed alone and with all after it\n", w->name, calls);
    release_results(&reference);
  }
  printf("  %lu allocations in all, %lu runs\n", total, 2 * (total + sizeof workloads / sizeof *workloads));
  return check_report("nomem");
}
