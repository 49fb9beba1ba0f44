/*
 * test_validate.c — the validation keywords: each keyword at and around its
 * bounds through shorn_encode, what shorn_encode_unchecked skips, the
 * messages and where they point, what refuses a schema, and JavaScript's
 * regular expressions as pattern.c reads them (the expected answers are
 * V8's, Node 20's; tests/unit/test_pattern.c has many more).
 */
#include "check.h"
#include "core/base/memory.h"
#include "core/regex/pattern.h"
#include "core/text/text.h"
#include "shorn.h"

/* "ok", or "error: <message at where>", of encoding `json` checked (out
 * NULL: nothing kept) or unchecked. */
static const char *verdict_of(const char *schema, const char *json, bool checked) {
  static char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
  shorn_schema *s;
  shorn_error e;
  if (shorn_schema_compile(schema, strlen(schema), NULL, &s, &e) != SHORN_OK) {
    memcpy(text, "schema: ", 8);
    shorn_error_format(&e, text + 8, sizeof text - 8);
    return text;
  }
  shorn_buffer out = {0};
  shorn_code rc = checked ? shorn_encode(s, json, strlen(json), 0, NULL, &e)
                          : shorn_encode_unchecked(s, json, strlen(json), 0, &out, &e);
  if (rc == SHORN_OK) {
    strcpy(text, "ok");
  } else {
    memcpy(text, "error: ", 7);
    shorn_error_format(&e, text + 7, sizeof text - 7);
  }
  shorn_buffer_free(&out);
  shorn_schema_free(s);
  return text;
}

static const char *verdict(const char *schema, const char *json) { return verdict_of(schema, json, true); }

typedef struct keyword_case {
  const char *schema, *json, *want;
} keyword_case;

/* Each keyword at, just inside and just past its bound. */
static const keyword_case keyword_cases[] = {
    /* numbers */
    {"{\"type\":\"integer\",\"minimum\":0,\"maximum\":150}", "150", "ok"},
    {"{\"type\":\"integer\",\"minimum\":0,\"maximum\":150}", "151", "error: Too big: expected at most 150 at $"},
    {"{\"type\":\"integer\",\"minimum\":0,\"maximum\":150}", "0", "ok"},
    {"{\"type\":\"integer\",\"minimum\":-5}", "-5", "ok"},
    {"{\"type\":\"integer\",\"minimum\":-5}", "-6", "error: Too small: expected at least -5 at $"},
    {"{\"type\":\"number\",\"exclusiveMinimum\":0}", "5e-324", "ok"},
    {"{\"type\":\"number\",\"exclusiveMinimum\":0}", "0", "error: Too small: expected more than 0 at $"},
    {"{\"type\":\"number\",\"exclusiveMinimum\":0}", "-0", "error: Too small: expected more than 0 at $"},
    {"{\"type\":\"number\",\"exclusiveMaximum\":1}", "0.9999999999999999", "ok"},
    {"{\"type\":\"number\",\"exclusiveMaximum\":1}", "1", "error: Too big: expected less than 1 at $"},
    {"{\"type\":\"number\",\"maximum\":2.25}", "2.25", "ok"},
    {"{\"type\":\"number\",\"maximum\":2.25}", "2.2500000000000004", "error: Too big: expected at most 2.25 at $"},
    {"{\"type\":\"number\",\"minimum\":1e21}", "1e20", "error: Too small: expected at least 1e+21 at $"},
    /* multipleOf, as Zod checks it: within four scaled epsilons */
    {"{\"type\":\"number\",\"multipleOf\":0.1}", "0.3", "ok"},
    {"{\"type\":\"number\",\"multipleOf\":0.1}", "0.30000000000000004", "ok"},
    {"{\"type\":\"number\",\"multipleOf\":0.1}", "0.35", "error: Expected a multiple of 0.1 at $"},
    {"{\"type\":\"number\",\"multipleOf\":0.07}", "2.03", "ok"},
    {"{\"type\":\"number\",\"multipleOf\":0.01}", "1.15", "ok"},
    {"{\"type\":\"integer\",\"multipleOf\":3}", "-9", "ok"},
    {"{\"type\":\"integer\",\"multipleOf\":3}", "10", "error: Expected a multiple of 3 at $"},
    {"{\"type\":\"number\",\"multipleOf\":1e-9}", "0.000000003", "ok"},
    /* A step beside bounds is checked without the full check, and with it
     * when there are two steps or another keyword. */
    {"{\"type\":\"number\",\"minimum\":0,\"maximum\":10,\"multipleOf\":0.5}", "2.5", "ok"},
    {"{\"type\":\"number\",\"minimum\":0,\"maximum\":10,\"multipleOf\":0.5}", "2.25", "error: Expected a multiple of 0.5 at $"},
    {"{\"type\":\"number\",\"minimum\":0,\"maximum\":10,\"multipleOf\":0.5}", "10.5", "error: Too big: expected at most 10 at $"},
    {"{\"type\":\"integer\",\"allOf\":[{\"multipleOf\":2},{\"multipleOf\":3}]}", "12", "ok"},
    {"{\"type\":\"integer\",\"allOf\":[{\"multipleOf\":2},{\"multipleOf\":3}]}", "4", "error: Expected a multiple of 3 at $"},
    {"{\"type\":\"integer\",\"allOf\":[{\"multipleOf\":3},{\"multipleOf\":2}]}", "9", "error: Expected a multiple of 2 at $"},
    {"{\"type\":\"integer\",\"multipleOf\":2,\"not\":{\"const\":4}}", "4", "error: Invalid value: the schema in \"not\" accepts it at $"},
    /* strings: code points, a lone surrogate one of them */
    {"{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}", "\"ab\"", "ok"},
    {"{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}", "\"a\"", "error: Too short: expected at least 2 characters at $"},
    {"{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}", "\"abcd\"", "error: Too long: expected at most 3 characters at $"},
    {"{\"type\":\"string\",\"maxLength\":1}", "\"\\ud83d\\ude00\"", "ok"},
    {"{\"type\":\"string\",\"maxLength\":1}", "\"😀😀\"", "error: Too long: expected at most 1 character at $"},
    {"{\"type\":\"string\",\"minLength\":2}", "\"😀\"", "error: Too short: expected at least 2 characters at $"},
    {"{\"type\":\"string\",\"minLength\":3}", "\"é中😀\"", "ok"},
    {"{\"type\":\"string\",\"minLength\":1}", "\"é\"", "ok"},
    {"{\"type\":\"string\",\"minLength\":2}", "\"é\"", "error: Too short: expected at least 2 characters at $"},
    {"{\"type\":\"string\",\"minLength\":2}", "\"中a\"", "ok"},
    {"{\"type\":\"string\",\"minLength\":2}", "\"ab\"", "ok"},
    {"{\"type\":\"string\",\"maxLength\":0}", "\"\"", "ok"},
    {"{\"type\":\"string\",\"minLength\":1e300}", "\"abc\"", "error: Too short: expected at least 1e+300 characters at $"},
    {"{\"type\":\"string\",\"maxLength\":1.0}", "\"a\"", "ok"},
    /* patterns anywhere in the string; formats where no pattern carries them */
    {"{\"type\":\"string\",\"pattern\":\"b\"}", "\"abc\"", "ok"},
    {"{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}", "\"aBc\"", "error: Invalid string: must match pattern \"^[a-z]+$\" at $"},
    {"{\"type\":\"string\",\"format\":\"email\"}", "\"grace@navy.mil\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"email\"}", "\"grace@navy\"", "error: Invalid string: expected format \"email\" at $"},
    {"{\"type\":\"string\",\"format\":\"email\",\"pattern\":\"@\"}", "\"grace@navy\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"email\",\"allOf\":[{\"pattern\":\"@\"}]}", "\"a@b\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv4\"}", "\"192.168.0.1\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv4\"}", "\"192.168.0.01\"", "error: Invalid string: expected format \"ipv4\" at $"},
    {"{\"type\":\"string\",\"format\":\"ipv4\"}", "\"256.0.0.1\"", "error: Invalid string: expected format \"ipv4\" at $"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"::1\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"1:2:3:4:5:6:7:8\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"1:2:3:4:5:6:7::8\"", "error: Invalid string: expected format \"ipv6\" at $"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"::ffff:1.2.3.4\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"fe80::1%eth0\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"ipv6\"}", "\"1:2:3:4:5::1.2.3.4\"", "error: Invalid string: expected format \"ipv6\" at $"},
    {"{\"type\":\"string\",\"format\":\"date\"}", "\"2026-02-30\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"date\"}", "\"2026-13-01\"", "error: Invalid string: expected format \"date\" at $"},
    {"{\"type\":\"string\",\"format\":\"time\"}", "\"23:59\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"time\"}", "\"23:59:00\"", "error: Invalid string: expected format \"time\" at $"},
    /* format uri: RFC 3986's URI, a scheme first */
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"https://\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"https://example.com/a?b=c#d\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"mailto:a@b.co\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"urn:isbn:0451450523\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"file:///etc/hosts\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://user:pw@host:8080/p%20q\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1]:80/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[1:2:3:4:5:6:1.2.3.4]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[v1.fe:x]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"a+b-c.d:\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://host/a:b@c?x/?y#z/?\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"HTTP://EXAMPLE.COM\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"x:/a//b\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://1.2.3.4:/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"://host\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"/relative/path\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"ht tp://x\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"relative\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"1http://x\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://ex ample.com\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a/%2\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a/%zz\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[fe80::1%25eth0]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[1:2:3:4:5:6:7:8:9]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://host:8o/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a@b@c/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a/#b#c\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a/[b]\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://é.fr/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[v1.]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1]x/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://h/a\\\\b\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[1:2:3:4:5:6:7::]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1:2:3:4:5:6:7]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1.2.3.4]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[V7.a]/\"", "ok"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[1.2.3.4]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[::1.2.3.04]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[1::2::3]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[:1::2]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://a\\u0000b/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"x\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"uri\"}", "\"http://[v.a]/\"", "error: Invalid string: expected format \"uri\" at $"},
    {"{\"type\":\"string\",\"format\":\"hostname\"}", "\"-\"", "ok"},
    /* a keyword looks only at values of its type */
    {"{\"minLength\":3,\"minimum\":10}", "5", "error: Too small: expected at least 10 at $"},
    {"{\"minLength\":3,\"minimum\":10}", "\"abc\"", "ok"},
    {"{\"minLength\":3,\"minimum\":10}", "true", "ok"},
    {"{\"type\":\"string\",\"enum\":[\"a\",\"bb\"],\"maxLength\":1}", "\"bb\"", "error: Too long: expected at most 1 character at $"},
    /* arrays */
    {"{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":2}", "[\"a\"]", "ok"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":2}", "[]", "error: Too few items: expected at least 1 at $"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":2}", "[\"a\",\"b\",\"c\"]", "error: Too many items: expected at most 2 at $"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[1,\"1\",[1],{\"a\":1},null,true]", "ok"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[1,2,1.0]", "error: Not unique: repeats item 0 (\"uniqueItems\") at $[2]"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[0,-0]", "error: Not unique: repeats item 0 (\"uniqueItems\") at $[1]"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[{\"a\":1,\"b\":[1,2]},{\"b\":[1,2],\"a\":1}]", "error: Not unique: repeats item 0 (\"uniqueItems\") at $[1]"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[{\"a\":2,\"a\":1},{\"a\":1}]", "error: Not unique: repeats item 0 (\"uniqueItems\") at $[1]"},
    {"{\"type\":\"array\",\"uniqueItems\":true}", "[[1,2],[2,1]]", "ok"},
    {"{\"type\":\"array\",\"uniqueItems\":false}", "[1,1]", "ok"},
    /* A Set tells its elements apart as JavaScript's does: objects by identity. */
    {"{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]},"
     "\"uniqueItems\":true,\"x-shorn\":\"set\"}", "[{\"a\":1},{\"a\":1}]", "ok"},
    {"{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\",\"maxLength\":1}],\"items\":{\"type\":\"integer\",\"maximum\":3},\"maxItems\":3}",
     "[\"a\",1,4]", "error: Too big: expected at most 3 at $[2]"},
    {"{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\",\"maxLength\":1}],\"items\":{\"type\":\"integer\"},\"maxItems\":3}",
     "[\"a\",1,2,3]", "error: Too many items: expected at most 3 at $"},
    /* objects */
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"minProperties\":1,\"maxProperties\":2}", "{}", "error: Too few properties: expected at least 1 at $"},
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1,\"a\":2}", "ok"},
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1,\"b\":2,\"c\":3}", "error: Too many properties: expected at most 2 at $"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"additionalProperties\":false,\"minProperties\":1}", "{\"x\":1}", "error: Too few properties: expected at least 1 at $"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"additionalProperties\":false,\"maxProperties\":1}", "{\"a\":1,\"x\":1,\"y\":2}", "ok"},
    {"{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"^k_\"},\"additionalProperties\":{\"type\":\"integer\"}}", "{\"k_a\":1}", "ok"},
    {"{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"^k_\"},\"additionalProperties\":{\"type\":\"integer\"}}", "{\"k_a\":1,\"x\":2}", "error: Invalid property name: must match pattern \"^k_\" at $.x"},
    {"{\"type\":\"object\",\"propertyNames\":{\"maxLength\":2},\"additionalProperties\":{\"type\":\"integer\"}}", "{\"abc\":1}", "error: Invalid property name: Too long: expected at most 2 characters at $.abc"},
    {"{\"type\":\"object\",\"propertyNames\":{\"enum\":[\"a\",\"b\"]},\"additionalProperties\":{\"type\":\"integer\"}}", "{\"c\":1}", "error: Invalid property name: Invalid value: expected one of the values of \"enum\" at $.c"},
    {"{\"type\":\"object\",\"propertyNames\":{\"const\":\"a\"},\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1}", "ok"},
    {"{\"type\":\"object\",\"propertyNames\":false,\"additionalProperties\":{\"type\":\"integer\"}}", "{}", "ok"},
    {"{\"type\":\"object\",\"propertyNames\":false,\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1}", "error: Invalid property name: \"propertyNames\" is false at $.a"},
    {"{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"^a\"},\"properties\":{\"a\":{\"type\":\"integer\"}},\"additionalProperties\":false}", "{\"a\":1,\"b\":2}", "ok"},
    {"{\"type\":\"object\",\"propertyNames\":{\"enum\":[\"a\",\"b\"]},\"additionalProperties\":{\"type\":\"integer\"},\"required\":[\"a\",\"b\"]}", "{\"a\":1}", "error: Missing required property at $.b"},
    /* allOf, as Zod writes a string's second check */
    {"{\"type\":\"string\",\"allOf\":[{\"pattern\":\"^ab\"},{\"pattern\":\"yz$\"}]}", "\"abxyz\"", "ok"},
    {"{\"type\":\"string\",\"allOf\":[{\"pattern\":\"^ab\"},{\"pattern\":\"yz$\"}]}", "\"abxy\"", "error: Invalid string: must match pattern \"yz$\" at $"},
    {"{\"type\":\"string\",\"allOf\":[{\"allOf\":[{\"maxLength\":2}]}]}", "\"abc\"", "error: Too long: expected at most 2 characters at $"},
    /* where the path goes */
    {"{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150}},\"required\":[\"age\"],\"additionalProperties\":false}",
     "{\"age\":500}", "error: Too big: expected at most 150 at $.age"},
    {"{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}}}}",
     "{\"tags\":[\"a\",\"B\"]}", "error: Invalid string: must match pattern \"^[a-z]+$\" at $.tags[1]"},
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\",\"maximum\":1}}", "{\"a b\":2}", "error: Too big: expected at most 1 at $.\"a b\""},
    /* unions, nullable, $ref */
    {"{\"anyOf\":[{\"type\":\"string\",\"maxLength\":1},{\"type\":\"null\"}]}", "null", "ok"},
    {"{\"anyOf\":[{\"type\":\"string\",\"maxLength\":1},{\"type\":\"null\"}]}", "\"ab\"", "error: Too long: expected at most 1 character at $"},
    {"{\"type\":[\"string\",\"null\"],\"maxLength\":1}", "\"ab\"", "error: Too long: expected at most 1 character at $"},
    {"{\"type\":[\"string\",\"integer\"],\"maxLength\":1,\"maximum\":1}", "2", "error: Too big: expected at most 1 at $"},
    {"{\"anyOf\":[{\"type\":\"string\",\"maxLength\":1},{\"type\":\"integer\",\"maximum\":1}]}", "\"ab\"", "error: Too long: expected at most 1 character at $"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/E\"},\"b\":{\"$ref\":\"#/$defs/E\",\"minLength\":2}},\"$defs\":{\"E\":{\"type\":\"string\",\"maxLength\":3}}}",
     "{\"a\":\"x\",\"b\":\"xyz\"}", "ok"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/E\"},\"b\":{\"$ref\":\"#/$defs/E\",\"minLength\":2}},\"$defs\":{\"E\":{\"type\":\"string\",\"maxLength\":3}}}",
     "{\"a\":\"x\",\"b\":\"x\"}", "error: Too short: expected at least 2 characters at $.b"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/E\"},\"b\":{\"$ref\":\"#/$defs/E\",\"minLength\":2}},\"$defs\":{\"E\":{\"type\":\"string\",\"maxLength\":3}}}",
     "{\"a\":\"wxyz\",\"b\":\"xy\"}", "error: Too long: expected at most 3 characters at $.a"},
    {"{\"$defs\":{\"N\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\",\"maximum\":9},\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/N\"},{\"type\":\"null\"}]}},\"required\":[\"v\",\"next\"]}},\"$ref\":\"#/$defs/N\"}",
     "{\"v\":1,\"next\":{\"v\":10,\"next\":null}}", "error: Too big: expected at most 9 at $.next.v"},
    /* ArkType's uuid: a pattern branch and two consts, one uuid shape */
    {"{\"anyOf\":[{\"type\":\"string\",\"format\":\"uuid\",\"pattern\":\"^[\\\\dA-Fa-f]{8}-[\\\\dA-Fa-f]{4}-[1-8][\\\\dA-Fa-f]{3}-[89ABab][\\\\dA-Fa-f]{3}-[\\\\dA-Fa-f]{12}$\"},{\"const\":\"00000000-0000-0000-0000-000000000000\",\"format\":\"uuid\"}]}",
     "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"", "ok"},
    {"{\"anyOf\":[{\"type\":\"string\",\"format\":\"uuid\",\"pattern\":\"^[\\\\dA-Fa-f]{8}-[\\\\dA-Fa-f]{4}-[1-8][\\\\dA-Fa-f]{3}-[89ABab][\\\\dA-Fa-f]{3}-[\\\\dA-Fa-f]{12}$\"},{\"const\":\"00000000-0000-0000-0000-000000000000\",\"format\":\"uuid\"}]}",
     "\"00000000-0000-0000-0000-000000000000\"", "ok"},
    {"{\"anyOf\":[{\"type\":\"string\",\"format\":\"uuid\",\"pattern\":\"^[\\\\dA-Fa-f]{8}-[\\\\dA-Fa-f]{4}-[1-8][\\\\dA-Fa-f]{3}-[89ABab][\\\\dA-Fa-f]{3}-[\\\\dA-Fa-f]{12}$\"},{\"const\":\"00000000-0000-0000-0000-000000000000\",\"format\":\"uuid\"}]}",
     "\"a0eebc99-9c0b-0ef8-bb6d-6bb9bd380a11\"", "error: Invalid value: no branch of the union accepts it at $"},
    /* a keyword the shape keeps says nothing more; keywords of the wrong kind are no rules */
    {"{\"type\":\"integer\",\"minimum\":-9007199254740991,\"maximum\":9007199254740991}", "9007199254740992", "error: Expected a safe integer (at most 2^53 - 1 in magnitude) at $"},
    {"{\"type\":\"integer\",\"minimum\":0,\"exclusiveMinimum\":true}", "0", "ok"},
    {"{\"type\":\"array\",\"items\":{},\"minItems\":3,\"maxItems\":\"3\"}", "[1]", "error: Too few items: expected at least 3 at $"},
    {"{\"type\":\"number\",\"multipleOf\":\"0\",\"maximum\":\"1e400\"}", "1e300", "ok"},
    {"{\"type\":\"string\",\"pattern\":7,\"format\":7}", "\"x\"", "ok"},
    /* structure first where the value's type is not the keyword's */
    {"{\"type\":\"string\",\"maxLength\":1}", "12", "error: Expected a string, got a number at $"},
    {"{\"type\":\"string\",\"maxLength\":1}", "\"a\\ud800\"", "error: Too long: expected at most 1 character at $"},
    {"{\"type\":\"string\",\"pattern\":\"^.\\\\p{L}$\"}", "\"a\\ud800\"", "error: String contains an unpaired surrogate at $"},
    /* what V8 reads, however long the lookbehind or large the bound */
    {"{\"type\":\"string\",\"pattern\":\"(?<=a+)b\"}", "\"xaab\"", "ok"},
    {"{\"type\":\"string\",\"pattern\":\"(?<=a+)b\"}", "\"xb\"", "error: Invalid string: must match pattern \"(?<=a+)b\" at $"},
    {"{\"type\":\"string\",\"pattern\":\"^a{70000}$\"}", "\"aaa\"", "error: Invalid string: must match pattern \"^a{70000}$\" at $"},    /* Keywords no wire shape reads, checked on the value itself: beside a
     * shape, in an untyped node's place, and in subschemas of those. */
    {"{\"type\":\"number\",\"not\":{\"type\":\"integer\"}}", "1.5", "ok"},
    {"{\"type\":\"number\",\"not\":{\"type\":\"integer\"}}", "1", "error: Invalid value: the schema in \"not\" accepts it at $"},
    {"{\"type\":\"number\",\"not\":{\"type\":\"integer\"}}", "1.0", "error: Invalid value: the schema in \"not\" accepts it at $"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1}}", "[2,1]", "ok"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1}}", "[2]", "error: Invalid array: no item matches \"contains\" at $"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1},\"minContains\":2,\"maxContains\":3}", "[1,2,1]", "ok"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1},\"minContains\":2}", "[1,2]", "error: Too few items matching \"contains\": expected at least 2 at $"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1},\"maxContains\":1}", "[1,1]", "error: Too many items matching \"contains\": expected at most 1 at $"},
    {"{\"type\":\"array\",\"contains\":{\"const\":1},\"minContains\":0}", "[]", "ok"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}", "error: Missing property, which \"dependentRequired\" asks for beside \"a\" at $.b"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"b\":1}", "ok"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"dependentSchemas\":{\"a\":{\"properties\":{\"b\":{\"maximum\":3}}}}}", "{\"a\":1,\"b\":4}", "error: Too big: expected at most 3 at $.b"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"dependentSchemas\":{\"a\":{\"properties\":{\"b\":{\"maximum\":3}}}}}", "{\"b\":4}", "ok"},
    {"{\"type\":\"integer\",\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "20", "ok"},
    {"{\"type\":\"integer\",\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "15", "error: Expected a multiple of 10 at $"},
    {"{\"type\":\"integer\",\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "7", "error: Too big: expected at most 5 at $"},
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"patternProperties\":{\"^s_\":{\"type\":\"string\"}}}", "{\"s_a\":\"x\",\"n\":1}", "error: Expected an integer, got a string at $.s_a"},
    {"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"patternProperties\":{\"^s_\":{\"type\":\"string\"}}}", "{\"s_a\":1}", "error: Expected a string, got a number at $.s_a"},
    {"{\"properties\":{\"foo\":{\"type\":\"integer\"}}}", "{\"foo\":\"x\"}", "error: Expected an integer, got a string at $.foo"},
    {"{\"properties\":{\"foo\":{\"type\":\"integer\"}}}", "\"not an object\"", "ok"},
    {"{\"items\":{\"type\":\"integer\"}}", "[1,\"x\"]", "error: Expected an integer, got a string at $[1]"},
    {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",1]", "error: Invalid value: the schema here is false at $[1]"},
    {"{\"properties\":{\"foo\":{}},\"required\":[\"foo\"]}", "{\"bar\":1}", "error: Missing required property at $.foo"},
    {"{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1,\"b\":2}", "error: Unexpected property: \"additionalProperties\" is false at $.b"},
    {"{\"enum\":[[false],{\"a\":1}]}", "[0]", "error: Invalid value: expected one of the values of \"enum\" at $"},
    {"{\"enum\":[[false],{\"a\":1}]}", "{\"a\":1.0}", "ok"},
    {"{\"enum\":[[false]]}", "[false]", "ok"},
    {"{\"type\":\"array\",\"enum\":[[1,2]]}", "[1,2,3]", "error: Invalid value: expected one of the values of \"enum\" at $"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"unevaluatedProperties\":false}", "{\"a\":1,\"b\":2}", "error: Unexpected property: no keyword evaluates it, and \"unevaluatedProperties\" is false at $.b"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"allOf\":[{\"properties\":{\"b\":true}}],\"unevaluatedProperties\":false}", "{\"a\":1,\"b\":2}", "error: Unknown object property \"b\" at $"},
    {"{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\"}],\"unevaluatedItems\":false}", "[1,2]", "error: Invalid value: the schema here is false at $[1]"},
    {"{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\"}],\"contains\":{\"type\":\"string\"},\"unevaluatedItems\":false}", "[1,\"x\"]", "error: Expected a tuple of 1 items at $"},
    {"{\"allOf\":[true],\"type\":\"number\",\"not\":{\"$dynamicRef\":\"#a\"}}", "1", "error: \"$dynamicRef\" cannot be checked here: shorn_encode_unchecked takes this schema at #/not/$dynamicRef"},
    {"{\"type\":\"integer\",\"not\":{\"$ref\":\"#/not\"}}", "1", "error: The schema's keywords nest deeper than 256 subschemas or take more than 4194304 steps on this value at $"},
    {"{\"type\":\"integer\",\"not\":{\"$ref\":\"other.json#/a\"}}", "1", "error: \"$ref\" cannot be checked here: shorn_encode_unchecked takes this schema at #/not/$ref"},
    {"{\"type\":\"integer\",\"not\":{\"$ref\":\"#/$defs/a/0\"},\"$defs\":{\"a\":[{\"maximum\":3}]}}", "2", "error: Invalid value: the schema in \"not\" accepts it at $"},
    {"{\"type\":\"integer\",\"not\":{\"$ref\":\"#/$defs/a%25b\"},\"$defs\":{\"a%b\":{\"maximum\":3}}}", "2", "error: Invalid value: the schema in \"not\" accepts it at $"},
    {"{\"type\":\"string\",\"allOf\":[{\"type\":\"string\",\"maxLength\":2}]}", "\"abc\"", "error: Too long: expected at most 2 characters at $"},
    {"{\"type\":\"object\",\"propertyNames\":{\"not\":{\"const\":\"x\"}},\"additionalProperties\":true}", "{\"x\":1}", "error: Invalid property name: Invalid value: the schema in \"not\" accepts it at $.x"},
    {"{\"type\":\"object\",\"dependencies\":{\"a\":[\"b\"],\"b\":{\"required\":[\"c\"]}},\"additionalProperties\":true}", "{\"b\":1}", "error: Missing required property at $.c"},
};

/* What refuses a schema, and where the message points. */
static const keyword_case schema_cases[] = {
    {"{\"type\":\"string\",\"pattern\":\"(\"}", NULL, "schema: Invalid \"pattern\": Unterminated group at #/pattern"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"[z-a]\"}}}", NULL,
     "schema: Invalid \"pattern\": Range out of order in character class at #/properties/a/pattern"},
    {"{\"type\":\"string\",\"allOf\":[{\"pattern\":\"^a\"},{\"pattern\":\"a**\"}]}", NULL, "schema: Invalid \"pattern\": Nothing to repeat at #/allOf/1/pattern"},
    {"{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"(?i)k\"},\"additionalProperties\":true}", NULL,
     "schema: Invalid \"pattern\": Invalid group at #/propertyNames/pattern"},
    {"{\"type\":\"string\",\"pattern\":\"\\\\p{Foo}\"}", NULL, "schema: Invalid \"pattern\": Invalid property name at #/pattern"},
    {"{\"$defs\":{\"E\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/E\",\"pattern\":\"[\"}", NULL,
     "schema: Invalid \"pattern\": Unterminated character class at #/pattern"},
    /* a step not above 0, a bound past the largest double */
    {"{\"type\":\"number\",\"multipleOf\":0}", NULL, "schema: Invalid \"multipleOf\": must be a finite number greater than 0 at #/multipleOf"},
    {"{\"type\":\"integer\",\"multipleOf\":-3}", NULL, "schema: Invalid \"multipleOf\": must be a finite number greater than 0 at #/multipleOf"},
    {"{\"type\":\"number\",\"multipleOf\":1e400}", NULL, "schema: Invalid \"multipleOf\": must be a finite number greater than 0 at #/multipleOf"},
    {"{\"type\":\"number\",\"minimum\":1e400}", NULL, "schema: Invalid \"minimum\": must be a finite number at #/minimum"},
    {"{\"type\":\"integer\",\"minimum\":-1e400}", NULL, "schema: Invalid \"minimum\": must be a finite number at #/minimum"},
    {"{\"type\":\"number\",\"exclusiveMinimum\":-1e999}", NULL, "schema: Invalid \"exclusiveMinimum\": must be a finite number at #/exclusiveMinimum"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\",\"maximum\":1e400}}}", NULL,
     "schema: Invalid \"maximum\": must be a finite number at #/properties/a/maximum"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"number\",\"allOf\":[{\"exclusiveMaximum\":-1e400}]}}", NULL,
     "schema: Invalid \"exclusiveMaximum\": must be a finite number at #/items/allOf/0/exclusiveMaximum"},    {"{\"type\":\"integer\",\"not\":{\"type\":\"nothing\"}}", NULL,
     "schema: Unsupported JSON Schema type: \"type\" names null, boolean, number, integer, string, array or object at #/not/type"},
    {"{\"type\":\"object\",\"patternProperties\":{\"(\":{}}}", NULL,
     "schema: Invalid \"patternProperties\": Unterminated group at #/patternProperties/("},
};

/* Each pattern against each string: V8's answer. */
#define S(x) x, sizeof x - 1
typedef struct pattern_case {
  const char *pattern;
  const char *text;
  size_t length;
  int match;
} pattern_case;

static const pattern_case pattern_cases[] = {
    {"^[a-z]+$", S("abc"), 1},
    {"^[a-z]+$", S("aBc"), 0},
    {"^[a-z]+$", S(""), 0},
    {"^\\s$", S(" "), 1},
    {"^\\s$", S("\u00a0"), 1},
    {"^\\s$", S("\ufeff"), 1},
    {"^\\s$", S("\u2028"), 1},
    {"^\\s$", S("\xc2\x85"), 0},
    {"^\\s$", S("\u180e"), 0},
    {"^\\s$", S("\x0b"), 1},
    {"^\\s$", S("x"), 0},
    {"^\\S$", S(" "), 0},
    {"^\\S$", S("\u00a0"), 0},
    {"^\\S$", S("x"), 1},
    {"^\\S$", S("\xc2\x85"), 1},
    {"^[\\S]$", S("\u00a0"), 0},
    {"^[\\S]$", S("x"), 1},
    {"^[^\\S]$", S("\u00a0"), 1},
    {"^[^\\S]$", S("x"), 0},
    {"^[a\\S]$", S(" "), 0},
    {"^[a\\S]$", S("a"), 1},
    {"^[a\\S]$", S("b"), 1},
    {"^[^a\\S]$", S(" "), 1},
    {"^[^a\\S]$", S("a"), 0},
    {"^[^a\\S]$", S("\u3000"), 1},
    {"^[^\\sa]$", S(" "), 0},
    {"^[^\\sa]$", S("a"), 0},
    {"^[^\\sa]$", S("b"), 1},
    {"^.$", S("a"), 1},
    {"^.$", S("\x0a"), 0},
    {"^.$", S("\x0d"), 0},
    {"^.$", S("\u2028"), 0},
    {"^.$", S("\u2029"), 0},
    {"^.$", S("\xc2\x85"), 1},
    {"^.$", S("😀"), 0},
    {"^.$", S("\x0b"), 1},
    {"^.{2}$", S("😀"), 1},
    {"^.{2}$", S("ab"), 1},
    {"a$", S("a"), 1},
    {"a$", S("a\x0a"), 0},
    {"^a", S("ba"), 0},
    {"^a", S("\x0a""a"), 0},
    {"\\bfoo\\b", S("a foo b"), 1},
    {"\\bfoo\\b", S("afoo"), 0},
    {"\\bfoo\\b", S("foo_"), 0},
    {"^(a)\\1$", S("aa"), 1},
    {"^(a)\\1$", S("ab"), 0},
    {"\\1(a)", S("a"), 1},
    {"\\1(a)", S("b"), 0},
    {"^(?:(a)|b)\\1$", S("b"), 1},
    {"^(?:(a)|b)\\1$", S("aa"), 1},
    {"^(?:(a)|b)\\1$", S("bb"), 0},
    {"^(?<y>\\d)-\\k<y>$", S("1-1"), 1},
    {"^(?<y>\\d)-\\k<y>$", S("1-2"), 0},
    {"(?<=\\$)\\d+", S("$42"), 1},
    {"(?<=\\$)\\d+", S("42"), 0},
    {"(?<!\\$)\\b\\d+", S("$42"), 0},
    {"(?<!\\$)\\b\\d+", S("42"), 1},
    {"^\\x41\\u0042\\103$", S("ABC"), 1},
    {"^\\x41\\u0042\\103$", S("AB"), 0},
    {"^\\0$", S("\x00"), 1},
    {"^\\0$", S("0"), 0},
    {"^\\8$", S("8"), 1},
    {"^\\18$", S("\x01""8"), 1},
    {"^(a)\\18$", S("a\x01""8"), 1},
    {"^\\377$", S("ÿ"), 1},
    {"^\\400$", S(" 0"), 1},
    {"^[\\1]$", S("\x01"), 1},
    {"^[\\1]$", S("1"), 0},
    {"^\\c$", S("\\c"), 1},
    {"^\\cJ$", S("\x0a"), 1},
    {"^[\\c1]$", S("\x11"), 1},
    {"^[\\b]$", S("\x08"), 1},
    {"^[\\b]$", S("b"), 0},
    {"^a{,3}$", S("a{,3}"), 1},
    {"^a{,3}$", S("aaa"), 0},
    {"^a{2,3}$", S("a"), 0},
    {"^a{2,3}$", S("aa"), 1},
    {"^a{2,3}$", S("aaaa"), 0},
    {"^{$", S("{"), 1},
    {"^}$", S("}"), 1},
    {"^]$", S("]"), 1},
    {"^[]$", S(""), 0},
    {"^[]$", S("a"), 0},
    {"^[^]$", S("a"), 1},
    {"^[^]$", S("\x0a"), 1},
    {"^[^]$", S("😀"), 0},
    {"\\u{41}", S("A"), 1},
    {"\\u{41}", S("uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"), 0},
    {"^u{2}$", S("uu"), 1},
    {"^[\\d-z]+$", S("1-z"), 1},
    {"^[\\d-z]+$", S("a"), 0},
    {"^[a-]$", S("-"), 1},
    {"^[a-]$", S("a"), 1},
    {"^[-a]$", S("-"), 1},
    {"^\\-$", S("-"), 1},
    {"^\\/$", S("/"), 1},
    {"^\\a\\e\\g$", S("aeg"), 1},
    {"^[\\w-]+$", S("a-b_c"), 1},
    {"^[\\w-]+$", S("a b"), 0},
    {"^\\w+$", S("é"), 0},
    {"^\\w+$", S("abc_1"), 1},
    {"^[\\W]$", S("é"), 1},
    {"^[\\W]$", S("a"), 0},
    {"^[\\D]$", S("a"), 1},
    {"^[\\D]$", S("1"), 0},
    {"^\\p{L}+$", S("é"), 1},
    {"^\\p{L}+$", S("1"), 0},
    {"^\\p{L}+$", S("Ωmega"), 1},
    {"^\\P{L}$", S("1"), 1},
    {"^\\P{L}$", S("a"), 0},
    {"^\\p{Lu}$", S("A"), 1},
    {"^\\p{Lu}$", S("a"), 0},
    {"^\\p{Letter}$", S("a"), 1},
    {"^\\p{Script=Greek}+$", S("αβγ"), 1},
    {"^\\p{Script=Greek}+$", S("abc"), 0},
    {"^\\p{Uppercase_Letter}$", S("Q"), 1},
    {"^\\p{Uppercase_Letter}$", S("q"), 0},
    {"^\\p{gc=Nd}$", S("٣"), 1},
    {"^\\p{gc=Nd}$", S("a"), 0},
    {"^\\p{Assigned}$", S("a"), 1},
    {"^\\p{Assigned}$", S("\u0378"), 0},
    {"^\\p{Extended_Pictographic}$", S("😀"), 1},
    {"^\\p{Extended_Pictographic}$", S("a"), 0},
    {"^.$", S("😀"), 0},
    {"^\\u{1F600}$", S("😀"), 1},
    {"^[\\u{1F600}-\\u{1F64F}]$", S("🙏"), 1},
    {"^[\\u{1F600}-\\u{1F64F}]$", S("😀"), 1},
    {"^[\\u{1F600}-\\u{1F64F}]$", S("a"), 0},
    {"^\\uD83D\\uDE00$", S("😀"), 1},
    {"^[😀-🙏]+$", S("😀🙏"), 1},
    {"^[😀-🙏]+$", S("a"), 0},
    {"(?=a)*b", S("b"), 1},
    {"^(?:a|)$", S(""), 1},
    {"^(?:a|)$", S("a"), 1},
    {"a|b|", S("x"), 1},
    {"[[:alpha:]]", S("[a]"), 1},
    {"[[:alpha:]]", S("a"), 0},
    {"^\\Q$", S("Q"), 1},
    {"^(a{0})$", S(""), 1},
};

/* The reasons JavaScript refuses a pattern. */
static const char *const refused_patterns[][2] = {
    {"(", "Unterminated group"},
    {"a)", "Unmatched ')'"},
    {"[a", "Unterminated character class"},
    {"\\", "\\ at end of pattern"},
    {"*a", "Nothing to repeat"},
    {"a**", "Nothing to repeat"},
    {"x{1}{2}", "Nothing to repeat"},
    {"(?<=a)*b", "Invalid quantifier"},
    {"^*", "Nothing to repeat"},
    {"(?i)a", "Invalid group"},
    {"(?<n>a)(?<n>b)", "Duplicate capture group name"},
    {"(?<1>a)", "Invalid capture group name"},
    {"[z-a]", "Range out of order in character class"},
    {"a{2,1}", "numbers out of order in {} quantifier"},
    {"(?<x>a)\\k<y>", "Invalid named capture referenced"},
    {"(?<x>a)\\k", "Invalid named reference"},
    {"\\p{L}\\c", "Invalid Unicode escape"},
    {"[\\d-z]\\p{L}", "Invalid character class"},
    {"\\p{L}\\q", "Invalid escape"},
    {"\\u{110000}", "Invalid Unicode escape"},
    {"\\p{Script=}", "Invalid property name"},
    {"\\p{Block=Basic_Latin}", "Invalid property name"},
};

static void check_patterns(void) {
  pattern_engine *engine = pattern_engine_new(NULL);
  pattern_matcher m = {0};
  CHECK(engine != NULL);
  for (size_t i = 0; i < COUNT_OF(pattern_cases); i++) {
    const pattern_case *c = &pattern_cases[i];
    const pattern *p;
    char why[128];
    shorn_code rc = pattern_compile(engine, c->pattern, strlen(c->pattern), &p, why, sizeof why);
    CHECK(rc == SHORN_OK);
    if (rc) {
      fprintf(stderr, "  pattern /%s/: %s\n", c->pattern, why);
      continue;
    }
    pattern_result got = pattern_test(&m, p, c->text, c->length, false);
    CHECK(got == (c->match ? PATTERN_MATCH : PATTERN_NO_MATCH));
    if (got != (c->match ? PATTERN_MATCH : PATTERN_NO_MATCH)) fprintf(stderr, "  /%s/ on case %zu\n", c->pattern, i);
  }
  for (size_t i = 0; i < COUNT_OF(refused_patterns); i++) {
    const pattern *p;
    char why[128] = "";
    const char *source = refused_patterns[i][0];
    CHECK(pattern_compile(engine, source, strlen(source), &p, why, sizeof why) == SHORN_ERROR_SCHEMA);
    CHECK_STR(why, refused_patterns[i][1]);
  }
  pattern_matcher_release(&m);
  pattern_engine_free(engine);
}

/* A long string goes through the heap; a lone surrogate under a `u`
 * pattern is left to the structure. */
static void check_matching_edges(void) {
  pattern_engine *engine = pattern_engine_new(NULL);
  pattern_matcher m = {0};
  const pattern *plain, *unicode;
  char why[128];
  CHECK(pattern_compile(engine, "^a*b$", 5, &plain, why, sizeof why) == SHORN_OK);
  CHECK(pattern_compile(engine, "^\\p{L}$", 7, &unicode, why, sizeof why) == SHORN_OK);
  size_t n = 100000;
  char *long_text = malloc(n + 1);
  memset(long_text, 'a', n);
  long_text[n] = 'b';
  CHECK(pattern_test(&m, plain, long_text, n + 1, false) == PATTERN_MATCH);
  CHECK(pattern_test(&m, plain, long_text, n, false) == PATTERN_NO_MATCH);
  CHECK(pattern_test(&m, unicode, "\xED\xA0\x80", 3, true) == PATTERN_MATCH);
  free(long_text);
  pattern_matcher_release(&m);
  pattern_engine_free(engine);
}

/* A pattern that is one class of ASCII members over the whole string is
 * matched by a table, without the matcher (left untouched) or a DFA: its
 * every answer must be the backtracking matcher's, and the DFA's, for the
 * same pattern written with a group.  Patterns near that form go to the
 * DFA or the matcher. */
static void check_class_runs(void) {
  static const char *const runs[][2] = {
      {"[a-z]", "+"},     {"[a-z0-9.-]", "+"}, {"[-a]", "*"},     {"[a-]", "?"},         {"[\\d]", "{2,4}"},
      {"[\\w.]", "{3}"}, {"[\\]\\\\]", "{1,}"}, {"[ -~]", "*"}, {"[A-Z_]", ""},       {"[\\-x]", "{0,2}"},
      {"[a-c]", "{0}"},   {"[0-9a-f\\/]", "{2,}"}, {"[[]", "+"},  {"[\\.\\+]", "{1,3}"},
  };
  static const char *const pieces[] = {"a", "b", "c", "x", "z", "A", "Z", "_", "0", "9", ".", "-", "+", "/", "[", "]",
                                       "\\", " ", "~", "\x7f", "\t", "\xc3\xa9", "\xf0\x9f\x98\x80"};
  pattern_engine *engine = pattern_engine_new(NULL);
  CHECK(engine != NULL);
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < COUNT_OF(runs); i++) {
    char fast[64], grouped[64], why[128];
    snprintf(fast, sizeof fast, "^%s%s$", runs[i][0], runs[i][1]);
    snprintf(grouped, sizeof grouped, "^(?:%s)%s$", runs[i][0], runs[i][1]);
    const pattern *a, *b;
    CHECK(pattern_compile(engine, fast, strlen(fast), &a, why, sizeof why) == SHORN_OK);
    CHECK(pattern_compile(engine, grouped, strlen(grouped), &b, why, sizeof why) == SHORN_OK);
    for (int k = 0; k < 400; k++) {
      char text[96];
      size_t n = 0;
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      for (int parts = (int)(seed >> 60); parts > 0; parts--) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        const char *piece = pieces[(seed >> 33) % COUNT_OF(pieces)];
        memcpy(text + n, piece, strlen(piece));
        n += strlen(piece);
      }
      pattern_matcher by_table = {0}, by_matcher = {0};
      pattern_result want = pattern_test_backtracking(&by_matcher, b, text, n, false);
      pattern_result got = pattern_test(&by_table, a, text, n, false);
      CHECK(got == want);
      if (got != want) fprintf(stderr, "  /%s/ on \"%.*s\": %d, the matcher %d\n", fast, (int)n, text, got, want);
      CHECK(pattern_test(&by_matcher, b, text, n, false) == want);
      CHECK(by_table.engine == NULL && !pattern_has_dfa(a) && by_matcher.engine != NULL);
      pattern_matcher_release(&by_table);
      pattern_matcher_release(&by_matcher);
    }
  }
  static const pattern_case near[] = {
      {"^[^a]+$", S("\xc3\xa9"), 1}, {"^[a-z]+?$", S("ab"), 1},     {"^[\\s]+$", S("\xc2\xa0"), 1},
      {"^[\\b]$", S("\b"), 1},       {"^[\xc3\xa9]+$", S("\xc3\xa9"), 1}, {"^[a-z]+$|x", S("x"), 1},
      {"^[\\D]$", S("\xc3\xa9"), 1}, {"^[a-z]{2}", S("abc"), 1},      {"[a-z]+$", S("1a"), 1},
  };
  for (size_t i = 0; i < COUNT_OF(near); i++) {
    const pattern *p;
    char why[128];
    pattern_matcher m = {0};
    CHECK(pattern_compile(engine, near[i].pattern, strlen(near[i].pattern), &p, why, sizeof why) == SHORN_OK);
    CHECK(pattern_test(&m, p, near[i].text, near[i].length, false) == PATTERN_MATCH);
    CHECK(pattern_has_dfa(p) || m.engine != NULL);
    pattern_matcher_release(&m);
  }
  pattern_engine_free(engine);
}

/* shorn_encode_unchecked checks the structure alone; the fingerprint and
 * the bytes do not depend on the keywords; out NULL keeps nothing. */
static void check_unchecked(void) {
  const char *bounded = "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150},"
                        "\"name\":{\"type\":\"string\",\"maxLength\":3,\"pattern\":\"^[a-z]+$\"}},\"required\":[\"age\",\"name\"]}";
  const char *plain = "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"minimum\":0},"
                      "\"name\":{\"type\":\"string\"}},\"required\":[\"age\",\"name\"]}";
  CHECK_STR(verdict_of(bounded, "{\"age\":500,\"name\":\"Grace\"}", false), "ok");
  CHECK_STR(verdict_of(bounded, "{\"age\":-1,\"name\":\"Grace\"}", false), "error: Expected an unsigned integer at $.age");
  CHECK_STR(verdict(bounded, "{\"age\":500,\"name\":\"Grace\"}"), "error: Too big: expected at most 150 at $.age");
  shorn_schema *a, *b;
  shorn_error e;
  CHECK(shorn_schema_compile(bounded, strlen(bounded), NULL, &a, &e) == SHORN_OK);
  CHECK(shorn_schema_compile(plain, strlen(plain), NULL, &b, &e) == SHORN_OK);
  CHECK_STR(shorn_schema_signature(a, NULL), shorn_schema_signature(b, NULL));
  shorn_buffer x = {0}, y = {0};
  const char *value = "{\"age\":45,\"name\":\"ada\"}";
  CHECK(shorn_encode(a, value, strlen(value), 3, &x, &e) == SHORN_OK);
  CHECK(shorn_encode(b, value, strlen(value), 3, &y, &e) == SHORN_OK);
  CHECK(x.length == y.length && memcmp(x.data, y.data, x.length) == 0);
  /* A failure leaves the output as it was; a check keeps nothing. */
  size_t before = x.length;
  CHECK(shorn_encode(a, "{\"age\":151,\"name\":\"ada\"}", 24, 0, &x, &e) == SHORN_ERROR_ENCODE);
  CHECK(x.length == before);
  CHECK(shorn_encode(a, value, strlen(value), 0, NULL, &e) == SHORN_OK);
  shorn_buffer_free(&x);
  shorn_buffer_free(&y);
  shorn_schema_free(a);
  shorn_schema_free(b);
}

int main(void) {
  for (size_t i = 0; i < COUNT_OF(keyword_cases); i++) {
    const keyword_case *c = &keyword_cases[i];
    const char *got = verdict(c->schema, c->json);
    CHECK_STR(got, c->want);
    if (strcmp(got, c->want) != 0) fprintf(stderr, "  schema %s, value %s\n", c->schema, c->json);
  }
  for (size_t i = 0; i < COUNT_OF(schema_cases); i++) CHECK_STR(verdict(schema_cases[i].schema, "null"), schema_cases[i].want);
  /* allOf in allOf, deeper than the rules are read. */
  char deep[4096] = "{\"type\":\"string\"", *o = deep + strlen(deep);
  for (int i = 0; i < 70; i++) o += sprintf(o, ",\"allOf\":[{\"maxLength\":%d", 100 - i);
  for (int i = 0; i < 70; i++) o += sprintf(o, "}]");
  sprintf(o, "}");
  static const char too_deep[] = "schema: Subschemas nest deeper than 64 levels at #/";
  CHECK(strncmp(verdict(deep, "\"x\""), too_deep, sizeof too_deep - 1) == 0);
  /* What no check can stand for refuses the validated mode alone. */
  static const char dynamic[] = "{\"type\":\"integer\",\"not\":{\"$dynamicRef\":\"#a\"}}";
  CHECK_STR(verdict(dynamic, "1"),
            "error: \"$dynamicRef\" cannot be checked here: shorn_encode_unchecked takes this schema at #/not/$dynamicRef");
  CHECK_STR(verdict_of(dynamic, "1", false), "ok");
  /* Subschemas that branch twice at each of 28 levels: the check stops at
   * its step bound, where 18 levels pass. */
  for (int levels = 18; levels <= 28; levels += 10) {
    char branching[8192], *b = branching;
    b += sprintf(b, "{\"type\":\"integer\",\"not\":{\"$ref\":\"#/$defs/a0\"},\"$defs\":{");
    for (int i = 0; i < levels; i++)
      b += sprintf(b, "\"a%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/a%d\"},{\"$ref\":\"#/$defs/a%d\"}]},", i, i + 1, i + 1);
    sprintf(b, "\"a%d\":false}}", levels);
    CHECK_STR(verdict(branching, "1"), levels == 18 ? "ok"
                                                    : "error: The schema's keywords nest deeper than 256 subschemas or "
                                                      "take more than 4194304 steps on this value at $");
  }
  check_patterns();
  check_matching_edges();
  check_class_runs();
  check_unchecked();
  return check_report("validate");
}
