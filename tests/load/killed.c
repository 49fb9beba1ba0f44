/*
 * killed.c — a writer killed with SIGKILL at random points, over and over,
 * and the database checked after every kill.
 *
 *   killed --extension PATH --dir DIR [--kills N] [--seed S] [--max-delay-us U]
 *
 * Two databases in DIR, one in WAL mode (synchronous=NORMAL) and one with a
 * rollback journal (journal_mode=DELETE, synchronous=FULL), take the kills
 * in turn.  Each round forks a writer that opens the database, loads the
 * extension as users do, and loops over transactions of random size: rows
 * shorn_encode(json, name, 4) whose JSON follows from the row's id and its
 * schema's number, rows of a table with CHECK (shorn_valid(...)) and an
 * index on shorn_extract, and registry operations (register, rename,
 * revise the text, delete, and refused ones, some inside savepoints rolled
 * back), each mirrored in an ordinary table, model, in the same
 * transaction.  It checks as it goes that what must be refused is, and
 * that the names a rolled-back savepoint made resolve no more; anything
 * unexpected ends it, and a writer that ends by anything but SIGKILL fails
 * the run.  After each COMMIT it reports the transaction's number on a
 * pipe.  The driver sends SIGKILL after a random delay (microseconds to
 * tens of milliseconds), then opens the database and checks:
 *   - PRAGMA integrity_check is ok (it compares the index on shorn_extract
 *     with its table too);
 *   - no committed transaction is lost: the database holds the last one
 *     reported, or the one after it when the kill came between its COMMIT
 *     and its report; and a transaction is all there or not at all (its
 *     rows are exactly the ids it counted);
 *   - every row decodes, with its schema's text and by its fingerprint
 *     through the registry, to the JSON made again from its id;
 *   - the registry: the virtual table shows exactly the shadow table's rows;
 *     each row's signature and fingerprint are its schema text's, computed
 *     again; each name resolves to its fingerprint; lookups by name,
 *     fingerprint and rowid find the row; names and fingerprints are
 *     unique; and the rows are those of model, schema text included;
 *   - the migration: a name, pet, whose payloads carry a 4-byte
 *     fingerprint, has rows of its version 1 written, then its version 2
 *     registered, then its rows rewritten UPDATE ... SET p =
 *     shorn_upgrade(p, 'pet') WHERE rowid BETWEEN ? AND ? a batch a
 *     transaction, then all dropped and begun again; every row reads by
 *     name (shorn_decode) as its id says in the newest version's shape,
 *     shorn_payload_version says version 2 of exactly the rows up to the
 *     last batch committed and 1 of the rest, and the counts per version
 *     add up to the rows.
 * The seed is printed first, so that a failure's schedule can be run again.
 */
#define _POSIX_C_SOURCE 200809L /* fork, kill, pselect, clock_gettime under -std=c11 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* Wire shapes the writer registers and drops, and one more, CHECKED, for
 * the table with the CHECK constraint and the index, which is never
 * renamed nor deleted (docs/registry.md: an index keeps what its name
 * meant). */
#define SHAPES 40
#define CHECKED SHAPES

/* The writer deletes its oldest rows past this many, so that each check
 * reads a bounded table and pages are freed and reused under the kills. */
#define ROWS_KEPT_MAX 2000
#define ROWS_KEPT_MIN 1000

/* How long a writer may take to open the database before the driver gives
 * up on it, in microseconds. */
#define OPEN_TIMEOUT 10000000

/* What the writer reports on its pipe. */
enum { REPORT_OPENED, REPORT_BEGIN, REPORT_COMMIT };

/* All of one type, so that no padding goes down the pipe unset. */
typedef struct report {
  int64_t kind;
  int64_t txn; /* REPORT_COMMIT: the transaction's number, and meta's row after it */
  int64_t lo, hi, ops;
} report;

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

static uint64_t random_next(uint64_t *state) { return mix((*state)++); }

/* ---- the schemas and the rows, made again by the checker ----------------- */

static void schema_text(sqlite3_str *s, int shape, int revision) {
  if (shape == CHECKED) {
    sqlite3_str_appendf(s,
                        "{\"type\":\"object\",\"description\":\"checked, revision %d\",\"properties\":"
                        "{\"key\":{\"type\":\"integer\",\"minimum\":0},\"text\":{\"type\":\"string\"}},"
                        "\"required\":[\"key\",\"text\"],\"additionalProperties\":false}",
                        revision);
    return;
  }
  static const char *const kinds[] = {
      "{\"type\":\"string\"}",
      "{\"type\":\"integer\"}",
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}",
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"string\"}},"
      "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}",
  };
  sqlite3_str_appendf(s,
                      "{\"type\":\"object\",\"description\":\"shape %d, revision %d\",\"properties\":{"
                      "\"id\":{\"type\":\"integer\"},\"flag\":{\"type\":\"boolean\"},\"k%d\":%s,"
                      "\"note\":{\"type\":[\"string\",\"null\"]},\"ratio\":{\"type\":\"number\"},"
                      "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}},"
                      "\"required\":[\"id\",\"k%d\",\"tags\"],\"additionalProperties\":false}",
                      shape, revision, shape, kinds[shape % 4], shape);
}

/* A string from `h`: mostly short, one in fifty past a page (overflow
 * pages), letters with a two-byte character among them. */
static void string_value(sqlite3_str *s, int64_t id, uint64_t h) {
  uint64_t length = h % 50 == 0 ? 3000 + h % 5000 : h % 40;
  sqlite3_str_appendf(s, "\"s%lld:", (long long)id);
  for (uint64_t i = 0; i < length; i++) {
    if (i % 7 == 6)
      sqlite3_str_appendall(s, "\xc3\xa9");
    else
      sqlite3_str_appendchar(s, 1, (char)('a' + mix(h ^ i) % 26));
  }
  sqlite3_str_appendchar(s, 1, '"');
}

/* Row `id` of `shape` as shorn_decode writes it: keys in order, the
 * optional ones present as the id says. */
static void row_json(sqlite3_str *s, int64_t id, int shape) {
  uint64_t h = mix((uint64_t)id);
  sqlite3_str_appendchar(s, 1, '{');
  if (id % 2) sqlite3_str_appendf(s, "\"flag\":%s,", (h >> 1) & 1 ? "true" : "false");
  sqlite3_str_appendf(s, "\"id\":%lld,\"k%d\":", (long long)id, shape);
  switch (shape % 4) {
    case 0: string_value(s, id, h); break;
    case 1: sqlite3_str_appendf(s, "%lld", (long long)(h % ((uint64_t)1 << 53)) - ((long long)1 << 52)); break;
    case 2: {
      sqlite3_str_appendchar(s, 1, '[');
      for (uint64_t j = 0; j < (h >> 8) % 4; j++) sqlite3_str_appendf(s, "%s\"e%lld.%d\"", j ? "," : "", (long long)id, (int)j);
      sqlite3_str_appendchar(s, 1, ']');
      break;
    }
    default:
      sqlite3_str_appendf(s, "{\"a\":%lld,\"b\":", (long long)(h >> 40) - (1 << 23));
      string_value(s, id, h >> 3);
      sqlite3_str_appendchar(s, 1, '}');
  }
  if (id % 5) {
    if ((h >> 12) % 3 == 0)
      sqlite3_str_appendall(s, ",\"note\":null");
    else
      sqlite3_str_appendf(s, ",\"note\":\"n%lld\"", (long long)id);
  }
  if (id % 3)
    sqlite3_str_appendf(s, ",\"ratio\":%s%d.%s", (h >> 31) & 1 ? "-" : "", (int)((h >> 16) % 10000),
                        (h >> 30) & 1 ? "25" : "75");
  sqlite3_str_appendall(s, ",\"tags\":[");
  for (uint64_t j = 0; j < (h >> 20) % 6; j++)
    sqlite3_str_appendf(s, "%s%lld", j ? "," : "", (long long)(mix(h + j) % 2000001) - 1000000);
  sqlite3_str_appendall(s, "]}");
}

/* The row of table checked that row `id` brings, every fourth. */
static bool has_checked_row(int64_t id) { return id % 4 == 0; }
static int64_t checked_key(int64_t id) { return id % 97; }

static void checked_json(sqlite3_str *s, int64_t id) {
  sqlite3_str_appendf(s, "{\"key\":%lld,\"text\":\"c%lld\"}", (long long)checked_key(id), (long long)id);
}

/* ---- the migration ---------------------------------------------------------- */

/* pet's versions: version 2 widens legs to a number and adds kind, with a
 * default, so that version-1 rows read as version 2's. */
#define PET_V1                                                                                               \
  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"    \
  "\"legs\":{\"type\":\"integer\"}},\"required\":[\"id\",\"name\",\"legs\"],\"additionalProperties\":false}"
#define PET_V2                                                                                               \
  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"    \
  "\"legs\":{\"type\":\"number\"},\"kind\":{\"type\":\"string\",\"default\":\"cat\"}},"                   \
  "\"required\":[\"id\",\"name\",\"legs\",\"kind\"],\"additionalProperties\":false}"

/* Rows a version 1 writes before version 2 comes, a batch an INSERT, and
 * rows a batch of the UPDATE upgrades. */
#define PETS 60
#define PETS_INSERTED 10
#define PETS_UPGRADED 8

/* Pet `id` as written (version 1) or as read by name once version 2 is
 * registered. */
static void pet_json(sqlite3_str *s, int64_t id, bool newest) {
  sqlite3_str_appendf(s, "{\"id\":%lld,%s\"legs\":%d,\"name\":\"pet %lld\"}", (long long)id,
                      newest ? "\"kind\":\"cat\"," : "", (int)(mix((uint64_t)id) % 9), (long long)id);
}

/* ---- SQL helpers --------------------------------------------------------- */

/* The writer stops at its first surprise: the driver sees it exit rather
 * than die by SIGKILL, and fails. */
static void writer_fail(sqlite3 *db, const char *what) {
  fprintf(stderr, "killed: writer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
  _exit(2);
}

static void writer_exec(sqlite3 *db, const char *sql) {
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) writer_fail(db, sql);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) writer_fail(db, sql);
  return st;
}

/* Bind "?"s in order: 'i' an int64, 't' text. */
static void bind(sqlite3_stmt *st, const char *types, va_list ap) {
  for (int i = 0; types[i]; i++) {
    if (types[i] == 'i')
      sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
    else
      sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
  }
}

/* Run one statement of the writer, which must end as `expect` says:
 * SQLITE_DONE, or refused with SQLITE_CONSTRAINT or SQLITE_ERROR; returns
 * the rows it changed. */
static int writer_run(sqlite3 *db, int expect, const char *sql, const char *types, ...) {
  sqlite3_stmt *st = prepare(db, sql);
  va_list ap;
  va_start(ap, types);
  bind(st, types, ap);
  va_end(ap);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) rc = SQLITE_DONE;
  if ((rc & 0xff) != expect) {
    fprintf(stderr, "killed: writer: %s: \"%s\" where \"%s\" was due\n", sql, rc == SQLITE_DONE ? "done" : sqlite3_errmsg(db),
            sqlite3_errstr(expect));
    _exit(2);
  }
  sqlite3_finalize(st);
  return sqlite3_changes(db);
}

static char *text_of(sqlite3_str *s) {
  char *text = sqlite3_str_finish(s);
  if (!text) writer_fail(NULL, "out of memory");
  return text;
}

static char *schema_of(int shape, int revision) {
  sqlite3_str *s = sqlite3_str_new(NULL);
  schema_text(s, shape, revision);
  return text_of(s);
}

/* ---- the writer ---------------------------------------------------------- */

typedef struct model_entry {
  char name[24];
  int shape, revision;
} model_entry;

/* What the writer believes: meta's row and model's rows, read at each
 * BEGIN, copied at a savepoint and put back when it is rolled back. */
typedef struct writer_state {
  int64_t txn, lo, hi, next_name, ops;
  int count;
  model_entry entries[SHAPES + 1];
} writer_state;

typedef struct writer {
  sqlite3 *db;
  sqlite3_stmt *insert_row, *insert_checked;
  uint64_t random;
  int report_fd;
  writer_state state;
} writer;

static void send_report(writer *w, int kind) {
  report r = {kind, w->state.txn, w->state.lo, w->state.hi, w->state.ops};
  if (write(w->report_fd, &r, sizeof r) != (ssize_t)sizeof r) writer_fail(NULL, "the report pipe");
}

static const char *const setup_sql =
    "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;"
    "CREATE TABLE model(name TEXT PRIMARY KEY, shape INTEGER NOT NULL UNIQUE, revision INTEGER NOT NULL);"
    "CREATE TABLE meta(one INTEGER PRIMARY KEY CHECK (one = 1), txn INTEGER NOT NULL, lo INTEGER NOT NULL,"
    " hi INTEGER NOT NULL, next_name INTEGER NOT NULL, ops INTEGER NOT NULL);"
    "INSERT INTO meta VALUES (1, 0, 1, 0, 1, 0);"
    "CREATE TABLE rows(id INTEGER PRIMARY KEY, shape INTEGER NOT NULL, payload BLOB NOT NULL);"
    "CREATE TABLE pets(id INTEGER PRIMARY KEY, p BLOB NOT NULL);"
    "CREATE TABLE migration(one INTEGER PRIMARY KEY CHECK (one = 1), phase INTEGER NOT NULL,"
    " hi INTEGER NOT NULL, done INTEGER NOT NULL, rounds INTEGER NOT NULL);"
    "INSERT INTO migration VALUES (1, 0, 0, 0, 0);"
    "INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('pet', '" PET_V1 "', 4);";

/* Open the database, set it up the first time (one transaction, which a
 * kill leaves undone or done), and prepare the row inserts. */
static void writer_open(writer *w, const char *path, const char *extension, bool wal) {
  if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    writer_fail(w->db, "open");
  sqlite3 *db = w->db;
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  char *error = NULL;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, extension, NULL, &error) != SQLITE_OK) writer_fail(db, error);
  sqlite3_busy_timeout(db, 5000);
  /* Freed pages handed back by incremental_vacuum move pages under the
   * kills; a small cache spills a transaction's pages into the file (or
   * the WAL) before COMMIT. */
  writer_exec(db, "PRAGMA auto_vacuum = INCREMENTAL");
  writer_exec(db, wal ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode = DELETE");
  writer_exec(db, wal ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL");
  writer_exec(db, "PRAGMA cache_size = 20");
  writer_exec(db, "PRAGMA wal_autocheckpoint = 64");
  writer_exec(db, "BEGIN IMMEDIATE");
  sqlite3_stmt *st = prepare(db, "SELECT 1 FROM sqlite_schema WHERE name = 'meta'");
  bool set_up = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  if (!set_up) {
    writer_exec(db, setup_sql);
    char *checked = schema_of(CHECKED, 0);
    writer_run(db, SQLITE_DONE, "INSERT INTO shorn_schemas(name, schema) VALUES ('checked', ?)", "t", checked);
    sqlite3_free(checked);
    writer_run(db, SQLITE_DONE, "INSERT INTO model VALUES ('checked', ?, 0)", "i", (int64_t)CHECKED);
    writer_exec(db,
                "CREATE TABLE checked(id INTEGER PRIMARY KEY,"
                " payload BLOB NOT NULL CHECK (shorn_valid(payload, 'checked')));"
                "CREATE INDEX checked_key ON checked(shorn_extract(payload, 'checked', '$.key'))");
  }
  writer_exec(db, "COMMIT");
  /* Prepared once: the name bound to it is resolved through the registry,
   * which the transactions change between its runs. */
  w->insert_row = prepare(db, "INSERT INTO rows VALUES (?1, ?2, shorn_encode(?3, ?4, 4))");
  w->insert_checked = prepare(db, "INSERT INTO checked VALUES (?1, shorn_encode(?2, 'checked'))");
}

static void writer_read_state(writer *w) {
  writer_state *s = &w->state;
  sqlite3_stmt *st = prepare(w->db, "SELECT txn, lo, hi, next_name, ops FROM meta");
  if (sqlite3_step(st) != SQLITE_ROW) writer_fail(w->db, "reading meta");
  s->txn = sqlite3_column_int64(st, 0);
  s->lo = sqlite3_column_int64(st, 1);
  s->hi = sqlite3_column_int64(st, 2);
  s->next_name = sqlite3_column_int64(st, 3);
  s->ops = sqlite3_column_int64(st, 4);
  sqlite3_finalize(st);
  st = prepare(w->db, "SELECT name, shape, revision FROM model ORDER BY name");
  s->count = 0;
  while (sqlite3_step(st) == SQLITE_ROW && s->count <= SHAPES) {
    model_entry *e = &s->entries[s->count++];
    snprintf(e->name, sizeof e->name, "%s", (const char *)sqlite3_column_text(st, 0));
    e->shape = sqlite3_column_int(st, 1);
    e->revision = sqlite3_column_int(st, 2);
  }
  sqlite3_finalize(st);
}

/* A registered entry other than CHECKED's, or NULL when there is none. */
static model_entry *pick_entry(writer *w) {
  writer_state *s = &w->state;
  if (s->count <= 1) return NULL;
  int skip = (int)(random_next(&w->random) % (uint64_t)(s->count - 1));
  for (int i = 0; i < s->count; i++)
    if (s->entries[i].shape != CHECKED && skip-- == 0) return &s->entries[i];
  return NULL;
}

/* A shape not registered now. */
static int pick_free_shape(writer *w) {
  bool used[SHAPES + 1] = {false};
  for (int i = 0; i < w->state.count; i++) used[w->state.entries[i].shape] = true;
  int skip = (int)(random_next(&w->random) % (uint64_t)(SHAPES + 1 - w->state.count));
  for (int shape = 0; shape < SHAPES; shape++)
    if (!used[shape] && skip-- == 0) return shape;
  return -1;
}

static void register_shape(writer *w) {
  writer_state *s = &w->state;
  int shape = pick_free_shape(w);
  model_entry *e = &s->entries[s->count++];
  e->shape = shape;
  e->revision = 0;
  snprintf(e->name, sizeof e->name, "s%lld", (long long)s->next_name++);
  char *text = schema_of(e->shape, 0);
  writer_run(w->db, SQLITE_DONE, "INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)", "tt", e->name, text);
  sqlite3_free(text);
  writer_run(w->db, SQLITE_DONE, "INSERT INTO model VALUES (?, ?, 0)", "ti", e->name, (int64_t)e->shape);
}

/* One registry operation, mirrored in model; a refused one must be
 * refused as a constraint and leave nothing behind, which the checker's
 * comparison with model sees. */
static void registry_operation(writer *w) {
  writer_state *s = &w->state;
  model_entry *e = pick_entry(w);
  unsigned choice = (unsigned)(random_next(&w->random) % 100);
  if (!e || (choice < 30 && s->count <= SHAPES)) {
    register_shape(w);
  } else if (choice < 50) {
    char old[sizeof e->name];
    memcpy(old, e->name, sizeof old);
    snprintf(e->name, sizeof e->name, "s%lld", (long long)s->next_name++);
    writer_run(w->db, SQLITE_DONE, "UPDATE shorn_schemas SET name = ? WHERE name = ?", "tt", e->name, old);
    writer_run(w->db, SQLITE_DONE, "UPDATE model SET name = ? WHERE name = ?", "tt", e->name, old);
  } else if (choice < 70) {
    char *text = schema_of(e->shape, ++e->revision);
    writer_run(w->db, SQLITE_DONE, "UPDATE shorn_schemas SET schema = ? WHERE name = ?", "tt", text, e->name);
    sqlite3_free(text);
    writer_run(w->db, SQLITE_DONE, "UPDATE model SET revision = revision + 1 WHERE name = ?", "t", e->name);
  } else if (choice < 85) {
    writer_run(w->db, SQLITE_DONE, "DELETE FROM shorn_schemas WHERE name = ?", "t", e->name);
    writer_run(w->db, SQLITE_DONE, "DELETE FROM model WHERE name = ?", "t", e->name);
    *e = s->entries[--s->count];
  } else {
    int other = s->count <= SHAPES ? pick_free_shape(w) : (e->shape + 1) % SHAPES;
    char *text = schema_of(other, 0);
    if (choice < 90)
      writer_run(w->db, SQLITE_CONSTRAINT, "UPDATE shorn_schemas SET schema = ? WHERE name = ?", "tt", text, e->name);
    else if (choice < 95)
      writer_run(w->db, SQLITE_CONSTRAINT, "INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)", "tt", e->name, text);
    else if (writer_run(w->db, SQLITE_DONE, "INSERT OR IGNORE INTO shorn_schemas(name, schema) VALUES (?, ?)", "tt",
                        e->name, text) != 0)
      writer_fail(w->db, "INSERT OR IGNORE of a name taken wrote a row");
    sqlite3_free(text);
    return; /* nothing changed, nothing counted */
  }
  s->ops++;
}

static void step_insert(writer *w, sqlite3_stmt *st) {
  if (sqlite3_step(st) != SQLITE_DONE) writer_fail(w->db, sqlite3_sql(st));
  sqlite3_reset(st);
}

/* The next row, encoded by the name of a registered shape; every fourth
 * brings a row of table checked. */
static void insert_row(writer *w) {
  writer_state *s = &w->state;
  model_entry *e = pick_entry(w);
  if (!e) {
    register_shape(w);
    s->ops++;
    e = &s->entries[s->count - 1];
  }
  int64_t id = ++s->hi;
  sqlite3_str *json = sqlite3_str_new(NULL);
  row_json(json, id, e->shape);
  char *text = text_of(json);
  sqlite3_bind_int64(w->insert_row, 1, id);
  sqlite3_bind_int(w->insert_row, 2, e->shape);
  sqlite3_bind_text(w->insert_row, 3, text, -1, sqlite3_free);
  sqlite3_bind_text(w->insert_row, 4, e->name, -1, SQLITE_TRANSIENT);
  step_insert(w, w->insert_row);
  if (has_checked_row(id)) {
    json = sqlite3_str_new(NULL);
    checked_json(json, id);
    sqlite3_bind_int64(w->insert_checked, 1, id);
    sqlite3_bind_text(w->insert_checked, 2, text_of(json), -1, sqlite3_free);
    step_insert(w, w->insert_checked);
  }
}

/* One step of the migration, its state in table migration: phase 0 writes
 * rows of version 1, then registers version 2; phase 1 upgrades a batch of
 * rows; phase 2 (all upgraded) drops the rows and both versions and
 * registers version 1 again. */
static void migration_step(writer *w) {
  sqlite3_stmt *st = prepare(w->db, "SELECT phase, hi, done FROM migration");
  if (sqlite3_step(st) != SQLITE_ROW) writer_fail(w->db, "reading migration");
  int phase = sqlite3_column_int(st, 0);
  int64_t hi = sqlite3_column_int64(st, 1), done = sqlite3_column_int64(st, 2);
  sqlite3_finalize(st);
  if (phase == 0 && hi < PETS) {
    st = prepare(w->db, "INSERT INTO pets VALUES (?1, shorn_encode(?2, 'pet'))");
    for (int i = 0; i < PETS_INSERTED; i++) {
      sqlite3_str *json = sqlite3_str_new(NULL);
      pet_json(json, ++hi, false);
      sqlite3_bind_int64(st, 1, hi);
      sqlite3_bind_text(st, 2, text_of(json), -1, sqlite3_free);
      step_insert(w, st);
    }
    sqlite3_finalize(st);
  } else if (phase == 0) {
    writer_run(w->db, SQLITE_DONE, "INSERT INTO shorn_schemas(name, schema, version) VALUES ('pet', '" PET_V2 "', 2)", "");
    phase = 1;
  } else if (phase == 1) {
    int64_t to = done + PETS_UPGRADED < hi ? done + PETS_UPGRADED : hi;
    if (writer_run(w->db, SQLITE_DONE, "UPDATE pets SET p = shorn_upgrade(p, 'pet') WHERE rowid BETWEEN ? AND ?", "ii",
                   done + 1, to) != to - done)
      writer_fail(w->db, "the upgrade did not change its batch");
    done = to;
    if (done == hi) phase = 2;
  } else {
    writer_run(w->db, SQLITE_DONE, "DELETE FROM pets", "");
    writer_run(w->db, SQLITE_DONE, "DELETE FROM shorn_schemas WHERE name = 'pet'", "");
    writer_run(w->db, SQLITE_DONE, "INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('pet', '" PET_V1 "', 4)", "");
    writer_run(w->db, SQLITE_DONE, "UPDATE migration SET rounds = rounds + 1", "");
    phase = 0, hi = 0, done = 0;
  }
  writer_run(w->db, SQLITE_DONE, "UPDATE migration SET phase = ?, hi = ?, done = ?", "iii", (int64_t)phase, hi, done);
}

static void transaction_step(writer *w) {
  unsigned choice = (unsigned)(random_next(&w->random) % 100);
  if (choice < 8) {
    registry_operation(w);
  } else if (choice < 10) {
    /* A savepoint rolled back: what it registered and inserted is gone,
     * the names it made resolve no more (though it used them), and the
     * next ones made take them again, maybe for other shapes. */
    writer_state saved = w->state;
    writer_exec(w->db, "SAVEPOINT undone");
    registry_operation(w);
    for (int i = (int)(random_next(&w->random) % 4); i >= 0; i--) insert_row(w);
    writer_exec(w->db, "ROLLBACK TO undone; RELEASE undone");
    for (int64_t made = saved.next_name; made < w->state.next_name; made++) {
      char name[sizeof saved.entries[0].name];
      snprintf(name, sizeof name, "s%lld", (long long)made);
      writer_run(w->db, SQLITE_ERROR, "SELECT shorn_fingerprint(?, 4)", "t", name);
    }
    w->state = saved;
  } else {
    insert_row(w);
  }
}

static void writer_transaction(writer *w) {
  send_report(w, REPORT_BEGIN);
  writer_exec(w->db, "BEGIN IMMEDIATE");
  writer_read_state(w);
  uint64_t r = random_next(&w->random);
  int steps = r % 10 == 0 ? 100 + (int)(r % 200) : 1 + (int)((r >> 8) % 20);
  if ((r >> 24) % 3 == 0) migration_step(w);
  for (int i = 0; i < steps; i++) transaction_step(w);
  writer_state *s = &w->state;
  if (s->hi - s->lo + 1 > ROWS_KEPT_MAX) {
    s->lo = s->hi + 1 - ROWS_KEPT_MIN;
    writer_run(w->db, SQLITE_DONE, "DELETE FROM rows WHERE id < ?", "i", s->lo);
    writer_run(w->db, SQLITE_DONE, "DELETE FROM checked WHERE id < ?", "i", s->lo);
  }
  if (r % 7 == 0) writer_exec(w->db, "PRAGMA incremental_vacuum(50)");
  s->txn++;
  writer_run(w->db, SQLITE_DONE, "UPDATE meta SET txn = ?, lo = ?, hi = ?, next_name = ?, ops = ?", "iiiii",
             s->txn, s->lo, s->hi, s->next_name, s->ops);
  if (r % 13 == 0) { /* a whole transaction given up: nothing of it stays */
    writer_exec(w->db, "ROLLBACK");
    return;
  }
  writer_exec(w->db, "COMMIT");
  send_report(w, REPORT_COMMIT);
  if (r % 11 == 0) writer_exec(w->db, "PRAGMA wal_checkpoint(TRUNCATE)"); /* nothing, in rollback mode */
}

/* Never returns: the driver kills it. */
static void writer_run_forever(const char *path, const char *extension, bool wal, uint64_t seed, int report_fd) {
  writer w = {.random = seed, .report_fd = report_fd};
  writer_open(&w, path, extension, wal);
  send_report(&w, REPORT_OPENED);
  for (;;) writer_transaction(&w);
}

/* ---- the checker --------------------------------------------------------- */

typedef struct database {
  const char *mode;
  char path[4096];
  bool wal;
  /* The last commit reported: txn, lo, hi and ops as meta held them. */
  report committed;
} database;

typedef struct tally {
  long kills, before_open, in_transaction, unreported_commits, writer_commits;
  long journals_left[2]; /* kills that left a rollback journal, a WAL, to recover from */
  long rows_checked, checked_rows_checked, registry_rows_checked;
  long pets_checked, migrations_mixed; /* kills that left rows of both versions */
  int64_t rounds[2];                   /* migrations each database saw through, as last checked */
} tally;

typedef struct checker {
  sqlite3 *db;
  const database *d;
  long kill_no;
  bool failed;
} checker;

static void check_fail(checker *c, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fprintf(stderr, "killed: kill %ld, %s database %s: ", c->kill_no, c->d->mode, c->d->path);
  vfprintf(stderr, format, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  c->failed = true;
}

/* Prepare and bind, or fail: NULL then. */
static sqlite3_stmt *check_prepare(checker *c, const char *sql, const char *types, ...) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK) {
    check_fail(c, "%s: %s", sql, sqlite3_errmsg(c->db));
    return NULL;
  }
  va_list ap;
  va_start(ap, types);
  bind(st, types, ap);
  va_end(ap);
  return st;
}

/* After the last row: an error stepping is a failure. */
static void check_done(checker *c, sqlite3_stmt *st, int rc) {
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) check_fail(c, "%s: %s", sqlite3_sql(st), sqlite3_errmsg(c->db));
  sqlite3_finalize(st);
}

static const char *column_text(sqlite3_stmt *st, int i) {
  const char *text = (const char *)sqlite3_column_text(st, i);
  return text ? text : "NULL";
}

static bool same_text(sqlite3_stmt *st, int i, const char *want) {
  const char *got = (const char *)sqlite3_column_text(st, i);
  return got && strcmp(got, want) == 0;
}

/* One-row query: its first column as an integer. */
static int64_t check_integer(checker *c, const char *sql) {
  sqlite3_stmt *st = check_prepare(c, sql, "");
  if (!st) return -1;
  int rc = sqlite3_step(st);
  int64_t value = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  check_done(c, st, rc);
  return value;
}

static void check_integrity(checker *c) {
  sqlite3_stmt *st = check_prepare(c, "PRAGMA integrity_check", "");
  if (!st) return;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (!same_text(st, 0, "ok")) check_fail(c, "integrity_check: %s", column_text(st, 0));
  check_done(c, st, rc);
}

/* temp.shapes: every shape's text at revision 0, and its fingerprint,
 * which no revision changes. */
static void make_shapes(checker *c) {
  if (sqlite3_exec(c->db, "CREATE TEMP TABLE shapes(shape INTEGER PRIMARY KEY, text TEXT, fingerprint TEXT UNIQUE)", NULL,
                   NULL, NULL) != SQLITE_OK)
    check_fail(c, "temp.shapes: %s", sqlite3_errmsg(c->db));
  for (int shape = 0; shape <= CHECKED && !c->failed; shape++) {
    char *text = schema_of(shape, 0);
    sqlite3_stmt *st = check_prepare(c, "INSERT INTO shapes VALUES (?1, ?2, shorn_fingerprint(?2, 4))", "it",
                                     (int64_t)shape, text);
    sqlite3_free(text);
    if (st) check_done(c, st, sqlite3_step(st));
  }
}

/* Every row: ids lo..hi without a gap, each decoded by its schema's text
 * and, when its shape is registered, by fingerprint and by name, to the
 * JSON its id makes; every fourth id's row of checked decoded, and found
 * through the index on its key. */
static void check_rows(checker *c, int64_t lo, int64_t hi, tally *t) {
  sqlite3_stmt *st = check_prepare(c,
                                   "SELECT r.id, r.shape, shorn_decode(r.payload, s.text, 4), m.name,"
                                   " iif(m.name IS NULL, NULL, shorn_decode(r.payload)),"
                                   " iif(m.name IS NULL, NULL, shorn_decode(r.payload, m.name, 4))"
                                   " FROM rows r LEFT JOIN temp.shapes s USING (shape)"
                                   " LEFT JOIN model m USING (shape) ORDER BY r.id",
                                   "");
  if (!st) return;
  int64_t want = lo;
  int rc;
  while (!c->failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    int shape = sqlite3_column_int(st, 1);
    if (id != want) {
      check_fail(c, "rows: id %lld where %lld was due (ids %lld to %lld)", (long long)id, (long long)want,
                 (long long)lo, (long long)hi);
      break;
    }
    want++;
    sqlite3_str *s = sqlite3_str_new(NULL);
    row_json(s, id, shape);
    char *json = text_of(s);
    bool registered = sqlite3_column_type(st, 3) != SQLITE_NULL;
    for (int column = 2; column <= (registered ? 5 : 2); column++) {
      if (column == 3) continue;
      if (!same_text(st, column, json))
        check_fail(c, "row %lld of shape %d (column %d) decodes to %.200s, not %.200s", (long long)id, shape,
                   column, column_text(st, column), json);
    }
    sqlite3_free(json);
    t->rows_checked++;
  }
  if (c->failed) {
    sqlite3_finalize(st);
    return;
  }
  check_done(c, st, rc);
  if (want != hi + 1)
    check_fail(c, "rows: they end at %lld, meta says %lld", (long long)want - 1, (long long)hi);

  st = check_prepare(c,
                     "SELECT id, shorn_decode(payload, 'checked'), shorn_extract(payload, 'checked', '$.key'),"
                     " (SELECT count(*) FROM checked INDEXED BY checked_key"
                     "  WHERE shorn_extract(payload, 'checked', '$.key') = shorn_extract(c.payload, 'checked', '$.key'))"
                     " FROM checked c ORDER BY id",
                     "");
  if (!st) return;
  want = lo + (4 - lo % 4) % 4;
  while (!c->failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id != want) {
      check_fail(c, "checked: id %lld where %lld was due", (long long)id, (long long)want);
      break;
    }
    want += 4;
    sqlite3_str *s = sqlite3_str_new(NULL);
    checked_json(s, id);
    char *json = text_of(s);
    if (!same_text(st, 1, json)) check_fail(c, "checked row %lld decodes to %s, not %s", (long long)id, column_text(st, 1), json);
    sqlite3_free(json);
    int64_t key = checked_key(id);
    /* How many ids of lo..hi that have a checked row share its key. */
    int64_t sharing = 0;
    for (int64_t other = lo + (97 + key - lo % 97) % 97; other <= hi; other += 97) sharing += has_checked_row(other);
    if (sqlite3_column_int64(st, 2) != key || sqlite3_column_int64(st, 3) != sharing)
      check_fail(c, "checked row %lld: key %lld found %lld times through the index, not %lld and %lld", (long long)id,
                 (long long)sqlite3_column_int64(st, 2), (long long)sqlite3_column_int64(st, 3), (long long)key,
                 (long long)sharing);
    t->checked_rows_checked++;
  }
  if (c->failed) {
    sqlite3_finalize(st);
    return;
  }
  check_done(c, st, rc);
  if (want <= hi) check_fail(c, "checked: rows end before %lld", (long long)want);
}

/* The registry: the virtual table against its shadow table, each row
 * against its own schema text, and the rows against model. */
static void check_registry(checker *c, tally *t) {
  sqlite3_stmt *virtual = check_prepare(c, "SELECT rowid, name, schema, signature, fingerprint FROM shorn_schemas ORDER BY rowid", "");
  sqlite3_stmt *shadow = check_prepare(c, "SELECT id, name, schema, signature, fingerprint FROM shorn_schemas_data ORDER BY id", "");
  if (!virtual || !shadow) {
    sqlite3_finalize(virtual);
    sqlite3_finalize(shadow);
    return;
  }
  int rv, rs;
  for (;;) {
    rv = sqlite3_step(virtual);
    rs = sqlite3_step(shadow);
    if (rv != SQLITE_ROW || rs != SQLITE_ROW) break;
    for (int i = 0; i < 5; i++)
      if (!same_text(virtual, i, column_text(shadow, i)))
        check_fail(c, "shorn_schemas shows %s where shorn_schemas_data holds %s", column_text(virtual, i), column_text(shadow, i));
  }
  if (rv != SQLITE_DONE || rs != SQLITE_DONE) check_fail(c, "shorn_schemas and shorn_schemas_data differ in length or fail: %s", sqlite3_errmsg(c->db));
  sqlite3_finalize(virtual);
  sqlite3_finalize(shadow);

  sqlite3_stmt *st = check_prepare(c,
                                   "SELECT d.name, shorn_signature(d.schema) IS d.signature,"
                                   " shorn_fingerprint(d.schema, 4) IS d.fingerprint,"
                                   " shorn_fingerprint(d.name, 4) IS d.fingerprint,"
                                   " (SELECT group_concat(v.rowid) FROM shorn_schemas v WHERE v.name = d.name) IS d.id,"
                                   " (SELECT group_concat(v.rowid) FROM shorn_schemas v WHERE v.fingerprint = d.fingerprint) IS d.id,"
                                   " (SELECT group_concat(v.name) FROM shorn_schemas v WHERE v.rowid = d.id) IS d.name,"
                                   " (SELECT count(*) FROM shorn_schemas_data o WHERE o.name = d.name OR o.fingerprint = d.fingerprint),"
                                   " m.shape, m.revision, d.schema, s.fingerprint IS d.fingerprint"
                                   " FROM shorn_schemas_data d LEFT JOIN model m USING (name) LEFT JOIN temp.shapes s USING (shape)"
                                   " WHERE d.name <> 'pet' ORDER BY d.id",
                                   "");
  if (!st) return;
  static const char *const what[] = {
      NULL, "signature is not shorn_signature(schema)", "fingerprint is not shorn_fingerprint(schema, 4)",
      "the name does not resolve to its fingerprint", "the virtual table's lookup by name does not find it alone",
      "the virtual table's lookup by fingerprint does not find it alone", "the virtual table's lookup by rowid does not find it",
  };
  int rc;
  long rows = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = column_text(st, 0);
    for (int i = 1; i <= 6; i++)
      if (sqlite3_column_int(st, i) != 1) check_fail(c, "registry row '%s': %s", name, what[i]);
    if (sqlite3_column_int(st, 7) != 1) check_fail(c, "registry row '%s' shares its name or fingerprint", name);
    if (sqlite3_column_type(st, 8) == SQLITE_NULL) {
      check_fail(c, "registry row '%s' is not in model", name);
      continue;
    }
    char *text = schema_of(sqlite3_column_int(st, 8), sqlite3_column_int(st, 9));
    if (!same_text(st, 10, text)) check_fail(c, "registry row '%s' holds %s, model says %s", name, column_text(st, 10), text);
    sqlite3_free(text);
    if (sqlite3_column_int(st, 11) != 1) check_fail(c, "registry row '%s': its fingerprint is not its shape's", name);
    rows++;
  }
  check_done(c, st, rc);
  int64_t model_rows = check_integer(c, "SELECT count(*) FROM model");
  if (model_rows != rows) check_fail(c, "model has %lld rows, the registry %ld", (long long)model_rows, rows);
  t->registry_rows_checked += rows;
}

/* The migration: pet's versions as its phase says, every row read by name
 * as its id says, each version's rows where the last batch committed
 * left them, and the counts per version adding up. */
static void check_migration(checker *c, tally *t) {
  sqlite3_stmt *st = check_prepare(c, "SELECT phase, hi, done, rounds,"
                                      " (SELECT group_concat(version) FROM shorn_schemas WHERE name = 'pet')"
                                      " FROM migration", "");
  if (!st) return;
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    check_fail(c, "migration has no row");
    sqlite3_finalize(st);
    return;
  }
  int phase = sqlite3_column_int(st, 0);
  int64_t hi = sqlite3_column_int64(st, 1), done = sqlite3_column_int64(st, 2);
  t->rounds[c->d->wal] = sqlite3_column_int64(st, 3);
  if (!same_text(st, 4, phase ? "1,2" : "1"))
    check_fail(c, "migration in phase %d, and pet's versions are %s", phase, column_text(st, 4));
  check_done(c, st, rc);
  if (c->failed) return;
  st = check_prepare(c, "SELECT id, shorn_decode(p, 'pet'), shorn_payload_version(p, 'pet') FROM pets ORDER BY id", "");
  if (!st) return;
  int64_t want = 1, counts[3] = {0, 0, 0};
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id != want++) {
      check_fail(c, "pets: id %lld where %lld was due", (long long)id, (long long)want - 1);
      break;
    }
    sqlite3_str *s = sqlite3_str_new(NULL);
    pet_json(s, id, phase != 0);
    char *json = text_of(s);
    if (!same_text(st, 1, json)) check_fail(c, "pet %lld reads as %s, not %s", (long long)id, column_text(st, 1), json);
    sqlite3_free(json);
    int version = sqlite3_column_int(st, 2), due = phase != 0 && id <= done ? 2 : 1;
    if (version != due)
      check_fail(c, "pet %lld is of version %s; the batches committed (up to %lld) make it %d", (long long)id,
                 column_text(st, 2), (long long)done, due);
    counts[version == 1 || version == 2 ? version : 0]++;
    t->pets_checked++;
  }
  if (c->failed) {
    sqlite3_finalize(st);
    return;
  }
  check_done(c, st, rc);
  if (want != hi + 1) check_fail(c, "pets: rows end before %lld", (long long)want);
  /* The counts per version, as SQL groups them, add up to the rows. */
  st = check_prepare(c,
                     "SELECT sum(v = 1), sum(v = 2), count(*) FROM (SELECT shorn_payload_version(p, 'pet') AS v FROM pets)",
                     "");
  if (!st) return;
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW &&
      (sqlite3_column_int64(st, 0) != counts[1] || sqlite3_column_int64(st, 1) != counts[2] ||
       sqlite3_column_int64(st, 0) + sqlite3_column_int64(st, 1) != sqlite3_column_int64(st, 2) ||
       sqlite3_column_int64(st, 2) != hi))
    check_fail(c, "pets: %lld of version 1 and %lld of version 2 in %lld rows; %lld and %lld were read in %lld",
               (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1),
               (long long)sqlite3_column_int64(st, 2), (long long)counts[1], (long long)counts[2], (long long)hi);
  check_done(c, st, rc);
  t->migrations_mixed += counts[1] > 0 && counts[2] > 0;
}

/* Open the database after a kill, as the next writer would, and check
 * everything; `in_transaction` says the kill came after a BEGIN that no
 * COMMIT report followed, when the database may hold one more transaction
 * than was reported. */
static bool check_database(const char *extension, database *d, long kill_no, bool in_transaction, tally *t) {
  checker c = {NULL, d, kill_no, false};
  if (sqlite3_open_v2(d->path, &c.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    check_fail(&c, "cannot open: %s", sqlite3_errmsg(c.db));
    sqlite3_close(c.db);
    return false;
  }
  sqlite3_db_config(c.db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  char *error = NULL;
  sqlite3_enable_load_extension(c.db, 1);
  if (sqlite3_load_extension(c.db, extension, NULL, &error) != SQLITE_OK) {
    check_fail(&c, "cannot load %s: %s", extension, error);
    sqlite3_free(error);
  }
  check_integrity(&c);
  if (c.failed) { /* what follows would only repeat it */
    sqlite3_close(c.db);
    return false;
  }
  bool set_up = check_integer(&c, "SELECT count(*) FROM sqlite_schema WHERE name = 'meta'") == 1;
  report got = {REPORT_COMMIT, 0, 1, 0, 0};
  if (set_up) {
    sqlite3_stmt *st = check_prepare(&c, "SELECT txn, lo, hi, ops FROM meta", "");
    if (st && sqlite3_step(st) == SQLITE_ROW) {
      got.txn = sqlite3_column_int64(st, 0);
      got.lo = sqlite3_column_int64(st, 1);
      got.hi = sqlite3_column_int64(st, 2);
      got.ops = sqlite3_column_int64(st, 3);
    } else {
      check_fail(&c, "meta has no row");
    }
    sqlite3_finalize(st);
    sqlite3_stmt *mode = check_prepare(&c, "PRAGMA journal_mode", "");
    if (mode && (sqlite3_step(mode) != SQLITE_ROW || !same_text(mode, 0, d->wal ? "wal" : "delete")))
      check_fail(&c, "journal_mode is %s", column_text(mode, 0));
    sqlite3_finalize(mode);
  }
  const report *want = &d->committed;
  if (got.txn == want->txn && (got.lo != want->lo || got.hi != want->hi || got.ops != want->ops))
    check_fail(&c, "transaction %lld holds ids %lld to %lld and %lld registry operations; its report said %lld to %lld, %lld",
               (long long)got.txn, (long long)got.lo, (long long)got.hi, (long long)got.ops, (long long)want->lo,
               (long long)want->hi, (long long)want->ops);
  else if (got.txn == want->txn + 1 && in_transaction)
    t->unreported_commits++;
  else if (got.txn != want->txn)
    check_fail(&c, "the database is at transaction %lld; the last reported committed is %lld", (long long)got.txn,
               (long long)want->txn);
  if (set_up && !c.failed) {
    make_shapes(&c);
    if (!c.failed) check_rows(&c, got.lo, got.hi, t);
    if (!c.failed) check_registry(&c, t);
    if (!c.failed) check_migration(&c, t);
  }
  d->committed = got;
  if (sqlite3_close(c.db) != SQLITE_OK) check_fail(&c, "close: %s", sqlite3_errmsg(c.db));
  return !c.failed;
}

/* ---- the driver ---------------------------------------------------------- */

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Wait for a report until `deadline` (or, 0, until the pipe closes):
 * 1 with one read, 0 at the deadline or the end of the pipe. */
static int read_report(int fd, int64_t deadline, report *r) {
  for (;;) {
    if (deadline) {
      int64_t left = deadline - now_us();
      if (left <= 0) return 0;
      fd_set readable;
      FD_ZERO(&readable);
      FD_SET(fd, &readable);
      struct timespec wait = {(time_t)(left / 1000000), (long)(left % 1000000) * 1000};
      int n = pselect(fd + 1, &readable, NULL, NULL, &wait, NULL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
    }
    ssize_t got = read(fd, r, sizeof *r);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) return 0;
    if (got != (ssize_t)sizeof *r) {
      fprintf(stderr, "killed: a short report (%zd bytes)\n", got);
      exit(1);
    }
    return 1;
  }
}

/* A delay from `low` microseconds to about `high`, spread evenly over its
 * powers of two, so that kills land in the writer's start as often as
 * deep in its transactions. */
static int64_t random_delay(uint64_t *random, int64_t low, int64_t high) {
  int octaves = 0;
  while ((low << (octaves + 1)) <= high) octaves++;
  int64_t base = low << (random_next(random) % (uint64_t)(octaves + 1));
  return base + (int64_t)(random_next(random) % (uint64_t)base);
}

/* One round: fork a writer, kill it after a random delay, check.  One
 * delay in four runs from the fork, and mostly ends in the writer's start
 * (opening, loading the extension, setting up); the others run from the
 * writer's report that the database is open. */
static bool kill_round(const char *extension, database *d, long kill_no, uint64_t seed, int64_t max_delay, tally *t) {
  int pipe_fds[2];
  if (pipe(pipe_fds)) {
    perror("killed: pipe");
    return false;
  }
  uint64_t random = mix(seed ^ (uint64_t)kill_no);
  int64_t delay = random_delay(&random, 20, max_delay);
  bool from_fork = random_next(&random) % 4 == 0;
  int64_t deadline = now_us() + (from_fork ? delay : OPEN_TIMEOUT);
  pid_t pid = fork();
  if (pid < 0) {
    perror("killed: fork");
    return false;
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    writer_run_forever(d->path, extension, d->wal, random, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  report r;
  int64_t last = -1;
  bool writer_exited = false, open_timed_out = false;
  for (;;) {
    if (!read_report(pipe_fds[0], deadline, &r)) {
      writer_exited = now_us() < deadline;
      open_timed_out = !writer_exited && !from_fork && last == -1;
      break;
    }
    last = r.kind;
    if (r.kind == REPORT_OPENED && !from_fork) deadline = now_us() + delay;
    if (r.kind == REPORT_COMMIT) d->committed = r, t->writer_commits++;
  }
  kill(pid, SIGKILL);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  while (read_report(pipe_fds[0], 0, &r)) {
    last = r.kind;
    if (r.kind == REPORT_COMMIT) d->committed = r, t->writer_commits++;
  }
  close(pipe_fds[0]);
  if (open_timed_out) {
    fprintf(stderr, "killed: kill %ld: the %s writer did not open the database in %d s\n", kill_no, d->mode,
            OPEN_TIMEOUT / 1000000);
    return false;
  }
  if (writer_exited || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    fprintf(stderr, "killed: kill %ld: the %s writer ended before it was killed (%s %d)\n", kill_no, d->mode,
            WIFSIGNALED(status) ? "signal" : "exit status", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return false;
  }
  t->kills++;
  t->before_open += last == -1;
  t->in_transaction += last == REPORT_BEGIN;
  char journal[sizeof d->path + 16];
  snprintf(journal, sizeof journal, "%s%s", d->path, d->wal ? "-wal" : "-journal");
  struct stat file;
  t->journals_left[d->wal] += stat(journal, &file) == 0 && file.st_size > 0;
  return check_database(extension, d, kill_no, last == REPORT_BEGIN, t);
}

static void remove_database(const database *d) {
  static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s%s", d->path, suffixes[i]);
    if (unlink(path) && errno != ENOENT) perror(path);
  }
}

static void usage(void) {
  fprintf(stderr, "usage: killed --extension PATH --dir DIR [--kills N] [--seed S] [--max-delay-us U]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *extension = NULL, *dir = NULL;
  long kills = 200;
  int64_t max_delay = 40000;
  uint64_t seed = mix((uint64_t)now_us() ^ ((uint64_t)getpid() << 32));
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage();
    if (!strcmp(argv[i], "--extension"))
      extension = argv[++i];
    else if (!strcmp(argv[i], "--dir"))
      dir = argv[++i];
    else if (!strcmp(argv[i], "--kills"))
      kills = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--seed"))
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--max-delay-us"))
      max_delay = strtoll(argv[++i], NULL, 10);
    else
      usage();
  }
  if (!extension || !dir || kills < 1 || max_delay < 40) usage();
  printf("killed: seed %llu (--seed %llu runs this schedule again)\n", (unsigned long long)seed,
         (unsigned long long)seed);
  fflush(stdout);
  database databases[2] = {{.mode = "WAL", .wal = true}, {.mode = "rollback journal", .wal = false}};
  snprintf(databases[0].path, sizeof databases[0].path, "%s/wal.db", dir);
  snprintf(databases[1].path, sizeof databases[1].path, "%s/delete.db", dir);
  for (int i = 0; i < 2; i++) {
    remove_database(&databases[i]);
    databases[i].committed = (report){REPORT_COMMIT, 0, 1, 0, 0};
  }
  tally t = {0};
  for (long kill_no = 0; kill_no < kills; kill_no++) {
    if (!kill_round(extension, &databases[kill_no % 2], kill_no, seed, max_delay, &t)) {
      fprintf(stderr, "killed: FAILED at kill %ld; run again with --seed %llu --kills %ld\n", kill_no,
              (unsigned long long)seed, kill_no + 1);
      return 1;
    }
  }
  long ops = databases[0].committed.ops + databases[1].committed.ops;
  long inserted = databases[0].committed.hi + databases[1].committed.hi;
  printf("killed: %ld kills survived (%ld before the database was open, %ld inside a transaction, %ld of them after "
         "its COMMIT, before its report; %ld left a rollback journal and %ld a WAL to recover from); %ld transactions "
         "committed, %ld rows and %ld registry operations in them; checked %ld rows, %ld rows under CHECK and index, "
         "%ld registry rows; %ld rows of a migration, %ld kills in the middle of one (rows of both versions), "
         "%lld migrations through\n",
         t.kills, t.before_open, t.in_transaction, t.unreported_commits, t.journals_left[0], t.journals_left[1],
         t.writer_commits + t.unreported_commits, inserted, ops, t.rows_checked, t.checked_rows_checked,
         t.registry_rows_checked, t.pets_checked, t.migrations_mixed, (long long)(t.rounds[0] + t.rounds[1]));
  return 0;
}
