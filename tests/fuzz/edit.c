/*
 * edit.c — libFuzzer harness for the edit functions, through SQL with the
 * extension linked in and SQLite 3.53 (whose json_set they follow): a
 * schema from the list, then one byte choosing the function and the kind
 * of value, one byte giving the length of a path, the path, one byte giving
 * the length of a value, the value, and payload bytes.
 *
 * When the payload is valid (it decodes, and its value encodes back to
 * it, validation keywords and all), shorn_set, shorn_insert, shorn_replace,
 * shorn_remove and shorn_patch must give what shorn_encode gives for
 * json_set (…) over shorn_decode's text: the same bytes, or a refusal in
 * the same words.  When it does not, they read what their path needs
 * (docs/querying.md): each answers or fails with an error of its own name,
 * never a crash, an overread or a hang.  The differential test
 * (tests/edit/differential.py) edits every vector; this reaches the paths,
 * values and payloads no vector holds.
 */
#include "fuzz.h" /* first: it asks for POSIX */

#include <sqlite3.h>

#include "core/query/query.h"
#include "shorn_sqlite.h"

static const char *const functions[] = {"set", "insert", "replace", "remove", "patch"};
#define FUNCTIONS (int)(sizeof functions / sizeof *functions)

/* ?1 payload, ?2 schema text, ?3 path, ?4 value; per function, per kind of
 * value: JSON text through json() (subtype 'J'), TEXT, an INTEGER, a REAL. */
#define KINDS 4
static sqlite3 *db;
static sqlite3_stmt *decoded, *valid, *ours[FUNCTIONS][KINDS], *theirs[FUNCTIONS][KINDS];

static void close_db(void) {
  sqlite3_finalize(decoded);
  sqlite3_finalize(valid);
  for (int f = 0; f < FUNCTIONS; f++)
    for (int k = 0; k < KINDS; k++) {
      sqlite3_finalize(ours[f][k]);
      sqlite3_finalize(theirs[f][k]);
    }
  sqlite3_close(db);
}

static sqlite3_stmt *prepare(const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "edit harness: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  return st;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_shorn_init(db, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "edit harness: no database\n");
    exit(2);
  }
  if (sqlite3_libversion_number() < 3045000) {
    fprintf(stderr, "edit harness: SQLite %s; the edit functions follow 3.45's json_set\n", sqlite3_libversion());
    exit(2);
  }
  fuzz_load_schemas();
  atexit(close_db);
  decoded = prepare("SELECT shorn_decode(?1, ?2)");
  /* The contract the edit functions copy untouched bytes under. */
  valid = prepare("SELECT shorn_encode(shorn_decode(?1, ?2), ?2) IS ?1");
  static const char *const values[KINDS] = {"json(?4)", "?4", "CAST(?4 AS INTEGER)", "CAST(?4 AS REAL)"};
  for (int f = 0; f < FUNCTIONS; f++)
    for (int k = 0; k < KINDS; k++) {
      char sql[256];
      const char *value = f == 4 ? "json(?4)" : values[k];
      if (f == 4)
        snprintf(sql, sizeof sql, "SELECT shorn_patch(?1, ?2, %s)", value);
      else if (f == 3)
        snprintf(sql, sizeof sql, "SELECT shorn_remove(?1, ?2, ?3)");
      else
        snprintf(sql, sizeof sql, "SELECT shorn_%s(?1, ?2, ?3, %s)", functions[f], value);
      ours[f][k] = prepare(sql);
      if (f == 4)
        snprintf(sql, sizeof sql, "SELECT shorn_encode(json_patch(shorn_decode(?1, ?2), %s), ?2)", value);
      else if (f == 3)
        snprintf(sql, sizeof sql, "SELECT shorn_encode(json_remove(shorn_decode(?1, ?2), ?3), ?2)");
      else
        snprintf(sql, sizeof sql, "SELECT shorn_encode(json_%s(shorn_decode(?1, ?2), ?3, %s), ?2)", functions[f],
                 value);
      theirs[f][k] = prepare(sql);
    }
  return 0;
}

static void bind(sqlite3_stmt *st, const uint8_t *payload, size_t n, const char *schema, const char *path,
                 size_t path_length, const uint8_t *value, size_t value_length) {
  sqlite3_bind_blob(st, 1, n ? (const void *)payload : "", (int)n, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, path, (int)path_length, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, (const char *)value, (int)value_length, SQLITE_STATIC);
}

/* A result, kept past the statement's reset: the payload, or the message
 * after "<function>: ". */
typedef struct outcome {
  int rc;
  char *bytes;
  int length;
} outcome;

static outcome run(sqlite3_stmt *st) {
  outcome o = {sqlite3_step(st), NULL, 0};
  const char *said = NULL;
  if (o.rc == SQLITE_ROW) {
    said = sqlite3_column_blob(st, 0);
    o.length = sqlite3_column_bytes(st, 0);
  } else if (o.rc == SQLITE_ERROR) {
    said = sqlite3_errmsg(db);
    const char *colon = strstr(said, ": ");
    said = colon ? colon + 2 : said;
    o.length = (int)strlen(said);
  }
  o.bytes = malloc((size_t)o.length + 1);
  FUZZ_CHECK(o.bytes != NULL);
  if (o.length) memcpy(o.bytes, said, (size_t)o.length);
  o.bytes[o.length] = 0;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return o;
}

/* What the comparison leaves out, where SQLite 3.53 and shorn's readers
 * part on purpose (docs/querying.md): a key with a character JSON escapes
 * (SQLite 3.40's comparison, which shorn_extract keeps), an index of 2^32
 * or more, a NUL in a member's name; and a path or a value that is not
 * UTF-8, which the edit functions refuse before SQLite would write it into
 * JSON text (its refusal then comes from shorn_encode's parser). */
static bool comparable(const query_path *p, const char *json, const uint8_t *value, size_t value_length) {
  if (!utf8_valid((const uint8_t *)p->text, p->length, p->length) || !utf8_valid(value, value_length, value_length))
    return false;
  for (uint32_t i = 0; i < p->count; i++)
    if ((p->steps[i].kind == STEP_KEY && !p->steps[i].plain) ||
        (p->steps[i].kind != STEP_KEY && p->steps[i].index >= UINT64_C(1) << 32))
      return false;
  return !strstr(json, "\\u0000");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t line;
  if (!fuzz_pick(&data, &size, &line) || size < 3) return 0;
  const char *schema = fuzz_schema_texts[line];
  int function = (data[0] & 7) % FUNCTIONS, kind = (data[0] >> 3) % KINDS;
  size_t path_length = data[1] < size - 2 ? data[1] : size - 2;
  char *path = malloc(path_length + 1);
  FUZZ_CHECK(path != NULL);
  memcpy(path, data + 2, path_length);
  path[path_length] = 0;
  data += 2 + path_length, size -= 2 + path_length;
  size_t value_length = size && data[0] < size - 1 ? data[0] : size ? size - 1 : 0;
  const uint8_t *value = size ? data + 1 : data;
  const uint8_t *payload = value + value_length;
  size_t n = size ? size - 1 - value_length : 0;

  bind(decoded, payload, n, schema, path, path_length, NULL, 0);
  outcome text = run(decoded);
  bind(ours[function][kind], payload, n, schema, path, path_length, value, value_length);
  outcome a = run(ours[function][kind]);
  FUZZ_CHECK(a.rc == SQLITE_ROW || a.rc == SQLITE_ERROR);
  bind(valid, payload, n, schema, path, path_length, NULL, 0);
  bool is_valid = sqlite3_step(valid) == SQLITE_ROW && sqlite3_column_int(valid, 0) == 1;
  sqlite3_reset(valid);
  sqlite3_clear_bindings(valid);
  if (text.rc == SQLITE_ROW && is_valid) {
    shorn_error e;
    query_path *parsed = query_path_parse(NULL, path, strlen(path), &e);
    if (parsed && comparable(parsed, text.bytes, value, value_length)) {
      bind(theirs[function][kind], payload, n, schema, path, path_length, value, value_length);
      outcome b = run(theirs[function][kind]);
      /* A path json_set refuses is refused in shorn_extract's words. */
      if (!(b.rc == SQLITE_ERROR && strncmp(b.bytes, "bad JSON path", 13) == 0)) {
        FUZZ_CHECK(a.rc == b.rc && a.length == b.length);
        FUZZ_CHECK(!a.length || memcmp(a.bytes, b.bytes, (size_t)a.length) == 0);
      }
      free(b.bytes);
    }
    query_path_free(parsed);
  }
  free(a.bytes);
  free(text.bytes);
  free(path);
  return 0;
}
