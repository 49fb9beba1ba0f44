/*
 * query.c — libFuzzer harness for the query functions, through SQL with
 * the extension linked in: a schema from the list, then one byte giving
 * the length of a path, the path, and payload bytes.
 *
 * shorn_extract and shorn_type must answer as json_extract and json_type
 * over shorn_decode's text, value and SQL type alike, and shorn_tree row for
 * row as json_tree (all but id and parent, which count from another node);
 * when the path is malformed, shorn_extract fails with json_extract's
 * message.  When the payload does not decode, the readers read what their
 * path needs (docs/querying.md): each answers or fails with an error of its
 * own name, never a crash, an overread or a hang, and at `$`, which reads
 * the whole value, fails with shorn_decode's message unless that is about
 * bytes after the value.  The tests of every vector walk every path a value
 * has; this reaches the paths and the payloads no vector holds, and the
 * passing over of bytes that a path goes past.
 */
#include "fuzz.h" /* first: it asks for POSIX */

#include <sqlite3.h>

#include "core/query/query.h"
#include "shorn_sqlite.h"

#define TREE_TEXT_MAX 65536

static sqlite3 *db;
static sqlite3_stmt *answers, *trees, *decoded, *json_path, *readers[3];
static const char *const reader_names[3] = {"shorn_extract", "shorn_type", "shorn_tree"};

static void close_db(void) {
  sqlite3_stmt *all[] = {answers, trees, decoded, json_path, readers[0], readers[1], readers[2]};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) sqlite3_finalize(all[i]);
  sqlite3_close(db);
}

static sqlite3_stmt *prepare(const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "query harness: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  return st;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  /* The list is compiled with the counting allocator and the extension
   * allocates with SQLite's: each schema and result is freed by the
   * allocator it came from, whichever was set up first. */
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_shorn_init(db, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "query harness: no database\n");
    exit(2);
  }
  fuzz_load_schemas();
  atexit(close_db);
  /* ?1 payload, ?2 schema text, ?3 path, ?4 the decoded text. */
  answers = prepare("SELECT shorn_extract(?1, ?2, ?3), json_extract(?4, ?3),"
                    " json_quote(shorn_extract(?1, ?2, ?3)) IS json_quote(json_extract(?4, ?3)),"
                    " shorn_type(?1, ?2, ?3), json_type(?4, ?3)");
  const char *row = "group_concat(quote(key) || quote(value) || type || quote(atom) || fullkey || path, ' ')";
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT (SELECT %s FROM shorn_tree(?1, ?2, ?3)) IS (SELECT %s FROM json_tree(?4, ?3))",
           row, row);
  trees = prepare(sql);
  decoded = prepare("SELECT shorn_decode(?1, ?2)");
  json_path = prepare("SELECT json_extract(?1, ?2)");
  readers[0] = prepare("SELECT shorn_extract(?1, ?2, ?3)");
  readers[1] = prepare("SELECT shorn_type(?1, ?2, ?3)");
  readers[2] = prepare("SELECT count(*) FROM shorn_tree(?1, ?2, ?3)");
  return 0;
}

static void bind(sqlite3_stmt *st, const uint8_t *payload, size_t n, const char *schema,
                 const char *path, size_t path_length, const char *json) {
  sqlite3_bind_blob(st, 1, n ? (const void *)payload : "", (int)n, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, path, (int)path_length, SQLITE_STATIC);
  if (json) sqlite3_bind_text(st, 4, json, -1, SQLITE_STATIC);
}

static void done_with(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* Same SQL type, same value: numbers bit for bit, text byte for byte. */
static bool same_column(sqlite3_stmt *st, int i, int j) {
  int type = sqlite3_column_type(st, i);
  if (type != sqlite3_column_type(st, j)) return false;
  if (type == SQLITE_NULL) return true;
  if (type == SQLITE_INTEGER) return sqlite3_column_int64(st, i) == sqlite3_column_int64(st, j);
  if (type == SQLITE_FLOAT) {
    double x = sqlite3_column_double(st, i), y = sqlite3_column_double(st, j);
    return memcmp(&x, &y, sizeof x) == 0;
  }
  const void *x = sqlite3_column_blob(st, i), *y = sqlite3_column_blob(st, j);
  int n = sqlite3_column_bytes(st, i);
  return n == sqlite3_column_bytes(st, j) && (!n || memcmp(x, y, (size_t)n) == 0);
}

/* The error `st` stopped with is `function: ` and then `message`. */
static bool failed_with(sqlite3_stmt *st, const char *function, const char *message) {
  if (sqlite3_step(st) != SQLITE_ERROR) return false;
  const char *said = sqlite3_errmsg(db);
  size_t n = strlen(function);
  return strncmp(said, function, n) == 0 && strncmp(said + n, ": ", 2) == 0 && strcmp(said + n + 2, message) == 0;
}

/* Each reader over a payload shorn_decode refuses with `refusal`: an
 * answer or an error of its own; at `$` (`whole`), shorn_decode's error
 * unless that is about bytes after the value, and then an answer. */
static void check_refused(const uint8_t *payload, size_t n, const char *schema, const char *path,
                          size_t path_length, const char *refusal, bool whole) {
  bool trailing = strncmp(refusal, "Unexpected trailing data at byte ", 33) == 0;
  for (int i = 0; i < 3; i++) {
    bind(readers[i], payload, n, schema, path, path_length, NULL);
    if (whole && !trailing) {
      FUZZ_CHECK(failed_with(readers[i], reader_names[i], refusal));
    } else {
      int rc = sqlite3_step(readers[i]);
      const char *said = sqlite3_errmsg(db);
      size_t name = strlen(reader_names[i]);
      bool its_own = rc == SQLITE_ERROR && strncmp(said, reader_names[i], name) == 0 && strncmp(said + name, ": ", 2) == 0;
      FUZZ_CHECK(rc == SQLITE_ROW || (!whole && its_own));
    }
    done_with(readers[i]);
  }
}

/* SQLite's words for a malformed path, but for the rest of the path that
 * they quote, which shorn cuts short to fit its message. */
static bool same_path_error(const char *ours, const char *theirs) {
  size_t n = strlen(ours);
  if (n + 1 < SHORN_MESSAGE_MAX - 32) return strcmp(ours, theirs) == 0;
  return n && ours[n - 1] == '\'' && strncmp(ours, theirs, n - 1) == 0;
}

/* An index of 2^32 or more: SQLite 3.40 wraps it, shorn names nothing
 * (README, "Querying payloads"), so the answers may differ. */
static bool wraps(const query_path *p) {
  for (uint32_t i = 0; i < p->count; i++)
    if (p->steps[i].kind != STEP_KEY && p->steps[i].index >= UINT64_C(1) << 32) return true;
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t line;
  if (!fuzz_pick(&data, &size, &line) || !size) return 0;
  const char *schema = fuzz_schema_texts[line];
  size_t path_length = data[0] < size - 1 ? data[0] : size - 1;
  char *path = malloc(path_length + 1);
  FUZZ_CHECK(path != NULL);
  memcpy(path, data + 1, path_length);
  path[path_length] = 0;
  const uint8_t *payload = data + 1 + path_length;
  size_t n = size - 1 - path_length;

  /* The decoded text, or shorn_decode's message. */
  bind(decoded, payload, n, schema, path, path_length, NULL);
  int rc = sqlite3_step(decoded);
  FUZZ_CHECK(rc == SQLITE_ROW || rc == SQLITE_ERROR);
  char *json = NULL, *refusal = NULL;
  const char *said = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(decoded, 0) : sqlite3_errmsg(db);
  FUZZ_CHECK(said != NULL);
  if (rc == SQLITE_ROW) {
    json = strdup(said);
  } else {
    FUZZ_CHECK(strncmp(said, "shorn_decode: ", 14) == 0);
    refusal = strdup(said + 14);
  }
  done_with(decoded);

  /* The path as shorn reads it: whole, before any lookup. */
  shorn_error e;
  query_path *parsed = query_path_parse(NULL, path, strlen(path), &e);
  bind(answers, payload, n, schema, path, path_length, json ? json : "null");
  if (refusal) {
    check_refused(payload, n, schema, path, path_length, refusal, parsed && parsed->count == 0);
  } else if (!parsed) {
    /* json_extract reports a malformed step only when its lookup reaches
     * it, and then in the same words (README, "Querying payloads"). */
    FUZZ_CHECK(failed_with(answers, "shorn_extract", e.message));
    sqlite3_bind_text(json_path, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(json_path, 2, path, (int)path_length, SQLITE_STATIC);
    if (sqlite3_step(json_path) == SQLITE_ERROR) FUZZ_CHECK(same_path_error(e.message, sqlite3_errmsg(db)));
    done_with(json_path);
  } else if (!wraps(parsed)) {
    FUZZ_CHECK(sqlite3_step(answers) == SQLITE_ROW);
    FUZZ_CHECK(same_column(answers, 0, 1));
    FUZZ_CHECK(sqlite3_column_int(answers, 2) == 1);
    FUZZ_CHECK(same_column(answers, 3, 4));
    /* A schema alone can make a payload of no bytes a value of a million
     * elements; comparing its trees row for row would take the fuzzer's
     * whole timeout, so large values are only extracted from. */
    if (strlen(json) <= TREE_TEXT_MAX) {
      bind(trees, payload, n, schema, path, path_length, json);
      FUZZ_CHECK(sqlite3_step(trees) == SQLITE_ROW && sqlite3_column_int(trees, 0) == 1);
      done_with(trees);
    }
  } else {
    FUZZ_CHECK(sqlite3_step(answers) == SQLITE_ROW);
  }
  done_with(answers);
  query_path_free(parsed);
  free(json);
  free(refusal);
  free(path);
  return 0;
}
