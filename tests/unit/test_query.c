/* test_query.c — JSON paths, SQLite's reading of JSON text, and the rows
 * of json_each and json_tree (query.c).  Following paths through payloads
 * is tested against SQLite itself, over every vector (tests/vectors/vectors.c). */
#include <stdint.h>

#include "check.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/query/query.h"
#include "sqlite/json_text.h"

/* ---- paths ---------------------------------------------------------------- */

static query_path *parse(const char *text) {
  shorn_error e;
  return query_path_parse(NULL, text, strlen(text), &e);
}

static void check_refused(const char *text, const char *message) {
  shorn_error e;
  query_path *p = query_path_parse(NULL, text, strlen(text), &e);
  CHECK(p == NULL);
  if (p) {
    query_path_free(p);
    return;
  }
  CHECK(e.code == SHORN_ERROR_USAGE);
  CHECK_STR(e.message, message);
}

static bool is_key(const path_step *s, const char *key, bool plain) {
  return s->kind == STEP_KEY && s->key_length == strlen(key) &&
         memcmp(s->key, key, s->key_length) == 0 && s->plain == plain;
}

static void test_paths(void) {
  query_path *p = parse("$");
  CHECK(p && p->count == 0 && strcmp(p->text, "$") == 0);
  query_path_free(p);

  p = parse("$.a[12].\"b.c\"[#][#-3].\"\"[00]");
  CHECK(p && p->count == 7);
  if (p && p->count == 7) {
    CHECK(is_key(&p->steps[0], "a", true));
    CHECK(p->steps[1].kind == STEP_INDEX && p->steps[1].index == 12);
    CHECK(is_key(&p->steps[2], "b.c", true));
    CHECK(p->steps[3].kind == STEP_FROM_END && p->steps[3].index == 0);
    CHECK(p->steps[4].kind == STEP_FROM_END && p->steps[4].index == 3);
    CHECK(is_key(&p->steps[5], "", true));
    CHECK(p->steps[6].kind == STEP_INDEX && p->steps[6].index == 0);
  }
  query_path_free(p);

  /* Keys are taken as written: a backslash is a backslash, and a key that
   * JSON escapes is not plain. */
  p = parse("$.a\\\"b.tab\x01.caf\xc3\xa9");
  CHECK(p && p->count == 3);
  if (p && p->count == 3) {
    CHECK(is_key(&p->steps[0], "a\\\"b", false));
    CHECK(is_key(&p->steps[1], "tab\x01", false));
    CHECK(is_key(&p->steps[2], "caf\xc3\xa9", true));
  }
  query_path_free(p);

  /* An index past any count saturates rather than wrapping. */
  p = parse("$[99999999999999999999999][#-99999999999999999999]");
  CHECK(p && p->count == 2 && p->steps[0].index == UINT64_MAX && p->steps[1].index == UINT64_MAX);
  query_path_free(p);

  /* SQLite's messages: what follows a key's dot, an index's bracket, or
   * the character that starts no step; quotes doubled as %q doubles them. */
  check_refused("", "JSON path error near ''");
  check_refused("a.b", "JSON path error near 'a.b'");
  check_refused("$x", "JSON path error near 'x'");
  check_refused("$.", "JSON path error near ''");
  check_refused("$..a", "JSON path error near '.a'");
  check_refused("$.\"a", "JSON path error near '\"a'");
  check_refused("$[", "JSON path error near '['");
  check_refused("$[ 0]", "JSON path error near '[ 0]'");
  check_refused("$[-1]", "JSON path error near '[-1]'");
  check_refused("$[1x]", "JSON path error near '[1x]'");
  check_refused("$[#-]", "JSON path error near '[#-]'");
  check_refused("$[#+1]", "JSON path error near '[#+1]'");
  check_refused("$.a[0]x", "JSON path error near 'x'");
  check_refused("$['", "JSON path error near '['''");
}

/* ---- JSON text as SQLite reads it ----------------------------------------- */

static query_json_type type_of(const char *json) { return query_text_type(json, strlen(json)); }

static bool integer_of(const char *json, int64_t want) {
  int64_t v;
  return json_text_integer(json, strlen(json), &v) && v == want;
}

static bool too_large(const char *json) {
  int64_t v;
  return !json_text_integer(json, strlen(json), &v);
}

static void test_scalars(void) {
  CHECK(type_of("null") == QUERY_NULL);
  CHECK(type_of("true") == QUERY_TRUE);
  CHECK(type_of("false") == QUERY_FALSE);
  CHECK(type_of("0") == QUERY_INTEGER);
  CHECK(type_of("-0") == QUERY_INTEGER);
  CHECK(type_of("123456789012345680000") == QUERY_INTEGER); /* integer, if not an INTEGER */
  CHECK(type_of("1.5") == QUERY_REAL);
  CHECK(type_of("1e+21") == QUERY_REAL);
  CHECK(type_of("-9e999") == QUERY_REAL);
  CHECK(type_of("\"x\"") == QUERY_STRING);
  CHECK(type_of("[]") == QUERY_ARRAY);
  CHECK(type_of("{}") == QUERY_OBJECT);
  CHECK_STR(json_text_type_name[QUERY_STRING], "text");
  CHECK_STR(json_text_type_name[QUERY_REAL], "real");

  CHECK(integer_of("0", 0));
  CHECK(integer_of("-0", 0));
  CHECK(integer_of("9007199254740993", 9007199254740993));
  CHECK(integer_of("9223372036854775807", INT64_MAX));
  CHECK(too_large("9223372036854775808"));
  /* SQLite keeps the most negative 64-bit integer, and nothing past it. */
  CHECK(integer_of("-9223372036854775808", INT64_MIN));
  CHECK(too_large("-9223372036854775809"));
  CHECK(too_large("123456789012345680000"));
  CHECK(too_large("99999999999999999999999999"));
}

static bool unescapes(const char *quoted_body, const char *want, size_t want_length) {
  shorn_buffer scratch = {0};
  const char *s;
  size_t n;
  bool ok = json_text_unescape(quoted_body, strlen(quoted_body), &scratch, &s, &n) && n == want_length &&
            memcmp(s, want, n) == 0;
  shorn_buffer_free(&scratch);
  return ok;
}

static void test_unescape(void) {
  shorn_buffer scratch = {0};
  const char *text = "no escapes here", *s;
  size_t n;
  /* Nothing to unescape: the value is the text itself, nothing copied. */
  CHECK(json_text_unescape(text, strlen(text), &scratch, &s, &n) && s == text && n == strlen(text));
  CHECK(scratch.data == NULL);
  CHECK(unescapes("a\\\"b\\\\c\\/d", "a\"b\\c/d", 7));
  CHECK(unescapes("\\b\\f\\n\\r\\t", "\b\f\n\r\t", 5));
  CHECK(unescapes("\\u0041\\u00e9\\u20ac", "A\xc3\xa9\xe2\x82\xac", 6));
  CHECK(unescapes("\\ud83d\\ude00", "\xf0\x9f\x98\x80", 4));
  /* A lone surrogate stays one, in WTF-8, as SQLite writes it. */
  CHECK(unescapes("\\ud800", "\xed\xa0\x80", 3));
  CHECK(unescapes("\\udc00x", "\xed\xb0\x80x", 4));
  CHECK(unescapes("\\ud800\\u0041",
                  "\xed\xa0\x80"
                  "A",
                  4));
  CHECK(unescapes("\\uD83D\\uDE00", "\xf0\x9f\x98\x80", 4));
  /* SQLite 3.40 ends a string at an escaped NUL. */
  CHECK(unescapes("a\\u0000b", "a", 1));
  shorn_buffer_free(&scratch);
}

/* ---- rows ------------------------------------------------------------------ */

/* The rows as "key id parent type fullkey path" lines. */
static char *rows_of(const char *json, bool recursive, const char *path_text) {
  query_path *path = path_text ? parse(path_text) : NULL;
  json_rows r = {0};
  shorn_buffer out = {0};
  shorn_code rc = json_rows_start(&r, json, strlen(json), recursive, path);
  for (; !rc && !r.done; rc = json_rows_next(&r)) {
    const json_row *row = &r.row;
    char line[512];
    char key[64] = "-";
    if (row->key == ROW_INDEX) snprintf(key, sizeof key, "%llu", (unsigned long long)row->index);
    if (row->key == ROW_NAME) snprintf(key, sizeof key, "'%.*s'", (int)row->name_length, row->name);
    int n = snprintf(line, sizeof line, "%s %u %lld %s %.*s %.*s %.*s\n", key, row->id,
                     (long long)row->parent, json_text_type_name[row->type], (int)row->json_length,
                     row->json, (int)row->fullkey_length, (const char *)r.fullkey.data,
                     (int)row->path_length, (const char *)r.fullkey.data);
    buffer_append(&out, line, (size_t)n);
  }
  if (rc) out.length = 0, buffer_append(&out, "error", 5);
  buffer_byte(&out, 0);
  json_rows_free(&r);
  query_path_free(path);
  return (char *)out.data; /* the core's allocator is the C library's here */
}

static void check_rows(const char *json, bool recursive, const char *path, const char *want) {
  char *got = rows_of(json, recursive, path);
  CHECK_STR(got, want);
  free(got);
}

static void test_rows(void) {
  const char *doc = "{\"a\":1,\"b\":[2,{\"c\":null}],\"d\":\"x\"}";
  /* Nodes count values and keys: { "a" 1 "b" [ 2 { "c" null } "d" "x" are
   * 0 1 2 3 4 5 6 7 8 9 10. */
  check_rows(doc, false, NULL,
             "'a' 2 -1 integer 1 $.a $\n"
             "'b' 4 -1 array [2,{\"c\":null}] $.b $\n"
             "'d' 10 -1 text \"x\" $.d $\n");
  check_rows(doc, true, NULL,
             "- 0 -1 object {\"a\":1,\"b\":[2,{\"c\":null}],\"d\":\"x\"} $ $\n"
             "'a' 2 0 integer 1 $.a $\n"
             "'b' 4 0 array [2,{\"c\":null}] $.b $\n"
             "0 5 4 integer 2 $.b[0] $.b\n"
             "1 6 4 object {\"c\":null} $.b[1] $.b\n"
             "'c' 8 6 null null $.b[1].c $.b[1]\n"
             "'d' 10 0 text \"x\" $.d $\n");
  /* Empty containers: no children, but json_tree has the node. */
  check_rows("[]", false, NULL, "");
  check_rows("{}", true, NULL, "- 0 -1 object {} $ $\n");
  /* A scalar is its own single row. */
  check_rows("-0", false, NULL, "- 0 -1 integer -0 $ $\n");
  check_rows("\"s\"", true, NULL, "- 0 -1 text \"s\" $ $\n");

  /* fullkey quotes a name unless it is a letter then letters and digits
   * (ASCII), and writes it as the JSON text does. */
  check_rows("{\"\":1,\"1a\":2,\"A1\":3,\"a b\":4,\"a_b\":5,\"caf\xc3\xa9\":6,\"q\\\"\":7}", false, NULL,
             "'' 2 -1 integer 1 $.\"\" $\n"
             "'1a' 4 -1 integer 2 $.\"1a\" $\n"
             "'A1' 6 -1 integer 3 $.A1 $\n"
             "'a b' 8 -1 integer 4 $.\"a b\" $\n"
             "'a_b' 10 -1 integer 5 $.\"a_b\" $\n"
             "'caf\xc3\xa9' 12 -1 integer 6 $.\"caf\xc3\xa9\" $\n"
             "'q\\\"' 14 -1 integer 7 $.\"q\\\"\" $\n");

  /* Under a path, json_each spells fullkey and path from the path as
   * written; json_tree from the steps, with [0] for each array above. */
  check_rows("[1,[2]]", false, "$[#-1].\"x\"",
             "0 1 -1 integer 1 $[#-1].\"x\"[0] $[#-1].\"x\"\n"
             "1 2 -1 array [2] $[#-1].\"x\"[1] $[#-1].\"x\"\n");
  check_rows("[1,[2]]", true, "$[#-1].x",
             "'x' 0 -1 array [1,[2]] $[0].x $[0]\n"
             "0 1 0 integer 1 $[0].x[0] $[0].x\n"
             "1 2 0 array [2] $[0].x[1] $[0].x\n"
             "0 3 2 integer 2 $[0].x[1][0] $[0].x[1]\n");
  /* json_tree's first row keeps its name when it is a container under a
   * key, and has none when it is a scalar or an element. */
  check_rows("{\"b\":1}", true, "$.a",
             "'a' 0 -1 object {\"b\":1} $.a $\n"
             "'b' 2 0 integer 1 $.a.b $.a\n");
  check_rows("7", true, "$.a.b", "- 0 -1 integer 7 $.a.b $.a\n");
  check_rows("[7]", true, "$[3]",
             "- 0 -1 array [7] $[0] $\n"
             "0 1 0 integer 7 $[0][0] $[0]\n");
  check_rows("7", false, "$.a", "- 0 -1 integer 7 $.a $.a\n");
}

/* ---- a payload ------------------------------------------------------------ */

/* The JSON text of what `path` names in `json` encoded with `schema`, or
 * "missing". */
static char *node_text(const shorn_schema *schema, const char *json, const char *path_text) {
  shorn_buffer payload = {0}, out = {0};
  shorn_error e;
  query q;
  query_node node = {NULL, NULL};
  query_path *path = parse(path_text);
  bool ok = path && shorn_encode(schema, json, strlen(json), 0, &payload, &e) == SHORN_OK &&
            query_open(&q, schema, payload.data, payload.length, 0, &e) == SHORN_OK &&
            query_find(&q, path, &node) == SHORN_OK &&
            (!node.shape ? buffer_append(&out, "missing", 7) : query_json(&q, &node, &out) == SHORN_OK);
  query_close(&q);
  if (!ok) out.length = 0, buffer_append(&out, "error", 5);
  buffer_byte(&out, 0);
  query_path_free(path);
  shorn_buffer_free(&payload);
  return (char *)out.data;
}

static void check_node(const shorn_schema *schema, const char *json, const char *path, const char *want) {
  char *got = node_text(schema, json, path);
  CHECK_STR(got, want);
  free(got);
}

static void put(shorn_buffer *b, const char *s) { buffer_append(b, s, strlen(s)); }

/* More recursive definitions than the reader's counters on the stack. */
static void test_many_definitions(void) {
  shorn_buffer text = {0}, json = {0};
  put(&text, "{\"$defs\":{");
  for (int i = 0; i < 17; i++) {
    char def[160];
    int n = snprintf(def, sizeof def,
                     "%s\"d%d\":{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/d%d\"},"
                     "\"v\":{\"type\":\"integer\"}},\"required\":[\"v\"],\"additionalProperties\":false}",
                     i ? "," : "", i, i);
    buffer_append(&text, def, (size_t)n);
  }
  put(&text, "},\"type\":\"object\",\"properties\":{");
  for (int i = 0; i < 17; i++) {
    char property[64];
    int n = snprintf(property, sizeof property, "%s\"x%d\":{\"$ref\":\"#/$defs/d%d\"}", i ? "," : "", i, i);
    buffer_append(&text, property, (size_t)n);
  }
  put(&text, "},\"additionalProperties\":false}");
  put(&json, "{");
  for (int i = 0; i < 17; i++) {
    char member[64];
    int n = snprintf(member, sizeof member, "%s\"x%d\":{\"v\":%d,\"next\":{\"v\":%d}}", i ? "," : "", i, i, i + 100);
    buffer_append(&json, member, (size_t)n);
  }
  put(&json, "}");
  buffer_byte(&json, 0); /* node_text takes a C string */
  shorn_schema *schema;
  shorn_error e;
  CHECK(shorn_schema_compile((const char *)text.data, text.length, NULL, &schema, &e) == SHORN_OK);
  if (schema) {
    CHECK(schema->def_count == 17);
    check_node(schema, (const char *)json.data, "$.x16.next.v", "116");
    check_node(schema, (const char *)json.data, "$.x16", "{\"next\":{\"v\":116},\"v\":16}");
    check_node(schema, (const char *)json.data, "$.x16.next.next", "missing");
    shorn_schema_free(schema);
  }
  shorn_buffer_free(&text);
  shorn_buffer_free(&json);
}

/* ---- reading what a path needs --------------------------------------------- */

/* The bytes `hex` spells, in a buffer of their own (free it). */
static uint8_t *from_hex(const char *hex, size_t *n) {
  *n = strlen(hex) / 2;
  uint8_t *bytes = malloc(*n + 1);
  for (size_t i = 0; i < *n; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    bytes[i] = (uint8_t)v;
  }
  return bytes;
}

/* What `path` names in the payload `hex`, behind `width` fingerprint bytes:
 * its JSON text, "missing", or the error as shorn_error_format writes it. */
static char *lazy_answer(const shorn_schema *schema, const char *hex, int width, const char *path_text) {
  size_t n;
  uint8_t *payload = from_hex(hex, &n);
  shorn_buffer out = {0};
  shorn_error e;
  query q;
  query_node node = {NULL, NULL};
  query_path *path = parse(path_text);
  shorn_code rc = query_open(&q, schema, payload, n, width, &e);
  if (!rc && !(rc = query_find(&q, path, &node)))
    rc = node.shape ? query_json(&q, &node, &out) : (buffer_append(&out, "missing", 7), SHORN_OK);
  query_close(&q);
  if (rc) {
    char text[SHORN_MESSAGE_MAX + 32];
    out.length = 0;
    buffer_append(&out, "error: ", 7);
    buffer_append(&out, text, shorn_error_format(&e, text, sizeof text));
  }
  buffer_byte(&out, 0);
  query_path_free(path);
  free(payload);
  return (char *)out.data;
}

static void check_lazy(const shorn_schema *schema, const char *hex, const char *path, const char *want) {
  char *got = lazy_answer(schema, hex, 0, path);
  CHECK_STR(got, want);
  free(got);
}

/* What shorn_decode says of the payload: its JSON, or its error. */
static void check_decoded(const shorn_schema *schema, const char *hex, const char *want) {
  size_t n;
  uint8_t *payload = from_hex(hex, &n);
  shorn_buffer out = {0};
  shorn_error e;
  char text[SHORN_MESSAGE_MAX + 32] = "error: ";
  if (shorn_decode(schema, payload, n, 0, &out, &e) == SHORN_OK) {
    buffer_byte(&out, 0);
    CHECK_STR((const char *)out.data, want);
  } else {
    shorn_error_format(&e, text + 7, sizeof text - 7);
    CHECK_STR(text, want);
  }
  shorn_buffer_free(&out);
  free(payload);
}

static shorn_schema *compiled(const char *text) {
  shorn_schema *schema = NULL;
  shorn_error e;
  CHECK(shorn_schema_compile(text, strlen(text), NULL, &schema, &e) == SHORN_OK);
  return schema;
}

/* A record of a string, an integer, strings, a nullable string and a
 * dynamic value, in that order on the wire:
 *   01 78        a: "x"
 *   05           b: 5
 *   02 0170 0171 c: ["p", "q"]
 *   01 016e      n: "n"
 *   02           d: true */
#define RECORD_SCHEMA \
  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\",\"minimum\":0}," \
  "\"c\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"d\":{}," \
  "\"n\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},\"required\":[\"a\",\"b\",\"c\",\"d\",\"n\"]," \
  "\"additionalProperties\":false}"

/* Off the path, a payload may be wrong in any way but one that would take
 * the walk outside it: the path answers, where shorn_decode refuses. */
static void test_lazy_answers(void) {
  shorn_schema *s = compiled(RECORD_SCHEMA);
  if (!s) return;
  check_decoded(s, "0178" "05" "0201700171" "02" "01016e", "{\"a\":\"x\",\"b\":5,\"c\":[\"p\",\"q\"],\"d\":true,\"n\":\"n\"}");
  check_lazy(s, "0178" "05" "0201700171" "02" "01016e", "$.n", "\"n\"");
  /* Invalid UTF-8 in a string passed over. */
  const char *bad_a = "02c328" "05" "0201700171" "02" "01016e";
  check_decoded(s, bad_a, "error: Invalid UTF-8 at byte 1");
  check_lazy(s, bad_a, "$.b", "5");
  check_lazy(s, bad_a, "$.c[1]", "\"q\"");
  check_lazy(s, bad_a, "$.n", "\"n\"");
  check_lazy(s, bad_a, "$.a", "error: Invalid UTF-8 at byte 1");
  check_lazy(s, bad_a, "$", "error: Invalid UTF-8 at byte 1");
  /* A non-canonical varint passed over. */
  const char *long_b = "0178" "8500" "0201700171" "02" "01016e";
  check_decoded(s, long_b, "error: Non-canonical variable-length integer at byte 4");
  check_lazy(s, long_b, "$.c[0]", "\"p\"");
  check_lazy(s, long_b, "$.b", "error: Non-canonical variable-length integer at byte 4");
  /* An element passed over, invalid; the one named, fine. */
  const char *bad_c0 = "0178" "05" "0201ff0171" "02" "01016e";
  check_decoded(s, bad_c0, "error: Invalid UTF-8 at byte 5");
  check_lazy(s, bad_c0, "$.c[1]", "\"q\"");
  check_lazy(s, bad_c0, "$.c[#-1]", "\"q\"");
  check_lazy(s, bad_c0, "$.c[0]", "error: Invalid UTF-8 at byte 5");
  check_lazy(s, bad_c0, "$.c", "error: Invalid UTF-8 at byte 5");
  /* Bytes after the value are outside every path. */
  const char *trailing = "0178" "05" "0201700171" "02" "01016e" "ff";
  check_decoded(s, trailing, "error: Unexpected trailing data at byte 12");
  check_lazy(s, trailing, "$.b", "5");
  check_lazy(s, trailing, "$", "{\"a\":\"x\",\"b\":5,\"c\":[\"p\",\"q\"],\"d\":true,\"n\":\"n\"}");
  /* A dynamic object passed over, or searched, with its keys out of order;
   * read whole, refused. */
  const char *unordered = "0178" "05" "00" "07020162030201610304" "00";
  check_decoded(s, unordered, "error: Record keys are out of canonical order at byte 12");
  check_lazy(s, unordered, "$.n", "null");
  check_lazy(s, unordered, "$.d.a", "2");
  check_lazy(s, unordered, "$.d", "error: Record keys are out of canonical order at byte 12");
  /* A key passed over, invalid UTF-8, as a string value passed over is:
   * only a key equal to the path's, which is UTF-8, is the one found. */
  const char *bad_key = "0178" "05" "00" "070202c32803020161" "0304" "00";
  check_decoded(s, bad_key, "error: Invalid UTF-8 at byte 7");
  check_lazy(s, bad_key, "$.d.a", "2");
  check_lazy(s, bad_key, "$.d.b", "missing");
  check_lazy(s, bad_key, "$.d", "error: Invalid UTF-8 at byte 7");
  shorn_schema_free(s);

  /* A Set's repeated element, or a Map's repeated key, is seen only when
   * the Set or Map is read whole. */
  s = compiled("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
               "\"uniqueItems\":true,\"x-shorn\":\"set\"},\"z\":{\"type\":\"string\"}},\"required\":[\"s\",\"z\"],"
               "\"additionalProperties\":false}");
  if (!s) return;
  const char *repeated = "02016101610179";
  check_decoded(s, repeated, "error: Set element repeats an earlier element at byte 3");
  check_lazy(s, repeated, "$.z", "\"y\"");
  check_lazy(s, repeated, "$.s[1]", "\"a\"");
  check_lazy(s, repeated, "$.s", "error: Set element repeats an earlier element at byte 3");
  shorn_schema_free(s);
}

/* Integers are passed over eight bytes at a time: each element is found
 * whatever the lengths of those before it, and so is what follows. */
static void test_passing_integers(void) {
  shorn_schema *s = compiled("{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
                             "\"z\":{\"type\":\"string\"}},\"required\":[\"v\",\"z\"],\"additionalProperties\":false}");
  if (!s) return;
  shorn_buffer json = {0};
  long long values[40];
  put(&json, "{\"v\":[");
  for (int i = 0; i < 40; i++) {
    long long scale[] = {1, 300, 70000, 40000000000LL};
    values[i] = (i % 3 ? 1 : -1) * i * scale[i % 4];
    char number[32];
    buffer_append(&json, number, (size_t)snprintf(number, sizeof number, "%s%lld", i ? "," : "", values[i]));
  }
  put(&json, "],\"z\":\"end\"}");
  buffer_byte(&json, 0);
  for (int i = 0; i < 40; i++) {
    char path[24], want[32];
    snprintf(path, sizeof path, "$.v[%d]", i);
    snprintf(want, sizeof want, "%lld", values[i]);
    check_node(s, (const char *)json.data, path, want);
  }
  check_node(s, (const char *)json.data, "$.z", "\"end\"");
  shorn_buffer_free(&json);
  shorn_schema_free(s);
}

/* On the path, every header is read as the decoder reads it, and what is
 * passed over must fit: a fault there is the decoder's error. */
static void test_lazy_refusals(void) {
  shorn_schema *s = compiled(RECORD_SCHEMA);
  if (!s) return;
  /* A string cut short, named or passed over. */
  check_lazy(s, "0578", "$.a", "error: Unexpected end of input at byte 1");
  check_lazy(s, "0578", "$.b", "error: Unexpected end of input at byte 1");
  /* The string returned is not UTF-8 (a lone continuation byte). */
  check_lazy(s, "0178" "05" "0201700171" "02" "010180", "$.n", "error: Invalid UTF-8 at byte 11");
  /* A count larger than the bytes left, or than the limit: on the path,
   * and passed over. */
  check_lazy(s, "0178" "05" "c801017002", "$.c[0]", "error: Array length 200 exceeds the remaining input at byte 5");
  check_lazy(s, "0178" "05" "c801017002", "$.d", "error: Array length 200 exceeds the remaining input at byte 5");
  check_lazy(s, "0178" "05" "80897a", "$.c[0]", "error: Array length 2000000 exceeds the limit of 1000000 at byte 6");
  /* A nullable's marker and a dynamic tag on the path. */
  check_lazy(s, "0178" "05" "00" "02" "02", "$.n", "error: Invalid nullable marker at byte 5");
  check_lazy(s, "0178" "05" "00" "09" "00", "$.d.x", "error: Unknown dynamic tag 9 at byte 4");
  check_lazy(s, "0178" "05" "00", "$.d[0]", "error: Unexpected end of input at byte 4");
  /* Nothing named, nothing read past the step that found nothing. */
  check_lazy(s, "0178" "05" "00" "02", "$.d.x", "missing");
  /* The envelope is checked: a wrong fingerprint, whatever the path. */
  char *got = lazy_answer(s, "0000" "0178", 2, "$.zzz");
  CHECK(strncmp(got, "error: Payload was written by a different schema (expected fingerprint ", 71) == 0);
  free(got);
  shorn_schema_free(s);

  /* Passed over, nesting past the decoder's limits is its error, not a
   * deeper walk: dynamic arrays 10000 deep, and a recursive value 600 deep. */
  s = compiled("{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{}},\"required\":[\"a\",\"b\"],"
               "\"additionalProperties\":false}");
  if (s) {
    shorn_buffer deep = {0};
    for (int i = 0; i < 10000; i++) buffer_append(&deep, "0601", 4);
    buffer_append(&deep, "0000", 5); /* the NUL too */
    check_lazy(s, (const char *)deep.data, "$.b", "error: Dynamic value nests deeper than 64 at byte 129");
    shorn_buffer_free(&deep);
    shorn_schema_free(s);
  }
  s = compiled("{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#\"},\"value\":{}},\"required\":[\"value\"]}");
  if (s) {
    shorn_buffer deep = {0};
    for (int i = 0; i < 600; i++) buffer_append(&deep, "01", 2);
    for (int i = 0; i < 601; i++) buffer_append(&deep, "00", 2);
    buffer_byte(&deep, 0);
    check_lazy(s, (const char *)deep.data, "$.value", "error: Recursive value nests deeper than 256 at byte 257");
    shorn_buffer_free(&deep);
    shorn_schema_free(s);
  }
  /* A reference to itself that reads no byte: the decoder's error, not a
   * path followed for ever. */
  s = compiled("{\"$ref\":\"#\"}");
  if (s) {
    check_lazy(s, "", "$.a", "error: Recursive value nests deeper than 256 at byte 0");
    check_lazy(s, "", "$[0]", "error: Recursive value nests deeper than 256 at byte 0");
    shorn_schema_free(s);
  }
}


/* ---- passing by plan ---------------------------------------------------------- */

/* A schema compiled twice: its objects' pass plans folded, as compiled,
 * and a step per field, the walk field by field that the plans replace.
 * The two must pass over the same bytes, or both refuse, and answer every
 * path alike, on any bytes at all. */
typedef struct plan_pair {
  shorn_schema *folded, *by_field;
} plan_pair;

static struct {
  long compared, passed, refused, paths, mismatches;
} plans;

static bool plan_pair_compile(plan_pair *p, const char *text, size_t n) {
  shorn_error e;
  p->folded = p->by_field = NULL;
  if (shorn_schema_compile(text, n, NULL, &p->folded, &e) ||
      shorn_schema_compile(text, n, NULL, &p->by_field, &e)) {
    shorn_schema_free(p->folded);
    return p->folded = NULL, false;
  }
  CHECK(shape_plan_field_by_field(p->by_field));
  return true;
}

static void plan_pair_free(plan_pair *p) {
  shorn_schema_free(p->folded);
  shorn_schema_free(p->by_field);
}

/* Where passing over the root ends, as an offset, or -1 when it does not
 * pass. */
static long pass_end(const shorn_schema *s, const uint8_t *data, size_t n) {
  query q;
  shorn_error e;
  const uint8_t *end;
  if (query_open(&q, s, data, n, 0, &e)) return -2;
  long at = query_pass(&q, &q.root, &end) ? (long)(end - q.d.start) : -1;
  query_close(&q);
  return at;
}

/* What a path finds: its offset and kind, "missing", or the error. */
static void find_answer(const shorn_schema *s, const uint8_t *data, size_t n, const query_path *path,
                        char *out, size_t size) {
  query q;
  shorn_error e;
  query_node node = {NULL, NULL};
  shorn_code rc = query_open(&q, s, data, n, 0, &e);
  if (!rc) rc = query_find(&q, path, &node);
  if (rc)
    shorn_error_format(&e, out, size);
  else if (!node.shape)
    snprintf(out, size, "missing");
  else
    snprintf(out, size, "%ld %d", (long)(node.at - q.d.start), (int)node.shape->kind);
  query_close(&q);
}

static void plan_mismatch(const char *what, const uint8_t *data, size_t n, const char *a, const char *b) {
  if (++plans.mismatches > 10) return;
  fprintf(stderr, "plan differs from field by field (%s) over %zu bytes:", what, n);
  for (size_t i = 0; i < n && i < 64; i++) fprintf(stderr, " %02x", data[i]);
  fprintf(stderr, "\n  folded: %s\n  by field: %s\n", a, b);
}

/* Every declared field of the root object, and the root's own pass. */
static void compare_plans(const plan_pair *p, const uint8_t *data, size_t n) {
  long a = pass_end(p->folded, data, n), b = pass_end(p->by_field, data, n);
  plans.compared++;
  a >= 0 ? plans.passed++ : plans.refused++;
  if (a != b) {
    char x[32], y[32];
    snprintf(x, sizeof x, "%ld", a), snprintf(y, sizeof y, "%ld", b);
    plan_mismatch("pass", data, n, x, y);
  }
  const shape *root = p->folded->root;
  if (root->kind == SHAPE_REF) root = root->u.ref.target;
  if (root->kind != SHAPE_OBJECT) return;
  for (uint32_t i = 0; i < root->u.object.count; i++) {
    const field *f = &root->u.object.fields[i];
    char text[256], x[SHORN_MESSAGE_MAX + 32], y[SHORN_MESSAGE_MAX + 32];
    if (f->key_length > 200 || memchr(f->key, '"', f->key_length)) continue;
    int length = snprintf(text, sizeof text, "$.\"%.*s\"", (int)f->key_length, f->key);
    shorn_error e;
    query_path *path = query_path_parse(NULL, text, (size_t)length, &e);
    if (!path) continue;
    find_answer(p->folded, data, n, path, x, sizeof x);
    find_answer(p->by_field, data, n, path, y, sizeof y);
    query_path_free(path);
    plans.paths++;
    if (strcmp(x, y) != 0) plan_mismatch(text, data, n, x, y);
  }
}

/* The payload, every prefix of it up to `prefixes` bytes, and each of its
 * first `changed` bytes changed three ways. */
static void compare_plans_around(const plan_pair *p, const uint8_t *data, size_t n, size_t prefixes,
                                 size_t changed) {
  static const uint8_t flips[] = {0x80, 0x7F, 0xFF};
  uint8_t *copy = malloc(n + 1);
  memcpy(copy, data, n);
  compare_plans(p, copy, n);
  for (size_t k = 0; k < n && k <= prefixes; k++) compare_plans(p, copy, k);
  for (size_t i = 0; i < n && i < changed; i++)
    for (size_t f = 0; f < sizeof flips; f++) {
      copy[i] ^= flips[f];
      compare_plans(p, copy, n);
      copy[i] ^= flips[f];
    }
  free(copy);
}

/* How the plans fold: runs of required leaves of one kind, each optional
 * field alone, containers as themselves. */
static void test_plan_folding(void) {
  shorn_schema *s = compiled(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},\"b\":{\"type\":\"number\"},"
      "\"c\":{\"type\":\"string\",\"format\":\"uuid\"},\"d\":{\"type\":\"integer\"},\"e\":{\"enum\":[\"x\",\"y\"]},"
      "\"f\":{\"type\":\"string\"},\"g\":{\"type\":\"string\"},\"h\":{\"type\":\"boolean\"},"
      "\"i\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},\"j\":{\"type\":\"integer\"}},"
      "\"required\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"i\",\"j\"],\"additionalProperties\":false}");
  if (!s) return;
  const pass_step *plan = s->root->u.object.plan;
  const field *fields = s->root->u.object.fields;
  CHECK(s->root->u.object.plan_length == 6);
  if (s->root->u.object.plan_length == 6) {
    CHECK(plan[0].op == PASS_BYTES && plan[0].n == 25 && !plan[0].optional);
    CHECK(plan[1].op == PASS_VARINTS && plan[1].n == 2);
    CHECK(plan[2].op == PASS_BODIES && plan[2].n == 2);
    CHECK(plan[3].op == PASS_BYTES && plan[3].n == 1 && plan[3].optional && plan[3].bit == 0);
    CHECK(plan[4].op == PASS_ARRAY && plan[4].value == fields[8].value);
    CHECK(plan[5].op == PASS_VARINTS && plan[5].n == 1);
  }
  /* A field inside a folded run is found after the units before it. */
  CHECK(fields[2].plan_step == 0 && fields[2].plan_skip == 9);
  CHECK(fields[4].plan_step == 1 && fields[4].plan_skip == 1);
  CHECK(fields[7].plan_step == 3 && fields[7].plan_skip == 0);
  check_node(s, "{\"a\":true,\"b\":1.5,\"c\":\"00000000-0000-4000-8000-000000000001\",\"d\":-300,\"e\":\"y\","
                "\"f\":\"p\",\"g\":\"q\",\"h\":false,\"i\":[1,2],\"j\":7}", "$.g", "\"q\"");
  check_node(s, "{\"a\":true,\"b\":1.5,\"c\":\"00000000-0000-4000-8000-000000000001\",\"d\":-300,\"e\":\"y\","
                "\"f\":\"p\",\"g\":\"q\",\"i\":[1,2],\"j\":7}", "$.j", "7");
  shorn_schema_free(s);
}

/* Every kind of shape, in values of their own. */
static const char every_kind_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"a\":{\"type\":\"boolean\"},\"b\":{\"type\":\"number\",\"x-shorn\":\"float32\"},"
    "\"c\":{\"type\":\"integer\",\"minimum\":0},\"d\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"e\":{\"type\":\"string\",\"x-shorn\":\"bigint\"},"
    "\"f\":{\"type\":\"string\",\"contentEncoding\":\"base64\",\"x-shorn\":\"bytes\"},"
    "\"g\":{\"const\":\"k\"},\"h\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
    "\"i\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]},"
    "\"j\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"integer\"},"
    "\"q\":{\"type\":\"string\"},\"r\":{\"type\":\"boolean\"}},\"required\":[\"p\",\"q\"],\"additionalProperties\":false}},"
    "\"k\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":{\"type\":\"number\"}},"
    "\"l\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}},"
    "\"m\":{},\"n\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"},\"y\":{\"type\":\"object\","
    "\"properties\":{\"z\":{\"type\":\"integer\"}},\"required\":[\"z\"],\"additionalProperties\":false}},"
    "\"required\":[\"x\",\"y\"],\"additionalProperties\":{\"type\":\"string\"}},"
    "\"o\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true,\"x-shorn\":\"set\"},"
    "\"p\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],"
    "\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"},"
    "\"q\":{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"t\":{\"const\":\"u\"},\"v\":{\"type\":\"integer\"}},"
    "\"required\":[\"t\",\"v\"],\"additionalProperties\":false},{\"type\":\"object\",\"properties\":{\"t\":{\"const\":\"w\"}},"
    "\"required\":[\"t\"],\"additionalProperties\":false}]},"
    "\"r\":{\"type\":\"string\",\"format\":\"uuid\"},\"s\":{\"enum\":[\"s1\",\"s2\",\"s3\"]},"
    "\"t\":{\"type\":\"array\",\"items\":{\"type\":\"number\"},\"minItems\":3,\"maxItems\":3},"
    "\"u\":{\"type\":\"integer\"},\"v\":{\"type\":\"string\"}},"
    "\"required\":[\"a\",\"c\",\"g\",\"j\",\"m\",\"r\",\"u\",\"v\"],\"additionalProperties\":false}";

static const char *const every_kind_values[] = {
    "{\"a\":true,\"c\":3,\"g\":\"k\",\"j\":[],\"m\":null,\"r\":\"00000000-0000-4000-8000-000000000001\",\"u\":-1,\"v\":\"\"}",
    "{\"a\":false,\"b\":1.5,\"c\":300,\"d\":\"2026-01-02T03:04:05.678Z\",\"e\":\"-123456789012345678901234567890\","
    "\"f\":\"CQk=\",\"g\":\"k\",\"h\":null,\"i\":2.5,\"j\":[{\"p\":-5,\"q\":\"qq\",\"r\":true},{\"p\":70000,\"q\":\"\"}],"
    "\"k\":[\"s\",9,1.25,-2],\"l\":{\"x\":1,\"y\":-2},\"m\":{\"d\":[1,\"two\",{\"t\":null}],\"e\":3.5},"
    "\"n\":{\"x\":\"xx\",\"y\":{\"z\":4},\"extra\":\"e\"},\"o\":[\"a\",\"b\"],\"p\":[[\"k\",1],[\"l\",300]],"
    "\"q\":{\"t\":\"u\",\"v\":12},\"r\":\"00000000-0000-4000-8000-0000000000ff\",\"s\":\"s3\",\"t\":[1,2,3],"
    "\"u\":123456789,\"v\":\"the end\"}",
    "{\"a\":true,\"b\":-0.5,\"c\":0,\"g\":\"k\",\"h\":\"here\",\"i\":\"str\",\"j\":[{\"p\":1,\"q\":\"a\"},{\"p\":2,\"q\":\"b\"},"
    "{\"p\":3,\"q\":\"c\",\"r\":false}],\"m\":[[[]]],\"q\":{\"t\":\"w\"},\"r\":\"ffffffff-ffff-4fff-bfff-ffffffffffff\","
    "\"u\":0,\"v\":\"v\"}",
};

/* Encoded values of every kind, and each cut short and changed. */
static void test_plans_by_kind(void) {
  plan_pair p;
  CHECK(plan_pair_compile(&p, every_kind_schema, strlen(every_kind_schema)));
  if (!p.folded) return;
  long before = plans.compared;
  for (size_t i = 0; i < sizeof every_kind_values / sizeof *every_kind_values; i++) {
    shorn_buffer payload = {0};
    shorn_error e;
    const char *json = every_kind_values[i];
    CHECK(shorn_encode(p.folded, json, strlen(json), 0, &payload, &e) == SHORN_OK);
    /* The whole value passes, to its last byte. */
    CHECK(pass_end(p.folded, payload.data, payload.length) == (long)payload.length);
    compare_plans_around(&p, payload.data, payload.length, 300, 300);
    shorn_buffer_free(&payload);
  }
  CHECK(plans.compared - before > 300);
  plan_pair_free(&p);
}

/* The golden vectors' schemas and payloads (the decoder's, many of them
 * refused, and the encoder's), each cut short and changed too. */
static char *file_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  size_t n = fread(text, 1, (size_t)size, f);
  text[n] = 0;
  fclose(f);
  return text;
}

/* The length of the JSON value at v, up to the ',' or '}' after it. */
static size_t value_length(const char *v) {
  const char *p = v;
  for (int depth = 0; *p; p++) {
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\') p++;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      if (!depth--) break;
    } else if (*p == ',' && !depth) {
      break;
    }
  }
  return (size_t)(p - v);
}

static void compare_vector_payloads(plan_pair *pairs, size_t count, const char *path) {
  char *text = file_text(path);
  CHECK(text != NULL);
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    const char *id = strstr(line, "\"schema_id\":\"ps"), *hex = strstr(line, "\"hex\":\"");
    if (!id || !hex) continue;
    size_t index = (size_t)atol(id + 15);
    if (index >= count || !pairs[index].folded) continue;
    char *hex_end = strchr(hex + 7, '"');
    if (!hex_end) continue;
    *hex_end = 0;
    size_t n;
    uint8_t *payload = from_hex(hex + 7, &n);
    compare_plans_around(&pairs[index], payload, n, 24, 12);
    free(payload);
  }
  free(text);
}

static void test_plans_over_vectors(void) {
  char *text = file_text("tests/vectors/schemas.jsonl");
  CHECK(text != NULL);
  if (!text) return;
  size_t count = 2000, compiled_count = 0;
  plan_pair *pairs = calloc(count, sizeof *pairs);
  for (char *line = text, *next; *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    else next = line + strlen(line);
    const char *id = strstr(line, "\"id\":\"ps"), *schema = strstr(line, "\"schema\":");
    if (!id || !schema) continue;
    size_t index = (size_t)atol(id + 8);
    schema += 9;
    if (index < count) compiled_count += plan_pair_compile(&pairs[index], schema, value_length(schema));
  }
  free(text);
  CHECK(compiled_count > 900);
  long before = plans.compared;
  compare_vector_payloads(pairs, count, "tests/vectors/decode.jsonl");
  compare_vector_payloads(pairs, count, "tests/vectors/encode.jsonl");
  CHECK(plans.compared - before > 100000);
  for (size_t i = 0; i < count; i++) plan_pair_free(&pairs[i]);
  free(pairs);
}

int main(void) {
  test_paths();
  test_scalars();
  test_unescape();
  test_rows();
  test_many_definitions();
  test_lazy_answers();
  test_passing_integers();
  test_lazy_refusals();
  test_plan_folding();
  test_plans_by_kind();
  test_plans_over_vectors();
  /* Both outcomes were met, and the plans agreed with the walk field by
   * field on every one. */
  CHECK(plans.passed > 1000 && plans.refused > 1000 && plans.paths > 100000);
  CHECK(plans.mismatches == 0);
  printf("plans: %ld passes compared (%ld passed, %ld refused), %ld paths\n", plans.compared, plans.passed,
         plans.refused, plans.paths);
  return check_report("query");
}
