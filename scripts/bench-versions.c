#define _DEFAULT_SOURCE /* clock_gettime under -std=c11 */
/*
 * bench-versions.c — `make bench`: what reading a row of a name's older
 * version costs beside a row of its newest, and what shorn_upgrade costs.
 *
 *   bench-versions --extension PATH [--rows N] [--reps N]
 *
 * Builds, in memory, two tables of the same values for each fixture: one
 * written by version 1 of a name, one by its version 2 (version 1's rows
 * upgraded), and a third of the values' JSON text.  Version 2 drops a
 * member, adds one with a default and one optional, and widens an integer
 * to a number, inside nested objects as at the top.  Then times, over every
 * row, shorn_decode and shorn_extract of each table (the older rows read in
 * version 2's shape), shorn_upgrade of the newest rows (returned as they
 * are) and of the older ones, and shorn_encode of the JSON; the medians of
 * the repetitions, CPU time, printed as Markdown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bench_time.h"

typedef struct fixture {
  const char *name;
  const char *v1, *v2; /* JSON Schema of each version */
  const char *row;     /* SQL making a version 1 value of row i, from json_object */
  const char *path;    /* a member both versions keep, as an index reads it */
} fixture;

static const fixture fixtures[] = {
    {"profile, 8 members",
     "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
     "\"email\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\",\"minimum\":0},\"active\":{\"type\":\"boolean\"},"
     "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"score\":{\"type\":\"number\"},"
     "\"signupYear\":{\"type\":\"integer\"}},\"required\":[\"id\",\"name\",\"email\",\"age\",\"active\",\"tags\","
     "\"score\",\"signupYear\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
     "\"email\":{\"type\":\"string\"},\"age\":{\"type\":\"number\"},\"active\":{\"type\":\"boolean\"},"
     "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"score\":{\"type\":\"number\"},"
     "\"locale\":{\"type\":\"string\",\"default\":\"en\"},\"nick\":{\"type\":\"string\"}},\"required\":[\"id\","
     "\"name\",\"email\",\"age\",\"active\",\"tags\",\"score\",\"locale\"],\"additionalProperties\":false}",
     "json_object('id', i, 'name', 'user' || i, 'email', 'user' || i || '@example.org', 'age', i % 90, 'active', "
     "json(CASE WHEN i % 2 THEN 'true' ELSE 'false' END), 'tags', json('[\"a\",\"bb\",\"ccc\"]'), 'score', i * 0.5, "
     "'signupYear', 2000 + i % 20)",
     "$.name"},
    {"order, lines of objects",
     "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"customer\":{\"type\":\"string\"},"
     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\"},"
     "\"qty\":{\"type\":\"integer\",\"minimum\":0},\"price\":{\"type\":\"number\"},\"note\":{\"type\":\"string\"}},"
     "\"required\":[\"sku\",\"qty\",\"price\",\"note\"],\"additionalProperties\":false}}},\"required\":[\"id\","
     "\"customer\",\"lines\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"customer\":{\"type\":\"string\"},"
     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\"},"
     "\"qty\":{\"type\":\"number\"},\"price\":{\"type\":\"number\"},\"gift\":{\"type\":\"boolean\",\"default\":false}},"
     "\"required\":[\"sku\",\"qty\",\"price\",\"gift\"],\"additionalProperties\":false}}},\"required\":[\"id\","
     "\"customer\",\"lines\"],\"additionalProperties\":false}",
     "json_object('id', i, 'customer', 'customer' || (i % 997), 'lines', json_array("
     "json_object('sku', 'A' || (i % 50), 'qty', 1 + i % 3, 'price', 9.5, 'note', 'gift wrap'), "
     "json_object('sku', 'B' || (i % 70), 'qty', 2, 'price', 19.25, 'note', ''), "
     "json_object('sku', 'C' || (i % 30), 'qty', 1, 'price', 4.75, 'note', 'fragile')))",
     "$.customer"},
};
#define FIXTURES (sizeof fixtures / sizeof fixtures[0])

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench-versions: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) die("%s: %s", sql, error);
}

static void execf(sqlite3 *db, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  exec(db, sql);
  sqlite3_free(sql);
}

/* The measured queries of a fixture, each over every row of its table. */
enum { DECODE_OLD, DECODE_NEW, EXTRACT_OLD, EXTRACT_NEW, UPGRADE_NEW, UPGRADE_OLD, ENCODE, FLOOR, QUERIES };

static char *query_sql(int q, int f) {
  const char *path = fixtures[f].path;
  switch (q) {
    case DECODE_OLD: return sqlite3_mprintf("SELECT count(shorn_decode(payload, 'f%d')) FROM old%d", f, f);
    case DECODE_NEW: return sqlite3_mprintf("SELECT count(shorn_decode(payload, 'f%d')) FROM new%d", f, f);
    case EXTRACT_OLD: return sqlite3_mprintf("SELECT count(shorn_extract(payload, 'f%d', %Q)) FROM old%d", f, path, f);
    case EXTRACT_NEW: return sqlite3_mprintf("SELECT count(shorn_extract(payload, 'f%d', %Q)) FROM new%d", f, path, f);
    case UPGRADE_NEW: return sqlite3_mprintf("SELECT count(shorn_upgrade(payload, 'f%d')) FROM new%d", f, f);
    case UPGRADE_OLD: return sqlite3_mprintf("SELECT count(shorn_upgrade(payload, 'f%d')) FROM old%d", f, f);
    case ENCODE: return sqlite3_mprintf("SELECT count(shorn_encode(json, 'f%d')) FROM json%d", f, f);
    default: return sqlite3_mprintf("SELECT count(bench_floor(payload)) FROM new%d", f);
  }
}

/* A function that does nothing: what SQLite spends a row calling one, which
 * every measured query spends too. */
static void floor_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, sqlite3_value_bytes(argv[0]) > 0);
}

static double run(sqlite3 *db, sqlite3_stmt *st) {
  double start = cpu_seconds();
  int rc = sqlite3_step(st);
  double spent = cpu_seconds() - start;
  if (rc != SQLITE_ROW) die("%s: %s", sqlite3_sql(st), sqlite3_errmsg(db));
  sqlite3_reset(st);
  return spent;
}

int main(int argc, char **argv) {
  const char *extension = NULL;
  int rows = 100000, reps = 7;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--extension") && i + 1 < argc)
      extension = argv[++i];
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
      rows = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else
      die("usage: bench-versions --extension PATH [--rows N] [--reps N]");
  }
  if (!extension || rows < 1 || reps < 1 || reps > REPS_MAX) die("usage: bench-versions --extension PATH [--rows N] [--reps N]");
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) die("cannot open a database");
  sqlite3_enable_load_extension(db, 1);
  char *error = NULL;
  if (sqlite3_load_extension(db, extension, NULL, &error) != SQLITE_OK) die("%s: %s", extension, error);
  sqlite3_create_function(db, "bench_floor", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, floor_function, NULL, NULL);
  exec(db, "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry");
  for (size_t f = 0; f < FIXTURES; f++) {
    execf(db, "INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('f%d', %Q, 4)", (int)f, fixtures[f].v1);
    execf(db,
          "CREATE TABLE json%d AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) "
          "SELECT i AS id, %s AS json FROM c",
          (int)f, rows, fixtures[f].row);
    execf(db, "CREATE TABLE old%d AS SELECT id, shorn_encode(json, 'f%d') AS payload FROM json%d", (int)f, (int)f,
          (int)f);
    execf(db, "INSERT INTO shorn_schemas(name, schema, version) VALUES ('f%d', %Q, 2)", (int)f, fixtures[f].v2);
    execf(db, "CREATE TABLE new%d AS SELECT id, shorn_upgrade(payload, 'f%d') AS payload FROM old%d", (int)f, (int)f,
          (int)f);
    /* The JSON that version 2 takes: version 1's rows as version 2 reads them. */
    execf(db, "UPDATE json%d SET json = (SELECT shorn_decode(payload, 'f%d') FROM new%d WHERE new%d.id = json%d.id)",
          (int)f, (int)f, (int)f, (int)f, (int)f);
  }
  static double times[FIXTURES][QUERIES][REPS_MAX];
  sqlite3_stmt *st[FIXTURES][QUERIES];
  for (size_t f = 0; f < FIXTURES; f++)
    for (int q = 0; q < QUERIES; q++) {
      char *sql = query_sql(q, (int)f);
      if (sqlite3_prepare_v2(db, sql, -1, &st[f][q], NULL) != SQLITE_OK) die("%s: %s", sql, sqlite3_errmsg(db));
      sqlite3_free(sql);
      run(db, st[f][q]); /* warm: every page in the cache, every plan made */
    }
  /* All the queries of one repetition before any of the next, so that a
   * burst of load elsewhere hits every query alike. */
  for (int r = 0; r < reps; r++)
    for (size_t f = 0; f < FIXTURES; f++)
      for (int q = 0; q < QUERIES; q++) times[f][q][r] = run(db, st[f][q]);
  printf("## Reading older versions (%s, %d rows a table, median of %d)\n\n", sqlite3_libversion(), rows, reps);
  printf("Time a row less the floor's (the same query around a function that does nothing), in ns; a ratio is\n"
         "the older version's row over the newest's, or shorn_upgrade over shorn_encode.\n\n");
  printf("| fixture | decode newest | decode older | ratio | extract newest | extract older | ratio | "
         "upgrade newest | encode | ratio | upgrade older |\n");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (size_t f = 0; f < FIXTURES; f++) {
    double ns[QUERIES];
    for (int q = 0; q < QUERIES; q++) ns[q] = median(times[f][q], reps) * 1e9 / rows;
    double floor = ns[FLOOR];
    for (int q = 0; q < FLOOR; q++) ns[q] = ns[q] > floor ? ns[q] - floor : 0;
    printf("| %s | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx | %.0f | %.0f | %.3fx | %.0f |\n", fixtures[f].name,
           ns[DECODE_NEW], ns[DECODE_OLD], ns[DECODE_OLD] / ns[DECODE_NEW], ns[EXTRACT_NEW], ns[EXTRACT_OLD],
           ns[EXTRACT_OLD] / ns[EXTRACT_NEW], ns[UPGRADE_NEW], ns[ENCODE], ns[UPGRADE_NEW] / ns[ENCODE],
           ns[UPGRADE_OLD]);
  }
  printf("\n");
  for (size_t f = 0; f < FIXTURES; f++)
    for (int q = 0; q < QUERIES; q++) sqlite3_finalize(st[f][q]);
  sqlite3_close(db);
  return 0;
}
