/*
 * soak.c — shorn under concurrent use: threads, each with a connection of
 * its own, in two processes, on one WAL database, for a bounded time.
 *
 *   soak --db FILE --seconds N [--threads N] [--processes N]
 *        [--mode serialized|multi-thread] [--extension PATH]
 *
 * Every worker mixes shorn_encode inserts, shorn_decode reads, lookups
 * through an index on shorn_extract, payloads read by their fingerprint
 * alone, registrations, renames and deletions of names it owns, and schema
 * texts enough to keep evicting every connection's cache.  Each value is
 * made from (worker, seq), so whoever reads a row, in whatever thread or
 * process, recomputes what was written and compares.  SQLITE_BUSY is
 * retried; a wrong value, any other SQLite error, or a failed
 * PRAGMA integrity_check at the end fails the run.
 *
 * Built with -DSQLITE_CORE, the extension is linked in (the amalgamation)
 * and registered with sqlite3_auto_extension; otherwise --extension names
 * the loadable extension each connection loads.  The first process starts
 * the others as this same program with --child K.  With
 * SHORN_SQLITE_VERSION set, SQLite must be that version.
 */
/* posix_spawn, clock_gettime, nanosleep: beyond C11. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#ifdef SQLITE_CORE
#include "shorn.h"
#endif

/* The inline schema of the rows table.  Its variants differ in a
 * description only: one wire shape, so the index's own text reads every
 * row, but each variant is a schema text of its own in a connection's
 * cache, and all of them share the process's one compiled pattern. */
#define ROW_SCHEMA_BODY                                                                           \
  "\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\",\"minimum\":0},"               \
  "\"w\":{\"type\":\"integer\",\"minimum\":0},\"s\":{\"type\":\"integer\",\"minimum\":0},"        \
  "\"name\":{\"type\":\"string\",\"pattern\":\"^w[0-9]+ s[0-9]+ \"},"                             \
  "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                                \
  "\"score\":{\"type\":\"number\"},\"flag\":{\"type\":\"boolean\"},"                              \
  "\"big\":{\"type\":\"string\",\"x-shorn\":\"bigint\"},\"opt\":{\"type\":\"string\"}},"          \
  "\"required\":[\"x\",\"w\",\"s\",\"name\",\"tags\",\"score\",\"flag\",\"big\"],"                \
  "\"additionalProperties\":false"
#define ROW_SCHEMA "{" ROW_SCHEMA_BODY "}"

/* Several times what a connection's schema cache holds under CACHE_BYTES,
 * so that a reader of random rows evicts all the time, while every
 * connection of the process shares the compiled schemas. */
#define VARIANTS 256
#define CACHE_BYTES "262144"
/* Names each worker registers for its fingerprinted payloads, and the
 * scratch names it registers and deletes again. */
#define OWN_NAMES 6
#define SCRATCH_NAMES 16
/* Past the end of the run, a statement still busy is a failure. */
#define BUSY_GIVE_UP_SECONDS 60

static atomic_bool stopping, failed;

typedef struct counts {
  long long inserted, dispatched_inserted, deleted; /* rows written and deleted */
  long long checked;                                /* values read and compared */
  long long index_lookups, dispatch_reads, registry_changes;
  long long busy; /* statements retried after SQLITE_BUSY */
  long long compilations;
  long long names_registered; /* registry rows this process leaves behind */
} counts;

typedef struct worker {
  int id;
  sqlite3 *db;
  unsigned long long random_state;
  long long seq;                  /* the next value this worker writes */
  int name_generation[OWN_NAMES]; /* renames so far; -1 before registration */
  int scratch;                    /* the next scratch name */
  bool scratch_live;
  double deadline;
  counts n;
  sqlite3_stmt *insert_row, *insert_dispatched, *register_name, *rename, *registered, *delete_name,
      *delete_row, *read_rows, *read_dispatched, *random_row, *by_x, *own_dispatched, *decode_named,
      *roundtrip_named, *begin, *commit, *rollback;
} worker;

enum { OK, BUSY, FAIL };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Report a failure, of a worker or (-1) of the process, and stop every
 * worker of this process. */
static int fail(int worker_id, const char *format, ...) {
  char text[2048];
  va_list ap;
  va_start(ap, format);
  vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  if (worker_id < 0)
    fprintf(stderr, "soak: %s\n", text);
  else
    fprintf(stderr, "soak: worker %d: %s\n", worker_id, text);
  atomic_store(&failed, true);
  atomic_store(&stopping, true);
  return FAIL;
}

static bool is_busy(int rc) { return (rc & 0xff) == SQLITE_BUSY; }

static unsigned long long next_random(worker *w) {
  unsigned long long x = w->random_state;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  w->random_state = x;
  return x * 2685821657736338717ULL;
}

/* ---- values: what (worker, seq) writes ----------------------------------- */

/* A row's variant, here and in SQL, where the readers look it up. */
#define VARIANT_STRIDE 7919
#define SPELLED(n) #n
#define SQL_NUMBER(n) SPELLED(n)
#define VARIANT_OF_ROW "(r.worker * " SQL_NUMBER(VARIANT_STRIDE) " + r.seq) % " SQL_NUMBER(VARIANTS)

static int variant_of(int worker_id, long long seq) {
  return (int)(((long long)worker_id * VARIANT_STRIDE + seq) % VARIANTS);
}

static void variant_schema(int variant, char *out, size_t cap) {
  snprintf(out, cap, "{\"description\":\"variant %d\"," ROW_SCHEMA_BODY "}", variant);
}

/* The indexed key: unique per row. */
static long long row_x(int worker_id, long long seq) { return ((long long)worker_id << 32) + seq; }

/* The name field as SQL returns it: a quote, a non-ASCII letter and a tab,
 * which the JSON spells escaped. */
static void row_name(int worker_id, long long seq, char *out, size_t cap) {
  snprintf(out, cap, "w%d s%lld \"q\" \xc3\xa9\t", worker_id, seq);
}

/* The row's JSON as shorn_decode writes it: keys in canonical order. */
static void row_json(int worker_id, long long seq, char *out, size_t cap) {
  unsigned long long mixed = (unsigned long long)row_x(worker_id, seq) * 11400714819323198485ULL;
  char tags[64] = "";
  for (int i = 0; i < seq % 4; i++)
    snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "%s\"t%d\"", i ? "," : "", i);
  char opt[32] = "";
  if (seq % 3 == 0) snprintf(opt, sizeof opt, "\"opt\":\"o%lld\",", seq);
  snprintf(out, cap,
           "{\"big\":\"%s%llu%018llu\",\"flag\":%s,\"name\":\"w%d s%lld \\\"q\\\" \xc3\xa9\\t\",%s"
           "\"s\":%lld,\"score\":%lld.5,\"tags\":[%s],\"w\":%d,\"x\":%lld}",
           seq % 2 ? "-" : "", (unsigned long long)seq % 1000003 + 1, mixed % 1000000000000000000ULL,
           seq % 2 ? "false" : "true", worker_id, seq, opt, seq, seq % 1000, tags, worker_id,
           row_x(worker_id, seq));
}

/* A fingerprinted payload is written with one of its worker's registered
 * names, chosen by seq; each name's schema has a key of its own, so every
 * registered schema is a wire shape of its own. */
static int own_name_of(long long seq) { return (int)(seq % OWN_NAMES); }

static void own_schema(int worker_id, int k, char *out, size_t cap) {
  snprintf(
      out, cap,
      "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"},\"w%dk%d\":{\"type\":\"integer\","
      "\"minimum\":0}},\"required\":[\"v\",\"w%dk%d\"],\"additionalProperties\":false}",
      worker_id, k, worker_id, k);
}

static void own_name(int worker_id, int k, int generation, char *out, size_t cap) {
  snprintf(out, cap, "w%dk%dr%d", worker_id, k, generation);
}

static void dispatched_json(int worker_id, long long seq, char *out, size_t cap) {
  snprintf(out, cap, "{\"v\":\"d%lld\",\"w%dk%d\":%lld}", seq, worker_id, own_name_of(seq), seq);
}

static void scratch_schema(int worker_id, int n, char *out, size_t cap) {
  snprintf(out, cap,
           "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"w%dn%d\":{\"type\":"
           "\"boolean\"}},\"additionalProperties\":false}}",
           worker_id, n);
}

/* ---- statements ---------------------------------------------------------- */

/* Finish a statement stepped to its end: SQLITE_DONE is OK, busy is BUSY,
 * anything else a failure naming what was being done. */
static int finish(worker *w, sqlite3_stmt *s, int rc, const char *what) {
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
    sqlite3_reset(s);
    return OK;
  }
  if (is_busy(rc)) {
    sqlite3_reset(s);
    return BUSY;
  }
  char message[512];
  snprintf(message, sizeof message, "%s", sqlite3_errmsg(w->db));
  sqlite3_reset(s);
  return fail(w->id, "%s: SQLite error %d: %s", what, rc, message);
}

static int run(worker *w, sqlite3_stmt *s, const char *what) {
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
  }
  return finish(w, s, rc, what);
}

static void bind_text(sqlite3_stmt *s, int i, const char *text) {
  sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
}

static bool same_text(sqlite3_stmt *s, int column, const char *want) {
  const unsigned char *got = sqlite3_column_text(s, column);
  return got && (size_t)sqlite3_column_bytes(s, column) == strlen(want) &&
         strcmp((const char *)got, want) == 0;
}

static int mismatch(worker *w, sqlite3_stmt *s, int column, const char *what, const char *want) {
  const unsigned char *got = sqlite3_column_text(s, column);
  char got_copy[1024];
  snprintf(got_copy, sizeof got_copy, "%s", got ? (const char *)got : "NULL");
  sqlite3_reset(s);
  return fail(w->id, "%s: got %s, want %s", what, got_copy, want);
}

/* ---- operations ---------------------------------------------------------- */

static int insert_row(worker *w) {
  char json[512], schema[1024];
  row_json(w->id, w->seq, json, sizeof json);
  variant_schema(variant_of(w->id, w->seq), schema, sizeof schema);
  sqlite3_bind_int(w->insert_row, 1, w->id);
  sqlite3_bind_int64(w->insert_row, 2, w->seq);
  bind_text(w->insert_row, 3, json);
  bind_text(w->insert_row, 4, schema);
  int rc = run(w, w->insert_row, "insert a row");
  if (rc == OK) w->seq++, w->n.inserted++;
  return rc;
}

static int register_own(worker *w, int k) {
  char name[64], schema[512];
  own_name(w->id, k, 0, name, sizeof name);
  own_schema(w->id, k, schema, sizeof schema);
  bind_text(w->register_name, 1, name);
  bind_text(w->register_name, 2, schema);
  int rc = run(w, w->register_name, "register a name");
  if (rc == OK) w->name_generation[k] = 0, w->n.registry_changes++, w->n.names_registered++;
  return rc;
}

/* A payload with its 4-byte fingerprint in front, written by name; its
 * name is registered first, the first time it is needed. */
static int insert_dispatched(worker *w) {
  int k = own_name_of(w->seq);
  if (w->name_generation[k] < 0) return register_own(w, k);
  char json[256], name[64];
  dispatched_json(w->id, w->seq, json, sizeof json);
  own_name(w->id, k, w->name_generation[k], name, sizeof name);
  sqlite3_bind_int(w->insert_dispatched, 1, w->id);
  sqlite3_bind_int64(w->insert_dispatched, 2, w->seq);
  bind_text(w->insert_dispatched, 3, json);
  bind_text(w->insert_dispatched, 4, name);
  int rc = run(w, w->insert_dispatched, "insert a fingerprinted row");
  if (rc == OK) w->seq++, w->n.dispatched_inserted++;
  return rc;
}

/* One of this worker's own rows, maybe already deleted or never a row of
 * that table: the index on shorn_extract loses entries too. */
static int delete_row(worker *w) {
  if (w->seq == 0) return OK;
  sqlite3_bind_int(w->delete_row, 1, w->id);
  sqlite3_bind_int64(w->delete_row, 2, (long long)(next_random(w) % (unsigned long long)w->seq));
  int rc = run(w, w->delete_row, "delete a row");
  if (rc == OK) w->n.deleted += sqlite3_changes(w->db);
  return rc;
}

/* Rename one of this worker's names, then read its row back through the
 * registry: the same schema and the fingerprint SQL computes for it.
 * Payloads keep their fingerprint, so other workers' reads never notice. */
static int rename_own(worker *w) {
  int k = (int)(next_random(w) % OWN_NAMES);
  if (w->name_generation[k] < 0) return register_own(w, k);
  char from[64], to[64], schema[512];
  own_name(w->id, k, w->name_generation[k], from, sizeof from);
  own_name(w->id, k, w->name_generation[k] + 1, to, sizeof to);
  own_schema(w->id, k, schema, sizeof schema);
  bind_text(w->rename, 1, to);
  bind_text(w->rename, 2, from);
  int rc = run(w, w->rename, "rename a name");
  if (rc != OK) return rc;
  if (sqlite3_changes(w->db) != 1)
    return fail(w->id, "renaming %s to %s changed %d rows", from, to, sqlite3_changes(w->db));
  w->name_generation[k]++;
  w->n.registry_changes++;
  bind_text(w->registered, 1, to);
  bind_text(w->registered, 2, schema);
  rc = sqlite3_step(w->registered);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? fail(w->id, "%s is not registered after its rename", to)
                             : finish(w, w->registered, rc, "read the registry");
  if (sqlite3_column_int(w->registered, 0) != 1)
    return mismatch(w, w->registered, 0, to, "its schema and fingerprint");
  w->n.checked++;
  return finish(w, w->registered, sqlite3_step(w->registered), "read the registry");
}

/* Register a scratch name, encode and decode through it, and delete it
 * the next time: registry inserts and deletes all through the run. */
static int scratch_name(worker *w) {
  char name[64];
  snprintf(name, sizeof name, "w%dscratch%d", w->id, w->scratch);
  if (w->scratch_live) {
    bind_text(w->delete_name, 1, name);
    int rc = run(w, w->delete_name, "delete a name");
    if (rc == OK && sqlite3_changes(w->db) != 1)
      return fail(w->id, "deleting %s changed %d rows", name, sqlite3_changes(w->db));
    if (rc == OK)
      w->scratch_live = false, w->scratch = (w->scratch + 1) % SCRATCH_NAMES, w->n.registry_changes++,
      w->n.names_registered--;
    return rc;
  }
  char schema[512], json[128];
  scratch_schema(w->id, w->scratch, schema, sizeof schema);
  bind_text(w->register_name, 1, name);
  bind_text(w->register_name, 2, schema);
  int rc = run(w, w->register_name, "register a scratch name");
  if (rc != OK) return rc;
  w->scratch_live = true, w->n.registry_changes++, w->n.names_registered++;
  snprintf(json, sizeof json, "[{\"w%dn%d\":true},{}]", w->id, w->scratch);
  bind_text(w->roundtrip_named, 1, json);
  bind_text(w->roundtrip_named, 2, name);
  rc = sqlite3_step(w->roundtrip_named);
  if (rc != SQLITE_ROW) return finish(w, w->roundtrip_named, rc, "encode and decode by a scratch name");
  if (!same_text(w->roundtrip_named, 0, json)) return mismatch(w, w->roundtrip_named, 0, name, json);
  w->n.checked++;
  return finish(w, w->roundtrip_named, sqlite3_step(w->roundtrip_named),
                "encode and decode by a scratch name");
}

/* Rows from a random place on, whoever wrote them, each decoded with its
 * own variant's text, taken from a column. */
static int read_rows(worker *w) {
  int rc;
  long long checked = 0;
  char want[512];
  while ((rc = sqlite3_step(w->read_rows)) == SQLITE_ROW) {
    int writer = sqlite3_column_int(w->read_rows, 0);
    long long seq = sqlite3_column_int64(w->read_rows, 1);
    row_json(writer, seq, want, sizeof want);
    if (!same_text(w->read_rows, 2, want)) return mismatch(w, w->read_rows, 2, "shorn_decode of a row", want);
    checked++;
  }
  rc = finish(w, w->read_rows, rc, "read rows");
  if (rc == OK) w->n.checked += checked;
  return rc;
}

/* Fingerprinted rows, decoded by their prefix alone, and one field of each
 * extracted the same way. */
static int read_dispatched(worker *w) {
  int rc;
  long long checked = 0;
  char want[256], field[64];
  while ((rc = sqlite3_step(w->read_dispatched)) == SQLITE_ROW) {
    int writer = sqlite3_column_int(w->read_dispatched, 0);
    long long seq = sqlite3_column_int64(w->read_dispatched, 1);
    dispatched_json(writer, seq, want, sizeof want);
    snprintf(field, sizeof field, "d%lld", seq);
    if (!same_text(w->read_dispatched, 2, want))
      return mismatch(w, w->read_dispatched, 2, "shorn_decode(payload)", want);
    if (!same_text(w->read_dispatched, 3, field))
      return mismatch(w, w->read_dispatched, 3, "shorn_extract(payload, 4, '$.v')", field);
    checked++;
  }
  rc = finish(w, w->read_dispatched, rc, "read fingerprinted rows");
  if (rc == OK) w->n.checked += checked, w->n.dispatch_reads += checked;
  return rc;
}

/* This worker's fingerprinted rows decoded by their current names, which
 * it alone renames. */
static int read_own_by_name(worker *w) {
  if (w->seq == 0) return OK;
  sqlite3_bind_int(w->own_dispatched, 1, w->id);
  sqlite3_bind_int64(w->own_dispatched, 2, (long long)(next_random(w) % (unsigned long long)w->seq));
  int rc;
  long long checked = 0;
  char want[256], name[64];
  while ((rc = sqlite3_step(w->own_dispatched)) == SQLITE_ROW) {
    long long seq = sqlite3_column_int64(w->own_dispatched, 0);
    int k = own_name_of(seq);
    own_name(w->id, k, w->name_generation[k], name, sizeof name);
    dispatched_json(w->id, seq, want, sizeof want);
    sqlite3_bind_value(w->decode_named, 1, sqlite3_column_value(w->own_dispatched, 1));
    bind_text(w->decode_named, 2, name);
    int decoded = sqlite3_step(w->decode_named);
    if (decoded != SQLITE_ROW) {
      sqlite3_reset(w->own_dispatched);
      return finish(w, w->decode_named, decoded, "decode by name");
    }
    if (!same_text(w->decode_named, 0, want)) {
      sqlite3_reset(w->own_dispatched);
      return mismatch(w, w->decode_named, 0, name, want);
    }
    sqlite3_reset(w->decode_named);
    checked++;
  }
  rc = finish(w, w->own_dispatched, rc, "read own fingerprinted rows");
  if (rc == OK) w->n.checked += checked;
  return rc;
}

/* In one read transaction, so the row cannot be deleted in between: a
 * random row, then that row found again through the index on its
 * shorn_extract key, and nothing else found. */
static int index_lookup(worker *w) {
  int rc = run(w, w->begin, "begin");
  if (rc != OK) return rc;
  rc = sqlite3_step(w->random_row);
  if (rc != SQLITE_ROW) {
    rc = finish(w, w->random_row, rc, "pick a row");
    return rc == OK ? run(w, w->commit, "commit") : rc;
  }
  int writer = sqlite3_column_int(w->random_row, 0);
  long long seq = sqlite3_column_int64(w->random_row, 1);
  sqlite3_reset(w->random_row);
  char name[128];
  row_name(writer, seq, name, sizeof name);
  sqlite3_bind_int64(w->by_x, 1, row_x(writer, seq));
  int found = 0;
  while ((rc = sqlite3_step(w->by_x)) == SQLITE_ROW) {
    if (sqlite3_column_int(w->by_x, 0) != writer || sqlite3_column_int64(w->by_x, 1) != seq || ++found > 1) {
      sqlite3_reset(w->by_x);
      return fail(w->id, "the index on $.x gives another row for worker %d seq %lld", writer, seq);
    }
    if (!same_text(w->by_x, 2, name))
      return mismatch(w, w->by_x, 2, "shorn_extract(payload, ..., '$.name')", name);
  }
  rc = finish(w, w->by_x, rc, "look up through the index");
  if (rc != OK) return rc;
  if (found != 1) return fail(w->id, "the index on $.x lost worker %d seq %lld", writer, seq);
  w->n.checked++, w->n.index_lookups++;
  return run(w, w->commit, "commit");
}

/* ---- a worker ------------------------------------------------------------ */

/* Odd workers wait for a lock for as long as it takes, even ones hardly at
 * all, so that both SQLite's busy handler and the retries here are used. */
static int open_connection(const char *path, const char *extension, sqlite3 **db, int worker_id) {
  int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK)
    return fail(worker_id, "cannot open %s: %s", path, *db ? sqlite3_errmsg(*db) : "no memory");
  sqlite3_busy_timeout(*db, worker_id % 2 ? 10000 : 1);
  /* Commits without waiting for the disk: more of them, so more of what a
   * commit does to other connections' caches.  A connection's first
   * statement reads the schema, which may find the database busy too. */
  double give_up = now() + BUSY_GIVE_UP_SECONDS;
  while (is_busy(rc = sqlite3_exec(*db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL)) && now() < give_up) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
  }
  if (rc != SQLITE_OK) return fail(worker_id, "PRAGMA synchronous: %s", sqlite3_errmsg(*db));
  if (extension) {
    char *error = NULL;
    sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    if (sqlite3_load_extension(*db, extension, NULL, &error) != SQLITE_OK) {
      fail(worker_id, "cannot load %s: %s", extension, error ? error : "?");
      sqlite3_free(error);
      return FAIL;
    }
  }
  rc = sqlite3_exec(*db, "SELECT shorn_config('cache_bytes', " CACHE_BYTES ")", NULL, NULL, NULL);
  return rc == SQLITE_OK ? OK : fail(worker_id, "shorn_config: %s", sqlite3_errmsg(*db));
}

/* A row by its indexed key; set_up checks that the planner uses the index. */
#define BY_X                                                                          \
  "SELECT worker, seq, shorn_extract(payload, '" ROW_SCHEMA "', '$.name') FROM rows " \
  "WHERE shorn_extract(payload, '" ROW_SCHEMA "', '$.x') = ?1"

typedef struct statement_text {
  size_t offset;
  const char *sql;
} statement_text;

#define STATEMENT(field, sql) \
  { offsetof(worker, field), sql }

static const statement_text statements[] = {
    STATEMENT(insert_row, "INSERT INTO rows(worker, seq, payload) VALUES (?1, ?2, shorn_encode(?3, ?4))"),
    STATEMENT(insert_dispatched,
              "INSERT INTO dispatched(worker, seq, payload) VALUES (?1, ?2, shorn_encode(?3, ?4, 4))"),
    STATEMENT(register_name, "INSERT INTO shorn_schemas(name, schema) VALUES (?1, ?2)"),
    STATEMENT(rename, "UPDATE shorn_schemas SET name = ?1 WHERE name = ?2"),
    STATEMENT(
        registered,
        "SELECT schema = ?2 AND fingerprint = shorn_fingerprint(?2, 4) FROM shorn_schemas WHERE name = ?1"),
    STATEMENT(delete_name, "DELETE FROM shorn_schemas WHERE name = ?1"),
    STATEMENT(delete_row, "DELETE FROM rows WHERE worker = ?1 AND seq = ?2"),
    STATEMENT(read_rows,
              "SELECT r.worker, r.seq, shorn_decode(r.payload, v.schema) FROM rows AS r "
              "JOIN variants AS v ON v.n = " VARIANT_OF_ROW " "
              "WHERE r.id >= (SELECT abs(random() % (max(id) + 1)) FROM rows) ORDER BY r.id LIMIT 16"),
    STATEMENT(read_dispatched,
              "SELECT worker, seq, shorn_decode(payload), shorn_extract(payload, 4, '$.v') FROM dispatched "
              "WHERE id >= (SELECT abs(random() % (max(id) + 1)) FROM dispatched) ORDER BY id LIMIT 16"),
    STATEMENT(random_row,
              "SELECT worker, seq FROM rows "
              "WHERE id >= (SELECT abs(random() % (max(id) + 1)) FROM rows) ORDER BY id LIMIT 1"),
    STATEMENT(by_x, BY_X),
    STATEMENT(own_dispatched,
              "SELECT seq, payload FROM dispatched WHERE worker = ?1 AND seq >= ?2 ORDER BY seq LIMIT 4"),
    STATEMENT(decode_named, "SELECT shorn_decode(?1, ?2, 4)"),
    STATEMENT(roundtrip_named, "SELECT shorn_decode(shorn_encode(?1, ?2), ?2)"),
    STATEMENT(begin, "BEGIN"),
    STATEMENT(commit, "COMMIT"),
    STATEMENT(rollback, "ROLLBACK"),
};

#define STATEMENT_COUNT (sizeof statements / sizeof statements[0])

static sqlite3_stmt **statement_at(worker *w, size_t i) {
  return (sqlite3_stmt **)((char *)w + statements[i].offset);
}

/* Run `operation` until it is not busy: a busy statement is reset, and an
 * open transaction rolled back, then tried again. */
static int retrying(worker *w, int (*operation)(worker *)) {
  int rc;
  while ((rc = operation(w)) == BUSY) {
    w->n.busy++;
    if (!sqlite3_get_autocommit(w->db) && run(w, w->rollback, "roll back") == FAIL) return FAIL;
    if (now() > w->deadline + BUSY_GIVE_UP_SECONDS)
      return fail(w->id, "still busy %d seconds after the end", BUSY_GIVE_UP_SECONDS);
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
  }
  return rc;
}

/* How many schemas this worker's connection compiled, by shorn_stats(). */
static void count_compilations(worker *w) {
  sqlite3_stmt *s = NULL;
  const char *sql = "SELECT json_extract(shorn_stats(), '$.compilations')";
  if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    w->n.compilations = sqlite3_column_int64(s, 0);
  else
    fail(w->id, "%s: %s", sql, sqlite3_errmsg(w->db));
  sqlite3_finalize(s);
}

typedef struct worker_setup {
  worker *w;
  const char *path, *extension;
} worker_setup;

static void *work(void *argument) {
  worker_setup *setup = argument;
  worker *w = setup->w;
  if (open_connection(setup->path, setup->extension, &w->db, w->id) != OK) goto done;
  for (size_t i = 0; i < STATEMENT_COUNT; i++) {
    int rc;
    while (is_busy(rc = sqlite3_prepare_v2(w->db, statements[i].sql, -1, statement_at(w, i), NULL)))
      w->n.busy++;
    if (rc != SQLITE_OK) {
      fail(w->id, "cannot prepare %s: %s", statements[i].sql, sqlite3_errmsg(w->db));
      goto done;
    }
  }
  /* Out of a hundred operations: writes (rows, fingerprinted rows,
   * deletions, the registry), then reads. */
  static const struct {
    int upto;
    int (*operation)(worker *);
  } mix[] = {{25, insert_row},      {35, insert_dispatched}, {38, delete_row},
             {40, rename_own},      {42, scratch_name},      {66, read_rows},
             {80, read_dispatched}, {90, index_lookup},      {100, read_own_by_name}};
  while (!atomic_load(&stopping) && now() < w->deadline) {
    int pick = (int)(next_random(w) % 100), i = 0;
    while (pick >= mix[i].upto) i++;
    if (retrying(w, mix[i].operation) != OK) break;
  }
  if (!atomic_load(&failed)) count_compilations(w);
done:
  for (size_t i = 0; i < STATEMENT_COUNT; i++) sqlite3_finalize(*statement_at(w, i));
  if (sqlite3_close(w->db) != SQLITE_OK) fail(w->id, "close: %s", sqlite3_errmsg(w->db));
  return NULL;
}

static void add_counts(counts *total, const counts *c) {
  total->inserted += c->inserted;
  total->dispatched_inserted += c->dispatched_inserted;
  total->deleted += c->deleted;
  total->checked += c->checked;
  total->index_lookups += c->index_lookups;
  total->dispatch_reads += c->dispatch_reads;
  total->registry_changes += c->registry_changes;
  total->busy += c->busy;
  total->compilations += c->compilations;
  total->names_registered += c->names_registered;
}

#define COUNTS_FORMAT "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld"
#define COUNTS_FIELDS(c)                                                                                  \
  (c).inserted, (c).dispatched_inserted, (c).deleted, (c).checked, (c).index_lookups, (c).dispatch_reads, \
      (c).registry_changes, (c).busy, (c).compilations, (c).names_registered

/* This process's workers, numbered from process * threads, until the time
 * is up. */
static bool run_workers(const char *path, const char *extension, int process, int threads, double seconds,
                        counts *total) {
  worker *workers = calloc((size_t)threads, sizeof *workers);
  worker_setup *setups = calloc((size_t)threads, sizeof *setups);
  pthread_t *ids = calloc((size_t)threads, sizeof *ids);
  if (!workers || !setups || !ids) {
    free(workers), free(setups), free(ids);
    fail(-1, "out of memory");
    return false;
  }
  double deadline = now() + seconds;
  int started = 0;
  for (int t = 0; t < threads; t++) {
    worker *w = &workers[t];
    w->id = process * threads + t;
    w->random_state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(w->id + 1);
    w->deadline = deadline;
    for (int k = 0; k < OWN_NAMES; k++) w->name_generation[k] = -1;
    setups[t] = (worker_setup){w, path, extension};
    if (pthread_create(&ids[t], NULL, work, &setups[t]) != 0) {
      fail(w->id, "pthread_create failed");
      break;
    }
    started++;
  }
  for (int t = 0; t < started; t++) {
    pthread_join(ids[t], NULL);
    add_counts(total, &workers[t].n);
  }
  free(workers), free(setups), free(ids);
  return !atomic_load(&failed);
}

/* ---- the first process: setup, the other processes, the final checks --- */

static int exec_sql(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
    fail(-1, "%s: %s", sql, error ? error : sqlite3_errmsg(db));
    sqlite3_free(error);
    return FAIL;
  }
  return OK;
}

/* The last column of the rows `sql` gives, as text into `out`, joined by
 * commas: one value, or EXPLAIN QUERY PLAN's details. */
static int query_text(sqlite3 *db, const char *sql, char *out, size_t cap) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  size_t length = 0;
  out[0] = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const unsigned char *text = sqlite3_column_text(s, sqlite3_column_count(s) - 1);
    snprintf(out + length, cap - length, "%s%s", length ? "," : "", text ? (const char *)text : "NULL");
    length += strlen(out + length);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return fail(-1, "%s: %s", sql, sqlite3_errmsg(db));
  return OK;
}

/* A fresh database: the tables, the index on shorn_extract, which the
 * planner must use, the schema variants, and a check that no two names any
 * worker may register share a fingerprint, which the registry refuses. */
static int set_up(const char *path, const char *extension, int workers) {
  const char *suffixes[] = {"", "-wal", "-shm"};
  for (int i = 0; i < 3; i++) {
    char name[4096];
    snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
    if (remove(name) != 0 && errno != ENOENT) return fail(-1, "cannot remove %s", name);
  }
  sqlite3 *db = NULL;
  if (open_connection(path, extension, &db, -1) != OK) return sqlite3_close(db), FAIL;
  char plan[256], distinct[32], want[32];
  int rc =
      exec_sql(db,
               "PRAGMA journal_mode = WAL;"
               "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;"
               "CREATE TABLE rows(id INTEGER PRIMARY KEY, worker INTEGER, seq INTEGER, payload BLOB);"
               "CREATE INDEX rows_by_worker ON rows(worker, seq);"
               "CREATE INDEX rows_by_x ON rows(shorn_extract(payload, '" ROW_SCHEMA
               "', '$.x'));"
               "CREATE TABLE dispatched(id INTEGER PRIMARY KEY, worker INTEGER, seq INTEGER, payload BLOB);"
               "CREATE INDEX dispatched_by_worker ON dispatched(worker, seq);"
               "CREATE TABLE variants(n INTEGER PRIMARY KEY, schema TEXT);"
               "CREATE TEMP TABLE names(schema TEXT);");
  sqlite3_stmt *insert = NULL;
  if (rc == OK &&
      sqlite3_prepare_v2(db, "INSERT INTO variants VALUES (?1, ?2)", -1, &insert, NULL) != SQLITE_OK)
    rc = fail(-1, "%s", sqlite3_errmsg(db));
  char schema[1024];
  for (int v = 0; rc == OK && v < VARIANTS; v++) {
    variant_schema(v, schema, sizeof schema);
    sqlite3_bind_int(insert, 1, v);
    bind_text(insert, 2, schema);
    if (sqlite3_step(insert) != SQLITE_DONE) rc = fail(-1, "variants: %s", sqlite3_errmsg(db));
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  insert = NULL;
  if (rc == OK && sqlite3_prepare_v2(db, "INSERT INTO names VALUES (?1)", -1, &insert, NULL) != SQLITE_OK)
    rc = fail(-1, "%s", sqlite3_errmsg(db));
  for (int w = 0; rc == OK && w < workers; w++)
    for (int k = 0; rc == OK && k < OWN_NAMES + SCRATCH_NAMES; k++) {
      if (k < OWN_NAMES)
        own_schema(w, k, schema, sizeof schema);
      else
        scratch_schema(w, k - OWN_NAMES, schema, sizeof schema);
      bind_text(insert, 1, schema);
      if (sqlite3_step(insert) != SQLITE_DONE) rc = fail(-1, "names: %s", sqlite3_errmsg(db));
      sqlite3_reset(insert);
    }
  sqlite3_finalize(insert);
  snprintf(want, sizeof want, "%d", workers * (OWN_NAMES + SCRATCH_NAMES));
  if (rc == OK)
    rc = query_text(db, "SELECT count(DISTINCT shorn_fingerprint(schema, 4)) FROM names", distinct,
                    sizeof distinct);
  if (rc == OK && strcmp(distinct, want) != 0)
    rc = fail(-1, "%s of the %s schemas workers register have distinct fingerprints", distinct, want);
  if (rc == OK) rc = query_text(db, "EXPLAIN QUERY PLAN " BY_X, plan, sizeof plan);
  if (rc == OK && strcmp(plan, "SEARCH rows USING INDEX rows_by_x (<expr>=?)") != 0)
    rc = fail(-1, "the lookup on $.x does not use its index: %s", plan);
  if (sqlite3_close(db) != SQLITE_OK && rc == OK) rc = fail(-1, "close: %s", sqlite3_errmsg(db));
  return rc;
}

/* After every process has finished: the database is sound, every row left
 * reads back as written, and no write went missing. */
static int verify(const char *path, const char *extension, const counts *total, long long *checked) {
  sqlite3 *db = NULL;
  if (open_connection(path, extension, &db, -1) != OK) return sqlite3_close(db), FAIL;
  char text[512], want[64];
  int rc = query_text(db, "PRAGMA integrity_check", text, sizeof text);
  if (rc == OK && strcmp(text, "ok") != 0) rc = fail(-1, "PRAGMA integrity_check: %s", text);
  struct {
    const char *sql;
    long long want;
  } tallies[] = {
      {"SELECT count(*) FROM rows", total->inserted - total->deleted},
      {"SELECT count(*) FROM dispatched", total->dispatched_inserted},
      {"SELECT count(*) FROM shorn_schemas", total->names_registered},
  };
  for (size_t i = 0; rc == OK && i < sizeof tallies / sizeof tallies[0]; i++) {
    snprintf(want, sizeof want, "%lld", tallies[i].want);
    rc = query_text(db, tallies[i].sql, text, sizeof text);
    if (rc == OK && strcmp(text, want) != 0)
      rc = fail(-1, "%s: %s, but the workers wrote %s", tallies[i].sql, text, want);
  }
  sqlite3_stmt *s = NULL;
  const char *every_row =
      "SELECT 0, r.worker, r.seq, shorn_decode(r.payload, v.schema) FROM rows AS r "
      "JOIN variants AS v ON v.n = " VARIANT_OF_ROW
      " "
      "UNION ALL SELECT 1, worker, seq, shorn_decode(payload) FROM dispatched";
  if (rc == OK && sqlite3_prepare_v2(db, every_row, -1, &s, NULL) != SQLITE_OK)
    rc = fail(-1, "%s", sqlite3_errmsg(db));
  int step = SQLITE_DONE;
  char json[512];
  while (rc == OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
    int writer = sqlite3_column_int(s, 1);
    long long seq = sqlite3_column_int64(s, 2);
    if (sqlite3_column_int(s, 0) == 0)
      row_json(writer, seq, json, sizeof json);
    else
      dispatched_json(writer, seq, json, sizeof json);
    const unsigned char *got = sqlite3_column_text(s, 3);
    if (!got || strcmp((const char *)got, json) != 0)
      rc = fail(-1, "worker %d seq %lld reads back as %s, not %s", writer, seq,
                got ? (const char *)got : "NULL", json);
    else
      ++*checked;
  }
  if (rc == OK && step != SQLITE_DONE) rc = fail(-1, "reading every row: %s", sqlite3_errmsg(db));
  sqlite3_finalize(s);
  if (sqlite3_close(db) != SQLITE_OK && rc == OK) rc = fail(-1, "close: %s", sqlite3_errmsg(db));
  return rc;
}

extern char **environ;

typedef struct child {
  pid_t pid;
  FILE *output;
} child;

/* The same program with the same options and --child K, its standard
 * output a pipe that gives back its counts. */
static int spawn_child(int argc, char **argv, int k, child *c) {
  char number[16];
  snprintf(number, sizeof number, "%d", k);
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) return fail(-1, "out of memory");
  memcpy(args, argv, (size_t)argc * sizeof *args);
  args[argc] = "--child", args[argc + 1] = number;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return free(args), fail(-1, "pipe: %s", strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  int rc = posix_spawn(&c->pid, argv[0], &actions, NULL, args, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(args);
  close(pipe_ends[1]);
  if (rc != 0) return close(pipe_ends[0]), fail(-1, "cannot start %s: %s", argv[0], strerror(rc));
  c->output = fdopen(pipe_ends[0], "r");
  return c->output ? OK : fail(-1, "fdopen: %s", strerror(errno));
}

static int wait_child(child *c, int k, counts *total) {
  counts n = {0};
  bool read = fscanf(c->output, "counts " COUNTS_FORMAT, &n.inserted, &n.dispatched_inserted, &n.deleted,
                     &n.checked, &n.index_lookups, &n.dispatch_reads, &n.registry_changes, &n.busy,
                     &n.compilations, &n.names_registered) == 10;
  fclose(c->output);
  int status = 0;
  if (waitpid(c->pid, &status, 0) != c->pid) return fail(-1, "waitpid: %s", strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fail(-1, "process %d failed (status %d)", k, status);
  if (!read) return fail(-1, "process %d gave no counts", k);
  add_counts(total, &n);
  return OK;
}

static int usage(const char *program) {
  fprintf(
      stderr,
      "usage: %s --db FILE --seconds N [--threads N] [--processes N] [--mode serialized|multi-thread]%s\n",
      program,
#ifdef SQLITE_CORE
      ""
#else
      " --extension PATH"
#endif
  );
  return 2;
}

int main(int argc, char **argv) {
  const char *path = NULL, *extension = NULL, *mode = NULL;
  double seconds = -1;
  int threads = 8, processes = 2, child_number = 0;
  for (int i = 1; i < argc; i++) {
    const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!value) return usage(argv[0]);
    i++;
    if (strcmp(option, "--db") == 0)
      path = value;
    else if (strcmp(option, "--seconds") == 0)
      seconds = atof(value);
    else if (strcmp(option, "--threads") == 0)
      threads = atoi(value);
    else if (strcmp(option, "--processes") == 0)
      processes = atoi(value);
    else if (strcmp(option, "--mode") == 0)
      mode = value;
    else if (strcmp(option, "--extension") == 0)
      extension = value;
    else if (strcmp(option, "--child") == 0)
      child_number = atoi(value);
    else
      return usage(argv[0]);
  }
#ifdef SQLITE_CORE
  bool extension_wanted = false;
#else
  bool extension_wanted = true;
#endif
  if (!path || seconds < 0 || threads < 1 || processes < 1 || threads * processes > 1000 ||
      (extension != NULL) != extension_wanted ||
      (mode && strcmp(mode, "serialized") != 0 && strcmp(mode, "multi-thread") != 0))
    return usage(argv[0]);

  /* A run meant for one SQLite, through LD_LIBRARY_PATH, must not pass on
   * another. */
  const char *wanted = getenv("SHORN_SQLITE_VERSION");
  if (wanted && strcmp(wanted, sqlite3_libversion()) != 0) {
    fprintf(stderr, "soak: SHORN_SQLITE_VERSION is %s, but this is SQLite %s\n", wanted, sqlite3_libversion());
    return 1;
  }
  /* Before SQLite initializes: a library built for either mode runs in
   * either. */
  if (mode && sqlite3_config(strcmp(mode, "serialized") == 0 ? SQLITE_CONFIG_SERIALIZED
                                                             : SQLITE_CONFIG_MULTITHREAD) != SQLITE_OK) {
    fprintf(stderr, "soak: this SQLite cannot run %s\n", mode);
    return 1;
  }
#ifdef SQLITE_CORE
  sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
#endif

  counts total = {0};
  child *children = NULL;
  int spawned = 0;
  bool ok = true;
  double started = now();
  if (child_number == 0) {
    children = calloc((size_t)processes, sizeof *children);
    ok = children && set_up(path, extension, threads * processes) == OK;
    for (int k = 1; ok && k < processes; k++)
      if ((ok = spawn_child(argc, argv, k, &children[k]) == OK)) spawned++;
  }
  if (ok) ok = run_workers(path, extension, child_number, threads, seconds, &total);
  if (child_number != 0) {
    printf("counts " COUNTS_FORMAT "\n", COUNTS_FIELDS(total));
    return ok ? 0 : 1;
  }
  for (int k = 1; k <= spawned; k++) ok = wait_child(&children[k], k, &total) == OK && ok;
  free(children);
  long long verified = 0;
  if (ok) ok = verify(path, extension, &total, &verified) == OK;
#ifdef SQLITE_CORE
  sqlite3_reset_auto_extension();
#endif
  if (!ok) {
    fprintf(stderr, "soak: FAILED\n");
    return 1;
  }
  printf(
      "soak: SQLite %s (SQLITE_THREADSAFE=%d, %s), %d processes x %d threads, %.1f s: "
      "%lld values read and compared during the run (%lld through the index, %lld by fingerprint), "
      "%lld rows at the end; %lld rows written, %lld deleted, %lld registry changes, %lld busy retries, "
      "%lld schema compilations; integrity_check ok\n",
      sqlite3_libversion(), sqlite3_threadsafe(), mode ? mode : "as built", processes, threads,
      now() - started, total.checked, total.index_lookups, total.dispatch_reads, verified,
      total.inserted + total.dispatched_inserted, total.deleted, total.registry_changes, total.busy,
      total.compilations);
  return 0;
}
