/*
 * schemas.c — what finding and compiling schemas costs: how many times a
 * 1,000,000-row query compiles its schema, given by name, from a column or
 * as text; and --types, one table of events of 1 to 3,000 types read
 * through the schema cache, with a typical schema's compile from C.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/regex/pattern.h"
#include "core/schema/schema.h"

#define MILLION 1000000

/* Each case decodes 1,000,000 person rows (each row as many times over as
 * it takes) on a fresh connection, so the schemas it compiles are counted
 * from nothing; the query runs once per repetition, all cases in turn. */
static void compile_case_open(compile_case *c, const char *path, const char *extension, int rows, int reps) {
  c->db = open_database(path, extension);
  c->compilations = query_int(c->db, "SELECT shorn_stats() ->> '$.compilations'");
  char *sql = sqlite3_mprintf(
      "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d) "
      "SELECT count(shorn_decode(shorn, %s)) FROM (SELECT p.shorn, s.name, s.schema "
      "FROM bench_schema s CROSS JOIN k CROSS JOIN person_shorn p WHERE s.name = 'person' LIMIT %d)",
      (MILLION + rows - 1) / rows, c->schema_sql, MILLION);
  c->st = prepare(c->db, sql);
  sqlite3_free(sql);
  c->seconds = calloc((size_t)reps, sizeof(double));
  if (!c->seconds) die("out of memory");
}

/* The schemas compiled over all the repetitions; closes the connection. */
static void compile_case_close(compile_case *c) {
  sqlite3_finalize(c->st);
  c->compilations = query_int(c->db, "SELECT shorn_stats() ->> '$.compilations'") - c->compilations;
  sqlite3_close(c->db);
}

/* The cases, each on a connection of its own, all of one repetition before
 * any of the next. */
void measure_compile_cases(compile_case cases[COMPILE_CASES], const char *path, const char *extension,
                           int rows, int reps) {
  for (int i = 0; i < COMPILE_CASES; i++) compile_case_open(&cases[i], path, extension, rows, reps);
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < COMPILE_CASES; i++) cases[i].seconds[r] = run(cases[i].db, cases[i].st);
  for (int i = 0; i < COMPILE_CASES; i++) compile_case_close(&cases[i]);
}

void print_compile_cases(compile_case cases[COMPILE_CASES], int reps) {
  printf("\n## Schema compilations in a 1,000,000-row query\n\n");
  printf("`shorn_decode(shorn, S)` over 1,000,000 person rows, %d times, each case on a connection of "
         "its own opened for it; compilations as `shorn_stats()` counts them over all %d runs.\n\n",
         reps, reps);
  printf("| schema argument S | compilations | ns/row |\n| --- | ---: | ---: |\n");
  for (int i = 0; i < COMPILE_CASES; i++) {
    printf("| %s | %lld | %.0f |\n", cases[i].what, (long long)cases[i].compilations,
           median(cases[i].seconds, reps) * 1e9 / MILLION);
    free(cases[i].seconds);
  }
}

/* --types: one table of events of many types, one registered schema per
 * type, read by the type's name, by its schema text (joined from a table of
 * types) and by the payload's 4-byte fingerprint; 1 to 3,000 types, taken
 * round robin or Zipf-distributed (s = 1).  Each type's schema is the same
 * 23 fields, as an application's event types are alike, with one property
 * named after the type so that every type has a wire shape of its own. */
#define TYPES_MAX 3000
static const int type_counts[] = {1, 32, 64, 100, 300, 3000};
enum { TYPE_COUNTS = sizeof type_counts / sizeof *type_counts };
static const char *const distributions[] = {"round robin", "Zipf"};

/* Type k of n with probability proportional to 1/(k+1). */
static int zipf_type(const double *cumulative, int n) {
  double u = (double)(fixture_random() >> 11) / 9007199254740992.0 * cumulative[n - 1];
  int low = 0, high = n - 1;
  while (low < high) {
    int middle = (low + high) / 2;
    if (cumulative[middle] < u)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

static void build_types(sqlite3 *db, int rows) {
  fprintf(stderr, "bench: building %d types\n", TYPES_MAX);
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
           "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;"
           "CREATE TABLE types(id INTEGER PRIMARY KEY, name TEXT NOT NULL, schema TEXT NOT NULL); BEGIN");
  sqlite3_stmt *insert = prepare(db, "INSERT INTO types VALUES (?1, 'type_' || ?1, ?2)");
  for (int t = 0; t < TYPES_MAX; t++) {
    char *schema = type_schema(t);
    sqlite3_bind_int(insert, 1, t);
    sqlite3_bind_text(insert, 2, schema, -1, sqlite3_free);
    if (sqlite3_step(insert) != SQLITE_DONE) die("type %d: %s", t, sqlite3_errmsg(db));
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "INSERT INTO shorn_schemas(name, schema) SELECT name, schema FROM types; COMMIT");
  static double cumulative[TYPES_MAX];
  shorn_buffer json = {0};
  for (int c = 0; c < TYPE_COUNTS; c++)
    for (int d = 0; d < 2; d++) {
      int n = type_counts[c];
      fprintf(stderr, "bench: events of %d types, %s, %d rows\n", n, distributions[d], rows);
      char *sql = sqlite3_mprintf("CREATE TABLE events_%d_%d(id INTEGER PRIMARY KEY, type_id INTEGER NOT NULL, "
                                  "name TEXT NOT NULL, payload BLOB NOT NULL, prefixed BLOB NOT NULL); BEGIN",
                                  n, d);
      exec(db, sql);
      sqlite3_free(sql);
      sql = sqlite3_mprintf("INSERT INTO events_%d_%d(type_id, name, payload, prefixed) "
                            "SELECT ?1, 'type_' || ?1, shorn_encode(?2, 'type_' || ?1), "
                            "shorn_encode(?2, 'type_' || ?1, 4)",
                            n, d);
      insert = prepare(db, sql);
      sqlite3_free(sql);
      for (int k = 0; k < n; k++) cumulative[k] = (k ? cumulative[k - 1] : 0) + 1.0 / (k + 1);
      for (int i = 0; i < rows; i++) {
        int t = d == 0 ? i % n : zipf_type(cumulative, n);
        json.length = 0;
        typed_event(&json, t);
        sqlite3_bind_int(insert, 1, t);
        sqlite3_bind_text(insert, 2, (const char *)json.data, (int)json.length, SQLITE_STATIC);
        if (sqlite3_step(insert) != SQLITE_DONE) die("events_%d_%d row %d: %s", n, d, i, sqlite3_errmsg(db));
        sqlite3_reset(insert);
      }
      sqlite3_finalize(insert);
      exec(db, "COMMIT");
    }
  shorn_buffer_free(&json);
}

static char *types_sql(int count, int distribution, int dispatch, int extract) {
  const char *call[3][2] = {
      {"shorn_decode(payload, name)", "shorn_extract(payload, name, '$.id')"},
      {"shorn_decode(payload, t.schema)", "shorn_extract(payload, t.schema, '$.id')"},
      {"shorn_decode(prefixed)", "shorn_extract(prefixed, 4, '$.id')"},
  };
  return sqlite3_mprintf("SELECT count(%s) FROM events_%d_%d%s", call[dispatch][extract], count, distribution,
                         dispatch == 1 ? " JOIN types t ON t.id = type_id" : "");
}

/* A typical schema's compile, from C: microseconds and allocations each, and
 * the bytes the compiled schema holds. */
typedef struct counting {
  size_t allocations, live, bytes;
} counting;
static void *counting_realloc(void *context, void *block, size_t size) {
  counting *c = context;
  if (!block) c->allocations++;
  size_t *p = realloc(block ? (size_t *)block - 1 : NULL, size + sizeof(size_t));
  if (!p) return NULL;
  if (block) c->live -= p[0];
  p[0] = size;
  c->live += size;
  if (c->live > c->bytes) c->bytes = c->live;
  return p + 1;
}
static void counting_free(void *context, void *block) {
  counting *c = context;
  if (!block) return;
  size_t *p = (size_t *)block - 1;
  c->live -= p[0];
  free(p);
}

typedef struct compile_cost {
  double microseconds, allocations;
  size_t held;
} compile_cost;

/* A type's schema compiled from C, its patterns compiled for it (`engine`
 * NULL) or, as the extension compiles it, taken from an engine where
 * another type's schema compiled them. */
static compile_cost measure_compile(pattern_engine *engine) {
  char *text = type_schema(7);
  counting c = {0};
  shorn_allocator a = {counting_realloc, counting_free, &c};
  enum { COMPILES = 2000 };
  shorn_schema *s;
  shorn_error e;
  double start = cpu_seconds();
  for (int i = 0; i < COMPILES; i++) {
    if (schema_compile_sharing(text, strlen(text), &a, engine, &s, &e)) die("type schema: %s", e.message);
    if (i < COMPILES - 1) shorn_schema_free(s);
  }
  compile_cost cost = {(cpu_seconds() - start) * 1e6 / COMPILES, (double)c.allocations / COMPILES, c.live};
  shorn_schema_free(s);
  sqlite3_free(text);
  return cost;
}

static void measure_compiles(compile_cost *alone, compile_cost *shared) {
  *alone = measure_compile(NULL);
  pattern_engine *engine = pattern_engine_new(NULL);
  char *other = type_schema(8);
  shorn_schema *s;
  shorn_error e;
  if (!engine || schema_compile_sharing(other, strlen(other), NULL, engine, &s, &e)) die("type schema: out of memory");
  *shared = measure_compile(engine);
  shorn_schema_free(s);
  pattern_engine_free(engine);
  sqlite3_free(other);
}

void run_types(const char *path, const char *extension, int rows, int reps) {
  if (unlink(path) != 0 && errno != ENOENT) die("%s: %s", path, strerror(errno));
  sqlite3 *db = open_database(path, extension);
  build_types(db, rows);
  sqlite3_close(db);
  /* A connection for each number of types, as an application reading one
   * table has: its cache holds that table's schemas. */
  enum { QUERIES = TYPE_COUNTS * 2 * 3 * 2 };
  static sqlite3 *dbs[TYPE_COUNTS];
  static sqlite3_stmt *st[QUERIES];
  static double seconds[QUERIES][REPS_MAX];
  for (int c = 0; c < TYPE_COUNTS; c++) dbs[c] = open_database(path, extension);
  for (int q = 0; q < QUERIES; q++) {
    char *sql = types_sql(type_counts[q / 12], q / 6 % 2, q / 2 % 3, q % 2);
    st[q] = prepare(dbs[q / 12], sql);
    sqlite3_free(sql);
  }
  fprintf(stderr, "bench: %d queries, %d repetitions\n", QUERIES, reps);
  for (int q = 0; q < QUERIES; q++) run(dbs[q / 12], st[q]);
  for (int r = 0; r < reps; r++)
    for (int q = 0; q < QUERIES; q++) seconds[q][r] = run(dbs[q / 12], st[q]);
  char *stats = NULL;
  sqlite3_stmt *s = prepare(dbs[TYPE_COUNTS - 1], "SELECT shorn_stats()");
  if (sqlite3_step(s) == SQLITE_ROW) stats = sqlite3_mprintf("%s", sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  for (int q = 0; q < QUERIES; q++) sqlite3_finalize(st[q]);
  for (int c = 0; c < TYPE_COUNTS; c++) sqlite3_close(dbs[c]);
  compile_cost alone, shared;
  measure_compiles(&alone, &shared);

  printf("\n## One table, many types\n\n");
  printf("`SELECT count(f) FROM events` over %d rows of events of 1 to %d types, one registered schema "
         "(23 fields, two patterns) per type: f is `shorn_decode` or `shorn_extract(…, '$.id')`, the "
         "schema by the type's name (a column), by its text (joined from the types table) or by the "
         "payload's 4-byte fingerprint; µs/row, median of %d, one connection, after one untimed run; "
         "in brackets, the ratio to 1 type read the same way.\n\n",
         rows, TYPES_MAX, reps);
  printf("| types | order | decode by name | by text | by fingerprint | extract by name | by text | "
         "by fingerprint |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int c = 0; c < TYPE_COUNTS; c++)
    for (int d = 0; d < 2; d++) {
      if (c == 0 && d == 1) continue; /* one type is one type, in any order */
      printf("| %d | %s |", type_counts[c], distributions[d]);
      for (int extract = 0; extract < 2; extract++)
        for (int k = 0; k < 3; k++) {
          int q = ((c * 2 + d) * 3 + k) * 2 + extract, one = k * 2 + extract;
          double us = median(seconds[q], reps) * 1e6 / rows;
          printf(" %.2f (%.2f×) |", us, median(seconds[q], reps) / median(seconds[one], reps));
        }
      printf("\n");
    }
  printf("\nCompiling the type's schema from C: %.0f µs and %.0f allocations; the compiled schema holds "
         "%zu bytes. As the extension compiles it, its two patterns already compiled for another type's: "
         "%.0f µs and %.0f allocations, %zu bytes of its own. The %d types' connection's `shorn_stats()` "
         "after the run: `%s`\n",
         alone.microseconds, alone.allocations, alone.held, shared.microseconds, shared.allocations, shared.held,
         TYPES_MAX, stats ? stats : "?");
  sqlite3_free(stats);
}
