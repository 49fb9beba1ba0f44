/*
 * embed.c — the amalgamation linked into a program (SQLITE_CORE), as an
 * application embeds it: the extension registered for every connection with
 * sqlite3_auto_extension, and the core used directly beside it with the C
 * library's allocator.  A schema compiled before the database is opened and
 * freed after it is closed must come and go through that allocator, whatever
 * the extension does; valgrind runs this.
 */
#include <sqlite3.h>

#include "shorn.h"

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

int main(void) {
  shorn_schema *schema = NULL;
  shorn_error error;
  shorn_buffer payload = {0};
  CHECK(shorn_schema_compile(person, sizeof person - 1, NULL, &schema, &error) == SHORN_OK);
  CHECK(shorn_encode(schema, grace, sizeof grace - 1, 0, &payload, &error) == SHORN_OK);

  CHECK(sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init) == SQLITE_OK);
  sqlite3 *db = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  char sql[1024], got[256], hex[64];
  for (size_t i = 0; i < payload.length; i++) snprintf(hex + 2 * i, 3, "%02X", payload.data[i]);
  snprintf(sql, sizeof sql, "SELECT hex(shorn_encode('%s', '%s'))", grace, person);
  query(db, sql, got, sizeof got);
  CHECK_STR(got, hex);
  snprintf(sql, sizeof sql, "SELECT shorn_decode(x'%s', '%s')", hex, person);
  query(db, sql, got, sizeof got);
  CHECK_STR(got, grace_decoded);
  /* The validation keywords, through the amalgamation's pattern matcher. */
  snprintf(sql, sizeof sql, "SELECT shorn_check('%s', '%s')", grace_at_500, person_bounded);
  query(db, sql, got, sizeof got);
  CHECK_STR(got, "Too big: expected at most 150 at $.age");
  snprintf(sql, sizeof sql, "SELECT shorn_check('{\"name\":\"grace\",\"age\":45,\"sex\":\"F\"}', '%s')",
           person_bounded);
  query(db, sql, got, sizeof got);
  CHECK_STR(got, "Invalid string: must match pattern \"^\\\\p{Lu}\" at $.name");
  query(db, "SELECT shorn_version()", got, sizeof got);
  CHECK_STR(got, SHORN_VERSION);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  /* After the connection: the core's own schema and buffer still work and
   * free cleanly. */
  shorn_buffer json = {0};
  CHECK(shorn_decode(schema, payload.data, payload.length, 0, &json, &error) == SHORN_OK);
  shorn_buffer_free(&json);
  shorn_buffer_free(&payload);
  shorn_schema_free(schema);
  sqlite3_reset_auto_extension();
  return check_report("embed");
}
