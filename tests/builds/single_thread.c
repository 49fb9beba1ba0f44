/*
 * single_thread.c — the amalgamation loaded as an extension into a
 * single-threaded SQLite (SQLITE_THREADSAFE=0), whose API table has no mutex
 * functions: two connections share the process's compiled schema, let go of
 * it, and a third compiles it again, all with no mutex.
 *   single_thread EXTENSION
 */
#include <sqlite3.h>

#include "../unit/check.h"
#include "person.h"

/* The first column of the one row `sql` returns, as text, into `out`. */
static void query(sqlite3 *db, const char *sql, char *out, size_t cap) {
  sqlite3_stmt *st = NULL;
  out[0] = 0;
  CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
  if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
  else
    fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* A connection with the extension loaded, or NULL. */
static sqlite3 *open_loaded(const char *extension) {
  sqlite3 *db = NULL;
  char *message = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_enable_load_extension(db, 1) != SQLITE_OK ||
      sqlite3_load_extension(db, extension, NULL, &message) != SQLITE_OK) {
    fprintf(stderr, "single_thread: %s\n", message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: single_thread EXTENSION\n");
    return 2;
  }
  CHECK(sqlite3_threadsafe() == 0);
  char round_trip[1024], got[512];
  snprintf(round_trip, sizeof round_trip, "SELECT shorn_decode(shorn_encode('%s', '%s'), '%s')", grace, person,
           person);
  const char *process = "SELECT shorn_stats() ->> '$.process.schemas' || ' ' || "
                        "(shorn_stats() ->> '$.process.compilations')";
  sqlite3 *first = open_loaded(argv[1]), *second = open_loaded(argv[1]);
  if (!first || !second) return 1;
  query(first, round_trip, got, sizeof got);
  CHECK_STR(got, grace_decoded);
  query(second, round_trip, got, sizeof got);
  CHECK_STR(got, grace_decoded);
  query(second, process, got, sizeof got);
  CHECK_STR(got, "1 1"); /* one schema, compiled once for both */
  CHECK(sqlite3_close(first) == SQLITE_OK);
  query(second, round_trip, got, sizeof got);
  CHECK_STR(got, grace_decoded);
  CHECK(sqlite3_close(second) == SQLITE_OK);
  /* The process table went with the last connection; a new one starts it again. */
  sqlite3 *third = open_loaded(argv[1]);
  if (!third) return 1;
  query(third, round_trip, got, sizeof got);
  CHECK_STR(got, grace_decoded);
  query(third, process, got, sizeof got);
  CHECK_STR(got, "1 1");
  CHECK(sqlite3_close(third) == SQLITE_OK);
  printf("single_thread: SQLite %s with SQLITE_THREADSAFE=0, the extension loaded\n", sqlite3_libversion());
  return check_report("single_thread");
}
