/*
 * test_encoder.c — the encoder's one pass against its tree, side by side.
 *
 * shorn_encode reads the text once, guided by the shape, and leaves what it
 * does not take for certain to the tree (the DOM parsed whole, then walked),
 * which decides refusals.  Over every value of the vectors and variants of
 * it (members reversed, rotated, repeated, spaced, keys escaped, strings
 * escaped; the text cut short or a byte changed), in both modes: whatever
 * the one pass takes, the tree takes too and writes the same bytes for;
 * what the tree refuses, the pass does not take; and the pass takes most
 * of what the tree takes, so the comparison is not an empty one.
 */
#include "check.h"
#include "core/json/json.h"
#include "core/numbers/number.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "core/wire/encode.h"

static char *file_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) exit(2);
  text[n] = 0;
  fclose(f);
  return text;
}

/* How a variant writes objects and strings. */
typedef enum order { AS_READ, REVERSED, ROTATED, REPEATED } order;
typedef struct style {
  order order;
  bool spaced, escaped_keys, escaped_strings;
} style;

static void put(shorn_buffer *b, const char *s) {
  if (!buffer_append(b, s, strlen(s))) exit(2);
}

/* A string with its first character, when ASCII, written as \u00XX. */
static void put_string(shorn_buffer *b, const char *s, size_t n, bool escaped) {
  if (escaped && n && (unsigned char)s[0] < 0x80 && s[0] != '"' && s[0] != '\\') {
    char head[8];
    snprintf(head, sizeof head, "\"\\u%04x", (unsigned char)s[0]);
    put(b, head);
    shorn_buffer rest = {0};
    if (!buffer_json_string(&rest, s + 1, n - 1)) exit(2);
    if (!buffer_append(b, rest.data + 1, rest.length - 1)) exit(2);
    shorn_buffer_free(&rest);
  } else if (!buffer_json_string(b, s, n)) {
    exit(2);
  }
}

static void write_value(shorn_buffer *b, const json_value *v, const style *st, bool root);

static void write_member(shorn_buffer *b, const json_value *o, uint32_t i, const style *st, bool *first) {
  if (!*first) put(b, st->spaced ? " , " : ",");
  *first = false;
  const json_value *k = &o->u.items[2 * i];
  put_string(b, k->u.string, k->length, st->escaped_keys);
  put(b, st->spaced ? " : " : ":");
  write_value(b, k + 1, st, false);
}

static void write_value(shorn_buffer *b, const json_value *v, const style *st, bool root) {
  char n[NUMBER_TEXT_MAX + 1];
  bool first = true;
  switch (v->type) {
    case JSON_NULL: put(b, "null"); break;
    case JSON_FALSE: put(b, "false"); break;
    case JSON_TRUE: put(b, "true"); break;
    case JSON_NUMBER:
      n[number_format(v->u.number, n)] = 0;
      put(b, n);
      break;
    case JSON_STRING: put_string(b, v->u.string, v->length, st->escaped_strings); break;
    case JSON_ARRAY:
      put(b, "[");
      for (uint32_t i = 0; i < v->length; i++) {
        if (i) put(b, st->spaced ? " , " : ",");
        write_value(b, &v->u.items[i], st, false);
      }
      put(b, "]");
      break;
    default:
      put(b, st->spaced ? "{ " : "{");
      for (uint32_t i = 0; i < v->length; i++) {
        uint32_t at = st->order == REVERSED ? v->length - 1 - i : st->order == ROTATED ? (i + 1) % v->length : i;
        write_member(b, v, at, st, &first);
      }
      /* The root's first member again, its value the same: the last one
       * wins (at the root only, lest nested objects double at each level). */
      if (st->order == REPEATED && root && v->length) write_member(b, v, 0, st, &first);
      put(b, st->spaced ? " }" : "}");
  }
}

static int taken, tree_took;

/* The two ways over one text, in one mode. */
static void compare(const shorn_schema *s, const char *text, size_t n, bool checked, const char *id) {
  shorn_buffer pass = {0}, tree = {0};
  shorn_error e;
  bool took = encode_by_one_pass(s, text, n, &pass, checked);
  shorn_code rc = encode_by_tree(s, text, n, &tree, &e, checked);
  tree_took += rc == SHORN_OK;
  taken += took;
  bool same = pass.length == tree.length && (!pass.length || memcmp(pass.data, tree.data, pass.length) == 0);
  CHECK(!took || rc == SHORN_OK);
  CHECK(!took || same);
  CHECK(took || pass.length == 0);
  if (took && (rc != SHORN_OK || !same))
    fprintf(stderr, "  %s %s: %.*s\n", id, checked ? "checked" : "unchecked", (int)(n > 300 ? 300 : n), text);
  shorn_buffer_free(&pass);
  shorn_buffer_free(&tree);
}

static void compare_both(const shorn_schema *s, const char *text, size_t n, const char *id) {
  compare(s, text, n, true, id);
  compare(s, text, n, false, id);
}

static const style styles[] = {
    {AS_READ, false, false, false}, {REVERSED, false, false, false}, {ROTATED, true, false, false},
    {REPEATED, false, true, false}, {AS_READ, false, false, true},
};

/* The value, its variants, and its text damaged at a few places. */
static void compare_variants(const shorn_schema *s, const char *json, size_t n, const char *id, unsigned seed) {
  compare_both(s, json, n, id);
  _Alignas(8) char here[1024];
  arena a = {.next = here, .end = here + sizeof here};
  json_value *v;
  shorn_error e;
  if (json_parse(&a, json, n, &v, &e) == SHORN_OK) {
    for (size_t i = 0; i < sizeof styles / sizeof *styles; i++) {
      shorn_buffer b = {0};
      write_value(&b, v, &styles[i], true);
      compare_both(s, (const char *)b.data, b.length, id);
      shorn_buffer_free(&b);
    }
  }
  arena_free(&a);
  if (!n) return;
  static const char bytes[] = "\",}]:1-\\ e{[";
  char *damaged = malloc(n);
  if (!damaged) exit(2);
  memcpy(damaged, json, n);
  size_t at = (seed * 2654435761u) % n;
  damaged[at] = bytes[seed % (sizeof bytes - 1)];
  compare_both(s, damaged, n, id);
  compare_both(s, json, at, id); /* cut short */
  free(damaged);
}

/* A row's string member, or NULL. */
static const json_value *member_string(const json_value *row, const char *key) {
  const json_value *v = json_get(row, key, strlen(key));
  return v && v->type == JSON_STRING ? v : NULL;
}

static bool same_string(const json_value *a, const json_value *b) {
  return a->length == b->length && memcmp(a->u.string, b->u.string, a->length) == 0;
}

/* An object of more fields than one word of the pass's presence bits
 * holds, every third field required or all of them: every field, the
 * required alone, and one required missing from the second word or from
 * the last, each in declared and in reversed order.  The pass takes the
 * first two, as the tree does, with the same bytes, and leaves the others. */
static void compare_many_fields(int every) {
  enum { FIELDS = 140 };
  shorn_buffer schema = {0};
  put(&schema, "{\"type\":\"object\",\"properties\":{");
  char text[64];
  for (int i = 0; i < FIELDS; i++) {
    snprintf(text, sizeof text, "%s\"f%03d\":{\"type\":\"integer\"}", i ? "," : "", i);
    put(&schema, text);
  }
  put(&schema, "},\"required\":[");
  for (int i = 0; i < FIELDS; i += every) {
    snprintf(text, sizeof text, "%s\"f%03d\"", i ? "," : "", i);
    put(&schema, text);
  }
  put(&schema, "],\"additionalProperties\":false}");
  shorn_schema *s;
  shorn_error e;
  CHECK(shorn_schema_compile((const char *)schema.data, schema.length, NULL, &s, &e) == SHORN_OK);
  for (int kind = 0; kind < 4; kind++)
    for (int reversed = 0; reversed < 2; reversed++) {
      shorn_buffer row = {0}, pass = {0}, tree = {0};
      bool first = true;
      put(&row, "{");
      for (int k = 0; k < FIELDS; k++) {
        int i = reversed ? FIELDS - 1 - k : k;
        bool required = i % every == 0;
        if ((kind > 0 && !required) || (kind == 2 && i == 69) || (kind == 3 && i == 135)) continue;
        snprintf(text, sizeof text, "%s\"f%03d\":%d", first ? "" : ",", i, i);
        put(&row, text);
        first = false;
      }
      put(&row, "}");
      bool took = encode_by_one_pass(s, (const char *)row.data, row.length, &pass, true);
      shorn_code rc = encode_by_tree(s, (const char *)row.data, row.length, &tree, &e, true);
      CHECK(took == (kind < 2));
      CHECK(rc == (kind < 2 ? SHORN_OK : SHORN_ERROR_ENCODE));
      CHECK(!took || (pass.length == tree.length && memcmp(pass.data, tree.data, pass.length) == 0));
      shorn_buffer_free(&row);
      shorn_buffer_free(&pass);
      shorn_buffer_free(&tree);
    }
  shorn_schema_free(s);
  shorn_buffer_free(&schema);
}

int main(void) {
  compare_many_fields(3);
  compare_many_fields(1);
  char *schemas = file_text("tests/vectors/schemas.jsonl"), *rows = file_text("tests/vectors/encode.jsonl");
  arena a = {0};
  /* Each schema compiled once, found by its id. */
  enum { MAX_SCHEMAS = 4096 };
  static const json_value *ids[MAX_SCHEMAS];
  static shorn_schema *compiled[MAX_SCHEMAS];
  size_t count = 0;
  for (char *line = strtok(schemas, "\n"); line && count < MAX_SCHEMAS; line = strtok(NULL, "\n")) {
    json_value *row;
    shorn_error e;
    if (json_parse(&a, line, strlen(line), &row, &e)) continue;
    const json_value *schema = json_get(row, "schema", 6);
    if (!schema || !member_string(row, "id")) continue;
    shorn_buffer text = {0};
    style plain = {AS_READ, false, false, false};
    write_value(&text, schema, &plain, true);
    if (shorn_schema_compile((const char *)text.data, text.length, NULL, &compiled[count], &e) == SHORN_OK)
      ids[count++] = member_string(row, "id");
    shorn_buffer_free(&text);
  }
  unsigned seed = 1;
  for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n")) {
    json_value *row;
    shorn_error e;
    if (json_parse(&a, line, strlen(line), &row, &e)) continue;
    const json_value *schema_id = member_string(row, "schema_id"), *json = member_string(row, "json");
    if (!schema_id || !json) continue;
    for (size_t i = 0; i < count; i++)
      if (same_string(ids[i], schema_id)) {
        compare_variants(compiled[i], json->u.string, json->length, line, seed++);
        break;
      }
  }
  printf("encoder: the one pass took %d texts of the %d the tree took\n", taken, tree_took);
  /* Most of what the tree takes is the pass's: not the comparison of two
   * refusals. */
  CHECK(tree_took > 0 && taken >= tree_took * 3 / 4);
  for (size_t i = 0; i < count; i++) shorn_schema_free(compiled[i]);
  arena_free(&a);
  free(schemas);
  free(rows);
  return check_report("encoder");
}
