/*
 * nomem.c — out of memory through SQL.
 *
 * The extension is linked in (SQLITE_CORE), and SQLite's allocator, which
 * the extension's core allocates through too, is replaced before
 * sqlite3_initialize by one that counts and can fail the Nth call
 * (SQLITE_CONFIG_MALLOC, wrapping SQLite's own).  A small workload of the
 * SQL functions, with inline schemas and through the registry, is run once
 * to count its allocations and record its results, then for every N up to
 * that count plus one (or every Kth N with --every K) with the Nth
 * allocation failing, alone and with every call after it.  Each statement
 * either gives the result it gave the first time or fails: with
 * SQLITE_NOMEM, or with the error it gives anyway.  And after sqlite3_close
 * and sqlite3_shutdown no allocation is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../support/counting.h"
#include "shorn_sqlite.h"

/* ---- the allocator ------------------------------------------------------ */

static sqlite3_mem_methods system_methods;

/* Blocks and bytes outstanding, by SQLite's own size of each block. */
static void *mem_malloc(int n) {
  if (counting_should_fail(&counted)) return NULL;
  void *p = system_methods.xMalloc(n);
  if (p) counted.blocks++, counted.current += (size_t)system_methods.xSize(p);
  return p;
}

static void mem_free(void *p) {
  if (!p) return;
  counted.blocks--;
  counted.current -= (size_t)system_methods.xSize(p);
  system_methods.xFree(p);
}

static void *mem_realloc(void *p, int n) {
  if (counting_should_fail(&counted)) return NULL;
  size_t old = (size_t)system_methods.xSize(p);
  void *q = system_methods.xRealloc(p, n);
  if (q) counted.current = counted.current - old + (size_t)system_methods.xSize(q);
  return q;
}

static int mem_size(void *p) { return system_methods.xSize(p); }
static int mem_roundup(int n) { return system_methods.xRoundup(n); }
static int mem_init(void *data) { return system_methods.xInit(data); }
static void mem_shutdown(void *data) { system_methods.xShutdown(data); }

/* ---- the workload ------------------------------------------------------- */

#define PERSON                                                                                   \
  "'{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":"       \
  "\"integer\",\"minimum\":0},\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]},\"tags\":{\"type\":\"array\"," \
  "\"items\":{\"type\":\"string\"},\"uniqueItems\":true,\"x-shorn\":\"set\"}},\"required\":["     \
  "\"name\",\"age\",\"sex\"],\"additionalProperties\":false}'"
/* Versions of a name (docs/registry.md): pet's version 2 drops a member,
 * widens age to a number and adds kind with a default; BAD_PET's age
 * cannot read version 1's. */
#define PET1                                                                                       \
  "'{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"}," \
  "\"old\":{\"type\":\"boolean\"}},\"required\":[\"name\",\"age\"]}'"
#define PET2                                                                                       \
  "'{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"number\"}," \
  "\"kind\":{\"type\":\"string\",\"default\":\"dog\"}},\"required\":[\"name\",\"age\",\"kind\"]}'"
#define BAD_PET                                                                                    \
  "'{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"string\"}}," \
  "\"required\":[\"name\",\"age\"]}'"
#define GRACE "'{\"name\":\"Grace\",\"age\":45,\"sex\":\"F\",\"tags\":[\"a\",\"b\"]}'"
/* With patterns, one with backreferences and alternatives that make the
 * matcher backtrack deep on a long name. */
#define BOUNDED                                                                                         \
  "'{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":400,"           \
  "\"allOf\":[{\"pattern\":\"^(?:(a)|b|\\\\1|[A-Za-z])*$\"},{\"pattern\":\"^\\\\p{Lu}\"}]},"                      \
  "\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150},\"sex\":{\"enum\":[\"M\",\"F\",\"X\"]}},"  \
  "\"required\":[\"name\",\"age\",\"sex\"]}'"
#define GRACE_LONG                                                                                      \
  "'{\"name\":\"Graceabababababababababababababababababababababababababababababababababababababababab" \
  "abababababababababababababababababababababababababababababababababababababababababababababababab\","  \
  "\"age\":45,\"sex\":\"F\"}'"

static const struct {
  const char *sql;
  bool fails; /* an error even with all the memory it wants */
} statements[] = {
    {"SELECT hex(shorn_encode(" GRACE ", " PERSON "))", false},
    {"SELECT shorn_decode(x'002d05477261636500', " PERSON ")", false},
    {"SELECT shorn_decode(shorn_encode(" GRACE ", " PERSON ", 3), " PERSON ", 3)", false},
    {"SELECT shorn_fingerprint(" PERSON "), shorn_fingerprint(" PERSON ", 4), shorn_signature(" PERSON ")",
     false},
    {"SELECT json_extract(shorn_decode(x'002d05477261636500', " PERSON "), '$.name')", false},
    {"SELECT shorn_encode('{\"age\":-1}', " PERSON ")", true},
    {"SELECT shorn_decode(x'002d0547', " PERSON ")", true},
    {"CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry", false},
    {"INSERT INTO shorn_schemas(name, schema) VALUES ('person', " PERSON ")", false},
    {"SELECT name, fingerprint FROM shorn_schemas", false},
    {"SELECT hex(shorn_encode(" GRACE ", 'person', 4))", false},
    {"SELECT shorn_decode(shorn_encode(" GRACE ", 'person', 4))", false},
    {"SELECT shorn_decode(x'002d05477261636500', 'person'), shorn_fingerprint('person')", false},
    {"SELECT shorn_decode(x'002d054772616365', 'nobody')", true},
    {"SELECT shorn_signature('{\"type\":\"strin\"}')", true},
    /* query_functions.c: scalars, several paths, escaped keys, the table-valued
     * functions with and without a fingerprint, refusals. */
    {"SELECT shorn_extract(x'002d05477261636500', " PERSON ", '$.name'),"
     " shorn_extract(x'002d05477261636500', " PERSON ", '$.age', '$.tags', '$.x')", false},
    {"SELECT shorn_type(x'002d05477261636500', " PERSON ", '$.name'), shorn_type(x'002d05477261636500', " PERSON "),"
     " shorn_valid(x'002d05477261636500', " PERSON "), shorn_error(x'002d0547', " PERSON ")", false},
    {"SELECT shorn_extract(x'002d05477261636500', 'person', '$.a\\\"b')", false},
    {"SELECT * FROM shorn_each(x'002d05477261636500', " PERSON ")", false},
    {"SELECT * FROM shorn_tree(x'002d05477261636500', 'person', '$')", false},
    {"SELECT * FROM shorn_tree(shorn_encode(" GRACE ", 'person', 3), 'person', 3)", false},
    {"SELECT shorn_extract(x'002d0547', 'person', '$')", true},
    {"SELECT * FROM shorn_each(x'002d05477261636500', 'person', '$[')", true},
    /* paths.c: a schema's places, by its text and by its name, and the
     * decoder's refusal that names the fingerprint a payload starts with. */
    {"SELECT * FROM shorn_paths(" PERSON ")", false},
    {"SELECT * FROM shorn_paths('{\"$ref\":\"#/$defs/n\",\"$defs\":{\"n\":{\"type\":\"object\","
     "\"properties\":{\"next\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}}}}}')", false},
    {"SELECT * FROM shorn_paths('nobody')", true},
    {"SELECT shorn_decode(shorn_encode(" GRACE ", 'person', 3), 'person')", true},
    /* Dispatch on fingerprints narrower than the registry's: every row
     * compiled and fingerprinted, one found, several (98 at 1 byte), none. */
    {"INSERT INTO shorn_schemas(name, schema) VALUES ('nothing', '{\"type\":\"null\"}'),"
     " ('counter', '{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"integer\"}},"
     "\"required\":[\"c\"]}')",
     false},
    {"SELECT shorn_decode(shorn_encode(" GRACE ", 'person', 1), 1),"
     " shorn_extract(shorn_encode(" GRACE ", 'person', 2), 2, '$.name'),"
     " shorn_valid(shorn_encode('null', 'nothing', 2), 2)",
     false},
    {"SELECT * FROM shorn_each(shorn_encode(" GRACE ", 'person', 3), 3)", false},
    {"SELECT shorn_decode(x'98', 1)", true},
    {"SELECT shorn_type(x'000000', 3)", true},
    /* The validation keywords: patterns compiled with the schema, matched
     * in lent match data, or in the call's own for a string that needs
     * more room to backtrack in. */
    {"SELECT shorn_check(" GRACE_LONG ", " BOUNDED "), shorn_check(" GRACE ", " BOUNDED ")", false},
    {"SELECT shorn_check_payload(shorn_encode_unchecked('{\"name\":\"x\",\"age\":500,\"sex\":\"F\"}', " BOUNDED
     "), " BOUNDED ")", false},
    {"SELECT shorn_encode('{\"name\":\"Grace\",\"age\":500,\"sex\":\"F\"}', " BOUNDED ")", true},
    {"SELECT shorn_check('\"x\"', '{\"type\":\"string\",\"pattern\":\"(\"}')", true},
    /* edit_functions.c: a field in place, several edits as one (a member
     * added, an element appended to a Set, a JSON value), a removal, a
     * merge patch, the fingerprint kept; refusals. */
    {"SELECT hex(shorn_set(x'002d05477261636500', " PERSON ", '$.age', 46)),"
     " hex(shorn_set(x'002d05477261636500', 'person', '$.tags[#]', 'c', '$.name', json('\"Ada\"'))),"
     " hex(shorn_remove(x'002d05477261636500', 'person', '$.tags[0]')),"
     " hex(shorn_insert(shorn_encode(" GRACE ", 'person', 2), 2, '$.tags[#]', 'z')),"
     " hex(shorn_patch(x'002d05477261636500', " PERSON ", '{\"age\":7,\"tags\":[\"q\"]}'))",
     false},
    {"SELECT shorn_set(shorn_encode(" GRACE ", 'person'), 'person', '$.tags[#]', 'a')", true},
    {"SELECT shorn_remove(x'002d05477261636500', 'person', '$.name')", true},
    /* cache.c: a limit of one byte, so that each schema is refused admission
     * or evicts the one before, a constant schema pinned by its statement
     * meanwhile; names and fingerprints as aliases of their text. */
    {"SELECT shorn_config('cache_bytes', 1)", false},
    {"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 12) "
     "SELECT count(shorn_encode('{}', '{\"type\":\"object\",\"properties\":{\"k' || i || '\":{}}}')),"
     " count(shorn_decode(x'002d05477261636500', " PERSON ")), count(shorn_decode(x'002d05477261636500', 'person')),"
     " count(shorn_decode(shorn_encode('null', 'nothing', 4))) FROM k",
     false},
    {"SELECT shorn_config('cache_bytes', 268435456), shorn_stats() ->> 'entries' >= 0", false},
    {"SELECT shorn_decode(x'002d05477261636500', 'person'), shorn_decode(shorn_encode('null', 'nothing', 4)),"
     " shorn_stats() ->> 'misses' > 0",
     false},
    /* Versions: a fingerprinted name, rows of its version 1, a version 2
     * refused and one taken (each earlier version compiled and checked),
     * then every reader of a version-1 row by name upgrades it. */
    {"INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('pet', " PET1 ", 4)", false},
    {"CREATE TABLE pets(p BLOB)", false},
    {"INSERT INTO pets VALUES (shorn_encode('{\"name\":\"Rex\",\"age\":3,\"old\":true}', 'pet')),"
     " (shorn_encode('{\"name\":\"Tib\",\"age\":-7}', 'pet'))",
     false},
    {"INSERT INTO shorn_schemas(name, schema, version) VALUES ('pet', " BAD_PET ", 2)", true},
    {"INSERT INTO shorn_schemas(name, schema) VALUES ('pet', " PET2 ")", true},
    {"INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', " PET2 ", 2)", true},
    {"INSERT INTO shorn_schemas(name, schema, version) VALUES ('pet', " PET2 ", 2)", false},
    {"SELECT name, version, fp_bytes, fingerprint FROM shorn_schemas WHERE name = 'pet'", false},
    {"SELECT shorn_decode(p, 'pet'), shorn_extract(p, 'pet', '$.kind', '$.age'), shorn_type(p, 'pet', '$.kind'),"
     " shorn_valid(p, 'pet'), shorn_payload_version(p, 'pet'), shorn_decode(p) FROM pets",
     false},
    {"SELECT key, value, type FROM pets, shorn_each(pets.p, 'pet')", false},
    {"SELECT fullkey, atom FROM pets, shorn_tree(pets.p, 'pet')", false},
    {"SELECT hex(shorn_upgrade(p, 'pet')), shorn_payload_version(shorn_upgrade(p, 'pet'), 'pet'),"
     " shorn_decode(shorn_upgrade(p, 'pet'), 'pet') = shorn_decode(p, 'pet') FROM pets",
     false},
    {"SELECT hex(shorn_set(p, 'pet', '$.age', 4.5)) FROM pets", false},
    /* The validated encode of the newest version fills kind's default. */
    {"SELECT hex(shorn_encode('{\"name\":\"Tom\",\"age\":1.5}', 'pet')),"
     " shorn_decode(shorn_encode('{\"name\":\"Tom\",\"age\":1.5}', 'pet'), 'pet')",
     false},
    {"SELECT shorn_payload_version(x'00000000', 'pet'), shorn_payload_version(x'002d05477261636500', 'person')", false},
    {"SELECT shorn_decode(x'0000000000', 'pet')", true},
    {"SELECT shorn_upgrade(x'01', 'pet')", true},
    {"UPDATE shorn_schemas SET fp_bytes = 2 WHERE name = 'counter'", false},
    {"UPDATE shorn_schemas SET fp_bytes = 2 WHERE name = 'pet'", true},
    /* A registry made before versions: its table as the previous release
     * made it, read as version 1 of each name, bare; then given the new
     * columns by the first write, the old table kept. */
    {"DROP TABLE shorn_schemas_data", false},
    {"CREATE TABLE shorn_schemas_data(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, schema TEXT NOT NULL,"
     " signature TEXT NOT NULL, fingerprint TEXT NOT NULL UNIQUE)",
     false},
    {"INSERT INTO shorn_schemas_data(name, schema, signature, fingerprint) VALUES ('old', " PERSON ", shorn_signature("
     PERSON "), shorn_fingerprint(" PERSON ", 4))",
     false},
    {"SELECT name, version, fp_bytes FROM shorn_schemas", false},
    {"SELECT shorn_decode(x'002d05477261636500', 'old'), shorn_payload_version(x'002d05477261636500', 'old'),"
     " shorn_decode(shorn_encode(" GRACE ", 'old', 4))",
     false},
    {"INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('new', '{\"type\":\"string\"}', 4)", false},
    {"SELECT name, version, fp_bytes FROM shorn_schemas ORDER BY name", false},
    {"SELECT name FROM shorn_schemas_unversioned", false},
    {"SELECT shorn_decode(x'002d05477261636500', 'old'), shorn_decode(shorn_encode('\"s\"', 'new'), 'new')", false},
};

#define STATEMENTS (sizeof statements / sizeof *statements)

/* What a statement gave: its rows as text, or its error code. */
typedef struct result {
  int code;
  char text[1024];
} result;

static void run_statement(sqlite3 *db, const char *sql, result *r) {
  sqlite3_stmt *stmt = NULL;
  size_t used = 0;
  r->text[0] = 0;
  r->code = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  while (r->code == SQLITE_OK && stmt) {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      r->code = sqlite3_extended_errcode(db);
      break;
    }
    for (int i = 0; i < sqlite3_column_count(stmt); i++) {
      const unsigned char *t = sqlite3_column_text(stmt, i);
      /* A column that cannot be made text is SQLite out of memory too. */
      if (!t && sqlite3_column_type(stmt, i) != SQLITE_NULL) {
        r->code = SQLITE_NOMEM;
        break;
      }
      used += (size_t)snprintf(r->text + used, sizeof r->text - used, "%s|", t ? (const char *)t : "NULL");
      if (used >= sizeof r->text) used = sizeof r->text - 1;
    }
  }
  if (r->code != SQLITE_OK) snprintf(r->text, sizeof r->text, "%s", sqlite3_errmsg(db));
  sqlite3_finalize(stmt);
}

/* Open a connection, register the extension and run the statements, up to
 * the first that fails where `reference` (NULL on the first run) did not,
 * since the ones after may depend on it; returns the open's result and sets
 * *ran. */
static int run(result r[STATEMENTS], const result *reference, size_t *ran) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open(":memory:", &db);
  if (rc == SQLITE_OK) rc = sqlite3_shorn_init(db, NULL, NULL);
  for (*ran = 0; rc == SQLITE_OK && *ran < STATEMENTS;) {
    size_t i = (*ran)++;
    run_statement(db, statements[i].sql, &r[i]);
    if (reference && r[i].code != SQLITE_OK && reference[i].code == SQLITE_OK) break;
  }
  sqlite3_close(db);
  sqlite3_shutdown();
  return rc;
}

/* A statement that gave what it gave the first time, or failed: out of
 * memory, or with the error it gives anyway. */
static bool acceptable(const result *got, const result *want) {
  if (got->code == SQLITE_OK) return want->code == SQLITE_OK && strcmp(got->text, want->text) == 0;
  return (got->code & 0xFF) == SQLITE_NOMEM || (want->code != SQLITE_OK && got->code == want->code);
}

/* With `every` above 1, the 1st, (1 + every)th, ... allocation fails, and
 * the one past the last is tried as always. */
static unsigned long only; /* --at N: that allocation alone */

static int sweep(const result reference[STATEMENTS], unsigned long calls, unsigned long every, bool persistent) {
  int bad = 0;
  for (unsigned long n = 1; n <= calls + 1; n++) {
    if ((n - 1) % every != 0 && n != calls + 1) continue;
    if (only && n != only) continue;
    result r[STATEMENTS];
    memset(r, 0, sizeof r);
    counting_mark();
    counted.fail_at = n;
    counted.persistent = persistent;
    size_t ran;
    int open = run(r, reference, &ran);
    bool ok = open == SQLITE_OK || (open & 0xFF) == SQLITE_NOMEM;
    for (size_t i = 0; ok && i < ran; i++) {
      ok = acceptable(&r[i], &reference[i]);
      if (!ok && bad < 5)
        fprintf(stderr, "statement %zu: %d %s, want %d %s\n", i, r[i].code, r[i].text,
                reference[i].code, reference[i].text);
    }
    ok = ok && (counted.failures > 0) == (n <= calls) && counted.blocks == 0 && counted.current == 0;
    if (!ok && bad++ < 5)
      fprintf(stderr, "failing allocation %lu of %lu (%s): open %d, %zu blocks left\n", n, calls,
              persistent ? "and after" : "alone", open, counted.blocks);
  }
  return bad;
}

int main(int argc, char **argv) {
  /* --every N: a sample of the failing allocations, for valgrind's pace;
   * --print: each statement's result with all the memory it wants, and no
   * sweep; --at N: the Nth allocation failed alone and with all after it,
   * to look into a failure. */
  bool sampled = argc == 3 && strcmp(argv[1], "--every") == 0;
  bool print = argc == 2 && strcmp(argv[1], "--print") == 0;
  if (argc == 3 && strcmp(argv[1], "--at") == 0) only = strtoul(argv[2], NULL, 10), sampled = true;
  unsigned long every = sampled && !only ? strtoul(argv[2], NULL, 10) : 1;
  if ((argc != 1 && !sampled && !print) || every == 0) {
    fprintf(stderr, "usage: %s [--every N | --print | --at N]\n", argv[0]);
    return 2;
  }
  static sqlite3_mem_methods counting_methods = {mem_malloc, mem_free,     mem_realloc, mem_size,
                                                 mem_roundup, mem_init, mem_shutdown, NULL};
  if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &system_methods) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_MALLOC, &counting_methods) != SQLITE_OK) {
    fprintf(stderr, "sql_nomem: cannot replace SQLite's allocator\n");
    return 1;
  }
  /* Lookaside would hide SQLite's small allocations from the count. */
  sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);

  result reference[STATEMENTS];
  memset(reference, 0, sizeof reference);
  counting_mark();
  size_t ran;
  int failed = run(reference, NULL, &ran) != SQLITE_OK;
  unsigned long calls = counted.calls;
  failed |= counted.blocks != 0;
  /* The workload does what it is there for: the statements meant to
   * fail fail, and the rest give rows. */
  for (size_t i = 0; i < STATEMENTS; i++) {
    if ((reference[i].code != SQLITE_OK) != statements[i].fails) {
      fprintf(stderr, "statement %zu: %d %s\n", i, reference[i].code, reference[i].text);
      failed = 1;
    }
  }
  if (print) {
    for (size_t i = 0; i < STATEMENTS; i++) printf("%zu: %d %s\n", i, reference[i].code, reference[i].text);
    return failed;
  }
  int bad = failed ? 0 : sweep(reference, calls, every, false) + sweep(reference, calls, every, true);
  printf("sql_nomem: %zu statements, %lu allocations, %s failed alone and with all after it: %s\n",
         STATEMENTS, calls, every == 1 ? "each" : "a sample", failed || bad ? "FAILED" : "ok");
  return failed || bad ? 1 : 0;
}
