/*
 * test_schema.c — JSON Schema translation, signatures and fingerprints:
 * every golden schema vector, the compile rows of the seed examples, and the
 * published library's worked examples (E1 to E35, the signatures it gives)
 * and limits.  The rules are docs/format.md#from-json-schema-to-shapes.
 *
 *   build/test_schema [vectors-directory]     (default tests/vectors)
 */
#include "check.h"
#include "../support/counting.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/regex/pattern.h"
#include "core/schema/schema.h"
#include "core/shape/shape.h"

static int failures_here(int before) { return check_failures - before; }

static void fail_note(const char *where, int line, const char *schema, const char *what) {
  check_failures++;
  fprintf(stderr, "%s:%d: %s\n  schema: %.300s\n", where, line, what, schema);
}

static shorn_schema *compile(const char *text, size_t n, shorn_error *e) {
  shorn_schema *s = NULL;
  return shorn_schema_compile(text, n, &counting_allocator, &s, e) == SHORN_OK ? s : NULL;
}

static void hex_of(const shorn_schema *s, int width, char out[9]) {
  unsigned char fp[4];
  shorn_error e;
  shorn_schema_fingerprint(s, width, fp, &e);
  for (int i = 0; i < width; i++) snprintf(out + 2 * i, 3, "%02x", fp[i]);
}

/* ---- the worked examples ---------------------------------------------------- */

#define SIGNATURE(schema, want) expect_signature(__LINE__, schema, want)
#define REFUSED(schema, path) expect_refused(__LINE__, schema, path)
#define FINGERPRINT(schema, width, hex) expect_fingerprint(__LINE__, schema, width, hex)

static void expect_signature(int line, const char *schema, const char *want) {
  shorn_error e;
  check_count++;
  shorn_schema *s = compile(schema, strlen(schema), &e);
  char what[1200];
  if (!s) {
    char m[600];
    shorn_error_format(&e, m, sizeof m);
    snprintf(what, sizeof what, "refused (%s), want %s", m, want);
    fail_note(__FILE__, line, schema, what);
    return;
  }
  if (strcmp(s->signature, want) != 0) {
    snprintf(what, sizeof what, "signature\n  got:  %.500s\n  want: %.500s", s->signature, want);
    fail_note(__FILE__, line, schema, what);
  }
  shorn_schema_free(s);
}

/* Refused as a schema error; with `path`, at that JSON Pointer. */
static void expect_refused(int line, const char *schema, const char *path) {
  shorn_error e;
  check_count++;
  shorn_schema *s = compile(schema, strlen(schema), &e);
  char what[600];
  if (s) {
    snprintf(what, sizeof what, "compiled to %.400s, want a refusal", s->signature);
    fail_note(__FILE__, line, schema, what);
    shorn_schema_free(s);
  } else if (e.code != SHORN_ERROR_SCHEMA || e.where != SHORN_WHERE_PATH) {
    snprintf(what, sizeof what, "refused with code %d, where %d (%s)", e.code, e.where, e.message);
    fail_note(__FILE__, line, schema, what);
  } else if (path && strcmp(e.path, path) != 0) {
    snprintf(what, sizeof what, "refused at %s, want %s (%s)", e.path, path, e.message);
    fail_note(__FILE__, line, schema, what);
  }
}

static void expect_fingerprint(int line, const char *schema, int width, const char *want) {
  shorn_error e;
  char got[9] = "";
  check_count++;
  shorn_schema *s = compile(schema, strlen(schema), &e);
  if (s) hex_of(s, width, got);
  if (!s || strcmp(got, want) != 0) {
    char what[80];
    snprintf(what, sizeof what, "fingerprint %d is %s, want %s", width, s ? got : "(refused)",
             want);
    fail_note(__FILE__, line, schema, what);
  }
  shorn_schema_free(s);
}

static void test_examples(void) {
  SIGNATURE("{\"type\":\"string\"}", "\"string\"");                            /* E1 */
  SIGNATURE("{\"type\":\"integer\",\"minimum\":0}", "\"uint\"");               /* E2 */
  SIGNATURE("{\"type\":\"integer\",\"exclusiveMinimum\":-1}", "\"uint\"");     /* E3 */
  SIGNATURE("{\"type\":\"integer\",\"minimum\":-5}", "\"int\"");               /* E4 */
  SIGNATURE("{\"type\":\"number\",\"minimum\":0}", "\"float64\"");             /* E5 */
  SIGNATURE("{}", "\"any\"");                                                  /* E6 */
  SIGNATURE("{\"type\":\"string\",\"format\":\"uuid\"}", "\"uuid\"");          /* E7 */
  SIGNATURE("{\"type\":\"string\",\"format\":\"date-time\"}", "\"datetime\""); /* E8, docs/schemas.md */
  SIGNATURE("{\"type\":\"null\"}", "{\"literal\":null}");                      /* E9 */
  SIGNATURE("{\"const\":1e21}", "{\"literal\":1e+21}");                        /* E10 */
  SIGNATURE("{\"enum\":[\"M\",\"F\",\"X\",\"F\"]}", "{\"enum\":[\"F\",\"M\",\"X\"]}"); /* E11 */
  SIGNATURE("{\"enum\":[10,9,2,\"b\",null,true,false,-1]}",
            "{\"enum\":[\"b\",-1,10,2,9,false,null,true]}");                               /* E12 */
  SIGNATURE("{\"type\":[\"integer\",\"null\"],\"minimum\":0}", "{\"nullable\":\"uint\"}"); /* E13 */
  SIGNATURE(
      "{\"anyOf\":[{\"type\":\"null\"},{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}]}",
      "{\"nullable\":\"string\"}"); /* E14 */
  SIGNATURE("{\"anyOf\":[{\"type\":\"null\"},{\"enum\":[\"a\",null]}]}",
            "{\"enum\":[\"a\",null]}"); /* E15 */
  SIGNATURE("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}",
            "{\"array\":\"string\"}");                      /* E16 */
  SIGNATURE("{\"type\":\"array\"}", "{\"array\":\"any\"}"); /* E17 */
  SIGNATURE("{\"type\":\"array\",\"items\":{\"type\":\"number\"},\"minItems\":2,\"maxItems\":2}",
            "{\"array\":\"float64\",\"length\":2}"); /* E18 */
  SIGNATURE(
      "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"boolean\"}],"
      "\"items\":{\"type\":\"integer\"}}",
      "{\"tuple\":[\"string\",\"boolean\"],\"rest\":\"int\"}"); /* E19 */
  SIGNATURE(
      "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":false,\"minItems\":1,"
      "\"maxItems\":1}",
      "{\"tuple\":[\"string\"]}"); /* E20 */

  const char *person_fields =
      "\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\","
      "\"minimum\":0},\"nick\":{\"type\":\"string\"}},\"required\":[\"name\",\"age\"]";
  const char *person =
      "{\"object\":[{\"key\":\"age\",\"optional\":false,\"value\":\"uint\"},{\"key\":\"name\","
      "\"optional\":false,\"value\":\"string\"},{\"key\":\"nick\",\"optional\":true,"
      "\"value\":\"string\"}]}";
  char schema[1024];
  snprintf(schema, sizeof schema, "{\"type\":\"object\",%s,\"additionalProperties\":false}",
           person_fields);
  SIGNATURE(schema, person); /* E21 */
  snprintf(schema, sizeof schema, "{\"type\":\"object\",%s}", person_fields);
  SIGNATURE(schema, person); /* E22 */

  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"],"
      "\"additionalProperties\":true}",
      "{\"object\":[{\"key\":\"a\",\"optional\":false,\"value\":\"string\"}],\"extras\":\"any\"}"); /* E23 */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"],"
      "\"additionalProperties\":{\"type\":\"integer\",\"minimum\":0}}",
      "{\"object\":[{\"key\":\"a\",\"optional\":false,\"value\":\"string\"}],\"extras\":\"uint\"}"); /* E24 */
  SIGNATURE(
      "{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":{"
      "\"type\":"
      "\"integer\"}}",
      "{\"record\":\"int\"}"); /* E25 */
  SIGNATURE(
      "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\",\"const\":"
      "\"key\"},"
      "\"code\":{\"type\":\"string\"}},\"required\":[\"kind\",\"code\"],\"additionalProperties\":"
      "false},"
      "{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\",\"const\":\"click\"},"
      "\"x\":"
      "{\"type\":\"integer\"}},\"required\":[\"kind\",\"x\"],\"additionalProperties\":false}]}",
      "{\"on\":\"kind\",\"cases\":[\"click\",\"key\"],\"union\":[{\"object\":[{\"key\":\"kind\","
      "\"optional\":"
      "false,\"value\":{\"literal\":\"click\"}},{\"key\":\"x\",\"optional\":false,\"value\":"
      "\"int\"}]},"
      "{\"object\":[{\"key\":\"code\",\"optional\":false,\"value\":\"string\"},{\"key\":\"kind\","
      "\"optional\":false,\"value\":{\"literal\":\"key\"}}]}]}"); /* E26 */
  SIGNATURE(
      "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"array\",\"items\":{\"type\":\"string\"}},{"
      "\"type\":"
      "\"null\"},{\"type\":\"integer\"}]}",
      "{\"types\":[\"array\",\"null\",\"number\",\"string\"],\"union\":[{\"array\":\"string\"},"
      "{\"literal\":null},\"int\",\"string\"]}"); /* E27 */
  SIGNATURE(
      "{\"anyOf\":[{\"type\":\"string\",\"format\":\"uuid\"},{\"const\":\"00000000-0000-0000-0000-"
      "000000000000\",\"format\":\"uuid\"},{\"type\":\"null\"}]}",
      "{\"nullable\":\"uuid\"}"); /* E28 */

  const char *node_signature =
      "{\"defs\":[{\"object\":[{\"key\":\"children\",\"optional\":false,\"value\":"
      "{\"array\":{\"ref\":0}}},{\"key\":\"value\",\"optional\":false,\"value\":"
      "\"string\"}]}],\"root\":{\"ref\":0}}";
  const char *zod_node =
      "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":"
      "{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\",\"children\"],"
      "\"additionalProperties\":false}";
  SIGNATURE(zod_node, node_signature); /* E29 */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#/$defs/"
      "0\"}}},\"required\":[\"value\",\"children\"],\"$defs\":"
      "{\"0\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{"
      "\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#/$defs/0\"}}},\"required\":[\"value\",\"children\"]}}}",
      node_signature); /* E30: valibot's spelling folds onto zod's */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"head\":{\"anyOf\":[{\"$ref\":\"#/$defs/"
      "R\"},{\"type\":"
      "\"null\"}]}},\"required\":[\"head\"],\"additionalProperties\":false,\"$defs\":{\"R\":{"
      "\"anyOf\":"
      "[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/"
      "R\"}},"
      "\"required\":[\"next\"],\"additionalProperties\":false}]}}}",
      "{\"defs\":[{\"nullable\":{\"object\":[{\"key\":\"next\",\"optional\":false,\"value\":{"
      "\"ref\":0}}]}}"
      "],\"root\":{\"object\":[{\"key\":\"head\",\"optional\":false,\"value\":{\"ref\":0}}]}}"); /* E31 */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/L\"},\"b\":{\"$ref\":\"#/"
      "$defs/L\"}},"
      "\"required\":[\"a\",\"b\"],\"additionalProperties\":false,\"$defs\":{\"L\":{\"type\":"
      "\"object\","
      "\"properties\":{\"x\":{\"type\":\"string\"}},\"required\":[\"x\"],\"additionalProperties\":"
      "false}}}",
      "{\"object\":[{\"key\":\"a\",\"optional\":false,\"value\":{\"object\":[{\"key\":\"x\","
      "\"optional\":"
      "false,\"value\":\"string\"}]}},{\"key\":\"b\",\"optional\":false,\"value\":{\"object\":[{"
      "\"key\":"
      "\"x\",\"optional\":false,\"value\":\"string\"}]}}]}"); /* E32 */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"é\":{\"type\":\"boolean\"},\"Z\":{\"type\":"
      "\"boolean\"},"
      "\"a\\\"b\":{\"type\":\"boolean\"},\"😀\":{\"type\":\"boolean\"},\"Ａ\":{\"type\":\"boolean\"}"
      "},"
      "\"required\":[\"é\",\"Z\",\"a\\\"b\",\"😀\",\"Ａ\"]}",
      "{\"object\":[{\"key\":\"Z\",\"optional\":false,\"value\":\"boolean\"},{\"key\":\"a\\\"b\","
      "\"optional\":false,\"value\":\"boolean\"},{\"key\":\"é\",\"optional\":false,\"value\":"
      "\"boolean\"},"
      "{\"key\":\"😀\",\"optional\":false,\"value\":\"boolean\"},{\"key\":\"Ａ\",\"optional\":false,"
      "\"value\":\"boolean\"}]}"); /* E33 */
  SIGNATURE(
      "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"t\":{\"const\":10}},\"required\":[\"t\"]}"
      ","
      "{\"type\":\"object\",\"properties\":{\"t\":{\"const\":9}},\"required\":[\"t\"]},{\"type\":"
      "\"object\","
      "\"properties\":{\"t\":{\"const\":\"x\"}},\"required\":[\"t\"]}]}",
      "{\"on\":\"t\",\"cases\":[\"x\",10,9],\"union\":[{\"object\":[{\"key\":\"t\",\"optional\":"
      "false,"
      "\"value\":{\"literal\":\"x\"}}]},{\"object\":[{\"key\":\"t\",\"optional\":false,\"value\":{"
      "\"literal\":"
      "10}}]},{\"object\":[{\"key\":\"t\",\"optional\":false,\"value\":{\"literal\":9}}]}]}"); /* E34
                                                                                                */
  SIGNATURE("{\"anyOf\":[{\"type\":\"string\"}]}",
            "{\"types\":[\"string\"],\"union\":[\"string\"]}"); /* E35 */

  /* Further translations the published library gives. */
  SIGNATURE("{\"type\":\"array\",\"prefixItems\":[]}", "{\"tuple\":[]}");
  SIGNATURE("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":0,\"maxItems\":0}",
            "{\"array\":\"int\",\"length\":0}");
  SIGNATURE("{\"type\":\"object\",\"additionalProperties\":true}", "{\"record\":\"any\"}");
  SIGNATURE("{\"type\":\"object\"}", "{\"object\":[]}");
  SIGNATURE("{\"anyOf\":[{\"const\":\"a\"},{\"const\":3}]}",
            "{\"types\":[\"number\",\"string\"],\"union\":[{\"literal\":3},{\"literal\":\"a\"}]}");
  SIGNATURE("{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"null\"}]}", "{\"literal\":null}");
  SIGNATURE("{\"type\":[\"null\",\"null\"]}", "{\"literal\":null}");
  SIGNATURE(
      "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"t\":{\"const\":\"a\"}},\"required\":[]},"
      "{\"type\":\"object\",\"properties\":{\"t\":{\"const\":\"b\"}},\"required\":[\"t\"]}]}",
      "{\"on\":\"t\",\"cases\":[\"a\",\"b\"],\"union\":[{\"object\":[{\"key\":\"t\",\"optional\":"
      "true,"
      "\"value\":{\"literal\":\"a\"}}]},{\"object\":[{\"key\":\"t\",\"optional\":false,\"value\":"
      "{\"literal\":\"b\"}}]}]}");
  SIGNATURE("{\"$ref\":\"#/$defs/a\",\"type\":\"integer\",\"$defs\":{\"a\":{\"type\":\"string\"}}}",
            "\"string\"");
  SIGNATURE("{\"type\":\"string\",\"enum\":[\"a\",{\"x\":1}]}", "\"string\"");
  SIGNATURE("{\"enum\":[\"a\",[1]]}", "\"any\"");
  SIGNATURE("{\"anyOf\":5}", "\"any\"");
  SIGNATURE("{\"type\":\"string\",\"const\":\"x\"}", "{\"literal\":\"x\"}");
  SIGNATURE("{\"type\":[\"string\",\"null\"],\"enum\":[\"a\",null]}", "{\"enum\":[\"a\",null]}");
  SIGNATURE("{\"enum\":[\"\\\"\",\"\\\\\",\"\\u0001\",\"b\",\"\\u007f\",\"é\",1]}",
            "{\"enum\":[\"\\\"\",\"\\\\\",\"\\u0001\",\"b\",\"\x7f\",\"é\",1]}");
  SIGNATURE("{\"const\":\"\\ud800\"}", "{\"literal\":\"\\ud800\"}");
  SIGNATURE("{\"type\":\"integer\",\"minimum\":-0.5}", "\"int\"");
  SIGNATURE("{\"type\":\"integer\",\"exclusiveMinimum\":-0.5}", "\"uint\"");
  SIGNATURE("{\"type\":\"integer\",\"exclusiveMinimum\":true}", "\"int\"");
  SIGNATURE("{\"enum\":[5e-324,1e-7,0.000001,123456789012345680000]}",
            "{\"enum\":[0.000001,123456789012345680000,1e-7,5e-324]}");
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"a\":{\"type\":"
      "\"integer\"}}}",
      "{\"object\":[{\"key\":\"a\",\"optional\":true,\"value\":\"int\"}]}"); /* the last "a" wins */
}

static void test_fingerprints(void) {
  FINGERPRINT("{\"type\":\"string\"}", 1, "29");                      /* F1 */
  FINGERPRINT("{\"type\":\"string\"}", 2, "9c6a");                    /* F2 */
  FINGERPRINT("{\"type\":\"string\"}", 3, "246cab");                  /* F3 */
  FINGERPRINT("{\"type\":\"string\"}", 4, "1c4b3a6c");                /* F4 */
  FINGERPRINT("{}", 3, "7c2da0");                                     /* F5 */
  FINGERPRINT("{\"type\":\"integer\",\"minimum\":0}", 4, "0d32320f"); /* F6 */
  FINGERPRINT("{\"type\":\"integer\",\"minimum\":0}", 3, "f161f8");   /* F6b */
  const char *person =
      "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":"
      "\"integer\",\"minimum\":0,\"maximum\":9007199254740991},\"sex\":{\"type\":\"string\","
      "\"enum\":[\"M\",\"F\",\"X\"]}},\"required\":[\"name\",\"age\",\"sex\"],"
      "\"additionalProperties\":false}";
  SIGNATURE(
      person,
      "{\"object\":[{\"key\":\"age\",\"optional\":false,\"value\":\"uint\"},{\"key\":\"name\","
      "\"optional\":false,\"value\":\"string\"},{\"key\":\"sex\",\"optional\":false,\"value\":"
      "{\"enum\":[\"F\",\"M\",\"X\"]}}]}");
  FINGERPRINT(person, 3, "7236d1");   /* F7 */
  FINGERPRINT(person, 4, "a3b4e3de"); /* F8 */
  FINGERPRINT(person, 1, "e3");       /* F9 */
  FINGERPRINT(person, 2, "da68");     /* F9b */
  FINGERPRINT(
      "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\"},\"name\":{\"type\":"
      "\"string\"}},\"required\":[\"age\",\"name\"],\"additionalProperties\":false}",
      3, "fee99f");                                       /* F10 */
  FINGERPRINT("{\"enum\":[\"é\",\"a\"]}", 4, "b97a4e6c"); /* F11 */
  FINGERPRINT(
      "{\"type\":\"object\",\"properties\":{\"😀\":{\"type\":\"boolean\"}},\"required\":[\"😀\"]}", 3,
      "9963b9"); /* F12 */
  FINGERPRINT(
      "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\",\"children\"],"
      "\"additionalProperties\":false}",
      4, "2d154c8c");                                               /* F13 */
  FINGERPRINT("{\"enum\":[\"a\\nb\",\"\\u0001\"]}", 4, "957fb935"); /* F14 */

  shorn_error e;
  unsigned char fp[4];
  shorn_schema *s = compile("{}", 2, &e);
  CHECK(s && shorn_schema_fingerprint(s, 0, fp, &e) == SHORN_ERROR_USAGE);
  CHECK(s && shorn_schema_fingerprint(s, 5, fp, &e) == SHORN_ERROR_USAGE);
  CHECK_STR(e.message, "Fingerprint width must be 1, 2, 3 or 4");
  size_t n = 0;
  CHECK(s && strcmp(shorn_schema_signature(s, &n), "\"any\"") == 0 && n == 5);
  shorn_schema_free(s);
}

/* ---- definitions and the fold ----------------------------------------------- */

static void test_definitions(void) {
  /* The extras are walked before the properties, so B is numbered first. */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/A\"}},\"required\":[\"p\"],"
      "\"additionalProperties\":{\"$ref\":\"#/$defs/B\"},\"$defs\":{\"A\":{\"type\":\"object\","
      "\"properties\":{\"a\":{\"$ref\":\"#/$defs/"
      "A\"}}},\"B\":{\"type\":\"object\",\"properties\":{\"b\":"
      "{\"$ref\":\"#/$defs/B\"}}}}}",
      "{\"defs\":[{\"object\":[{\"key\":\"b\",\"optional\":true,\"value\":{\"ref\":0}}]},{"
      "\"object\":"
      "[{\"key\":\"a\",\"optional\":true,\"value\":{\"ref\":1}}]}],\"root\":{\"object\":[{\"key\":"
      "\"p\","
      "\"optional\":false,\"value\":{\"ref\":1}}],\"extras\":{\"ref\":0}}}");
  /* Two independent cycles, in key order. */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"q\":{\"$ref\":\"#/$defs/Q\"},\"p\":{\"$ref\":\"#/"
      "$defs/P\"}},"
      "\"$defs\":{\"P\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/"
      "P\"}},\"Q\":{\"type\":\"object\","
      "\"additionalProperties\":{\"$ref\":\"#/$defs/Q\"}}}}",
      "{\"defs\":[{\"array\":{\"ref\":0}},{\"record\":{\"ref\":1}}],\"root\":{\"object\":[{\"key\":"
      "\"p\","
      "\"optional\":true,\"value\":{\"ref\":0}},{\"key\":\"q\",\"optional\":true,\"value\":{"
      "\"ref\":1}}]}}");
  /* A ref to a ref to itself builds. */
  SIGNATURE("{\"$ref\":\"#/$defs/A\",\"$defs\":{\"A\":{\"$ref\":\"#/$defs/A\"}}}",
            "{\"defs\":[{\"ref\":0}],\"root\":{\"ref\":0}}");
  /* "" and "#" are different pointer texts; the fold repairs the unrolling. */
  SIGNATURE("{\"type\":\"array\",\"items\":{\"$ref\":\"\"}}",
            "{\"defs\":[{\"array\":{\"ref\":0}}],\"root\":{\"ref\":0}}");
  /* Absent and false additionalProperties differ in the fold's text, so the
   * copy is not folded and the signature differs from the zod spelling. */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#/$defs/"
      "0\"}}},\"required\":[\"value\",\"children\"],\"$defs\":"
      "{\"0\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"children\":{"
      "\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#/$defs/0\"}}},\"required\":[\"value\",\"children\"],"
      "\"additionalProperties\":false}}}",
      "{\"defs\":[{\"object\":[{\"key\":\"children\",\"optional\":false,\"value\":{\"array\":{"
      "\"ref\":0}}},"
      "{\"key\":\"value\",\"optional\":false,\"value\":\"string\"}]}],\"root\":{\"object\":[{"
      "\"key\":"
      "\"children\",\"optional\":false,\"value\":{\"array\":{\"ref\":0}}},{\"key\":\"value\","
      "\"optional\":"
      "false,\"value\":\"string\"}]}}");
  /* A copy of a definition deep inside the root folds (child fold). */
  SIGNATURE(
      "{\"type\":\"object\",\"properties\":{\"list\":{\"$ref\":\"#/$defs/"
      "L\"},\"copy\":{\"type\":\"array\","
      "\"items\":{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/"
      "L\"}}}}},\"$defs\":{\"L\":"
      "{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/L\"}}}}}",
      "{\"defs\":[{\"object\":[{\"key\":\"next\",\"optional\":true,\"value\":{\"ref\":0}}]}],"
      "\"root\":"
      "{\"object\":[{\"key\":\"copy\",\"optional\":true,\"value\":{\"array\":{\"ref\":0}}},{"
      "\"key\":"
      "\"list\",\"optional\":true,\"value\":{\"ref\":0}}]}}");

  /* A shared (memoised) shape that holds a copy of a definition folds the
   * same from both places, exactly as when it is written out twice. */
  const char *list = "{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/L\"}}}";
  const char *folded =
      "{\"defs\":[{\"object\":[{\"key\":\"next\",\"optional\":true,\"value\":{\"ref\":0}}]}],"
      "\"root\":"
      "{\"object\":[{\"key\":\"a\",\"optional\":true,\"value\":{\"object\":[{\"key\":\"x\","
      "\"optional\":"
      "true,\"value\":{\"ref\":0}}]}},{\"key\":\"b\",\"optional\":true,\"value\":{\"object\":[{"
      "\"key\":"
      "\"x\",\"optional\":true,\"value\":{\"ref\":0}}]}},{\"key\":\"l\",\"optional\":true,"
      "\"value\":"
      "{\"ref\":0}}]}}";
  char shared[1024], longhand[1024];
  snprintf(shared, sizeof shared,
           "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/S\"},\"b\":{\"$ref\":"
           "\"#/$defs/S\"},\"l\":{\"$ref\":\"#/$defs/L\"}},\"$defs\":{\"S\":{\"type\":\"object\","
           "\"properties\":{\"x\":%s}},\"L\":%s}}",
           list, list);
  snprintf(
      longhand, sizeof longhand,
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"x\":%s}},"
      "\"b\":{\"type\":\"object\",\"properties\":{\"x\":%s}},\"l\":{\"$ref\":\"#/$defs/L\"}},"
      "\"$defs\":{\"L\":%s}}",
      list, list, list);
  SIGNATURE(shared, folded);
  SIGNATURE(longhand, folded);

  /* Refs point at the definition bodies. */
  shorn_error e;
  const char *node =
      "{\"type\":\"object\",\"properties\":{\"children\":{\"type\":\"array\",\"items\":{\"$ref\":"
      "\"#\"}}}}";
  shorn_schema *s = compile(node, strlen(node), &e);
  CHECK(s && s->def_count == 1 && s->root->kind == SHAPE_REF &&
        s->root->u.ref.target == s->defs[0]);
  CHECK(s && s->defs[0]->u.object.fields[0].value->u.array.element->u.ref.target == s->defs[0]);
  shorn_schema_free(s);

  /* The contrived refusal: a nullable over a union holding a ref to a
   * definition that admits null. */
  REFUSED(
      "{\"anyOf\":[{\"anyOf\":[{\"$ref\":\"#/$defs/"
      "R\"},{\"type\":\"string\"}]},{\"type\":\"null\"}],"
      "\"$defs\":{\"R\":{\"type\":\"array\",\"anyOf\":[{\"type\":\"null\"},{\"type\":\"array\","
      "\"items\":"
      "{\"$ref\":\"#/$defs/R\"}}]}}}",
      "#");
}

/* ---- widths, slots, tables -------------------------------------------------- */

static uint64_t width_of(const char *schema) {
  shorn_error e;
  shorn_schema *s = compile(schema, strlen(schema), &e);
  uint64_t w = s ? s->root->min_width : UINT64_MAX - 1;
  shorn_schema_free(s);
  return w;
}

static void test_widths(void) {
  CHECK(width_of("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":"
                 "\"string\","
                 "\"format\":\"uuid\"}},\"required\":[\"a\"]}") == 9);
  CHECK(width_of("{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{}"
                 ",\"f\":{},"
                 "\"g\":{},\"h\":{},\"i\":{}}}") == 2);
  CHECK(
      width_of(
          "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"}},\"required\":[\"a\"],"
          "\"additionalProperties\":true}") == 9);
  CHECK(width_of("{\"anyOf\":[{\"type\":\"number\"},{\"type\":\"string\",\"format\":\"uuid\"}]}") ==
        9);
  CHECK(width_of("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\",\"format\":\"uuid\"},{"
                 "\"type\":"
                 "\"number\"},{\"const\":1}]}") == 24);
  CHECK(width_of("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"number\"}],\"items\":{\"type\":"
                 "\"number\"}}") == 9);
  CHECK(width_of(
            "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"array\","
            "\"items\":"
            "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":1000000,"
            "\"maxItems\":1000000},"
            "\"minItems\":1000000,\"maxItems\":1000000},\"minItems\":1000000,\"maxItems\":1000000},"
            "\"minItems\":1000000,\"maxItems\":1000000}") == UINT64_MAX); /* saturates */
  CHECK(width_of("{\"type\":\"number\",\"x-shorn\":\"float32\"}") == 4);
  CHECK(width_of("{\"type\":\"string\",\"format\":\"date-time\"}") == 1);

  /* Field bits, "key": texts and the index. */
  const char *text =
      "{\"type\":\"object\",\"properties\":{\"b\":{},\"a\\\"\":{},\"c\":{},\"d\":{}},"
      "\"required\":[\"c\"]}";
  shorn_error e;
  shorn_schema *s = compile(text, strlen(text), &e);
  CHECK(s != NULL);
  if (s) {
    const shape *o = s->root;
    CHECK(o->u.object.optional_count == 3);
    const field *f = object_find_field(o, "a\"", 2);
    CHECK(f && f->bit == 0 && f->optional && f->json_key_length == 6 &&
          memcmp(f->json_key, "\"a\\\"\":", 6) == 0);
    CHECK(object_find_field(o, "c", 1) && !object_find_field(o, "c", 1)->optional);
    CHECK(object_find_field(o, "d", 1) && object_find_field(o, "d", 1)->bit == 2);
    CHECK(object_find_field(o, "e", 1) == NULL && object_find_field(o, "", 0) == NULL);
    shorn_schema_free(s);
  }
  s = compile("{\"type\":\"object\"}", 17, &e);
  CHECK(s && object_find_field(s->root, "a", 1) == NULL);
  shorn_schema_free(s);
  text = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}";
  s = compile(text, strlen(text), &e);
  CHECK(s && s->root->u.choice.by_kind[KIND_NUMBER] == 0 &&
        s->root->u.choice.by_kind[KIND_STRING] == 1 && s->root->u.choice.by_kind[KIND_NULL] == -1);
  shorn_schema_free(s);
}

static void test_slots(void) {
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"const\":1},\"minItems\":1000000,\"maxItems\":1000000}",
      "{\"array\":{\"literal\":1},\"length\":1000000}");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"const\":1},\"minItems\":1000,"
      "\"maxItems\":1000},\"minItems\":1000,\"maxItems\":1000}",
      "#");
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"const\":1},\"minItems\":900,"
      "\"maxItems\":900},\"minItems\":1000,\"maxItems\":1000}",
      "{\"array\":{\"array\":{\"literal\":1},\"length\":900},\"length\":1000}");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"const\":1}]},"
      "\"minItems\":999999,"
      "\"maxItems\":999999}",
      "#");
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"const\":1}]},"
      "\"minItems\":500000,"
      "\"maxItems\":500000}",
      "{\"array\":{\"tuple\":[{\"literal\":1}]},\"length\":500000}");
  const char *inner =
      "{\"type\":\"array\",\"items\":{\"const\":1},\"minItems\":1000,\"maxItems\":1000}";
  char schema[512];
  snprintf(schema, sizeof schema,
           "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":%s},"
           "\"required\":[\"a\"]},"
           "\"minItems\":1000,\"maxItems\":1000}",
           inner);
  REFUSED(schema, "#");
  snprintf(schema, sizeof schema,
           "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":%s}},"
           "\"minItems\":1000,"
           "\"maxItems\":1000}",
           inner);
  SIGNATURE(schema,
            "{\"array\":{\"object\":[{\"key\":\"a\",\"optional\":true,\"value\":{\"array\":{"
            "\"literal\":1},"
            "\"length\":1000}}]},\"length\":1000}");
  snprintf(schema, sizeof schema,
           "{\"type\":\"array\",\"items\":{\"anyOf\":[%s,{\"type\":\"null\"}]},\"minItems\":1000,"
           "\"maxItems\":1000}",
           inner);
  SIGNATURE(
      schema,
      "{\"array\":{\"nullable\":{\"array\":{\"literal\":1},\"length\":1000}},\"length\":1000}");

  REFUSED("{\"type\":\"array\",\"items\":{\"const\":1}}", "#");
  REFUSED(
      "{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":"
      "\"array\","
      "\"items\":{\"type\":\"object\"}}}}}",
      "#/properties/tags/items");
  REFUSED(
      "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"const\":\"z\"}}",
      "#");
  SIGNATURE("{\"type\":\"object\",\"additionalProperties\":{\"const\":1}}",
            "{\"record\":{\"literal\":1}}");
  REFUSED("{\"type\":\"array\",\"items\":{},\"minItems\":2.5,\"maxItems\":2.5}", "#");
  REFUSED("{\"type\":\"array\",\"items\":{},\"minItems\":-1,\"maxItems\":-1}", "#");
  REFUSED("{\"type\":\"array\",\"items\":{},\"minItems\":1000001,\"maxItems\":1000001}", "#");
  SIGNATURE("{\"type\":\"array\",\"items\":{},\"minItems\":3,\"maxItems\":\"3\"}",
            "{\"array\":\"any\"}");
  /* The fold turns a zero-width copy into a ref of width 1 before the checks. */
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
      "\"array\","
      "\"items\":{\"$ref\":\"#/$defs/"
      "D\"},\"minItems\":0,\"maxItems\":0}},\"required\":[\"a\"]},\"$defs\":"
      "{\"D\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"$ref\":"
      "\"#/$defs/D\"},\"minItems\":0,\"maxItems\":0}},\"required\":[\"a\"]}}}",
      "{\"defs\":[{\"object\":[{\"key\":\"a\",\"optional\":false,\"value\":{\"array\":{\"ref\":0},"
      "\"length\":0}}]}],\"root\":{\"array\":{\"ref\":0}}}");
}

/* ---- this project's shapes and decisions ------------------------------------ */

static void test_extensions(void) {
  SIGNATURE("{\"type\":\"string\",\"x-shorn\":\"bigint\"}", "\"bigint\"");
  SIGNATURE("{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"}",
            "\"bytes\"");
  SIGNATURE("{\"type\":\"number\",\"x-shorn\":\"float32\"}", "\"float32\"");
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true,\"x-shorn\":"
      "\"set\"}",
      "{\"set\":\"string\"}");
  SIGNATURE("{\"type\":\"array\",\"uniqueItems\":true,\"x-shorn\":\"set\"}", "{\"set\":\"any\"}");
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{"
      "\"type\":"
      "\"integer\",\"minimum\":0}],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":"
      "\"map\"}",
      "{\"map\":[\"string\",\"uint\"]}");
  SIGNATURE(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"const\":1},{\"type\":"
      "\"boolean\"}]},\"x-shorn\":\"map\"}",
      "{\"map\":[{\"literal\":1},\"boolean\"]}");
  SIGNATURE("{\"anyOf\":[{\"type\":\"string\",\"x-shorn\":\"bigint\"},{\"type\":\"null\"}]}",
            "{\"nullable\":\"bigint\"}");
  SIGNATURE("{\"type\":[\"string\",\"null\"],\"format\":\"date-time\"}",
            "{\"nullable\":\"datetime\"}");
  FINGERPRINT("{\"type\":\"string\",\"format\":\"date-time\"}", 4, "f97e5f68");
  FINGERPRINT(
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true,\"x-shorn\":"
      "\"set\"}",
      3, "f0281d");
  /* The library 0.4.0's date-time: a plain string, with its fingerprint. */
  SIGNATURE("{\"type\":\"string\",\"format\":\"date-time\",\"x-shorn\":\"string\"}", "\"string\"");
  FINGERPRINT("{\"type\":\"string\",\"format\":\"date-time\",\"x-shorn\":\"string\"}", 4,
              "1c4b3a6c");
  SIGNATURE("{\"anyOf\":[{\"type\":\"string\",\"format\":\"date-time\",\"x-shorn\":\"string\"},"
            "{\"type\":\"null\"}]}",
            "{\"nullable\":\"string\"}");

  REFUSED("{\"type\":\"string\",\"x-shorn\":\"decimal\"}", "#");
  REFUSED("{\"type\":\"string\",\"x-shorn\":\"string\"}", "#");
  REFUSED("{\"type\":\"string\",\"format\":\"uuid\",\"x-shorn\":\"string\"}", "#");
  REFUSED("{\"type\":\"number\",\"format\":\"date-time\",\"x-shorn\":\"string\"}", "#");
  REFUSED("{\"type\":[\"string\",\"null\"],\"format\":\"date-time\",\"x-shorn\":\"string\"}", "#");
  REFUSED("{\"type\":\"string\",\"x-shorn\":7}", "#");
  REFUSED("{\"type\":\"integer\",\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"type\":\"string\",\"x-shorn\":\"bytes\"}", "#");
  REFUSED("{\"type\":\"string\",\"contentEncoding\":\"base32\",\"x-shorn\":\"bytes\"}", "#");
  REFUSED("{\"type\":\"string\",\"x-shorn\":\"float32\"}", "#");
  REFUSED("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"x-shorn\":\"set\"}", "#");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":\"yes\",\"x-shorn\":"
      "\"set\"}",
      "#");
  REFUSED("{\"type\":\"array\",\"items\":{\"const\":1},\"uniqueItems\":true,\"x-shorn\":\"set\"}",
          "#");
  REFUSED("{\"type\":\"array\",\"prefixItems\":[{}],\"uniqueItems\":true,\"x-shorn\":\"set\"}",
          "#");
  REFUSED("{\"type\":\"object\",\"x-shorn\":\"set\"}", "#");
  REFUSED("{\"type\":\"array\",\"x-shorn\":\"map\"}", "#");
  REFUSED("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"x-shorn\":\"map\"}", "#/items");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{}]},\"x-shorn\":"
      "\"map\"}",
      "#/items");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{},{}],\"items\":{}},"
      "\"x-shorn\":\"map\"}",
      "#/items");
  REFUSED(
      "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"const\":1},{\"const\":"
      "2}]},"
      "\"x-shorn\":\"map\"}",
      "#");
  REFUSED("{\"type\":\"array\",\"items\":{\"$ref\":\"#\"},\"x-shorn\":\"map\"}", "#/items");
  REFUSED("{\"$ref\":\"#/$defs/a\",\"x-shorn\":\"bigint\",\"$defs\":{\"a\":{\"type\":\"string\"}}}",
          "#");
  REFUSED("{\"anyOf\":[{\"type\":\"string\"}],\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"oneOf\":[{\"type\":\"string\"}],\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"type\":[\"string\",\"null\"],\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"type\":\"string\",\"const\":\"1\",\"x-shorn\":\"bigint\"}", "#");
  REFUSED("{\"type\":\"string\",\"enum\":[\"1\"],\"x-shorn\":\"bigint\"}", "#");
}

static void test_type_arrays(void) {
  SIGNATURE("{\"type\":[\"string\",\"number\"]}",
            "{\"types\":[\"number\",\"string\"],\"union\":[\"float64\",\"string\"]}");
  SIGNATURE("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]}",
            "{\"types\":[\"number\",\"string\"],\"union\":[\"float64\",\"string\"]}");
  SIGNATURE("{\"type\":[\"string\",\"number\",\"null\"]}",
            "{\"types\":[\"null\",\"number\",\"string\"],\"union\":[{\"literal\":null},\"float64\","
            "\"string\"]}");
  /* Every other keyword is kept in each branch. */
  SIGNATURE(
      "{\"type\":[\"integer\",\"string\",\"array\"],\"minimum\":0,\"format\":\"uuid\",\"items\":{"
      "\"type\":"
      "\"boolean\"}}",
      "{\"types\":[\"array\",\"number\",\"string\"],\"union\":[{\"array\":\"boolean\"},\"uint\","
      "\"uuid\"]}");
  SIGNATURE("{\"type\":[\"object\",\"boolean\"],\"properties\":{\"a\":{}}}",
            "{\"types\":[\"boolean\",\"object\"],\"union\":[\"boolean\",{\"object\":[{\"key\":"
            "\"a\",\"optional\":"
            "true,\"value\":\"any\"}]}]}");
  SIGNATURE("{\"type\":[\"string\",\"null\"]}", "{\"nullable\":\"string\"}");
  SIGNATURE("{\"type\":[\"null\"]}", "{\"literal\":null}");
  REFUSED("{\"type\":[\"integer\",\"number\"]}", "#");
  REFUSED("{\"type\":[\"string\",\"string\"]}", "#");
  REFUSED("{\"type\":[\"string\",\"null\",\"null\"]}", "#");
  REFUSED("{\"type\":[\"string\"]}", "#");
  REFUSED("{\"type\":[]}", "#");
  REFUSED("{\"type\":[\"string\",5]}", "#");
  REFUSED(
      "{\"type\":[\"string\",\"number\",\"boolean\",\"array\",\"object\",\"null\",\"integer\","
      "\"x\"]}",
      "#");
  SIGNATURE(
      "{\"type\":[\"string\",\"number\",\"boolean\",\"array\",\"object\",\"null\"]}",
      "{\"types\":[\"array\",\"boolean\",\"null\",\"number\",\"object\",\"string\"],\"union\":"
      "[{\"array\":\"any\"},\"boolean\",{\"literal\":null},\"float64\",{\"object\":[]},\"string\"]"
      "}");
  REFUSED("{\"type\":[\"string\",\"foo\"]}", "#");
  SIGNATURE(
      "{\"type\":[\"boolean\",\"number\"],\"enum\":[true,1]}",
      "{\"types\":[\"boolean\",\"number\"],\"union\":[{\"enum\":[1,true]},{\"enum\":[1,true]}]}");
}

static void test_negative_zero(void) {
  REFUSED("{\"const\":-0}", "#/const");
  REFUSED("{\"const\":-0.0}", "#/const");
  REFUSED("{\"enum\":[-0,1]}", "#/enum/0");
  REFUSED("{\"enum\":[0,-0]}", "#/enum/1");
  REFUSED("{\"type\":\"object\",\"properties\":{\"v\":{\"enum\":[\"a\",-0e5]}}}",
          "#/properties/v/enum/1");
  REFUSED(
      "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"t\":{\"const\":-0}}},{\"type\":"
      "\"object\","
      "\"properties\":{\"t\":{\"const\":1}}}]}",
      "#/anyOf/0/properties/t/const");
  REFUSED("{\"const\":1e400}", "#/const");
  REFUSED("{\"enum\":[1,-1e400]}", "#/enum/1");
  SIGNATURE("{\"const\":0}", "{\"literal\":0}");
  SIGNATURE("{\"type\":\"integer\",\"minimum\":-0}", "\"uint\"");
  SIGNATURE("{\"type\":\"array\",\"items\":{},\"minItems\":-0,\"maxItems\":0}",
            "{\"array\":\"any\",\"length\":0}");
}

static void test_refusal_paths(void) {
  REFUSED("true", "#");
  REFUSED("{\"type\":\"foo\"}", "#");
  REFUSED("{\"type\":\"array\",\"items\":true}", "#/items");
  REFUSED(
      "{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":5}}}}",
      "#/properties/tags/items");
  REFUSED("{\"type\":\"object\",\"properties\":{\"a/b~c\":{\"not\":{}}}}", "#/properties/a~1b~0c");
  REFUSED("{\"type\":\"object\",\"properties\":{\"a\\u0000\\ud800\":{\"allOf\":[]}}}",
          "#/properties/a%00%ED%A0%80");
  REFUSED("{\"anyOf\":[{\"type\":\"null\"},{\"anyOf\":[{},\"x\"]}]}", "#/anyOf/1/anyOf/1");
  REFUSED(
      "{\"$ref\":\"#/$defs/a~1b\",\"$defs\":{\"a/"
      "b\":{\"type\":\"object\",\"properties\":{\"x\":{\"const\":[]}}}}}",
      "#/$defs/a~1b/properties/x");
  REFUSED("{\"$ref\":\"#/$defs/missing\"}", "#");
  REFUSED("{\"$defs\":{\"a b\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/a%20b\"}", "#");
  REFUSED("{\"$ref\":\"https://example.com/s.json\"}", "#");
  REFUSED("{\"$ref\":\"#/prefixItems/0\",\"prefixItems\":[{}]}", "#");
  REFUSED("{\"$ref\":5}", "#");
  REFUSED("{\"anyOf\":5,\"oneOf\":[{}]}", "#");
  REFUSED("{\"anyOf\":[]}", "#");
  REFUSED("{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[\"b\"]}", "#");
  REFUSED("{\"type\":\"object\",\"properties\":{},\"required\":[\"__proto__\"]}", "#");
  REFUSED("{\"type\":\"object\",\"additionalProperties\":null}", "#/additionalProperties");
  REFUSED("{\"type\":\"object\",\"properties\":[]}", "#/properties");
  REFUSED("{\"anyOf\":[{\"type\":\"foo\",\"const\":1}]}", "#/anyOf/0");
  SIGNATURE("{\"$defs\":{\"~1\":{\"type\":\"boolean\"}},\"$ref\":\"#/$defs/~01\"}", "\"boolean\"");

  /* A long path keeps its end. */
  char schema[2048], key[301];
  memset(key, 'k', 300);
  key[300] = 0;
  snprintf(schema, sizeof schema,
           "{\"type\":\"object\",\"properties\":{\"%s\":{\"type\":\"object\",\"properties\":"
           "{\"x\":{\"type\":\"nope\"}}}}}",
           key);
  shorn_error e;
  shorn_schema *s = compile(schema, strlen(schema), &e);
  CHECK(!s && e.where == SHORN_WHERE_PATH && strlen(e.path) < SHORN_PATH_MAX &&
        strncmp(e.path, "#/...", 5) == 0 &&
        strcmp(e.path + strlen(e.path) - 13, "/properties/x") == 0);
  /* A schema that is not JSON at all. */
  s = compile("{\"type\":", 8, &e);
  CHECK(!s && e.code == SHORN_ERROR_JSON);
}

/* ---- hostile documents ------------------------------------------------------ */

static char *repeat_schema(const char *open, const char *middle, const char *close, int n) {
  size_t size = strlen(middle) + n * (strlen(open) + strlen(close)) + 1;
  char *text = malloc(size), *p = text;
  for (int i = 0; i < n; i++) p += sprintf(p, "%s", open);
  p += sprintf(p, "%s", middle);
  for (int i = 0; i < n; i++) p += sprintf(p, "%s", close);
  return text;
}

/* Each definition holds the one before it twice: 2^levels shapes. */
static char *laughs(int levels, const char *leaf) {
  char *text = malloc((size_t)levels * 160 + strlen(leaf) + 100), *p = text;
  p += sprintf(p, "{\"$ref\":\"#/$defs/L%d\",\"$defs\":{\"L0\":%s", levels, leaf);
  for (int i = 1; i <= levels; i++)
    p += sprintf(
        p,
        ",\"L%d\":{\"type\":\"array\",\"prefixItems\":[{\"$ref\":\"#/$defs/L%d\"},{\"$ref\":"
        "\"#/$defs/L%d\"}]}",
        i, i - 1, i - 1);
  sprintf(p, "}}");
  return text;
}

/* A hostile schema is refused holding at most `limit` bytes at once while
 * it compiles (the counting allocator, which every compile here uses, measures):
 * the refusal comes before the expansion it would take.  Bytes, not
 * seconds: a timed check failed on a loaded machine. */
static void expect_refused_within(int line, const char *what, char *schema, size_t limit) {
  counting_mark();
  expect_refused(line, schema, NULL);
  check_count++;
  if (counting_peak() > limit) {
    char note[120];
    snprintf(note, sizeof note, "%s held %zu bytes at once, more than %zu", what, counting_peak(), limit);
    fail_note(__FILE__, line, "(generated)", note);
  }
  free(schema);
}

/* What a compile may hold for a schema that expands to nothing large: a
 * small multiple of its text. */
static size_t small_multiple(const char *schema) { return 16 * strlen(schema) + 65536; }

static void test_limits(void) {
  char *text = repeat_schema("{\"type\":\"array\",\"items\":", "{}", "}", 511);
  shorn_error e;
  shorn_schema *s = compile(text, strlen(text), &e);
  CHECK(s != NULL); /* 512 levels */
  shorn_schema_free(s);
  free(text);
  text = repeat_schema("{\"type\":\"array\",\"items\":", "{}", "}", 512);
  s = compile(text, strlen(text), &e);
  CHECK(!s && e.code == SHORN_ERROR_SCHEMA && strstr(e.message, "deeper"));
  free(text);
  text = repeat_schema("{\"anyOf\":[{\"type\":\"null\"},", "{}", "]}", 4000);
  expect_refused_within(__LINE__, "4000 nested unions", text, small_multiple(text));

  /* A chain of $refs nests too. */
  char *chain = malloc(700 * 40), *p = chain;
  p += sprintf(p, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
  for (int i = 0; i < 600; i++)
    p += sprintf(p, "%s\"d%d\":{\"$ref\":\"#/$defs/d%d\"}", i ? "," : "", i, i + 1);
  sprintf(p, ",\"d600\":{}}}");
  expect_refused_within(__LINE__, "ref chain", chain, small_multiple(chain));

  /* Reuse of expanded $refs is as deep as the expansion: seven definitions
   * of 100 levels each, every one reached first on its own. */
  char *tall = malloc(200000);
  p = tall;
  p += sprintf(p, "{\"type\":\"object\",\"properties\":{");
  for (int k = 6; k >= 0; k--)
    p += sprintf(p, "%s\"p%d\":{\"$ref\":\"#/$defs/X%d\"}", k == 6 ? "" : ",", 6 - k, k);
  p += sprintf(p, "},\"$defs\":{\"X7\":{\"type\":\"string\"}");
  for (int k = 0; k < 7; k++) {
    p += sprintf(p, ",\"X%d\":", k);
    for (int i = 0; i < 100; i++) p += sprintf(p, "{\"type\":\"array\",\"items\":");
    p += sprintf(p, "{\"$ref\":\"#/$defs/X%d\"}", k + 1);
    for (int i = 0; i < 100; i++) p += sprintf(p, "}");
  }
  sprintf(p, "}}");
  s = compile(tall, strlen(tall), &e);
  CHECK(!s && e.code == SHORN_ERROR_SCHEMA && strstr(e.message, "deeper"));
  free(tall);

  text = laughs(18, "{\"type\":\"boolean\"}");
  s = compile(text, strlen(text), &e);
  CHECK(s && s->root->min_width == 1u << 18); /* 2^19 - 1 shapes: fine */
  shorn_schema_free(s);
  free(text);
  text = laughs(19, "{\"type\":\"boolean\"}");
  s = compile(text, strlen(text), &e);
  CHECK(!s && e.code == SHORN_ERROR_SCHEMA &&
        strstr(e.message, "expands")); /* 2^20 - 1: too many */
  free(text);
  text = laughs(60, "{\"type\":\"string\"}");
  expect_refused_within(__LINE__, "billion laughs", text, small_multiple(text));

  /* Few shapes, but long keys copied everywhere: a signature of 256 MiB,
   * measured and refused before any of it is written. */
  char *wide = malloc(70000);
  memset(wide, 'w', 65536);
  wide[65536] = 0;
  char *leaf = malloc(70100);
  sprintf(leaf, "{\"type\":\"object\",\"properties\":{\"%s\":{}}}", wide);
  /* 32 copies, 2 MiB: written as measured. */
  text = laughs(5, leaf);
  s = compile(text, strlen(text), &e);
  size_t copies = 0;
  for (const char *k = s ? s->signature : ""; (k = strstr(k, wide)); k += 65536) copies++;
  CHECK(s && copies == 32 && strlen(s->signature) == s->signature_length);
  shorn_schema_free(s);
  free(text);
  text = laughs(12, leaf);
  /* The same below a recursive definition: the texts the fold compares,
   * refused the same way. */
  const char *defs = strstr(text, "\"L0\"");
  char *recursive = malloc(strlen(text) + 200);
  sprintf(recursive,
          "{\"$ref\":\"#/$defs/R\",\"$defs\":{\"R\":{\"type\":\"object\",\"properties\":{"
          "\"next\":{\"anyOf\":[{\"type\":\"null\"},{\"$ref\":\"#/$defs/R\"}]},"
          "\"x\":{\"$ref\":\"#/$defs/L12\"}}},%s",
          defs);
  char *long_keys[2] = {text, recursive};
  for (int i = 0; i < 2; i++) {
    s = compile(long_keys[i], strlen(long_keys[i]), &e);
    CHECK(!s && strstr(e.message, "too large: the text of its shapes passes 64 MiB"));
    expect_refused_within(__LINE__, i ? "long keys, recursive" : "long keys", long_keys[i],
                          small_multiple(long_keys[i]));
  }
  free(leaf);
  free(wide);

  /* A wide enum and a wide object: memory linear in the document (25 and
   * 31 times its length now; a quadratic one would hold gigabytes). */
  size_t n = 200000;
  char *big = malloc(n * 16 + 64);
  p = big + sprintf(big, "{\"enum\":[");
  for (size_t i = 0; i < n; i++) p += sprintf(p, "%s%zu", i ? "," : "", (i * 7919) % n);
  sprintf(p, "]}");
  counting_mark();
  s = compile(big, strlen(big), &e);
  CHECK(s && s->root->u.enumeration.count == n);
  CHECK(counting_peak() <= 64 * strlen(big));
  shorn_schema_free(s);
  p = big + sprintf(big, "{\"type\":\"object\",\"properties\":{");
  for (size_t i = 0; i < n / 2; i++) p += sprintf(p, "%s\"k%zu\":{}", i ? "," : "", i);
  sprintf(p, "}}");
  counting_mark();
  s = compile(big, strlen(big), &e);
  CHECK(s && s->root->u.object.count == n / 2 && object_find_field(s->root, "k4321", 5));
  CHECK(counting_peak() <= 64 * strlen(big));
  shorn_schema_free(s);
  free(big);
}

/* ---- the golden vectors ----------------------------------------------------- */

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)size + 1);
  *n = fread(data, 1, (size_t)size, f);
  data[*n] = 0;
  fclose(f);
  return data;
}

/* The end of the JSON value starting at p (the text is known to be JSON). */
static const char *skip_value(const char *p, const char *end) {
  int depth = 0;
  do {
    if (*p == '"') {
      for (p++; *p != '"'; p++)
        if (*p == '\\') p++;
      p++;
    } else if (*p == '{' || *p == '[') {
      depth++, p++;
    } else if (*p == '}' || *p == ']') {
      depth--, p++;
    } else if (depth) {
      p++;
    } else {
      while (p < end && !strchr(",}] \t\r\n", *p)) p++;
    }
  } while (depth && p < end);
  return p;
}

/* The raw text of the line's top-level "schema" member: it is compiled as
 * written, so that a -0 in it stays -0. */
static bool schema_span(const char *line, const char *end, const char **start, size_t *n) {
  const char *p = line + 1;
  while (p < end && *p != '}') {
    while (*p == ' ' || *p == ',') p++;
    const char *key = p;
    p = skip_value(p, end);
    bool is_schema = p - key == 8 && memcmp(key, "\"schema\"", 8) == 0;
    while (*p == ' ' || *p == ':') p++;
    const char *value = p;
    p = skip_value(p, end);
    if (is_schema) {
      *start = value;
      *n = (size_t)(p - value);
      return true;
    }
  }
  return false;
}

typedef struct tally {
  char name[40];
  int passed, failed;
} tally;

static tally tallies[64];
static int tally_count;

static tally *tally_for(const char *name, size_t n) {
  for (int i = 0; i < tally_count; i++)
    if (strlen(tallies[i].name) == n && memcmp(tallies[i].name, name, n) == 0) return &tallies[i];
  tally *t = &tallies[tally_count < 63 ? tally_count++ : 63];
  snprintf(t->name, sizeof t->name, "%.*s", (int)n, name);
  return t;
}

static const json_value *get(const json_value *o, const char *key) {
  return json_get(o, key, strlen(key));
}

static bool is(const json_value *v, const char *s) {
  return v && v->type == JSON_STRING && v->length == strlen(s) &&
         memcmp(v->u.string, s, v->length) == 0;
}

/* One vector row: the expected outcome, or only "compiles". */
static bool check_row(const json_value *row, const char *schema, size_t n, bool must_compile,
                      char *why) {
  const json_value *signature = get(row, "signature"), *fp = get(row, "fp");
  bool refused = is(get(row, "error"), "compile");
  shorn_error e;
  shorn_schema *s = compile(schema, n, &e);
  bool ok = true;
  if (!s) {
    shorn_error_format(&e, why, 300);
    ok = refused && e.code == SHORN_ERROR_SCHEMA;
  } else if (refused) {
    snprintf(why, 300, "compiled to %.250s", s->signature);
    ok = false;
  } else if (signature && (s->signature_length != signature->length ||
                           memcmp(s->signature, signature->u.string, signature->length) != 0)) {
    snprintf(why, 300, "signature %.250s", s->signature);
    ok = false;
  }
  for (int w = 1; s && ok && fp && w <= 4; w++) {
    char key[2] = {(char)('0' + w), 0}, got[9];
    hex_of(s, w, got);
    ok = is(get(fp, key), got);
    if (!ok) snprintf(why, 300, "fingerprint %d is %s", w, got);
  }
  ok = ok && (must_compile || signature || refused);
  shorn_schema_free(s);
  return ok;
}

static void run_vectors(const char *path, bool seed) {
  size_t size;
  char *data = read_file(path, &size);
  check_count++;
  if (!data) {
    check_failures++;
    fprintf(stderr, "cannot read %s\n", path);
    return;
  }
  int first = tally_count;
  for (char *line = data, *end; line < data + size; line = end + 1) {
    if (!(end = strchr(line, '\n'))) end = data + size;
    if (end == line) continue;
    arena a = {.allocator = &counting_allocator};
    json_value *row;
    shorn_error e;
    const char *schema;
    size_t n;
    char why[320] = "";
    check_count++;
    if (json_parse(&a, line, (size_t)(end - line), &row, &e) != SHORN_OK ||
        !schema_span(line, end, &schema, &n)) {
      check_failures++;
      fprintf(stderr, "%s: unreadable line %.60s\n", path, line);
      arena_free(&a);
      continue;
    }
    const json_value *id = get(row, "id"), *op = get(row, "op");
    const json_value *label = seed ? (is(op, "compile") ? op : NULL) : get(row, "cat");
    tally *t =
        label ? tally_for(label->u.string, label->length) : tally_for("schema of other rows", 20);
    if (check_row(row, schema, n, seed && !is(op, "compile"), why)) {
      t->passed++;
    } else {
      t->failed++;
      check_failures++;
      fprintf(stderr, "%s %.*s: %s\n  schema: %.*s\n", path, id ? (int)id->length : 0,
              id ? id->u.string : "", why, (int)(n < 300 ? n : 300), schema);
    }
    arena_free(&a);
  }
  printf("%s\n", path);
  for (int i = first; i < tally_count; i++)
    printf("  %-22s %5d passed %3d failed\n", tallies[i].name, tallies[i].passed,
           tallies[i].failed);
  free(data);
}

/* Schemas compiled into one engine (the SQLite layer's, shared by the
 * process) share a pattern: compiled once, charged in full to each use,
 * freed with the last schema; a refused compile, or one out of memory at
 * any allocation of either allocator, keeps nothing. */
#define SHARED_PATTERN "{\"type\":\"string\",\"pattern\":\"^[a-z]+-[0-9]$\"}"
static void test_shared_patterns(void) {
  static const char one[] = SHARED_PATTERN,
                    two[] = "{\"type\":\"object\",\"properties\":{\"a\":" SHARED_PATTERN ",\"b\":" SHARED_PATTERN "}}",
                    refused[] = "{\"type\":\"object\",\"properties\":{\"a\":" SHARED_PATTERN ",\"b\":{\"type\":\"nonsense\"}}}";
  counting engine_count = {0}, schema_count = {0};
  const shorn_allocator engine_allocator = {counting_realloc, counting_free, &engine_count},
                        schema_allocator = {counting_realloc, counting_free, &schema_count};
  pattern_engine *engine = pattern_engine_new(&engine_allocator);
  CHECK(engine != NULL);
  pattern_engine_measure(engine, &engine_count.current);
  size_t empty = engine_count.current;
  shorn_schema *x = NULL, *y = NULL;
  shorn_error e;
  CHECK(schema_compile_sharing(one, strlen(one), &schema_allocator, engine, &x, &e) == SHORN_OK);
  size_t with_one = engine_count.current;
  CHECK(pattern_engine_count(engine) == 1);
  CHECK(x->pattern_bytes > 0 && x->pattern_bytes < with_one - empty);
  CHECK(schema_compile_sharing(two, strlen(two), &schema_allocator, engine, &y, &e) == SHORN_OK);
  CHECK(pattern_engine_count(engine) == 1 && engine_count.current == with_one);
  CHECK(y->pattern_bytes == 2 * x->pattern_bytes);
  shorn_schema_free(x);
  CHECK(pattern_engine_count(engine) == 1);
  shorn_buffer out = {0};
  CHECK(shorn_encode(y, "{\"a\":\"ab-1\",\"b\":\"c-2\"}", 22, 0, &out, &e) == SHORN_OK);
  CHECK(shorn_encode(y, "{\"a\":\"ab-1\",\"b\":\"c-x\"}", 22, 0, &out, &e) == SHORN_ERROR_ENCODE);
  CHECK(strstr(e.message, "must match pattern") != NULL);
  shorn_buffer_free(&out);
  shorn_schema_free(y);
  CHECK(pattern_engine_count(engine) == 0 && engine_count.current == empty);
  CHECK(schema_compile_sharing(refused, strlen(refused), &schema_allocator, engine, &x, &e) == SHORN_ERROR_SCHEMA);
  CHECK(pattern_engine_count(engine) == 0 && engine_count.current == empty && schema_count.current == 0);
  for (counting *failing = &engine_count; failing; failing = failing == &engine_count ? &schema_count : NULL) {
    shorn_code rc = SHORN_ERROR_NOMEM;
    for (unsigned long n = 1; rc == SHORN_ERROR_NOMEM && n < 1000; n++) {
      engine_count.calls = schema_count.calls = 0;
      failing->fail_at = n;
      rc = schema_compile_sharing(two, strlen(two), &schema_allocator, engine, &y, &e);
      failing->fail_at = 0;
      if (rc == SHORN_OK) shorn_schema_free(y);
      CHECK(pattern_engine_count(engine) == 0 && engine_count.current == empty && schema_count.current == 0);
    }
    CHECK(rc == SHORN_OK);
  }
  pattern_engine_free(engine);
  CHECK(engine_count.current == 0);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/vectors";
  char path[1024];
  int before = check_failures;
  test_examples();
  test_fingerprints();
  test_definitions();
  test_widths();
  test_slots();
  test_extensions();
  test_type_arrays();
  test_negative_zero();
  test_refusal_paths();
  test_limits();
  test_shared_patterns();
  printf("worked examples and limits: %d failed\n", failures_here(before));
  snprintf(path, sizeof path, "%s/schemas.jsonl", dir);
  run_vectors(path, false);
  snprintf(path, sizeof path, "%s/seed-examples.jsonl", dir);
  run_vectors(path, true);
  return check_report("schema");
}
