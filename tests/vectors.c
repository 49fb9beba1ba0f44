#define _POSIX_C_SOURCE 200809L
/*
 * vectors.c — every golden vector of the published library, run through the
 * SQL functions of the extension (linked in with SQLITE_CORE).
 *
 *   vectors DIR    reads DIR/schemas.jsonl, encode.jsonl, decode.jsonl and
 *                  seed-examples.jsonl; prints counts; exits 1 on a failure
 *
 * Decoded JSON is compared structurally (member order aside, numbers as
 * doubles with the sign of zero), and must also be canonical: keys in UTF-16
 * order.  A decoded value must encode back to the bytes it came from.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "internal.h"
#include "sqlite_shorn.h"

static sqlite3 *db;
static int failures_shown;

typedef struct tally {
  const char *name;
  int passed, failed;
} tally;

#define MAX_TALLIES 128
static tally tallies[MAX_TALLIES];
static int tally_count;

static tally *tally_for(const char *file, const char *category) {
  char name[128];
  snprintf(name, sizeof name, "%s/%s", file, category);
  for (int i = 0; i < tally_count; i++)
    if (strcmp(tallies[i].name, name) == 0) return &tallies[i];
  if (tally_count == MAX_TALLIES) {
    fprintf(stderr, "too many categories\n");
    exit(2);
  }
  tallies[tally_count].name = strdup(name);
  return &tallies[tally_count++];
}

static void verdict(tally *t, bool ok, const char *id, const char *fmt, ...) {
  if (ok) {
    t->passed++;
    return;
  }
  t->failed++;
  if (failures_shown++ < 40) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s (%s): ", id, t->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
  }
}

/* ---- JSON helpers ------------------------------------------------------- */

static const json_value *member(const json_value *o, const char *key) {
  return json_get(o, key, strlen(key));
}

static const char *string_member(arena *a, const json_value *o, const char *key) {
  const json_value *v = member(o, key);
  if (!v || v->type != JSON_STRING) return NULL;
  return arena_strdup(a, v->u.string, v->length);
}

/* The schema back as JSON text; -0 stays -0, since the schema means it. */
static void serialize(shorn_buffer *b, const json_value *v) {
  char n[NUMBER_TEXT_MAX];
  switch (v->type) {
    case JSON_NULL: buffer_append(b, "null", 4); break;
    case JSON_TRUE: buffer_append(b, "true", 4); break;
    case JSON_FALSE: buffer_append(b, "false", 5); break;
    case JSON_NUMBER:
      if (v->u.number == 0 && signbit(v->u.number))
        buffer_append(b, "-0", 2);
      else
        buffer_append(b, n, number_format(v->u.number, n));
      break;
    case JSON_STRING: buffer_json_string(b, v->u.string, v->length); break;
    case JSON_ARRAY:
      buffer_byte(b, '[');
      for (uint32_t i = 0; i < v->length; i++) {
        if (i) buffer_byte(b, ',');
        serialize(b, &v->u.items[i]);
      }
      buffer_byte(b, ']');
      break;
    case JSON_OBJECT:
      buffer_byte(b, '{');
      for (uint32_t i = 0; i < v->length; i++) {
        if (i) buffer_byte(b, ',');
        serialize(b, &v->u.items[2 * i]);
        buffer_byte(b, ':');
        serialize(b, &v->u.items[2 * i + 1]);
      }
      buffer_byte(b, '}');
      break;
  }
}

static char *schema_text(const json_value *schema) {
  shorn_buffer b = {0};
  serialize(&b, schema);
  buffer_byte(&b, 0);
  char *text = strdup((const char *)b.data);
  shorn_buffer_free(&b);
  return text;
}

/* Structural equality; numbers as doubles, telling -0 from 0. */
static bool same_json(const json_value *a, const json_value *b) {
  if (a->type != b->type) return false;
  switch (a->type) {
    case JSON_NUMBER:
      return a->u.number == b->u.number && signbit(a->u.number) == signbit(b->u.number);
    case JSON_STRING:
      return a->length == b->length && memcmp(a->u.string, b->u.string, a->length) == 0;
    case JSON_ARRAY:
      if (a->length != b->length) return false;
      for (uint32_t i = 0; i < a->length; i++)
        if (!same_json(&a->u.items[i], &b->u.items[i])) return false;
      return true;
    case JSON_OBJECT:
      if (a->length != b->length) return false;
      for (uint32_t i = 0; i < a->length; i++) {
        const json_value *k = &a->u.items[2 * i];
        const json_value *other = json_get(b, k->u.string, k->length);
        if (!other || !same_json(&a->u.items[2 * i + 1], other)) return false;
      }
      return true;
    default: return true;
  }
}

/* Every object lists its keys in strictly ascending UTF-16 order. */
static bool canonical(const json_value *v) {
  if (v->type == JSON_ARRAY) {
    for (uint32_t i = 0; i < v->length; i++)
      if (!canonical(&v->u.items[i])) return false;
  } else if (v->type == JSON_OBJECT) {
    for (uint32_t i = 0; i < v->length; i++) {
      const json_value *k = &v->u.items[2 * i];
      if (i && utf16_compare(k[-2].u.string, k[-2].length, k->u.string, k->length) >= 0) return false;
      if (!canonical(k + 1)) return false;
    }
  }
  return true;
}

/* The vectors spell what JSON cannot as NaN and Infinity; the extension
 * prints them as SQLite does: null and 9e999. */
static char *sqlite_spelling(const char *json) {
  size_t n = strlen(json);
  char *out = malloc(2 * n + 1), *o = out;
  bool in_string = false;
  for (size_t i = 0; i < n; i++) {
    char c = json[i];
    if (in_string) {
      *o++ = c;
      if (c == '\\') *o++ = json[++i];
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
      *o++ = c;
    } else if (strncmp(json + i, "NaN", 3) == 0) {
      memcpy(o, "null", 4), o += 4, i += 2;
    } else if (strncmp(json + i, "Infinity", 8) == 0) {
      memcpy(o, "9e999", 5), o += 5, i += 7;
    } else {
      *o++ = c;
    }
  }
  *o = 0;
  return out;
}

static bool hex_decode(const char *hex, unsigned char **out, size_t *n) {
  size_t len = strlen(hex);
  if (len % 2) return false;
  *out = malloc(len / 2 + 1);
  for (size_t i = 0; i < len / 2; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) return false;
    (*out)[i] = (unsigned char)v;
  }
  *n = len / 2;
  return true;
}

static char *hex_encode(const unsigned char *p, size_t n) {
  char *s = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) sprintf(s + 2 * i, "%02x", p[i]);
  s[2 * n] = 0;
  return s;
}

/* ---- SQL ------------------------------------------------------------------ */

typedef struct sql_result {
  bool ok;
  char *text; /* the value (hex for a BLOB), or the error message */
} sql_result;

static sqlite3_stmt *prepare(const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "prepare %s: %s\n", sql, sqlite3_errmsg(db));
    exit(2);
  }
  return st;
}

/* Run a one-column statement whose parameters are already bound. */
static sql_result run(sqlite3_stmt *st, int column) {
  sql_result r = {false, NULL};
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    r.ok = true;
    if (sqlite3_column_type(st, column) == SQLITE_BLOB)
      r.text = hex_encode(sqlite3_column_blob(st, column), (size_t)sqlite3_column_bytes(st, column));
    else
      r.text = strdup(sqlite3_column_type(st, column) == SQLITE_NULL ? "(null)"
                                                                     : (const char *)sqlite3_column_text(st, column));
  } else {
    r.text = strdup(sqlite3_errmsg(db));
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return r;
}

static sqlite3_stmt *encode_sql, *decode_sql, *signature_sql, *fingerprint_sql;

static sql_result sql_encode(const char *json, const char *schema) {
  sqlite3_bind_text(encode_sql, 1, json, -1, SQLITE_STATIC);
  sqlite3_bind_text(encode_sql, 2, schema, -1, SQLITE_STATIC);
  return run(encode_sql, 0);
}

static sql_result sql_decode(const unsigned char *bytes, size_t n, const char *schema) {
  sqlite3_bind_blob(decode_sql, 1, n ? bytes : (const void *)"", (int)n, SQLITE_STATIC);
  sqlite3_bind_text(decode_sql, 2, schema, -1, SQLITE_STATIC);
  return run(decode_sql, 0);
}

static bool has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* ---- the checks ----------------------------------------------------------- */

typedef struct schema_row {
  char *id, *text;
} schema_row;

static schema_row *schemas;
static size_t schema_count, schema_capacity;

static const char *schema_by_id(const char *id) {
  for (size_t i = 0; i < schema_count; i++)
    if (strcmp(schemas[i].id, id) == 0) return schemas[i].text;
  return NULL;
}

static void check_compile(tally *t, const char *id, const char *schema, const char *signature,
                          const json_value *fp) {
  sqlite3_bind_text(signature_sql, 1, schema, -1, SQLITE_STATIC);
  sql_result r = run(signature_sql, 0);
  if (!signature) {
    verdict(t, !r.ok && has_prefix(r.text, "shorn_signature: "), id, "compiled; want a refusal, got %s", r.text);
    free(r.text);
    return;
  }
  bool ok = r.ok && strcmp(r.text, signature) == 0;
  verdict(t, ok, id, "signature %s, want %s", r.text, signature);
  free(r.text);
  for (int w = 1; ok && fp && w <= 4; w++) {
    char key[2] = {(char)('0' + w), 0};
    const json_value *want = member(fp, key);
    sqlite3_bind_text(fingerprint_sql, 1, schema, -1, SQLITE_STATIC);
    sqlite3_bind_int(fingerprint_sql, 2, w);
    sql_result f = run(fingerprint_sql, 0);
    bool same = f.ok && want && strlen(f.text) == want->length && memcmp(f.text, want->u.string, want->length) == 0;
    verdict(t, same, id, "fingerprint %d: %s", w, f.text);
    free(f.text);
  }
}

/* Decode `hex`; compare with `want` (NULL: expect a refusal).  On success the
 * output must be canonical and encode back to the same bytes. */
static void check_decode(tally *t, const char *id, const char *schema, const char *hex, const char *want,
                         bool exact_bits) {
  unsigned char *bytes = NULL;
  size_t n = 0;
  if (!hex_decode(hex, &bytes, &n)) {
    verdict(t, false, id, "bad hex in the vector");
    return;
  }
  sql_result r = sql_decode(bytes, n, schema);
  if (!want) {
    verdict(t, !r.ok && has_prefix(r.text, "shorn_decode: "), id, "decoded to %s; want a refusal", r.text);
  } else if (!r.ok) {
    verdict(t, false, id, "refused: %s; want %s", r.text, want);
  } else {
    arena a = {0};
    json_value *got, *expected;
    shorn_error e;
    char *spelled = sqlite_spelling(want);
    bool ok = json_parse(&a, r.text, strlen(r.text), &got, &e) == SHORN_OK &&
              json_parse(&a, spelled, strlen(spelled), &expected, &e) == SHORN_OK && same_json(got, expected);
    verdict(t, ok, id, "decoded %s, want %s", r.text, want);
    if (ok) verdict(t, canonical(got), id, "keys not in canonical order: %s", r.text);
    if (ok && exact_bits) {
      sql_result back = sql_encode(r.text, schema);
      verdict(t, back.ok && strcmp(back.text, hex) == 0, id, "re-encoded to %s, from %s", back.text, hex);
      free(back.text);
    }
    free(spelled);
    arena_free(&a);
  }
  free(r.text);
  free(bytes);
}

static void check_encode(tally *t, const char *id, const char *schema, const char *json, const char *hex) {
  sql_result r = sql_encode(json, schema);
  if (!hex)
    verdict(t, !r.ok && has_prefix(r.text, "shorn_encode: "), id, "encoded to %s; want a refusal", r.text);
  else
    verdict(t, r.ok && strcmp(r.text, hex) == 0, id, "encoded to %s, want %s", r.text, hex);
  free(r.text);
}

/* ---- the files ------------------------------------------------------------ */

typedef void (*row_handler)(const char *file, arena *a, const json_value *row);

static void each_row(const char *dir, const char *file, row_handler handle) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    arena a = {0};
    json_value *row;
    shorn_error e;
    if (json_parse(&a, line, (size_t)len, &row, &e) != SHORN_OK) {
      fprintf(stderr, "%s: unreadable line: %s\n", file, e.message);
      exit(2);
    }
    handle(file, &a, row);
    arena_free(&a);
  }
  free(line);
  fclose(f);
}

static void schema_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  char *text = schema_text(member(row, "schema"));
  tally *t = tally_for(file, string_member(a, row, "cat"));
  check_compile(t, id, text, string_member(a, row, "signature"), member(row, "fp"));
  if (schema_count == schema_capacity) {
    schema_capacity = schema_capacity ? 2 * schema_capacity : 1024;
    schemas = realloc(schemas, schema_capacity * sizeof *schemas);
  }
  schemas[schema_count++] = (schema_row){strdup(id), text};
}

static void encode_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  const char *schema = schema_by_id(string_member(a, row, "schema_id"));
  tally *t = tally_for(file, string_member(a, row, "cat"));
  check_encode(t, id, schema, string_member(a, row, "json"), string_member(a, row, "hex"));
}

static void decode_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  const char *schema = schema_by_id(string_member(a, row, "schema_id"));
  const char *exact = string_member(a, row, "json_exact");
  const char *want = exact ? exact : string_member(a, row, "json");
  tally *t = tally_for(file, string_member(a, row, "cat"));
  /* A NaN's payload bits cannot survive JSON, so those rows only decode. */
  bool exact_bits = !(exact && strstr(exact, "NaN"));
  check_decode(t, id, schema, string_member(a, row, "hex"), member(row, "error") ? NULL : want, exact_bits);
}

static void seed_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  const char *op = string_member(a, row, "op");
  char *schema = schema_text(member(row, "schema"));
  bool refused = member(row, "error") != NULL;
  const char *hex = refused ? NULL : string_member(a, row, "hex");
  tally *t = tally_for(file, op);
  if (strcmp(op, "compile") == 0) {
    check_compile(t, id, schema, string_member(a, row, "signature"), NULL);
  } else if (strcmp(op, "encode") == 0) {
    const char *json = string_member(a, row, "json");
    check_encode(t, id, schema, json, hex);
    if (hex) {
      const char *back = string_member(a, row, "decodes_to");
      check_decode(t, id, schema, hex, back ? back : json, true);
    }
  } else {
    check_decode(t, id, schema, string_member(a, row, "hex"), refused ? NULL : string_member(a, row, "json"), true);
  }
  free(schema);
}

/* ---- the registry --------------------------------------------------------- */

/* Every schema that compiles is registered under its id, but for those whose
 * wire shape is there already: some seven hundred names, which run the cache
 * through eviction many times over.  Then each value that encodes must read
 * back the same by name and by fingerprint as inline. */
static sqlite3_stmt *registry_sql;

static void register_schemas(void) {
  if (sqlite3_exec(db, "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry", NULL, NULL, NULL)) {
    fprintf(stderr, "registry: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  sqlite3_stmt *insert = prepare("INSERT OR IGNORE INTO shorn_schemas(name, schema) VALUES (?1, ?2)");
  tally *t = tally_for("registry", "register");
  for (size_t i = 0; i < schema_count; i++) {
    sqlite3_bind_text(insert, 1, schemas[i].id, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, schemas[i].text, -1, SQLITE_STATIC);
    bool done = sqlite3_step(insert) == SQLITE_DONE;
    verdict(t, done || strstr(sqlite3_errmsg(db), "does not compile: "), schemas[i].id, "%s", sqlite3_errmsg(db));
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  registry_sql = prepare("SELECT shorn_decode(shorn_encode(?1, s.name, 4)) IS shorn_decode(shorn_encode(?1, ?2), ?2)"
                         " FROM shorn_schemas AS s WHERE s.fingerprint = shorn_fingerprint(?2, 4)");
}

static void registry_row_handler(const char *file, arena *a, const json_value *row) {
  (void)file;
  if (!member(row, "hex")) return;
  const char *id = string_member(a, row, "id");
  sqlite3_bind_text(registry_sql, 1, string_member(a, row, "json"), -1, SQLITE_STATIC);
  sqlite3_bind_text(registry_sql, 2, schema_by_id(string_member(a, row, "schema_id")), -1, SQLITE_STATIC);
  sql_result r = run(registry_sql, 0);
  verdict(tally_for("registry", "by name and fingerprint"), r.ok && strcmp(r.text, "1") == 0, id, "%s", r.text);
  free(r.text);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECTOR_DIR\n", argv[0]);
    return 2;
  }
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_shorn_init(db, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "cannot open a database with the extension\n");
    return 2;
  }
  encode_sql = prepare("SELECT shorn_encode(?1, ?2)");
  decode_sql = prepare("SELECT shorn_decode(?1, ?2)");
  signature_sql = prepare("SELECT shorn_signature(?1)");
  fingerprint_sql = prepare("SELECT shorn_fingerprint(?1, ?2)");

  each_row(argv[1], "schemas.jsonl", schema_row_handler);
  each_row(argv[1], "encode.jsonl", encode_row_handler);
  each_row(argv[1], "decode.jsonl", decode_row_handler);
  each_row(argv[1], "seed-examples.jsonl", seed_row_handler);
  register_schemas();
  each_row(argv[1], "encode.jsonl", registry_row_handler);

  int passed = 0, failed = 0;
  for (int i = 0; i < tally_count; i++) {
    printf("  %-40s %6d passed %6d failed\n", tallies[i].name, tallies[i].passed, tallies[i].failed);
    passed += tallies[i].passed;
    failed += tallies[i].failed;
  }
  printf("vectors: %d checks passed, %d failed\n", passed, failed);

  sqlite3_finalize(encode_sql);
  sqlite3_finalize(decode_sql);
  sqlite3_finalize(signature_sql);
  sqlite3_finalize(fingerprint_sql);
  sqlite3_finalize(registry_sql);
  sqlite3_close(db);
  for (size_t i = 0; i < schema_count; i++) free(schemas[i].id), free(schemas[i].text);
  free(schemas);
  for (int i = 0; i < tally_count; i++) free((char *)tallies[i].name);
  return failed ? 1 : 0;
}
