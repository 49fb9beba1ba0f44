/* test_text.c — UTF-8 validation, UTF-16 order, JSON escapes, the JSON parser. */
#include "check.h"
#include "internal.h"

static bool valid(const char *s) { return utf8_valid((const uint8_t *)s, strlen(s)); }

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
}

static void test_escape(void) {
  shorn_buffer b = {0};
  const char in[] = "a\"\\\b\t\n\f\r\x01\x1f\x7f\xe2\x80\xa8/\xed\xa0\x80z";
  CHECK(buffer_json_string(&b, in, sizeof in - 1));
  CHECK(b.length == strlen("\"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\xe2\x80\xa8/\\ud800z\""));
  CHECK(memcmp(b.data, "\"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\xe2\x80\xa8/\\ud800z\"", b.length) == 0);
  shorn_buffer_free(&b);
  CHECK(wtf8_has_lone_surrogate("a\xed\xbf\xbf", 4));
  CHECK(!wtf8_has_lone_surrogate("a\xed\x9f\xbf", 4));
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

int main(void) {
  test_utf8();
  test_utf16_order();
  test_escape();
  test_json_accepts();
  test_json_refuses();
  return check_report("text");
}
