/*
 * sql.c — shorn's SQL functions against SQLite's JSON functions over the
 * same rows: each query is `SELECT count(f(column)) FROM fixture`, run
 * over every row, all the queries of one repetition before any of the next
 * (so that a burst of load elsewhere hits every query alike); the tables
 * that compare them; and, for callgrind, each query's instructions (--calls).
 */
#include <stdio.h>
#include <stdlib.h>

#include <valgrind/callgrind.h>

#include "bench.h"

/* Each query's name in the counts --calls dumps. */
static const char *const op_names[OPS] = {
    "floor_text", "floor_jsonb", "floor_shorn", "json_result_floor", "payload_result_floor", "json",
    "shorn_decode", "jsonb", "shorn_encode", "json_extract_early", "shorn_extract_early",
    "json_extract_late", "shorn_extract_late", "json_valid", "shorn_valid", "shorn_encode_unchecked",
    "jsonb_set", "composed_set", "shorn_set"};

/* The query of `o` over fixture `fx`, SQLite's side reading JSONB, or with
 * `text` the JSON text; NULL when `text` leaves it out:
 * the JSONB column, the result floors and validity, which SQLite 3.40's
 * text functions are not compared on. */
static char *op_sql(const fixture *fx, op o, bool text) {
  const char *n = fx->name, *column = text ? "json" : "jsonb";
  switch (o) {
    case OP_FLOOR_TEXT: return sqlite3_mprintf("SELECT count(bench_floor(json)) FROM %s_json", n);
    case OP_FLOOR_SHORN: return sqlite3_mprintf("SELECT count(bench_floor(shorn)) FROM %s_shorn", n);
    case OP_SQLITE_JSON: return sqlite3_mprintf("SELECT count(json(%s)) FROM %s_%s", column, n, column);
    case OP_SHORN_DECODE: return sqlite3_mprintf("SELECT count(shorn_decode(shorn, %Q)) FROM %s_shorn", n, n);
    case OP_SHORN_ENCODE: return sqlite3_mprintf("SELECT count(shorn_encode(json, %Q)) FROM %s_json", n, n);
    case OP_SQLITE_EARLY:
    case OP_SQLITE_LATE:
      return sqlite3_mprintf("SELECT count(json_extract(%s, %Q)) FROM %s_%s", column,
                             o == OP_SQLITE_EARLY ? fx->early : fx->late, n, column);
    case OP_SHORN_EARLY:
    case OP_SHORN_LATE:
      return sqlite3_mprintf("SELECT count(shorn_extract(shorn, %Q, %Q)) FROM %s_shorn", n,
                             o == OP_SHORN_EARLY ? fx->early : fx->late, n);
    default: break;
  }
  if (text) return NULL;
  switch (o) {
    case OP_FLOOR_JSONB: return sqlite3_mprintf("SELECT count(bench_floor(jsonb)) FROM %s_jsonb", n);
    case OP_JSON_RESULT_FLOOR:
      return sqlite3_mprintf("SELECT count(bench_json_floor_%s(shorn)) FROM %s_shorn", n, n);
    case OP_PAYLOAD_RESULT_FLOOR:
      return sqlite3_mprintf("SELECT count(bench_payload_floor_%s(json)) FROM %s_json", n, n);
    case OP_SQLITE_JSONB: return sqlite3_mprintf("SELECT count(jsonb(json)) FROM %s_json", n);
    case OP_SQLITE_VALID: return sqlite3_mprintf("SELECT count(json_valid(jsonb, 8)) FROM %s_jsonb", n);
    case OP_SHORN_UNCHECKED:
      return sqlite3_mprintf("SELECT count(shorn_encode_unchecked(json, %Q)) FROM %s_json", n, n);
    /* A scalar field changed: every fixture's early field takes 46. */
    case OP_SQLITE_SET: return sqlite3_mprintf("SELECT count(jsonb_set(jsonb, %Q, 46)) FROM %s_jsonb", fx->early, n);
    case OP_COMPOSED_SET:
      return sqlite3_mprintf("SELECT count(shorn_encode(json_set(shorn_decode(shorn, %Q), %Q, 46), %Q)) FROM %s_shorn",
                             n, fx->early, n, n);
    case OP_SHORN_SET:
      return sqlite3_mprintf("SELECT count(shorn_set(shorn, %Q, %Q, 46)) FROM %s_shorn", n, fx->early, n);
    default: return sqlite3_mprintf("SELECT count(shorn_valid(shorn, %Q)) FROM %s_shorn", n, n);
  }
}

double run(sqlite3 *db, sqlite3_stmt *st) {
  double start = cpu_seconds();
  int rc = sqlite3_step(st);
  double spent = cpu_seconds() - start;
  if (rc != SQLITE_ROW) die("%s: %s", sqlite3_sql(st), sqlite3_errmsg(db));
  sqlite3_reset(st);
  return spent;
}

/* Every query of every fixture, `reps` repetitions of them all, after an
 * untimed pass of the floors, which brings every page into the cache. */
void measure_all(sqlite3 *db, measure m[FIXTURES][OPS], int rows, int reps, bool text) {
  for (int f = 0; f < FIXTURES; f++)
    for (int o = 0; o < OPS; o++) {
      char *sql = op_sql(&fixtures[f], (op)o, text);
      m[f][o] = (measure){.st = sql ? prepare(db, sql) : NULL, .seconds = calloc((size_t)reps, sizeof(double))};
      if (!m[f][o].seconds) die("out of memory");
      sqlite3_free(sql);
    }
  for (int f = 0; f < FIXTURES; f++)
    for (int o = OP_FLOOR_TEXT; o <= OP_FLOOR_SHORN; o++)
      if (m[f][o].st) run(db, m[f][o].st);
  for (int r = 0; r < reps; r++) {
    fprintf(stderr, "bench: SQL repetition %d of %d\n", r + 1, reps);
    for (int f = 0; f < FIXTURES; f++)
      for (int o = 0; o < OPS; o++)
        if (m[f][o].st) m[f][o].seconds[r] = run(db, m[f][o].st);
  }
  for (int f = 0; f < FIXTURES; f++)
    for (int o = 0; o < OPS; o++)
      if (m[f][o].st) {
        m[f][o].median_ns = median(m[f][o].seconds, reps) * 1e9 / rows;
        sqlite3_finalize(m[f][o].st);
      }
}


/* One comparison: SQLite's function against shorn's, each with the floor
 * of the column it reads; `ceiling_floor` is what SQLite's time is set
 * against for the most any implementation could show (shorn's result
 * floor, or for a few-byte result its floor). */
typedef struct comparison {
  const char *shorn_call, *sqlite_call;
  op sqlite, shorn, sqlite_floor, shorn_floor, ceiling_floor;
  double target; /* the project's goal, as times faster; 0: none */
  bool path;     /* an extract: name the fixture's path */
} comparison;

static const comparison jsonb_comparisons[] = {
    {"`shorn_decode(shorn)`", "`json(jsonb)`", OP_SQLITE_JSON, OP_SHORN_DECODE, OP_FLOOR_JSONB, OP_FLOOR_SHORN,
     OP_JSON_RESULT_FLOOR, 1.5, false},
    {"`shorn_encode(text)`", "`jsonb(text)`", OP_SQLITE_JSONB, OP_SHORN_ENCODE, OP_FLOOR_TEXT, OP_FLOOR_TEXT,
     OP_PAYLOAD_RESULT_FLOOR, 1.0, false},
    {"`shorn_encode_unchecked(text)`", "`jsonb(text)`", OP_SQLITE_JSONB, OP_SHORN_UNCHECKED, OP_FLOOR_TEXT,
     OP_FLOOR_TEXT, OP_PAYLOAD_RESULT_FLOOR, 0, false},
    {"`shorn_extract`", "`json_extract(jsonb)`, early", OP_SQLITE_EARLY, OP_SHORN_EARLY, OP_FLOOR_JSONB,
     OP_FLOOR_SHORN, OP_FLOOR_SHORN, 1.5, true},
    {"`shorn_extract`", "`json_extract(jsonb)`, late", OP_SQLITE_LATE, OP_SHORN_LATE, OP_FLOOR_JSONB,
     OP_FLOOR_SHORN, OP_FLOOR_SHORN, 1.5, true},
    {"`shorn_valid`", "`json_valid(jsonb, 8)`", OP_SQLITE_VALID, OP_SHORN_VALID, OP_FLOOR_JSONB, OP_FLOOR_SHORN,
     OP_FLOOR_SHORN, 0, false},
    {"`shorn_set`", "`shorn_encode(json_set(shorn_decode(shorn)))`", OP_COMPOSED_SET, OP_SHORN_SET, OP_FLOOR_SHORN,
     OP_FLOOR_SHORN, OP_FLOOR_SHORN, 3.0, true},
    {"`shorn_set`", "`jsonb_set(jsonb)`", OP_SQLITE_SET, OP_SHORN_SET, OP_FLOOR_JSONB, OP_FLOOR_SHORN, OP_FLOOR_JSONB,
     1.0, true},
};
static const comparison text_comparisons[] = {
    {"`shorn_decode(shorn)`", "`json(text)`", OP_SQLITE_JSON, OP_SHORN_DECODE, OP_FLOOR_TEXT, OP_FLOOR_SHORN,
     OPS, 0, false},
    {"`shorn_encode(text)`", "`json(text)`", OP_SQLITE_JSON, OP_SHORN_ENCODE, OP_FLOOR_TEXT, OP_FLOOR_TEXT, OPS,
     0, false},
    {"`shorn_extract`", "`json_extract(text)`, early", OP_SQLITE_EARLY, OP_SHORN_EARLY, OP_FLOOR_TEXT,
     OP_FLOOR_SHORN, OPS, 0, true},
    {"`shorn_extract`", "`json_extract(text)`, late", OP_SQLITE_LATE, OP_SHORN_LATE, OP_FLOOR_TEXT,
     OP_FLOOR_SHORN, OPS, 0, true},
};
#define JSONB_COMPARISONS (int)(sizeof jsonb_comparisons / sizeof *jsonb_comparisons)
#define TEXT_COMPARISONS (int)(sizeof text_comparisons / sizeof *text_comparisons)

/* --calls: every query the JSONB comparisons name, run once to warm it
 * (pages cached, schemas compiled, paths parsed), then again between
 * callgrind's zeroing and its dump, named "calls FIXTURE QUERY ROWS".
 * Callgrind instruments nothing before (run it with --instr-atstart=no):
 * building the database under it would take minutes.  Then the
 * comparisons on stdout, a line each, for scripts/bench-instructions.py:
 * "comparison|shorn's call|SQLite's|QUERY|QUERY|FLOOR|FLOOR|path",
 * SQLite's query and shorn's, each with its floor, and "fixture|NAME|EARLY|LATE". */
void count_calls(sqlite3 *db, int rows) {
  bool wanted[OPS] = {false};
  for (int i = 0; i < JSONB_COMPARISONS; i++) {
    const comparison *c = &jsonb_comparisons[i];
    wanted[c->sqlite] = wanted[c->shorn] = wanted[c->sqlite_floor] = wanted[c->shorn_floor] = true;
  }
  CALLGRIND_START_INSTRUMENTATION;
  for (int f = 0; f < FIXTURES; f++)
    for (int o = 0; o < OPS; o++) {
      if (!wanted[o]) continue;
      char *sql = op_sql(&fixtures[f], (op)o, false), name[128];
      sqlite3_stmt *st = prepare(db, sql);
      sqlite3_free(sql);
      run(db, st);
      snprintf(name, sizeof name, "calls %s %s %d", fixtures[f].name, op_names[o], rows);
      CALLGRIND_ZERO_STATS;
      run(db, st);
      CALLGRIND_DUMP_STATS_AT(name);
      sqlite3_finalize(st);
    }
  for (int i = 0; i < JSONB_COMPARISONS; i++) {
    const comparison *c = &jsonb_comparisons[i];
    printf("comparison|%s|%s|%s|%s|%s|%s|%d\n", c->shorn_call, c->sqlite_call, op_names[c->sqlite],
           op_names[c->shorn], op_names[c->sqlite_floor], op_names[c->shorn_floor], c->path);
  }
  for (int f = 0; f < FIXTURES; f++)
    printf("fixture|%s|%s|%s\n", fixtures[f].name, fixtures[f].early, fixtures[f].late);
}

/* How many times faster shorn is: the median of each repetition's own
 * ratio. */
static double faster(const comparison *c, const measure *m, int reps) {
  return paired_ratio(m[c->sqlite].seconds, m[c->shorn].seconds, reps);
}

/* A row of the detailed table; the ceiling and the target only against
 * JSONB. */
static void print_comparison(const fixture *fx, const comparison *c, const measure *m, int reps) {
  double sqlite_ns = m[c->sqlite].median_ns, shorn_ns = m[c->shorn].median_ns, ratio = faster(c, m, reps);
  printf("| %s | %s vs %s", fx->name, c->shorn_call, c->sqlite_call);
  if (c->path) printf(" `%s`", c->sqlite == OP_SQLITE_LATE ? fx->late : fx->early);
  printf(" | %.0f | %.0f | %.2f× | %.2f× |", sqlite_ns, shorn_ns, ratio,
         (sqlite_ns - m[c->sqlite_floor].median_ns) / (shorn_ns - m[c->shorn_floor].median_ns));
  if (c->ceiling_floor == OPS) {
    printf("\n");
    return;
  }
  double ceiling = sqlite_ns / m[c->ceiling_floor].median_ns;
  printf(" %.1f× |", ceiling);
  if (c->target > 0)
    printf(" ≥%.1f×: %s |\n", c->target,
           ratio >= c->target ? "yes" : ceiling < c->target ? "**no**, out of reach" : "**no**");
  else
    printf(" |\n");
}

void print_jsonb_tables(measure m[FIXTURES][OPS], sqlite3_int64 bytes[FIXTURES][3], int rows,
                               int reps) {
  printf("| fixture | decode vs `json(jsonb)` (≥1.5×) | encode vs `jsonb(text)` (≥1.0×) "
         "| encode unchecked vs `jsonb(text)` "
         "| extract early / late vs `json_extract(jsonb)` (≥1.5×) | valid vs `json_valid(jsonb, 8)` "
         "| set vs the composition (≥3×) | set vs `jsonb_set(jsonb)` (≥1.0×) "
         "| stored bytes: text / JSONB / shorn |\n");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int f = 0; f < FIXTURES; f++) {
    printf("| %s |", fixtures[f].name);
    for (int i = 0; i < JSONB_COMPARISONS; i++) {
      const comparison *c = &jsonb_comparisons[i];
      double ratio = faster(c, m[f], reps);
      const char *bold = ratio < c->target ? "**" : "";
      printf("%s%s%.2f×%s", c->sqlite == OP_SQLITE_LATE ? " / " : " ", bold, ratio, bold);
      if (c->sqlite != OP_SQLITE_EARLY) printf(" |");
    }
    printf(" %.0f / %.0f / %.0f |\n", (double)bytes[f][0] / rows, (double)bytes[f][1] / rows,
           (double)bytes[f][2] / rows);
  }
  printf("\n### Per row\n\n");
  printf("Each query is `SELECT count(f(column)) FROM fixture`. The ns/row columns are medians; "
         "*faster* is the median over repetitions of each repetition's own ratio, its two queries "
         "having run one after the other, which a burst of load elsewhere moves less. *Floor* is the "
         "same query around a function that does nothing: what SQLite spends per row (reading the row, "
         "copying the value into a register, calling a function) before any function works; *above "
         "floor* compares what remains, each function over its own column's floor. The *result floor* "
         "also hands SQLite a constant result as long as the row's real one, through the call shorn "
         "uses: JSON text with subtype 'J' for decode (from the shorn BLOB), a BLOB as long as the "
         "payload for encode (from the text). It is what SQLite charges any decoder or encoder per row, "
         "so *ceiling*, SQLite's time over it, is the most any implementation could show (for extract "
         "and valid, whose results are a few bytes, over the floor); a target above its ceiling is out "
         "of reach.\n\n");
  printf("| fixture | measured | SQLite ns/row | shorn ns/row | faster | above floor | ceiling | target |\n");
  printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
  for (int f = 0; f < FIXTURES; f++) {
    const char *n = fixtures[f].name;
    const measure *x = m[f];
    printf("| %s | floor: empty function on the JSON text | %.0f | %.0f | | | | |\n", n,
           x[OP_FLOOR_TEXT].median_ns, x[OP_FLOOR_TEXT].median_ns);
    printf("| %s | floor: empty function on the JSONB, on the shorn BLOB | %.0f | %.0f | | | | |\n", n,
           x[OP_FLOOR_JSONB].median_ns, x[OP_FLOOR_SHORN].median_ns);
    printf("| %s | result floor: JSON-length text from the shorn BLOB | | %.0f | | | | |\n", n,
           x[OP_JSON_RESULT_FLOOR].median_ns);
    printf("| %s | result floor: payload-length BLOB from the text | | %.0f | | | | |\n", n,
           x[OP_PAYLOAD_RESULT_FLOOR].median_ns);
    for (int i = 0; i < JSONB_COMPARISONS; i++) print_comparison(&fixtures[f], &jsonb_comparisons[i], x, reps);
  }
  printf("\n### Stored bytes per row\n\n");
  printf("| fixture | rows hold | JSON text | JSONB | shorn | JSONB / shorn |\n");
  printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
  for (int f = 0; f < FIXTURES; f++)
    printf("| %s | %s | %.0f | %.0f | %.0f | %.2f× |\n", fixtures[f].name, fixtures[f].what,
           (double)bytes[f][0] / rows, (double)bytes[f][1] / rows, (double)bytes[f][2] / rows,
           (double)bytes[f][1] / (double)bytes[f][2]);
}

void print_text_table(measure m[FIXTURES][OPS], int reps) {
  printf("The same queries over the same rows, SQLite's side reading the JSON text: *floor*, *faster* "
         "and *above floor* as above.\n\n");
  printf("| fixture | measured | SQLite ns/row | shorn ns/row | faster | above floor |\n");
  printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
  for (int f = 0; f < FIXTURES; f++) {
    const measure *x = m[f];
    printf("| %s | floor: empty function on the JSON text, on the shorn BLOB | %.0f | %.0f | | |\n",
           fixtures[f].name, x[OP_FLOOR_TEXT].median_ns, x[OP_FLOOR_SHORN].median_ns);
    for (int i = 0; i < TEXT_COMPARISONS; i++) print_comparison(&fixtures[f], &text_comparisons[i], x, reps);
  }
}
