/*
 * database.c — the fixtures stored as `make bench` measures them, one table
 * for each form (FIXTURE_json, FIXTURE_jsonb, FIXTURE_shorn, same ids), as
 * an application's table holds one; and the floors: functions that do
 * nothing, or return a constant as long as the real result, that show what
 * SQLite spends on a row before any function works.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

void exec(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) die("%s: %s", sql, error);
}

sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die("%s: %s", sql, sqlite3_errmsg(db));
  return st;
}

/* Run a query of one row and one integer column. */
sqlite3_int64 query_int(sqlite3 *db, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  sqlite3_stmt *st = prepare(db, sql);
  if (sqlite3_step(st) != SQLITE_ROW) die("%s: %s", sql, sqlite3_errmsg(db));
  sqlite3_int64 v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return v;
}

/* The floor: a function that takes its argument and does nothing with it. */
static void floor_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, sqlite3_value_bytes(argv[0]) > 0);
}

/* The result floor: what SQLite charges any decoder (or encoder) per row,
 * the work itself aside.  It reads its argument as shorn_decode reads a
 * payload (or shorn_encode its JSON text), then hands SQLite a constant
 * result exactly as long as that row's real one, through the same call
 * (sqlite3_result_text64 or _blob64, SQLITE_TRANSIENT, and subtype 'J' for
 * text) that shorn_result_output makes.  The lengths come from the rows,
 * in rowid order; a full scan visits each row once in that order, so
 * cycling through them charges every row its own length. */
static char floor_bytes[1 << 16]; /* the constant result: longer than any row's */

static void result_floor_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  result_floor *rf = sqlite3_user_data(ctx);
  const void *argument = rf->text ? sqlite3_value_blob(argv[0]) : (const void *)sqlite3_value_text(argv[0]);
  int n = rf->lengths[rf->next];
  rf->next = (rf->next + 1) % rf->rows;
  if (!argument || !sqlite3_value_bytes(argv[0])) return;
  if (rf->text) {
    sqlite3_result_text64(ctx, floor_bytes, (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
    sqlite3_result_subtype(ctx, 'J');
  } else {
    sqlite3_result_blob64(ctx, floor_bytes, (sqlite3_uint64)n, SQLITE_TRANSIENT);
  }
}

sqlite3 *open_database(const char *path, const char *extension) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) die("%s: %s", path, sqlite3_errmsg(db));
  sqlite3_enable_load_extension(db, 1);
  char *error = NULL;
  if (sqlite3_load_extension(db, extension, NULL, &error) != SQLITE_OK) die("%s: %s", extension, error);
  sqlite3_create_function(db, "bench_floor", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, floor_function,
                          NULL, NULL);
  /* Hold the whole database in the page cache: the queries measure CPU,
   * not the disk. */
  exec(db, "PRAGMA cache_size = -4000000");
  return db;
}

/* Every fixture as JSON text, as JSONB and as shorn. */
void build(sqlite3 *db, int rows) {
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
           "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;"
           "CREATE TABLE bench_schema(name TEXT PRIMARY KEY, schema TEXT NOT NULL);");
  shorn_buffer json = {0};
  for (int f = 0; f < FIXTURES; f++) {
    const fixture *fx = &fixtures[f];
    fprintf(stderr, "bench: building %s, %d rows\n", fx->name, rows);
    char *sql = sqlite3_mprintf("INSERT INTO shorn_schemas(name, schema) VALUES (%Q, %Q);"
                                "INSERT INTO bench_schema VALUES (%Q, %Q);"
                                "CREATE TABLE %s_json(id INTEGER PRIMARY KEY, json TEXT NOT NULL);"
                                "CREATE TABLE %s_shorn(id INTEGER PRIMARY KEY, shorn BLOB NOT NULL);"
                                "BEGIN",
                                fx->name, fx->schema, fx->name, fx->schema, fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    sql = sqlite3_mprintf("INSERT INTO %s_json(json) VALUES (?1)", fx->name);
    sqlite3_stmt *insert = prepare(db, sql);
    sqlite3_free(sql);
    for (int i = 0; i < rows; i++) {
      json.length = 0;
      fx->generate(&json);
      sqlite3_bind_text(insert, 1, (const char *)json.data, (int)json.length, SQLITE_STATIC);
      if (sqlite3_step(insert) != SQLITE_DONE) die("%s row %d: %s", fx->name, i, sqlite3_errmsg(db));
      sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    sql = sqlite3_mprintf("INSERT INTO %s_shorn SELECT id, shorn_encode(json, %Q) FROM %s_json", fx->name,
                          fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    sql = sqlite3_mprintf("CREATE TABLE %s_jsonb(id INTEGER PRIMARY KEY, jsonb BLOB NOT NULL);"
                          "INSERT INTO %s_jsonb SELECT id, jsonb(json) FROM %s_json; COMMIT",
                          fx->name, fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    /* The round trip holds on every row, or the fixture is not what the
     * numbers claim to measure. */
    sqlite3_int64 bad = query_int(db,
                                  "SELECT count(*) FROM %s_shorn "
                                  "WHERE shorn_encode(shorn_decode(shorn, %Q), %Q) IS NOT shorn",
                                  fx->name, fx->name, fx->name);
    if (bad) die("%s: %lld rows do not round-trip", fx->name, (long long)bad);
  }
  shorn_buffer_free(&json);
}

/* The result floors of each fixture, as bench_json_floor_FIXTURE(shorn)
 * (a BLOB in, JSON text as long as the row's out) and
 * bench_payload_floor_FIXTURE(json) (JSON text in, a BLOB as long as the
 * row's payload out). */
void register_result_floors(sqlite3 *db, const char *fixture_name, result_floor floors[2]) {
  static const char *const sql[2] = {"SELECT length(CAST(json AS BLOB)) FROM %s_json ORDER BY id",
                                     "SELECT length(shorn) FROM %s_shorn ORDER BY id"};
  static const char *const names[2] = {"bench_json_floor_%s", "bench_payload_floor_%s"};
  for (int k = 0; k < 2; k++) {
    result_floor *rf = &floors[k];
    *rf = (result_floor){.text = k == 0, .rows = (int)query_int(db, "SELECT count(*) FROM %s_json", fixture_name)};
    rf->lengths = calloc((size_t)rf->rows, sizeof *rf->lengths);
    if (!rf->lengths) die("out of memory");
    char *q = sqlite3_mprintf(sql[k], fixture_name);
    sqlite3_stmt *st = prepare(db, q);
    sqlite3_free(q);
    for (int i = 0; i < rf->rows && sqlite3_step(st) == SQLITE_ROW; i++) {
      rf->lengths[i] = sqlite3_column_int(st, 0);
      if ((size_t)rf->lengths[i] > sizeof floor_bytes) die("%s row %d is too long", fixture_name, i);
    }
    sqlite3_finalize(st);
    char *name = sqlite3_mprintf(names[k], fixture_name);
    if (sqlite3_create_function(db, name, 1, SQLITE_UTF8 | (rf->text ? SQLITE_RESULT_SUBTYPE : 0), rf,
                                result_floor_function, NULL, NULL) != SQLITE_OK)
      die("%s: %s", name, sqlite3_errmsg(db));
    sqlite3_free(name);
  }
}
