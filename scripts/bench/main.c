/*
 * main.c — `make bench`'s main program: shorn against SQLite's own JSON
 * functions, in one process, over the same rows.
 *
 *   bench [--rows N] [--reps N] [--db FILE] [--extension PATH]
 *   bench --text [--reps N] [--db FILE] [--extension PATH]
 *   bench --instructions [--rows N]
 *   bench --calls [--rows N] [--db FILE] [--extension PATH]
 *   bench --types [--rows N] [--reps N] [--db FILE] [--extension PATH]
 *
 * Builds eight fixtures in one database, each row stored as JSON text (in
 * FIXTURE_json), as JSONB (FIXTURE_jsonb) and as a shorn BLOB
 * (FIXTURE_shorn), same ids: a table holds one form, as an application's
 * would; --text measures the database that a run without it left.  Then
 * runs each measured query over every row of its fixture, all the queries
 * of one repetition before any of the next (so a burst of load elsewhere
 * hits every query alike), and prints medians as Markdown on stdout,
 * progress on stderr.
 *
 * One program built twice, as the Makefile builds it, since a process
 * holds one SQLite: bench, linked against the SQLite that better-sqlite3
 * ships (3.53), compares shorn with JSONB and prints the main tables, the
 * stored sizes, the core codec alone (no SQLite) and how often a schema is
 * compiled in a 1,000,000-row query; bench-system, linked against Debian's
 * SQLite (3.40), runs with --text over the same database and compares
 * shorn with the text JSON functions, all that 3.40 has.  `make bench`
 * runs both and writes their outputs, one after the other, to
 * scripts/bench-results.md.
 *
 * The SQL functions are the loadable extension's own, loaded as users load
 * it; the core codec is linked in statically for the codec-alone figures.
 * Times are the thread's CPU time rather than wall time: the machine is
 * shared, and CPU time leaves out the moments another process holds the
 * core.  Each query is `SELECT count(f(column)) FROM fixture`, and the same
 * query around a function that does nothing measures the floor: what SQLite
 * spends per row before any function does any work; one that also returns
 * a constant result as long as the real one measures the result floor, and
 * with it the ceiling any decoder or encoder could reach.
 *
 * --instructions runs the core codec alone over rows made in memory (no
 * database), for callgrind to count: scripts/bench-instructions.py runs it
 * under valgrind and reads the counts of each pass, which callgrind dumps
 * at the pass's end.  Instructions, unlike times, do not move with the
 * load of a shared machine, so they show what a change to the code did.
 * --calls does the same for the SQL functions: it builds the database,
 * runs each query of the JSONB comparisons once to warm it, then again
 * with callgrind counting, and prints the comparisons (which queries each
 * sets against which, with their floors) for the script to read.
 * --types builds a database of its own, one table of events of 1 to 3,000
 * types (20,000 rows each unless --rows says otherwise), and times reading
 * it through the schema cache by name, text and fingerprint, and a typical
 * schema's compile.
 *
 * Each file measures one thing: fixtures.c makes the rows, database.c
 * stores them with the floors, sql.c times the SQL functions, codec.c the
 * codec alone, schemas.c the finding and compiling of schemas.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Where the linked SQLite comes from, as the Makefile says. */
#ifndef BENCH_SQLITE_ORIGIN
#define BENCH_SQLITE_ORIGIN "as linked"
#endif

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

/* The median over repetitions of a[r] / b[r]: the two queries of a pair ran
 * within a second of each other, so a burst of load elsewhere that lasts
 * seconds slows both, where it moves the ratio of two medians. */
double paired_ratio(const double *a, const double *b, int n) {
  double ratios[REPS_MAX];
  for (int r = 0; r < n; r++) ratios[r] = a[r] / b[r];
  return median(ratios, n);
}

static void cpu_model(char *out, size_t cap) {
  snprintf(out, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(out, cap, "%s", colon + 2);
      out[strcspn(out, "\n")] = 0;
      break;
    }
  }
  fclose(f);
}

/* Where and how a table was measured, and what the load was around it. */
static void print_setting(time_t started, const double load_before[3], int rows, int reps) {
  char cpu[128], when[32];
  cpu_model(cpu, sizeof cpu);
  struct utsname un;
  uname(&un);
  double load_after[3] = {0};
  getloadavg(load_after, 3);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&started));
  printf("Written by `make bench` (scripts/bench/) on %s: %s, %ld cores, %s %s; SQLite %s of %.10s, "
         BENCH_SQLITE_ORIGIN "; "
         "%d rows per fixture, median of %d interleaved repetitions, thread CPU time; "
         "load average %.2f before, %.2f after.\n\n",
         when, cpu, sysconf(_SC_NPROCESSORS_ONLN), un.sysname, un.machine, sqlite3_libversion(),
         sqlite3_sourceid(), rows, reps, load_before[0], load_after[0]);
}

int main(int argc, char **argv) {
  int rows = 200000, reps = 7;
  bool text = false, instructions = false, calls = false, types = false, rows_given = false;
  const char *path = "build/bench.db", *extension = "build/shorn";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const struct {
      const char *name;
      bool *set;
    } flags[] = {{"--text", &text}, {"--instructions", &instructions}, {"--calls", &calls}, {"--types", &types}};
    bool flag = false;
    for (size_t k = 0; k < sizeof flags / sizeof *flags && !flag; k++)
      if (strcmp(a, flags[k].name) == 0) *flags[k].set = flag = true;
    if (flag) continue;
    if (!v) die("%s needs a value", a);
    if (strcmp(a, "--rows") == 0) rows = atoi(v), rows_given = true;
    else if (strcmp(a, "--reps") == 0) reps = atoi(v);
    else if (strcmp(a, "--db") == 0) path = v;
    else if (strcmp(a, "--extension") == 0) extension = v;
    else die("unknown option %s (see the comment at the top of scripts/bench/main.c)", a);
    i++;
  }
  if (rows < 1 || reps < 1 || reps > REPS_MAX) die("--rows must be positive, --reps 1 to %d", REPS_MAX);
  if (instructions) {
    make_schemas();
    count_instructions(rows);
    return 0;
  }
  if (types) {
    run_types(path, extension, rows_given ? rows : 20000, reps);
    return 0;
  }
  if (!text && sqlite3_libversion_number() < 3045000)
    die("SQLite %s has no JSONB: compare with its text JSON functions (--text)", sqlite3_libversion());
  make_schemas();
  if (calls) {
    if (unlink(path) != 0 && errno != ENOENT) die("%s: %s", path, strerror(errno));
    sqlite3 *db = open_database(path, extension);
    build(db, rows);
    result_floor floors[FIXTURES][2];
    for (int f = 0; f < FIXTURES; f++) register_result_floors(db, fixtures[f].name, floors[f]);
    count_calls(db, rows);
    for (int f = 0; f < FIXTURES; f++) free(floors[f][0].lengths), free(floors[f][1].lengths);
    sqlite3_close(db);
    return 0;
  }
  double load_before[3] = {0};
  getloadavg(load_before, 3);
  time_t started = time(NULL);

  sqlite3 *db;
  if (text) {
    if (access(path, R_OK) != 0) die("%s: %s (run bench without --text first)", path, strerror(errno));
    db = open_database(path, extension);
    rows = (int)query_int(db, "SELECT count(*) FROM person_json");
  } else {
    if (unlink(path) != 0 && errno != ENOENT) die("%s: %s", path, strerror(errno));
    db = open_database(path, extension);
    build(db, rows);
  }
  result_floor floors[FIXTURES][2];
  if (!text)
    for (int f = 0; f < FIXTURES; f++) register_result_floors(db, fixtures[f].name, floors[f]);
  static measure m[FIXTURES][OPS];
  measure_all(db, m, rows, reps, text);

  if (text) {
    sqlite3_close(db);
    printf("\n## Against the text JSON functions of SQLite %s\n\n", sqlite3_libversion());
    print_setting(started, load_before, rows, reps);
    print_text_table(m, reps);
    fprintf(stderr, "bench: done in %.0f s\n", difftime(time(NULL), started));
    return 0;
  }
  for (int f = 0; f < FIXTURES; f++) free(floors[f][0].lengths), free(floors[f][1].lengths);
  sqlite3_int64 bytes[FIXTURES][3];
  for (int f = 0; f < FIXTURES; f++) {
    bytes[f][0] = query_int(db, "SELECT sum(length(CAST(json AS BLOB))) FROM %s_json", fixtures[f].name);
    bytes[f][1] = query_int(db, "SELECT sum(length(jsonb)) FROM %s_jsonb", fixtures[f].name);
    bytes[f][2] = query_int(db, "SELECT sum(length(shorn)) FROM %s_shorn", fixtures[f].name);
  }

  fprintf(stderr, "bench: the core codec alone\n");
  static corpus core[FIXTURES];
  measure_codec(db, core, rows, reps);
  sqlite3_close(db);

  fprintf(stderr, "bench: compilations in a 1,000,000-row query\n");
  compile_case cases[COMPILE_CASES] = {
      {.what = "the schema's name as a literal", .schema_sql = "'person'"},
      {.what = "its name from a column", .schema_sql = "name"},
      {.what = "its JSON Schema text from a column", .schema_sql = "schema"},
  };
  measure_compile_cases(cases, path, extension, rows, reps);

  printf("# shorn benchmark results\n\n");
  printf("## Against JSONB, on the SQLite that users run today\n\n");
  print_setting(started, load_before, rows, reps);
  printf("How many times faster shorn is than SQLite's function over the same rows (the median of "
         "each repetition's own ratio), the project's target in the heading, **bold** below it; the "
         "stored bytes per row of each form.\n\n");
  print_jsonb_tables(m, bytes, rows, reps);
  for (int f = 0; f < FIXTURES; f++)
    for (int o = 0; o < OPS; o++) free(m[f][o].seconds);
  print_codec_tables(core, reps);
  for (int f = 0; f < FIXTURES; f++) free_corpus(&core[f]);
  print_compile_cases(cases, reps);
  fprintf(stderr, "bench: done in %.0f s\n", difftime(time(NULL), started));
  return 0;
}
