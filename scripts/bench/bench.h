/* bench.h — what the files of `make bench`'s main program share: the
 * fixtures, the database they are stored in, and the measurements each
 * file makes of them.  main.c says what the program does and how to run it. */
#ifndef SHORN_BENCH_H
#define SHORN_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "core/base/memory.h"
#include "core/json/json.h"
#include "../bench_time.h"

#ifndef SQLITE_RESULT_SUBTYPE /* 3.45's flag, which 3.40's headers lack */
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

/* main.c: the program's way out, and its ratio of paired measurements. */
void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
double paired_ratio(const double *a, const double *b, int n);

/* fixtures.c: rows of JSON text, the same on every run and every machine. */
typedef struct fixture {
  const char *name;
  const char *schema;
  void (*generate)(shorn_buffer *);
  /* A field near the start of the payload and its last scalar (canonical
   * key order). */
  const char *early, *late;
  const char *what;
} fixture;
#define FIXTURES 8
extern const fixture fixtures[FIXTURES];
void make_schemas(void);
uint64_t fixture_random(void);
char *type_schema(int t);
void typed_event(shorn_buffer *b, int t);

/* database.c: the fixtures stored as JSON text, JSONB and shorn. */
void exec(sqlite3 *db, const char *sql);
sqlite3_stmt *prepare(sqlite3 *db, const char *sql);
sqlite3_int64 query_int(sqlite3 *db, const char *fmt, ...);
sqlite3 *open_database(const char *path, const char *extension);
void build(sqlite3 *db, int rows);
typedef struct result_floor {
  bool text; /* JSON text with subtype 'J', else a BLOB */
  int *lengths, rows, next;
} result_floor;
void register_result_floors(sqlite3 *db, const char *fixture_name, result_floor floors[2]);

/* sql.c: shorn's SQL functions against SQLite's JSON functions. */
typedef enum op {
  OP_FLOOR_TEXT,           /* bench_floor(json) */
  OP_FLOOR_JSONB,          /* bench_floor(jsonb) */
  OP_FLOOR_SHORN,          /* bench_floor(shorn) */
  OP_JSON_RESULT_FLOOR,    /* bench_json_floor_FIXTURE(shorn): shorn_decode's result floor */
  OP_PAYLOAD_RESULT_FLOOR, /* bench_payload_floor_FIXTURE(json): shorn_encode's */
  OP_SQLITE_JSON,          /* json(jsonb), json(json) */
  OP_SHORN_DECODE,         /* shorn_decode(shorn, name) */
  OP_SQLITE_JSONB,         /* jsonb(json) */
  OP_SHORN_ENCODE,         /* shorn_encode(json, name) */
  OP_SQLITE_EARLY,         /* json_extract(jsonb, early), json_extract(json, early) */
  OP_SHORN_EARLY,          /* shorn_extract(shorn, name, early) */
  OP_SQLITE_LATE,
  OP_SHORN_LATE,
  OP_SQLITE_VALID,         /* json_valid(jsonb, 8) */
  OP_SHORN_VALID,          /* shorn_valid(shorn, name) */
  OP_SHORN_UNCHECKED,      /* shorn_encode_unchecked(json, name) */
  OP_SQLITE_SET,           /* jsonb_set(jsonb, early, 46) */
  OP_COMPOSED_SET,         /* shorn_encode(json_set(shorn_decode(shorn, name), early, 46), name) */
  OP_SHORN_SET,            /* shorn_set(shorn, name, early, 46) */
  OPS
} op;
typedef struct measure {
  sqlite3_stmt *st; /* NULL: not measured in this comparison */
  double *seconds;  /* per repetition */
  double median_ns; /* per row */
} measure;
double run(sqlite3 *db, sqlite3_stmt *st);
void measure_all(sqlite3 *db, measure m[FIXTURES][OPS], int rows, int reps, bool text);
void count_calls(sqlite3 *db, int rows);
void print_jsonb_tables(measure m[FIXTURES][OPS], sqlite3_int64 bytes[FIXTURES][3], int rows, int reps);
void print_text_table(measure m[FIXTURES][OPS], int reps);

/* codec.c: the core codec alone, timed and counted by callgrind. */
typedef struct corpus {
  int rows;
  shorn_buffer json, payloads;
  size_t *json_end, *payload_end; /* where row i ends in each */
  size_t decoded_bytes;
  uint64_t values; /* JSON values in all rows, containers included */
  uint64_t string_bytes; /* the bytes of their string values, keys aside */
  shorn_schema *schema;
  double *encode_seconds, *unchecked_seconds, *decode_seconds;
} corpus;
void measure_codec(sqlite3 *db, corpus core[FIXTURES], int rows, int reps);
void print_codec_tables(corpus core[FIXTURES], int reps);
void free_corpus(corpus *c);
void count_instructions(int rows);

/* schemas.c: what compiling and caching schemas costs. */
typedef struct compile_case {
  const char *what;
  const char *schema_sql; /* the schema argument */
  sqlite3 *db;            /* a connection of its own, opened fresh */
  sqlite3_stmt *st;
  sqlite3_int64 compilations;
  double *seconds;
} compile_case;
enum { COMPILE_CASES = 3 };
void measure_compile_cases(compile_case cases[COMPILE_CASES], const char *path, const char *extension,
                           int rows, int reps);
void print_compile_cases(compile_case cases[COMPILE_CASES], int reps);
void run_types(const char *path, const char *extension, int rows, int reps);

#endif
