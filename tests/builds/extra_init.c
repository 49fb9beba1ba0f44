/*
** SQLite compiled with SQLITE_EXTRA_INIT=sqlite3_wasm_extra_init and
** bindings/wasm/sqlite3_wasm_extra_init.c, as SQLite's WebAssembly build
** compiles them: every connection has shorn's functions, none loaded.
*/
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *statement;
  const char *sql = "SELECT shorn_decode(shorn_encode('{\"name\":\"Grace\",\"age\":45}', '{\"type\":\"object\","
                    "\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\",\"minimum\":0}}}'),"
                    " '{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":"
                    "\"integer\",\"minimum\":0}}}')";
  const char *want = "{\"age\":45,\"name\":\"Grace\"}";
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK ||
      sqlite3_step(statement) != SQLITE_ROW) {
    fprintf(stderr, "extra_init: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  const char *got = (const char *)sqlite3_column_text(statement, 0);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "extra_init: %s, not %s\n", got, want);
    return 1;
  }
  printf("extra_init: SQLite %s with sqlite3_wasm_extra_init.c: a round trip, no extension loaded\n", sqlite3_libversion());
  sqlite3_finalize(statement);
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
