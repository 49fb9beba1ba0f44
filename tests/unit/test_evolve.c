/*
 * test_evolve.c — schema evolution (core/evolve): each rule of a reader
 * reading what a writer wrote, through evolve_check on pairs of schemas
 * (those allowed report nothing; those refused report each place, as a
 * JSON Pointer into the reader's schema, and why), on objects, arrays,
 * records, tuples, Maps, Sets, nullables, unions both discriminated and by
 * type, and recursive $ref schemas, which must end; then evolve_upgrade:
 * a value encoded with the writer, upgraded, decoded with the reader, as
 * JSON; with fingerprints of each width; and payloads it must refuse.
 */
#include "check.h"
#include "core/evolve/evolve.h"
#include "core/text/text.h"
#include "shorn.h"

static shorn_schema *compiled(const char *text) {
  shorn_schema *s;
  shorn_error e;
  if (shorn_schema_compile(text, strlen(text), NULL, &s, &e) != SHORN_OK) {
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
    shorn_error_format(&e, message, sizeof message);
    fprintf(stderr, "test_evolve: does not compile: %s: %s\n", text, message);
    exit(1);
  }
  return s;
}

/* What evolve_check says of reader `r` reading writer `w`'s payloads: ""
 * when it reads them all. */
static const char *why_of(const char *w, const char *r) {
  static char text[4096];
  shorn_schema *writer = compiled(w), *reader = compiled(r);
  shorn_buffer why = {0};
  shorn_code rc = evolve_check(writer, reader, &why);
  if (rc != SHORN_OK)
    snprintf(text, sizeof text, "code %d", (int)rc);
  else
    snprintf(text, sizeof text, "%.*s", (int)why.length, why.data ? (const char *)why.data : "");
  shorn_buffer_free(&why);
  shorn_schema_free(writer);
  shorn_schema_free(reader);
  return text;
}

/* `json` encoded with the writer (its validation keywords checked), the
 * payload upgraded to the reader's, decoded with the reader; or "error:
 * <message>" of the step that failed.  `width` bytes of fingerprint on
 * both sides, which must be the writer's going in and the reader's coming
 * out. */
static const char *upgraded_width(const char *w, const char *r, const char *json, int width) {
  static char text[4096];
  shorn_schema *writer = compiled(w), *reader = compiled(r);
  shorn_buffer payload = {0}, out = {0}, decoded = {0};
  shorn_error e;
  shorn_code rc = shorn_encode(writer, json, strlen(json), width, &payload, &e);
  if (rc == SHORN_OK) {
    /* Something already in `out` stays, and the upgrade goes after it. */
    CHECK(buffer_append(&out, "ab", 2));
    evolve_plan *plan = NULL;
    shorn_buffer scratch = {0};
    rc = evolve_plan_new(writer, reader, &plan, &e);
    if (rc == SHORN_OK) rc = evolve_upgrade(plan, payload.data, payload.length, width, width, &scratch, &out, &e);
    evolve_plan_free(plan);
    shorn_buffer_free(&scratch);
    CHECK(out.length >= 2 && memcmp(out.data, "ab", 2) == 0);
    if (rc != SHORN_OK) CHECK(out.length == 2);
  }
  if (rc == SHORN_OK) {
    unsigned char fingerprint[4];
    CHECK(!width || shorn_schema_fingerprint(reader, width, fingerprint, &e) == SHORN_OK);
    CHECK(out.length >= 2 + (size_t)width && (!width || memcmp(out.data + 2, fingerprint, (size_t)width) == 0));
    rc = shorn_decode(reader, out.data + 2, out.length - 2, width, &decoded, &e);
  }
  if (rc == SHORN_OK) {
    snprintf(text, sizeof text, "%.*s", (int)decoded.length, (const char *)decoded.data);
  } else {
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
    shorn_error_format(&e, message, sizeof message);
    snprintf(text, sizeof text, "error: %s", message);
  }
  shorn_buffer_free(&payload);
  shorn_buffer_free(&out);
  shorn_buffer_free(&decoded);
  shorn_schema_free(writer);
  shorn_schema_free(reader);
  return text;
}

static const char *upgraded(const char *w, const char *r, const char *json) { return upgraded_width(w, r, json, 0); }

/* ---- the schemas ---------------------------------------------------------- */

#define OBJ(props, required) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required "]}"
#define CLOSED(props, required) \
  "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required "],\"additionalProperties\":false}"
#define STR "{\"type\":\"string\"}"
#define INT "{\"type\":\"integer\"}"
#define UINT "{\"type\":\"integer\",\"minimum\":0}"
#define NUM "{\"type\":\"number\"}"
#define BOOL "{\"type\":\"boolean\"}"

typedef struct pair_case {
  const char *writer, *reader, *why;
} pair_case;

static const pair_case pairs[] = {
    /* The same schema; validation keywords changed either way. */
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT, "\"a\""), ""},
    {OBJ("\"a\":{\"type\":\"integer\",\"maximum\":10}", "\"a\""), OBJ("\"a\":{\"type\":\"integer\",\"maximum\":5}", "\"a\""),
     ""},
    {OBJ("\"s\":{\"type\":\"string\",\"maxLength\":3}", "\"s\""),
     OBJ("\"s\":{\"type\":\"string\",\"minLength\":9,\"pattern\":\"^x\"}", "\"s\""), ""},
    /* Members matched by name: one only the writer has is dropped; one only
     * the reader has is optional, or has a default. */
    {OBJ("\"a\":" INT ",\"b\":" STR, "\"a\",\"b\""), OBJ("\"a\":" INT, "\"a\""), ""},
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT ",\"b\":" STR, "\"a\""), ""},
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT ",\"b\":{\"type\":\"string\",\"default\":\"x\"}", "\"a\",\"b\""), ""},
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT ",\"b\":" STR, "\"a\",\"b\""),
     "#/properties/b: a new required member needs a default: the older payloads do not have it"},
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT ",\"b\":{\"type\":\"string\",\"default\":5}", "\"a\",\"b\""),
     "#/properties/b: its default is not a value of its schema: Expected a string, got a number"},
    /* Required to optional; optional to required only with a default. */
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" INT, ""), ""},
    {OBJ("\"a\":" INT, ""), OBJ("\"a\":" INT, "\"a\""),
     "#/properties/a: an optional member cannot become required without a default: older payloads may lack it"},
    {OBJ("\"a\":" INT, ""), OBJ("\"a\":{\"type\":\"integer\",\"default\":7}", "\"a\""), ""},
    /* Leaves: integer to number, unsigned to signed, float32 to number;
     * formats dropped; every other change of type refused. */
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" NUM, "\"a\""), ""},
    {OBJ("\"a\":" UINT, "\"a\""), OBJ("\"a\":" INT, "\"a\""), ""},
    {OBJ("\"a\":{\"type\":\"number\",\"x-shorn\":\"float32\"}", "\"a\""), OBJ("\"a\":" NUM, "\"a\""), ""},
    {OBJ("\"a\":{\"type\":\"string\",\"format\":\"uuid\"}", "\"a\""), OBJ("\"a\":" STR, "\"a\""), ""},
    {OBJ("\"a\":{\"type\":\"string\",\"format\":\"date-time\"}", "\"a\""), OBJ("\"a\":" STR, "\"a\""), ""},
    {OBJ("\"age\":" INT, "\"age\""), OBJ("\"age\":" STR, "\"age\""),
     "#/properties/age: an integer cannot be read as a string"},
    {OBJ("\"a\":" NUM, "\"a\""), OBJ("\"a\":" INT, "\"a\""), "#/properties/a: a number cannot be read as an integer"},
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":" UINT, "\"a\""),
     "#/properties/a: an integer cannot be read as a non-negative one: older payloads may hold a negative number"},
    {OBJ("\"a\":" STR, "\"a\""), OBJ("\"a\":{\"type\":\"string\",\"format\":\"uuid\"}", "\"a\""),
     "#/properties/a: a string cannot be read as a UUID"},
    {OBJ("\"a\":" BOOL, "\"a\""), OBJ("\"a\":" STR, "\"a\""), "#/properties/a: a boolean cannot be read as a string"},
    {OBJ("\"a\":" NUM, "\"a\""), OBJ("\"a\":{\"type\":\"number\",\"x-shorn\":\"float32\"}", "\"a\""),
     "#/properties/a: a number cannot be read as a float32"},
    /* Enums and literals: gaining members, losing one. */
    {OBJ("\"e\":{\"enum\":[\"a\",\"b\"]}", "\"e\""), OBJ("\"e\":{\"enum\":[\"a\",\"b\",\"c\"]}", "\"e\""), ""},
    {OBJ("\"e\":{\"enum\":[\"a\",\"b\"]}", "\"e\""), OBJ("\"e\":{\"enum\":[\"b\",\"a\"]}", "\"e\""), ""},
    {OBJ("\"e\":{\"enum\":[\"a\",\"b\",\"c\"]}", "\"e\""), OBJ("\"e\":{\"enum\":[\"a\",\"c\"]}", "\"e\""),
     "#/properties/e: the value \"b\" is no longer one of its values"},
    {OBJ("\"e\":{\"const\":\"a\"}", "\"e\""), OBJ("\"e\":{\"enum\":[\"a\",\"b\"]}", "\"e\""), ""},
    {OBJ("\"e\":{\"const\":\"a\"}", "\"e\""), OBJ("\"e\":{\"const\":\"b\"}", "\"e\""),
     "#/properties/e: the value \"a\" is no longer one of its values"},
    {OBJ("\"e\":{\"enum\":[\"a\",\"b\"]}", "\"e\""), OBJ("\"e\":" STR, "\"e\""), ""},
    {OBJ("\"e\":{\"enum\":[1,2]}", "\"e\""), OBJ("\"e\":" INT, "\"e\""), ""},
    {OBJ("\"e\":{\"enum\":[1,2.5]}", "\"e\""), OBJ("\"e\":" INT, "\"e\""),
     "#/properties/e: the value 2.5 cannot be read as an integer"},
    {OBJ("\"e\":{\"enum\":[-1,2]}", "\"e\""), OBJ("\"e\":" UINT, "\"e\""),
     "#/properties/e: the value -1 cannot be read as an integer"},
    {OBJ("\"e\":" STR, "\"e\""), OBJ("\"e\":{\"enum\":[\"a\",\"b\"]}", "\"e\""),
     "#/properties/e: a string cannot be read as an enum"},
    /* Nullable: a type gaining null, in both spellings; losing it. */
    {OBJ("\"n\":" STR, "\"n\""), OBJ("\"n\":{\"type\":[\"string\",\"null\"]}", "\"n\""), ""},
    {OBJ("\"n\":" STR, "\"n\""), OBJ("\"n\":{\"anyOf\":[" STR ",{\"type\":\"null\"}]}", "\"n\""), ""},
    {OBJ("\"n\":{\"type\":[\"integer\",\"null\"]}", "\"n\""), OBJ("\"n\":{\"type\":[\"number\",\"null\"]}", "\"n\""), ""},
    {OBJ("\"n\":{\"type\":[\"string\",\"null\"]}", "\"n\""), OBJ("\"n\":" STR, "\"n\""),
     "#/properties/n: null cannot be read: the new schema does not admit it"},
    {OBJ("\"n\":{\"type\":[\"integer\",\"null\"]}", "\"n\""), OBJ("\"n\":{\"type\":[\"string\",\"null\"]}", "\"n\""),
     "#/properties/n: an integer cannot be read as a string"},
    /* Nested objects: the pointer goes down through each. */
    {OBJ("\"o\":" OBJ("\"p\":" OBJ("\"q\":" INT ",\"gone\":" BOOL, "\"q\""), "\"p\""), "\"o\""),
     OBJ("\"o\":" OBJ("\"p\":" OBJ("\"q\":" NUM ",\"new\":{\"type\":\"boolean\",\"default\":true}", "\"q\",\"new\""),
                      "\"p\""),
         "\"o\""),
     ""},
    {OBJ("\"o\":" OBJ("\"p\":" OBJ("\"q\":" INT, "\"q\""), "\"p\""), "\"o\""),
     OBJ("\"o\":" OBJ("\"p\":" OBJ("\"q\":" STR ",\"r\":" INT, "\"q\",\"r\""), "\"p\""), "\"o\""),
     "#/properties/o/properties/p/properties/q: an integer cannot be read as a string; "
     "#/properties/o/properties/p/properties/r: a new required member needs a default: the older payloads do not have it"},
    /* Keys escaped as RFC 6901 asks. */
    {OBJ("\"a/b~c\":" INT, "\"a/b~c\""), OBJ("\"a/b~c\":" STR, "\"a/b~c\""),
     "#/properties/a~1b~0c: an integer cannot be read as a string"},
    /* Open objects: extras against extras. */
    {"{\"type\":\"object\",\"additionalProperties\":" INT "}", "{\"type\":\"object\",\"additionalProperties\":" NUM "}",
     ""},
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"additionalProperties\":" INT "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"additionalProperties\":" STR "}",
     "#/additionalProperties: an integer cannot be read as a string"},
    /* A member the reader names that an open writer may hold among its
     * extras: the writer's undeclared member is not it, so their shapes
     * need not agree. */
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"additionalProperties\":" STR "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" INT ",\"x\":" INT "},\"additionalProperties\":" STR "}",
     ""},
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"required\":[\"a\"],\"additionalProperties\":" INT "}",
     CLOSED("\"a\":" INT ",\"x\":" NUM, "\"a\""), ""},
    /* Arrays, Sets, Maps, records. */
    {"{\"type\":\"array\",\"items\":" INT "}", "{\"type\":\"array\",\"items\":" NUM "}", ""},
    {"{\"type\":\"array\",\"items\":" INT "}", "{\"type\":\"array\",\"items\":" STR "}",
     "#/items: an integer cannot be read as a string"},
    {"{\"type\":\"array\",\"items\":" OBJ("\"a\":" INT ",\"b\":" STR, "\"a\"") "}",
     "{\"type\":\"array\",\"items\":" OBJ("\"a\":" INT ",\"c\":{\"type\":\"integer\",\"default\":0}", "\"a\",\"c\"") "}",
     ""},
    {"{\"type\":\"array\",\"items\":" OBJ("\"a\":" INT, "\"a\"") "}",
     "{\"type\":\"array\",\"items\":" OBJ("\"a\":" INT ",\"c\":" INT, "\"a\",\"c\"") "}",
     "#/items/properties/c: a new required member needs a default: the older payloads do not have it"},
    {"{\"type\":\"array\",\"items\":" STR ",\"uniqueItems\":true,\"x-shorn\":\"set\"}",
     "{\"type\":\"array\",\"items\":" STR ",\"uniqueItems\":true,\"x-shorn\":\"set\"}", ""},
    {"{\"type\":\"array\",\"items\":" STR ",\"uniqueItems\":true,\"x-shorn\":\"set\"}",
     "{\"type\":\"array\",\"items\":" STR "}", "#: a Set cannot be read as an array"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," INT
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," NUM
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     ""},
    {"{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," INT
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," BOOL
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     "#/items: an integer cannot be read as a boolean"},
    {"{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ("\"a\":" INT, "\"a\"") "}",
     "{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ(
         "\"a\":" NUM ",\"b\":{\"type\":\"string\",\"default\":\"d\"}", "\"a\",\"b\"") "}",
     ""},
    /* Tuples: item by item; another count refused. */
    {"{\"type\":\"array\",\"prefixItems\":[" INT "," OBJ("\"a\":" INT, "\"a\"") "],\"items\":false}",
     "{\"type\":\"array\",\"prefixItems\":[" NUM "," OBJ("\"a\":" INT ",\"b\":" STR, "\"a\"") "],\"items\":false}", ""},
    {"{\"type\":\"array\",\"prefixItems\":[" INT "," STR "],\"items\":false}",
     "{\"type\":\"array\",\"prefixItems\":[" INT "," INT "],\"items\":false}",
     "#/prefixItems/1: a string cannot be read as an integer"},
    {"{\"type\":\"array\",\"prefixItems\":[" INT "],\"items\":false}",
     "{\"type\":\"array\",\"prefixItems\":[" INT "," INT "],\"items\":false}",
     "#: a tuple of other items cannot be read as this one"},
    {"{\"type\":\"array\",\"prefixItems\":[" INT "],\"items\":" STR "}",
     "{\"type\":\"array\",\"prefixItems\":[" INT "],\"items\":false}",
     "#: a tuple of other items cannot be read as this one"},
    {"{\"type\":\"array\",\"prefixItems\":[" INT "],\"items\":" INT "}",
     "{\"type\":\"array\",\"prefixItems\":[" NUM "],\"items\":" NUM "}", ""},
    /* Unions by JSON type: a branch gained; a writer's value that lands in
     * no branch.  A pointer into a union names the compiled branch, which
     * is the schema's own index only when its branches are in canonical
     * order (the kinds' order; discriminated cases sorted), as here, and
     * says anyOf whatever the schema spells. */
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" STR "," INT "," BOOL "]}", "\"u\""),
     ""},
    {OBJ("\"u\":" STR, "\"u\""), OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), ""},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" STR "," NUM "]}", "\"u\""), ""},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "," BOOL "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""),
     "#/properties/u: a boolean fits no branch of the union"},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":" STR, "\"u\""),
     "#/properties/u: an integer cannot be read as a string"},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" STR "," BOOL "]}", "\"u\""),
     "#/properties/u: an integer fits no branch of the union"},
    {OBJ("\"u\":{\"anyOf\":[" OBJ("\"a\":" INT, "\"a\"") "," STR "]}", "\"u\""),
     OBJ("\"u\":{\"anyOf\":[" OBJ("\"a\":" STR, "\"a\"") "," STR "]}", "\"u\""),
     "#/properties/u/anyOf/0/properties/a: an integer cannot be read as a string"},
    /* Discriminated unions: a case gained, a case's members evolving, a
     * case lost. */
    {"{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" INT, "\"k\",\"x\"") "," OBJ("\"k\":{\"const\":\"b\"},\"y\":" STR,
                                                                                  "\"k\",\"y\"") "]}",
     "{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" NUM, "\"k\",\"x\"") "," OBJ(
         "\"k\":{\"const\":\"b\"},\"y\":" STR ",\"z\":{\"type\":\"integer\",\"default\":3}",
         "\"k\",\"y\",\"z\"") "," OBJ("\"k\":{\"const\":\"c\"}", "\"k\"") "]}",
     ""},
    {"{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" INT, "\"k\",\"x\"") "," OBJ("\"k\":{\"const\":\"b\"},\"y\":" STR,
                                                                                  "\"k\",\"y\"") "]}",
     "{\"anyOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" STR, "\"k\",\"x\"") "," OBJ("\"k\":{\"const\":\"b\"},\"y\":" STR,
                                                                                  "\"k\",\"y\"") "]}",
     "#/anyOf/0/properties/x: an integer cannot be read as a string"},
    {"{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"}", "\"k\"") "," OBJ("\"k\":{\"const\":\"b\"}", "\"k\"") "]}",
     "{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"}", "\"k\"") "," OBJ("\"k\":{\"const\":\"c\"}", "\"k\"") "]}",
     "#: the branch where k is \"b\" is gone"},
    /* Recursive schemas: the walk ends, each pair once. */
    {"{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":" OBJ(
         "\"v\":" INT ",\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}", "\"v\"") "}}",
     "{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":" OBJ(
         "\"v\":" NUM ",\"w\":{\"type\":\"integer\",\"default\":0},\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},"
         "{\"type\":\"null\"}]}",
         "\"v\",\"w\"") "}}",
     ""},
    {"{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":" OBJ(
         "\"v\":" INT ",\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}", "\"v\"") "}}",
     "{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":" OBJ(
         "\"v\":" STR ",\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}", "\"v\"") "}}",
     "#/properties/v: an integer cannot be read as a string"},
    {"{\"$ref\":\"#/$defs/t\",\"$defs\":{\"t\":" OBJ("\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}}",
                                                     "\"kids\"") "}}",
     "{\"$ref\":\"#/$defs/t\",\"$defs\":{\"t\":" OBJ(
         "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}},\"x\":" INT, "\"kids\",\"x\"") "}}",
     "#/properties/x: a new required member needs a default: the older payloads do not have it"},
    /* A recursive writer read by a reader that is not: the pairs it meets
     * are finite too. */
    {"{\"$ref\":\"#/$defs/t\",\"$defs\":{\"t\":" OBJ("\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}}",
                                                     "\"kids\"") "}}",
     OBJ("\"kids\":{\"type\":\"array\",\"items\":{}}", "\"kids\""), ""},
    /* Any value reads everything. */
    {OBJ("\"a\":" INT, "\"a\""), "{}", ""},
    {OBJ("\"a\":" OBJ("\"b\":" STR, "\"b\""), "\"a\""), OBJ("\"a\":{}", "\"a\""), ""},
    /* Several refusals, each at its place. */
    {OBJ("\"a\":" INT ",\"b\":" STR, "\"a\",\"b\""), OBJ("\"a\":" STR ",\"b\":" INT, "\"a\",\"b\""),
     "#/properties/a: an integer cannot be read as a string; #/properties/b: a string cannot be read as an integer"},
};

typedef struct upgrade_case {
  const char *writer, *reader, *json, *want;
} upgrade_case;

#define TREE(v, extra, required)                                                                      \
  "{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"v\":" v extra \
  ",\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}},\"required\":[" required "]}}}"

static const upgrade_case upgrades[] = {
    /* A member dropped, one defaulted, one left out, one kept. */
    {OBJ("\"a\":" INT ",\"b\":" STR, "\"a\",\"b\""),
     OBJ("\"a\":" NUM ",\"c\":{\"type\":\"string\",\"default\":\"dflt\"},\"d\":" BOOL, "\"a\",\"c\""),
     "{\"a\":5,\"b\":\"gone\"}", "{\"a\":5,\"c\":\"dflt\"}"},
    /* A default of an object, and an array's objects each given theirs. */
    {OBJ("\"xs\":{\"type\":\"array\",\"items\":" OBJ("\"a\":" INT ",\"old\":" BOOL, "\"a\"") "}", "\"xs\""),
     OBJ("\"xs\":{\"type\":\"array\",\"items\":" OBJ(
             "\"a\":" INT ",\"p\":{\"type\":\"object\",\"properties\":{\"q\":" INT "},\"default\":{\"q\":1}}",
             "\"a\",\"p\"") "}",
         "\"xs\""),
     "{\"xs\":[{\"a\":1,\"old\":true},{\"a\":2}]}", "{\"xs\":[{\"a\":1,\"p\":{\"q\":1}},{\"a\":2,\"p\":{\"q\":1}}]}"},
    /* An optional member the value has stays; the default goes only where
     * it lacks one. */
    {OBJ("\"a\":" INT, ""), OBJ("\"a\":{\"type\":\"integer\",\"default\":7}", "\"a\""), "{\"a\":3}", "{\"a\":3}"},
    {OBJ("\"a\":" INT, ""), OBJ("\"a\":{\"type\":\"integer\",\"default\":7}", "\"a\""), "{}", "{\"a\":7}"},
    /* Leaves widened. */
    {OBJ("\"i\":" INT ",\"u\":" UINT ",\"f\":{\"type\":\"number\",\"x-shorn\":\"float32\"}", "\"i\",\"u\",\"f\""),
     OBJ("\"i\":" NUM ",\"u\":" INT ",\"f\":" NUM, "\"i\",\"u\",\"f\""), "{\"i\":-3,\"u\":4000000000,\"f\":1.5}",
     "{\"f\":1.5,\"i\":-3,\"u\":4000000000}"},
    {OBJ("\"id\":{\"type\":\"string\",\"format\":\"uuid\"},\"at\":{\"type\":\"string\",\"format\":\"date-time\"}",
         "\"id\",\"at\""),
     OBJ("\"id\":" STR ",\"at\":" STR, "\"id\",\"at\""),
     "{\"id\":\"123e4567-e89b-12d3-a456-426614174000\",\"at\":\"2024-01-02T03:04:05.000Z\"}",
     "{\"at\":\"2024-01-02T03:04:05.000Z\",\"id\":\"123e4567-e89b-12d3-a456-426614174000\"}"},
    /* Enum gaining members: the value keeps its name, not its index. */
    {OBJ("\"e\":{\"enum\":[\"b\",\"c\"]}", "\"e\""), OBJ("\"e\":{\"enum\":[\"a\",\"b\",\"c\"]}", "\"e\""), "{\"e\":\"c\"}",
     "{\"e\":\"c\"}"},
    /* Gaining null; a union gaining a branch. */
    {OBJ("\"n\":" INT, "\"n\""), OBJ("\"n\":{\"type\":[\"number\",\"null\"]}", "\"n\""), "{\"n\":4}", "{\"n\":4}"},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" BOOL "," STR "," NUM "]}", "\"u\""),
     "{\"u\":12}", "{\"u\":12}"},
    {OBJ("\"u\":{\"anyOf\":[" STR "," INT "]}", "\"u\""), OBJ("\"u\":{\"anyOf\":[" BOOL "," STR "," NUM "]}", "\"u\""),
     "{\"u\":\"x\"}", "{\"u\":\"x\"}"},
    /* A union by type whose object branch evolves. */
    {OBJ("\"u\":{\"anyOf\":[" STR "," OBJ("\"a\":" INT ",\"b\":" INT, "\"a\"") "]}", "\"u\""),
     OBJ("\"u\":{\"anyOf\":[" STR "," OBJ("\"a\":" INT ",\"c\":{\"type\":\"boolean\",\"default\":false}", "\"a\",\"c\"") "]}",
         "\"u\""),
     "{\"u\":{\"a\":1,\"b\":2}}", "{\"u\":{\"a\":1,\"c\":false}}"},
    /* Discriminated: the case by its discriminant, reordered cases. */
    {"{\"oneOf\":[" OBJ("\"k\":{\"const\":\"a\"},\"x\":" INT, "\"k\",\"x\"") "," OBJ(
         "\"k\":{\"const\":\"b\"},\"y\":" STR ",\"old\":" INT, "\"k\",\"y\"") "]}",
     "{\"oneOf\":[" OBJ("\"k\":{\"const\":\"c\"}", "\"k\"") "," OBJ(
         "\"k\":{\"const\":\"b\"},\"y\":" STR ",\"z\":{\"type\":\"integer\",\"default\":3}",
         "\"k\",\"y\",\"z\"") "," OBJ("\"k\":{\"const\":\"a\"},\"x\":" NUM, "\"k\",\"x\"") "]}",
     "{\"k\":\"b\",\"y\":\"why\",\"old\":9}", "{\"k\":\"b\",\"y\":\"why\",\"z\":3}"},
    /* Records, Maps, tuples, Sets of objects. */
    {"{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ(
         "\"a\":" INT ",\"b\":" INT, "\"a\"") "}",
     "{\"type\":\"object\",\"propertyNames\":{\"type\":\"string\"},\"additionalProperties\":" OBJ(
         "\"a\":" INT ",\"c\":{\"type\":\"string\",\"default\":\"d\"}", "\"a\",\"c\"") "}",
     "{\"x\":{\"a\":1,\"b\":2},\"y\":{\"a\":3}}", "{\"x\":{\"a\":1,\"c\":\"d\"},\"y\":{\"a\":3,\"c\":\"d\"}}"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," OBJ("\"a\":" INT ",\"b\":" INT, "\"a\"")
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[" STR "," OBJ("\"a\":" NUM, "\"a\"")
     "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"}",
     "[[\"k\",{\"a\":1,\"b\":2}],[\"l\",{\"a\":3}]]", "[[\"k\",{\"a\":1}],[\"l\",{\"a\":3}]]"},
    {"{\"type\":\"array\",\"prefixItems\":[" INT "," OBJ("\"a\":" INT ",\"b\":" INT, "\"a\"") "],\"items\":" OBJ(
         "\"z\":" INT ",\"gone\":" INT, "\"z\"") "}",
     "{\"type\":\"array\",\"prefixItems\":[" NUM "," OBJ("\"a\":" INT, "\"a\"") "],\"items\":" OBJ("\"z\":" INT, "\"z\"") "}",
     "[1,{\"a\":2,\"b\":3},{\"z\":4,\"gone\":5},{\"z\":6}]", "[1,{\"a\":2},{\"z\":4},{\"z\":6}]"},
    {"{\"type\":\"array\",\"items\":" INT ",\"uniqueItems\":true,\"x-shorn\":\"set\"}",
     "{\"type\":\"array\",\"items\":" NUM ",\"uniqueItems\":true,\"x-shorn\":\"set\"}", "[3,1,2]", "[3,1,2]"},
    /* Open objects: extras kept where the reader keeps them. */
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT ",\"b\":" INT "},\"required\":[\"a\"],\"additionalProperties\":" STR
     "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"required\":[\"a\"],\"additionalProperties\":" STR "}",
     "{\"a\":1,\"b\":2,\"zz\":\"kept\"}", "{\"a\":1,\"zz\":\"kept\"}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"required\":[\"a\"],\"additionalProperties\":" STR "}",
     CLOSED("\"a\":" INT, "\"a\""), "{\"a\":1,\"zz\":\"dropped\"}", "{\"a\":1}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"required\":[\"a\"],\"additionalProperties\":"
     OBJ("\"p\":" INT ",\"q\":" INT, "\"p\"") "}",
     CLOSED("\"a\":" INT ",\"x\":" OBJ("\"p\":" NUM, "\"p\""), "\"a\""), "{\"a\":1,\"x\":{\"p\":2,\"q\":3},\"y\":{\"p\":4}}",
     "{\"a\":1}"},
    {"{\"type\":\"object\",\"properties\":{\"a\":" INT "},\"required\":[\"a\"],\"additionalProperties\":" STR "}",
     "{\"type\":\"object\",\"properties\":{\"a\":" INT ",\"x\":{\"type\":\"string\",\"default\":\"-\"}},"
     "\"required\":[\"a\",\"x\"],\"additionalProperties\":" STR "}",
     "{\"a\":1,\"x\":\"extra\",\"zz\":\"kept\"}", "{\"a\":1,\"x\":\"-\",\"zz\":\"kept\"}"},
    /* Recursive: every level of the list upgraded. */
    {TREE(INT, "", "\"v\""), TREE(NUM, ",\"w\":{\"type\":\"string\",\"default\":\"-\"}", "\"v\",\"w\""),
     "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":3,\"next\":null}}}",
     "{\"next\":{\"next\":{\"next\":null,\"v\":3,\"w\":\"-\"},\"v\":2,\"w\":\"-\"},\"v\":1,\"w\":\"-\"}"},
    /* The same schema: the same value. */
    {TREE(INT, "", "\"v\""), TREE(INT, "", "\"v\""), "{\"v\":1,\"next\":{\"v\":2,\"next\":null}}",
     "{\"next\":{\"next\":null,\"v\":2},\"v\":1}"},
    /* The reader's validation keywords are not checked on the way: an
     * older value stays readable. */
    {OBJ("\"a\":" INT, "\"a\""), OBJ("\"a\":{\"type\":\"integer\",\"maximum\":5}", "\"a\""), "{\"a\":99}", "{\"a\":99}"},
};

/* ---- the tests ---------------------------------------------------------------- */

static void test_pairs(void) {
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    const char *got = why_of(pairs[i].writer, pairs[i].reader);
    if (strcmp(got, pairs[i].why) != 0) fprintf(stderr, "pair %zu: %s\n   -> %s\n", i, pairs[i].writer, pairs[i].reader);
    CHECK_STR(got, pairs[i].why);
  }
}

static void test_upgrades(void) {
  for (size_t i = 0; i < sizeof upgrades / sizeof *upgrades; i++) {
    /* Every upgrade here is of a pair evolve_check allows. */
    const char *why = why_of(upgrades[i].writer, upgrades[i].reader);
    if (*why) fprintf(stderr, "upgrade %zu: %s\n", i, why);
    CHECK_STR(why, "");
    for (int width = 0; width <= 4; width++) {
      const char *got = upgraded_width(upgrades[i].writer, upgrades[i].reader, upgrades[i].json, width);
      if (strcmp(got, upgrades[i].want) != 0) fprintf(stderr, "upgrade %zu, width %d\n", i, width);
      CHECK_STR(got, upgrades[i].want);
    }
  }
}

/* What the upgrade refuses: a payload the writer does not decode, at the
 * offset it stops at; nothing is written. */
static void test_refused_payloads(void) {
  shorn_schema *writer = compiled(OBJ("\"a\":" INT ",\"b\":" STR, "\"a\",\"b\""));
  shorn_schema *reader = compiled(OBJ("\"a\":" NUM, "\"a\""));
  static const struct {
    const char *bytes;
    size_t n;
    int width;
  } bad[] = {
      {"", 0, 0},
      {"\x02", 1, 0},           /* cut short */
      {"\x02\x01x\x00", 4, 0}, /* a byte after the value */
      {"\x02\x05x", 3, 0},      /* a string longer than the payload */
      {"\x01\x02", 2, 4},       /* shorter than its fingerprint */
  };
  evolve_plan *plan;
  shorn_buffer scratch = {0};
  shorn_error made;
  CHECK(evolve_plan_new(writer, reader, &plan, &made) == SHORN_OK);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    shorn_buffer out = {0};
    shorn_error e;
    shorn_code rc = evolve_upgrade(plan, (const uint8_t *)bad[i].bytes, bad[i].n, bad[i].width, bad[i].width,
                                   &scratch, &out, &e);
    if (rc != SHORN_ERROR_DECODE) fprintf(stderr, "refused payload %zu: %d\n", i, (int)rc);
    CHECK(rc == SHORN_ERROR_DECODE);
    CHECK(e.message[0] != 0);
    CHECK(out.length == 0);
    shorn_buffer_free(&out);
  }
  /* A payload that decodes becomes one that decodes: 2, "x". */
  shorn_buffer out = {0}, json = {0};
  shorn_error e;
  CHECK(evolve_upgrade(plan, (const uint8_t *)"\x04\x01x", 3, 0, 0, &scratch, &out, &e) == SHORN_OK);
  CHECK(shorn_decode(reader, out.data, out.length, 0, &json, &e) == SHORN_OK);
  CHECK(json.length == 7 && memcmp(json.data, "{\"a\":2}", 7) == 0);
  shorn_buffer_free(&out);
  shorn_buffer_free(&json);
  shorn_buffer_free(&scratch);
  evolve_plan_free(plan);
  shorn_schema_free(writer);
  shorn_schema_free(reader);
}

/* A deep recursive value upgrades level by level, and a check of two
 * recursive schemas that reach each other through several definitions
 * ends. */
static void test_recursion(void) {
  char json[64 * 16 + 64];
  size_t n = 0;
  for (int i = 0; i < 60; i++) n += (size_t)snprintf(json + n, sizeof json - n, "{\"v\":%d,\"next\":", i);
  n += (size_t)snprintf(json + n, sizeof json - n, "null");
  for (int i = 0; i < 60; i++) json[n++] = '}';
  json[n] = 0;
  const char *got = upgraded(TREE(INT, "", "\"v\""), TREE(NUM, ",\"w\":{\"type\":\"integer\",\"default\":0}", "\"v\",\"w\""),
                             json);
  size_t defaults = 0;
  for (const char *p = got; (p = strstr(p, "\"w\":0")); p++) defaults++;
  CHECK(defaults == 60);
  CHECK(strncmp(got, "{\"next\":{\"next\":", 16) == 0);

  const char *a = "{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"type\":\"object\",\"properties\":{\"b\":{\"$ref\":\"#/$defs/b\"}}},"
                  "\"b\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"},\"x\":{\"type\":\"integer\"}}}}}";
  const char *b = "{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"type\":\"object\",\"properties\":{\"b\":{\"$ref\":\"#/$defs/b\"}}},"
                  "\"b\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"},\"x\":{\"type\":\"string\"}}}}}";
  CHECK_STR(why_of(a, a), "");
  CHECK_STR(why_of(a, b), "#/properties/b/properties/x: an integer cannot be read as a string");
}

int main(void) {
  test_pairs();
  test_upgrades();
  test_refused_payloads();
  test_recursion();
  return check_report("test_evolve");
}
