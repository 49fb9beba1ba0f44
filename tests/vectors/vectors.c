#define _POSIX_C_SOURCE 200809L
/*
 * vectors.c — every golden vector of the published library, run through the
 * SQL functions of the extension (linked in with SQLITE_CORE).
 *
 *   vectors DIR    reads DIR/schemas.jsonl, encode.jsonl, decode.jsonl,
 *                  seed-examples.jsonl and datetime-0.4.0.jsonl; prints
 *                  counts; exits 1 on a failure
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

#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/numbers/number.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "shorn_sqlite.h"
#include "../support/canonical.h"

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

/* The schema back as JSON text; -0 stays -0, since the schema means it.
 * With `as_040`, every "format":"date-time" node also gets "x-shorn":"string",
 * which keeps the library 0.4.0's plain-string form. */
static void serialize(shorn_buffer *b, const json_value *v, bool as_040) {
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
        serialize(b, &v->u.items[i], as_040);
      }
      buffer_byte(b, ']');
      break;
    case JSON_OBJECT:
      buffer_byte(b, '{');
      for (uint32_t i = 0; i < v->length; i++) {
        if (i) buffer_byte(b, ',');
        serialize(b, &v->u.items[2 * i], as_040);
        buffer_byte(b, ':');
        serialize(b, &v->u.items[2 * i + 1], as_040);
      }
      const json_value *format = json_get(v, "format", 6);
      if (as_040 && format && format->type == JSON_STRING && format->length == 9 &&
          memcmp(format->u.string, "date-time", 9) == 0)
        buffer_append(b, ",\"x-shorn\":\"string\"", 19);
      buffer_byte(b, '}');
      break;
  }
}

static char *schema_text(const json_value *schema, bool as_040) {
  shorn_buffer b = {0};
  serialize(&b, schema, as_040);
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

static sqlite3_stmt *encode_sql, *unchecked_sql, *decode_sql, *signature_sql, *fingerprint_sql, *checks_sql;

static sql_result sql_encode_with(sqlite3_stmt *st, const char *json, const char *schema) {
  sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
  return run(st, 0);
}


static sql_result sql_decode(const unsigned char *bytes, size_t n, const char *schema) {
  sqlite3_bind_blob(decode_sql, 1, n ? bytes : (const void *)"", (int)n, SQLITE_STATIC);
  sqlite3_bind_text(decode_sql, 2, schema, -1, SQLITE_STATIC);
  return run(decode_sql, 0);
}

static bool has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* A refusal by `function` whose message is strict UTF-8: a value, key or
 * path quoted in it must be escaped and cut at a character boundary. */
static bool refused_by(const sql_result *r, const char *function) {
  size_t n = strlen(r->text);
  return !r->ok && has_prefix(r->text, function) && utf8_valid((const uint8_t *)r->text, n, n);
}

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

static void keep_schema(const char *id, char *text) {
  if (schema_count == schema_capacity) {
    schema_capacity = schema_capacity ? 2 * schema_capacity : 1024;
    schemas = realloc(schemas, schema_capacity * sizeof *schemas);
  }
  schemas[schema_count++] = (schema_row){strdup(id), text};
}

static void check_compile(tally *t, const char *id, const char *schema, const char *signature,
                          const json_value *fp) {
  sqlite3_bind_text(signature_sql, 1, schema, -1, SQLITE_STATIC);
  sql_result r = run(signature_sql, 0);
  if (!signature) {
    verdict(t, refused_by(&r, "shorn_signature: "), id, "compiled; want a refusal in UTF-8, got %s", r.text);
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

/* What shorn_check_payload says of a payload that decodes is what
 * shorn_check says of the value it decodes to. */
static void check_payload_keywords(tally *t, const char *id, const char *schema, const unsigned char *bytes, size_t n,
                                   const char *decoded) {
  sqlite3_bind_blob(checks_sql, 1, n ? bytes : (const void *)"", (int)n, SQLITE_STATIC);
  sqlite3_bind_text(checks_sql, 2, schema, -1, SQLITE_STATIC);
  sqlite3_bind_text(checks_sql, 3, decoded, -1, SQLITE_STATIC);
  sql_result r = run(checks_sql, 0);
  verdict(t, r.ok && strcmp(r.text, "1") == 0, id, "shorn_check_payload and shorn_check of %s differ", decoded);
  free(r.text);
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
    verdict(t, refused_by(&r, "shorn_decode: "), id, "decoded to %s; want a refusal in UTF-8", r.text);
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
    if (ok) verdict(t, json_canonical(got), id, "keys not in canonical order: %s", r.text);
    /* The bytes back are the structure's business: a payload need not
     * satisfy its schema's validation keywords to be read. */
    if (ok && exact_bits) {
      sql_result back = sql_encode_with(unchecked_sql, r.text, schema);
      verdict(t, back.ok && strcmp(back.text, hex) == 0, id, "re-encoded to %s, from %s", back.text, hex);
      free(back.text);
    }
    if (ok) check_payload_keywords(tally_for("keywords", "shorn_check_payload"), id, schema, bytes, n, r.text);
    free(spelled);
    arena_free(&a);
  }
  free(r.text);
  free(bytes);
}

/* Encode `json`, checked or (the library's structural layer) unchecked;
 * compare with `hex` (NULL: expect a refusal). */
static void check_encode(tally *t, const char *id, const char *schema, const char *json, const char *hex,
                         bool checked) {
  sql_result r = sql_encode_with(checked ? encode_sql : unchecked_sql, json, schema);
  /* Text past the double range under a number shape: the library's
   * validated codec writes it as Infinity, shorn_encode refuses it as
   * z.number() does, and the structure alone writes the vector's bytes. */
  bool infinite = checked && hex && !r.ok && strcmp(r.text, "shorn_encode: Expected a finite number at $") == 0;
  if (!hex)
    verdict(t, refused_by(&r, "shorn_encode: "), id, "encoded to %s; want a refusal in UTF-8", r.text);
  else if (!infinite)
    verdict(t, r.ok && strcmp(r.text, hex) == 0, id, "encoded to %s, want %s", r.text, hex);
  free(r.text);
  if (infinite) check_encode(t, id, schema, json, hex, false);
}

/* ---- the files ------------------------------------------------------------ */

typedef void (*row_handler)(const char *file, arena *a, const json_value *row);

/* One line of f into *line, grown as it needs: its length, or -1 at the
 * end.  Not getline, which MinGW's C library lacks. */
static long read_line(FILE *f, char **line, size_t *cap) {
  size_t n = 0;
  for (;;) {
    if (*cap - n < 2) {
      size_t grown = *cap ? *cap * 2 : 4096;
      char *p = realloc(*line, grown);
      if (!p) {
        perror("read_line");
        exit(2);
      }
      *line = p;
      *cap = grown;
    }
    if (!fgets(*line + n, (int)(*cap - n), f)) return n ? (long)n : -1;
    n += strlen(*line + n);
    if (n && (*line)[n - 1] == '\n') return (long)n;
  }
}

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
  long len;
  while ((len = read_line(f, &line, &cap)) > 0) {
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
  char *text = schema_text(member(row, "schema"), false);
  tally *t = tally_for(file, string_member(a, row, "cat"));
  check_compile(t, id, text, string_member(a, row, "signature"), member(row, "fp"));
  keep_schema(id, text);
}

static void encode_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  const char *schema = schema_by_id(string_member(a, row, "schema_id"));
  tally *t = tally_for(file, string_member(a, row, "cat"));
  check_encode(t, id, schema, string_member(a, row, "json"), string_member(a, row, "hex"), true);
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
  char *schema = schema_text(member(row, "schema"), false);
  bool refused = member(row, "error") != NULL;
  const char *hex = refused ? NULL : string_member(a, row, "hex");
  tally *t = tally_for(file, op);
  if (strcmp(op, "compile") == 0) {
    check_compile(t, id, schema, string_member(a, row, "signature"), NULL);
  } else if (strcmp(op, "encode") == 0) {
    const char *json = string_member(a, row, "json");
    check_encode(t, id, schema, json, hex, true);
    if (hex) {
      const char *back = string_member(a, row, "decodes_to");
      check_decode(t, id, schema, hex, back ? back : json, true);
    }
  } else {
    check_decode(t, id, schema, string_member(a, row, "hex"), refused ? NULL : string_member(a, row, "json"), true);
  }
  free(schema);
}

/* The library 0.4.0's date-times, kept as its plain strings: its signature,
 * fingerprints and bytes, and the bytes back to the value.  Its structural
 * layer wrote them, and some spellings (no milliseconds under Zod's
 * precision 3) are ones its validated codec, like shorn_encode, refuses. */
static void datetime_row_handler(const char *file, arena *a, const json_value *row) {
  const char *id = string_member(a, row, "id");
  if (strcmp(string_member(a, row, "kind"), "schema") == 0) {
    char *text = schema_text(member(row, "schema"), true);
    check_compile(tally_for(file, "schema"), id, text, string_member(a, row, "signature"),
                  member(row, "fp"));
    keep_schema(id, text);
  } else {
    const char *schema = schema_by_id(string_member(a, row, "schema_id"));
    const char *json = string_member(a, row, "json"), *hex = string_member(a, row, "hex");
    check_encode(tally_for(file, "encode"), id, schema, json, hex, false);
    check_decode(tally_for(file, "decode"), id, schema, hex, json, true);
  }
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
  /* Unchecked: the schema registered for a wire shape may carry other
   * validation keywords than the row's, which the fingerprint leaves out. */
  registry_sql = prepare("SELECT shorn_decode(shorn_encode_unchecked(?1, s.name, 4)) IS "
                         "shorn_decode(shorn_encode_unchecked(?1, ?2), ?2)"
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

/* ---- queries ------------------------------------------------------------ */

/* For every value that decodes and every path into it (each member and
 * element, recursively; [#-1] of each array; a few that name nothing),
 * shorn_extract and shorn_type must answer as json_extract and json_type
 * over shorn_decode's text, values and SQL types alike, and shorn_each and
 * shorn_tree row for row as json_each and json_tree.  Their id and parent
 * count from the node the path names (README, "Querying payloads"), so
 * they must be json_each's less one constant, the same for every row (the
 * same tree), and json_each's own at `$`.  Each function must also take the
 * payload behind a fingerprint.  For every payload shorn_decode refuses,
 * shorn_valid and shorn_error must say what it said, and the readers must
 * do as check_refused says. */
static sqlite3_stmt *answer_sql, *rows_sql[2], *json_rows_sql[2], *fingerprinted_sql, *verdict_sql;
static sqlite3_stmt *refused_sql[4];

static void prepare_queries(void) {
  answer_sql = prepare("SELECT shorn_extract(?1, ?2, ?3), json_extract(?4, ?3),"
                       " json_quote(shorn_extract(?1, ?2, ?3)) IS json_quote(json_extract(?4, ?3)),"
                       " shorn_type(?1, ?2, ?3), json_type(?4, ?3)");
  const char *columns = "SELECT key, value, type, atom, fullkey, path, json_quote(value), id, parent";
  for (int tree = 0; tree < 2; tree++) {
    char sql[256];
    snprintf(sql, sizeof sql, "%s FROM %s(?1, ?2, ?3)", columns, tree ? "shorn_tree" : "shorn_each");
    rows_sql[tree] = prepare(sql);
    snprintf(sql, sizeof sql, "%s FROM %s(?4, ?3)", columns, tree ? "json_tree" : "json_each");
    json_rows_sql[tree] = prepare(sql);
  }
  /* ?1 the payload behind a 3-byte fingerprint, ?4 bare. */
  fingerprinted_sql = prepare(
      "SELECT shorn_extract(?1, ?2, 3, '$') IS shorn_extract(?4, ?2, '$')"
      " AND shorn_extract(?1, ?2, 3, '$', '$[0]') IS shorn_extract(?4, ?2, '$', '$[0]')"
      " AND shorn_type(?1, ?2, 3) IS shorn_type(?4, ?2) AND shorn_type(?1, ?2, 3, '$') IS shorn_type(?4, ?2)"
      " AND shorn_valid(?1, ?2, 3) AND shorn_error(?1, ?2, 3) IS NULL"
      " AND (SELECT group_concat(fullkey || type) FROM shorn_tree(?1, ?2, 3))"
      "  IS (SELECT group_concat(fullkey || type) FROM shorn_tree(?4, ?2))"
      " AND (SELECT count(*) FROM shorn_each(?1, ?2, 3, '$')) = (SELECT count(*) FROM shorn_each(?4, ?2))");
  verdict_sql = prepare("SELECT shorn_valid(?1, ?2), shorn_error(?1, ?2)");
  refused_sql[0] = prepare("SELECT shorn_extract(?1, ?2, ?3)");
  refused_sql[1] = prepare("SELECT shorn_type(?1, ?2, ?3)");
  refused_sql[2] = prepare("SELECT count(*) FROM shorn_each(?1, ?2, ?3)");
  refused_sql[3] = prepare("SELECT count(*) FROM shorn_tree(?1, ?2, ?3)");
}

static void finalize_queries(void) {
  sqlite3_stmt *all[] = {answer_sql, rows_sql[0], rows_sql[1], json_rows_sql[0], json_rows_sql[1],
                         fingerprinted_sql, verdict_sql, refused_sql[0], refused_sql[1], refused_sql[2],
                         refused_sql[3]};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) sqlite3_finalize(all[i]);
}

/* SQLite reads a JSON number's text into a correctly rounded double only
 * from 3.43; 3.40's json_extract can be one unit in the last place off,
 * depending on how it was built (check-platforms' builds of 3.40.0 are,
 * on every platform; Debian's 3.40.1 on x86-64 is not, on the vectors).  The payload's doubles are checked bit for bit
 * against the library's by the decode vectors, so here a double may be one
 * unit from json_*'s. */

static bool same_double(double x, double y) {
  if (memcmp(&x, &y, sizeof x) == 0) return true;
  return nextafter(x, INFINITY) == y || nextafter(x, -INFINITY) == y;
}

/* Same SQL type, same value: integers and doubles bit for bit (but for
 * SQLite's rounding, above), text and blobs byte for byte. */
static bool same_column(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j) {
  int type = sqlite3_column_type(a, i);
  if (type != sqlite3_column_type(b, j)) return false;
  if (type == SQLITE_INTEGER) return sqlite3_column_int64(a, i) == sqlite3_column_int64(b, j);
  if (type == SQLITE_FLOAT) {
    return same_double(sqlite3_column_double(a, i), sqlite3_column_double(b, j));
  }
  if (type == SQLITE_NULL) return true;
  const void *x = sqlite3_column_blob(a, i), *y = sqlite3_column_blob(b, j);
  int n = sqlite3_column_bytes(a, i);
  return n == sqlite3_column_bytes(b, j) && (!n || memcmp(x, y, (size_t)n) == 0);
}

/* Two doubles same_double takes, whose JSON text (json_quote's 15 digits)
 * may then differ in its last digit. */
static bool reals_alike(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j) {
  return sqlite3_column_type(a, i) == SQLITE_FLOAT && sqlite3_column_type(b, j) == SQLITE_FLOAT &&
         same_double(sqlite3_column_double(a, i), sqlite3_column_double(b, j));
}

static const char *column_text(sqlite3_stmt *st, int i) {
  const char *text = (const char *)sqlite3_column_text(st, i);
  return text ? text : "NULL";
}

typedef struct query_case {
  const char *id;
  const unsigned char *payload;
  size_t length;
  const char *schema;
  const char *decoded;
} query_case;

static void bind_case(sqlite3_stmt *st, const query_case *c, const char *path) {
  sqlite3_bind_blob(st, 1, c->length ? c->payload : (const void *)"", (int)c->length, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, c->schema, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, path, -1, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count(st) >= 4) sqlite3_bind_text(st, 4, c->decoded, -1, SQLITE_STATIC);
}

static void done_with(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

static void check_answer(const query_case *c, const char *path) {
  bind_case(answer_sql, c, path);
  tally *t = tally_for("queries", "shorn_extract, shorn_type");
  if (sqlite3_step(answer_sql) != SQLITE_ROW) {
    verdict(t, false, c->id, "%s: %s", path, sqlite3_errmsg(db));
  } else {
    bool ok = same_column(answer_sql, 0, answer_sql, 1) &&
              (sqlite3_column_int(answer_sql, 2) == 1 || reals_alike(answer_sql, 0, answer_sql, 1)) &&
              same_column(answer_sql, 3, answer_sql, 4);
    verdict(t, ok, c->id, "%s: extract %s (type %d), json_extract %s (type %d); type %s, json_type %s", path,
            column_text(answer_sql, 0), sqlite3_column_type(answer_sql, 0), column_text(answer_sql, 1),
            sqlite3_column_type(answer_sql, 1), column_text(answer_sql, 3), column_text(answer_sql, 4));
  }
  done_with(answer_sql);
}

/* Row for row; id and parent as the comment above says. */
static void check_rows(const query_case *c, const char *path, int tree) {
  sqlite3_stmt *ours = rows_sql[tree], *theirs = json_rows_sql[tree];
  bind_case(ours, c, path);
  bind_case(theirs, c, path);
  tally *t = tally_for("queries", tree ? "shorn_tree" : "shorn_each");
  bool ok = true, have_shift = false;
  sqlite3_int64 shift = 0;
  int rows = 0;
  for (;; rows++) {
    int a = sqlite3_step(ours), b = sqlite3_step(theirs);
    if (a != b || a != SQLITE_ROW) {
      if (a != b || a != SQLITE_DONE) ok = false;
      if (!ok) verdict(t, false, c->id, "%s row %d: steps %d and %d: %s", path, rows, a, b, sqlite3_errmsg(db));
      break;
    }
    for (int i = 0; ok && i < 7; i++)
      if (!same_column(ours, i, theirs, i) && !(i == 6 && reals_alike(ours, 1, theirs, 1))) {
        ok = false;
        verdict(t, false, c->id, "%s row %d column %d: %s, json_* %s", path, rows, i, column_text(ours, i),
                column_text(theirs, i));
      }
    if (!ok) break;
    sqlite3_int64 d = sqlite3_column_int64(theirs, 7) - sqlite3_column_int64(ours, 7);
    if (!have_shift) shift = d, have_shift = true;
    bool parents = sqlite3_column_type(ours, 8) == sqlite3_column_type(theirs, 8) &&
                   sqlite3_column_int64(theirs, 8) - sqlite3_column_int64(ours, 8) == (sqlite3_column_type(ours, 8) == SQLITE_NULL ? 0 : shift);
    if (d != shift || !parents || (strcmp(path, "$") == 0 && shift != 0)) {
      ok = false;
      verdict(t, false, c->id, "%s row %d: id %s parent %s, json_* id %s parent %s", path, rows,
              column_text(ours, 7), column_text(ours, 8), column_text(theirs, 7), column_text(theirs, 8));
      break;
    }
  }
  if (ok) verdict(t, true, c->id, "");
  done_with(ours);
  done_with(theirs);
}

static void check_path(const query_case *c, const char *path) {
  check_answer(c, path);
  check_rows(c, path, 0);
  check_rows(c, path, 1);
}

/* A member's step as SQLite spells it: bare, or in quotes when the name (as
 * the JSON text writes it) holds '.' or '['; a name that also holds a quote
 * has no spelling in SQLite 3.40's paths (false). */
static bool append_step(shorn_buffer *b, const char *name, size_t n, bool quoted) {
  bool needs_quotes = quoted || !n || memchr(name, '.', n) || memchr(name, '[', n);
  if (needs_quotes && memchr(name, '"', n)) return false;
  buffer_byte(b, '.');
  if (needs_quotes) buffer_byte(b, '"');
  buffer_append(b, name, n);
  if (needs_quotes) buffer_byte(b, '"');
  return true;
}

static void check_path_buffer(const query_case *c, shorn_buffer *path) {
  buffer_byte(path, 0);
  check_path(c, (const char *)path->data);
  path->length--;
}

static void check_paths_under(const query_case *c, const json_value *v, shorn_buffer *path) {
  size_t length = path->length;
  if (v->type == JSON_ARRAY) {
    for (uint32_t i = 0; i < v->length; i++) {
      char step[24];
      buffer_append(path, step, (size_t)snprintf(step, sizeof step, "[%u]", i));
      check_path_buffer(c, path);
      check_paths_under(c, &v->u.items[i], path);
      path->length = length;
    }
    buffer_append(path, "[#-1]", 5);
    check_path_buffer(c, path);
    path->length = length;
  } else if (v->type == JSON_OBJECT) {
    for (uint32_t i = 0; i < v->length; i++) {
      const json_value *key = &v->u.items[2 * i];
      shorn_buffer name = {0};
      buffer_json_string(&name, key->u.string, key->length);
      /* The bare spelling, and the quoted one too near the top. */
      for (int quoted = 0; quoted <= (length == 1); quoted++) {
        if (append_step(path, (const char *)name.data + 1, name.length - 2, quoted)) {
          check_path_buffer(c, path);
          if (!quoted) check_paths_under(c, &v->u.items[2 * i + 1], path);
        }
        path->length = length;
      }
      shorn_buffer_free(&name);
    }
  }
}

static void check_queries(const query_case *c) {
  arena a = {0};
  json_value *value;
  shorn_error e;
  if (json_parse(&a, c->decoded, strlen(c->decoded), &value, &e) != SHORN_OK) {
    verdict(tally_for("queries", "decoded"), false, c->id, "unreadable: %s", e.message);
    return;
  }
  shorn_buffer path = {0};
  buffer_byte(&path, '$');
  check_path_buffer(c, &path);
  check_paths_under(c, value, &path);
  /* Paths that name nothing: no such key or index, a step of the wrong kind. */
  const char *missing[] = {"$.\"no such key\"", "$[1000000]", "$[#]", "$[#-1000000]", "$[0].x", "$.x[0]"};
  for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) check_path(c, missing[i]);
  shorn_buffer_free(&path);
  arena_free(&a);

  /* The same payload behind its 3-byte fingerprint. */
  sqlite3_bind_text(fingerprint_sql, 1, c->schema, -1, SQLITE_STATIC);
  sqlite3_bind_int(fingerprint_sql, 2, 3);
  sql_result fp = run(fingerprint_sql, 0);
  unsigned char *prefix = NULL, *prefixed = NULL;
  size_t width = 0;
  if (fp.ok && hex_decode(fp.text, &prefix, &width)) {
    prefixed = malloc(width + c->length);
    memcpy(prefixed, prefix, width);
    if (c->length) memcpy(prefixed + width, c->payload, c->length);
    sqlite3_bind_blob(fingerprinted_sql, 1, prefixed, (int)(width + c->length), SQLITE_STATIC);
    sqlite3_bind_text(fingerprinted_sql, 2, c->schema, -1, SQLITE_STATIC);
    sqlite3_bind_blob(fingerprinted_sql, 4, c->length ? c->payload : (const void *)"", (int)c->length, SQLITE_STATIC);
    sql_result r = run(fingerprinted_sql, 0);
    verdict(tally_for("queries", "fingerprinted"), r.ok && strcmp(r.text, "1") == 0, c->id, "%s", r.text);
    free(r.text);
  } else {
    verdict(tally_for("queries", "fingerprinted"), false, c->id, "no fingerprint: %s", fp.text);
  }
  free(fp.text);
  free(prefix);
  free(prefixed);
}

/* shorn_valid and shorn_error against shorn_decode's verdict; `error` is
 * its message after "shorn_decode: ", or NULL when it decoded. */
static void check_verdict(const query_case *c, const char *error) {
  bind_case(verdict_sql, c, NULL);
  bool ok = sqlite3_step(verdict_sql) == SQLITE_ROW && sqlite3_column_int(verdict_sql, 0) == !error &&
            (error ? sqlite3_column_type(verdict_sql, 1) == SQLITE_TEXT && strcmp(column_text(verdict_sql, 1), error) == 0
                   : sqlite3_column_type(verdict_sql, 1) == SQLITE_NULL);
  verdict(tally_for("queries", "shorn_valid, shorn_error"), ok, c->id, "valid %s, error %s; shorn_decode: %s",
          column_text(verdict_sql, 0), column_text(verdict_sql, 1), error ? error : "decodes");
  done_with(verdict_sql);
}

/* Whether `message` is "<function>: <reason> at byte N". */
static bool decode_error_of(const char *message, const char *function) {
  size_t n = strlen(function);
  const char *at = strstr(message, " at byte ");
  return strncmp(message, function, n) == 0 && strncmp(message + n, ": ", 2) == 0 && at &&
         at[9] >= '0' && at[9] <= '9' && strspn(at + 9, "0123456789") == strlen(at + 9);
}

/* On a payload shorn_decode refuses, the functions that read it read what
 * their path needs (docs/querying.md).  At `$` that is the whole value, so
 * they fail with shorn_decode's error under their own name, but when the
 * error is in bytes after the value, which no path reaches: then they
 * answer.  Elsewhere they answer, or fail with a decode error of their own
 * name, according to what lies on the path. */
static void check_refused(const query_case *c, const char *error) {
  static const char *const names[] = {"shorn_extract", "shorn_type", "shorn_each", "shorn_tree"};
  static const char *const paths[] = {"$", "$[0]", "$.a"};
  bool trailing = has_prefix(error, "Unexpected trailing data at byte ");
  for (int f = 0; f < 4; f++)
    for (int p = 0; p < 3; p++) {
      bind_case(refused_sql[f], c, paths[p]);
      int rc = sqlite3_step(refused_sql[f]);
      const char *message = sqlite3_errmsg(db);
      size_t n = strlen(names[f]);
      bool ok;
      if (p == 0 && !trailing)
        ok = rc == SQLITE_ERROR && strncmp(message, names[f], n) == 0 && strncmp(message + n, ": ", 2) == 0 &&
             strcmp(message + n + 2, error) == 0;
      else if (p == 0)
        ok = rc == SQLITE_ROW;
      else
        ok = rc == SQLITE_ROW || rc == SQLITE_DONE || (rc == SQLITE_ERROR && decode_error_of(message, names[f]));
      verdict(tally_for("queries", "refused payloads"), ok, c->id, "%s at %s: %s; shorn_decode: %s", names[f],
              paths[p], rc == SQLITE_ERROR ? message : "answered", error);
      done_with(refused_sql[f]);
    }
}

static void query_case_check(const char *id, const char *schema, const char *hex) {
  query_case c = {id, NULL, 0, schema, NULL};
  unsigned char *bytes = NULL;
  if (!schema || !hex || !hex_decode(hex, &bytes, &c.length)) {
    free(bytes);
    return;
  }
  c.payload = bytes;
  sql_result r = sql_decode(bytes, c.length, schema);
  const char *prefix = "shorn_decode: ";
  if (r.ok) {
    c.decoded = r.text;
    check_verdict(&c, NULL);
    check_queries(&c);
  } else if (has_prefix(r.text, prefix)) {
    check_verdict(&c, r.text + strlen(prefix));
    check_refused(&c, r.text + strlen(prefix));
  }
  free(r.text);
  free(bytes);
}

static int queries_every = 1, queries_seen;

/* Any row with a payload: encode and decode vectors, 0.4.0's date-times, and
 * the seed examples (which carry their schema inline). */
static void query_row_handler(const char *file, arena *a, const json_value *row) {
  (void)file;
  if (queries_seen++ % queries_every) return;
  const char *id = string_member(a, row, "id");
  const char *schema_id = string_member(a, row, "schema_id");
  const char *op = string_member(a, row, "op");
  if (schema_id) {
    query_case_check(id, schema_by_id(schema_id), string_member(a, row, "hex"));
  } else if (op && strcmp(op, "compile") != 0) {
    char *schema = schema_text(member(row, "schema"), false);
    query_case_check(id, schema, string_member(a, row, "hex"));
    free(schema);
  }
}

int main(int argc, char **argv) {
  /* --queries-every N: the query checks on every Nth vector only (for a run
   * under valgrind, where every path of every vector would take an hour). */
  if (argc == 4 && strcmp(argv[1], "--queries-every") == 0 && atoi(argv[2]) > 0) {
    queries_every = atoi(argv[2]);
    argv += 2, argc -= 2;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: %s [--queries-every N] VECTOR_DIR\n", argv[0]);
    return 2;
  }
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_shorn_init(db, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "cannot open a database with the extension\n");
    return 2;
  }
  encode_sql = prepare("SELECT shorn_encode(?1, ?2)");
  unchecked_sql = prepare("SELECT shorn_encode_unchecked(?1, ?2)");
  checks_sql = prepare("SELECT shorn_check_payload(?1, ?2) IS shorn_check(?3, ?2)");
  decode_sql = prepare("SELECT shorn_decode(?1, ?2)");
  signature_sql = prepare("SELECT shorn_signature(?1)");
  fingerprint_sql = prepare("SELECT shorn_fingerprint(?1, ?2)");

  each_row(argv[1], "schemas.jsonl", schema_row_handler);
  each_row(argv[1], "encode.jsonl", encode_row_handler);
  each_row(argv[1], "decode.jsonl", decode_row_handler);
  each_row(argv[1], "seed-examples.jsonl", seed_row_handler);
  each_row(argv[1], "datetime-0.4.0.jsonl", datetime_row_handler);
  register_schemas();
  each_row(argv[1], "encode.jsonl", registry_row_handler);
  each_row(argv[1], "datetime-0.4.0.jsonl", registry_row_handler);
  prepare_queries();
  each_row(argv[1], "encode.jsonl", query_row_handler);
  each_row(argv[1], "decode.jsonl", query_row_handler);
  each_row(argv[1], "seed-examples.jsonl", query_row_handler);
  each_row(argv[1], "datetime-0.4.0.jsonl", query_row_handler);

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
  finalize_queries();
  sqlite3_close(db);
  for (size_t i = 0; i < schema_count; i++) free(schemas[i].id), free(schemas[i].text);
  free(schemas);
  for (int i = 0; i < tally_count; i++) free((char *)tallies[i].name);
  return failed ? 1 : 0;
}
