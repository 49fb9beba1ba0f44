#define _DEFAULT_SOURCE /* getloadavg */
/*
 * bench.c — `make bench`: shorn against SQLite's own JSON functions, in one
 * process, over the same rows.
 *
 *   bench [--rows N] [--reps N] [--db FILE] [--extension PATH]
 *   bench --text [--reps N] [--db FILE] [--extension PATH]
 *   bench --instructions [--rows N]
 *   bench --calls [--rows N] [--db FILE] [--extension PATH]
 *   bench --types [--rows N] [--reps N] [--db FILE] [--extension PATH]
 *
 * Builds six fixtures in one database, each row stored as JSON text (in
 * FIXTURE_json), as JSONB (FIXTURE_jsonb) and as a shorn BLOB
 * (FIXTURE_shorn), same ids: a table holds one form, as an application's
 * would; --text measures the database that a run without it left.  Then
 * runs each measured query over every row of its fixture, all the queries
 * of one repetition before any of the next (so a burst of load elsewhere
 * hits every query alike), and prints medians as Markdown on stdout,
 * progress on stderr.
 *
 * One source, two programs, as the Makefile builds them, since a process
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
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <valgrind/callgrind.h>

#include "core/numbers/datetime.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/numbers/number.h"
#include "core/text/text.h"
#include "bench_time.h"

/* Where the linked SQLite comes from, as the Makefile says. */
#ifndef BENCH_SQLITE_ORIGIN
#define BENCH_SQLITE_ORIGIN "as linked"
#endif

#ifndef SQLITE_RESULT_SUBTYPE /* 3.45's flag, which 3.40's headers lack */
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

static void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void die(const char *fmt, ...) {
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
static double paired_ratio(const double *a, const double *b, int n) {
  double ratios[REPS_MAX];
  for (int r = 0; r < n; r++) ratios[r] = a[r] / b[r];
  return median(ratios, n);
}

/* ---- fixture text --------------------------------------------------------- */

/* xorshift64*: fixtures are the same on every run and every machine. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint64_t below(uint64_t n) { return rnd() % n; }
static bool chance(int percent) { return below(100) < (uint64_t)percent; }
static const char *pick(const char *const *list, size_t n) { return list[below(n)]; }
#define PICK(list) pick(list, sizeof list / sizeof *list)

static void append(shorn_buffer *b, const void *p, size_t n) {
  if (!buffer_append(b, p, n)) die("out of memory");
}
static void put(shorn_buffer *b, const char *s) { append(b, s, strlen(s)); }

/* A comma unless the container has just opened. */
static void separate(shorn_buffer *b) {
  char last = (char)b->data[b->length - 1];
  if (last != '{' && last != '[') put(b, ",");
}
static void key(shorn_buffer *b, const char *k) {
  separate(b);
  put(b, "\"");
  put(b, k);
  put(b, "\":");
}
static void string(shorn_buffer *b, const char *s, size_t n) {
  if (!buffer_json_string(b, s, n)) die("out of memory");
}
static void text(shorn_buffer *b, const shorn_buffer *t) { string(b, (const char *)t->data, t->length); }
static void number(shorn_buffer *b, double v) {
  char digits[NUMBER_TEXT_MAX];
  append(b, digits, number_format(v, digits));
}
static void boolean(shorn_buffer *b, bool v) { put(b, v ? "true" : "false"); }
static void date(shorn_buffer *b) {
  /* Milliseconds from 2020 to 2026. */
  char iso[DATETIME_TEXT_MAX];
  size_t n = datetime_format(1577836800000LL + (int64_t)below(6ull * 365 * 86400000), iso);
  string(b, iso, n);
}

static const char *const first_names[] = {"Grace", "Alan", "Ada", "Edsger", "Barbara", "Donald",
                                          "Frances", "Ken", "Margaret", "Dennis", "Radia", "Niklaus",
                                          "Sophie", "John", "Hedy", "Tim", "Katherine", "Linus",
                                          "Zoë", "José"};
static const char *const last_names[] = {"Hopper", "Turing", "Lovelace", "Dijkstra", "Liskov", "Knuth",
                                         "Allen", "Thompson", "Hamilton", "Ritchie", "Perlman", "Wirth",
                                         "Wilson", "McCarthy", "Lamarr", "Berners-Lee", "Johnson",
                                         "Torvalds", "Müller", "Ñúñez"};
static const char *const words[] = {
    "the", "of", "and", "schema", "payload", "value", "field", "record", "binary", "format",
    "query", "index", "table", "column", "byte", "string", "number", "array", "object", "key",
    "encoding", "decoder", "stream", "buffer", "cache", "page", "tree", "node", "merge", "sort",
    "fast", "small", "compact", "strict", "stable", "simple", "every", "which", "where", "when",
    "reads", "writes", "stores", "keeps", "drops", "finds", "joins", "counts", "checks", "builds",
    "is", "a", "to", "in", "it", "that", "for", "on", "with", "as", "by", "from", "at", "or",
    "café", "naïve", "déjà", "vu", "Zürich", "São", "Paulo", "—", "“quoted”", "über"};

static void sentence(shorn_buffer *t, int min, int spread) {
  int n = min + (int)below((uint64_t)spread);
  for (int i = 0; i < n; i++) {
    if (i) put(t, " ");
    const char *w = PICK(words);
    if (i == 0 && w[0] >= 'a' && w[0] <= 'z') {
      char c = (char)(w[0] - 'a' + 'A');
      append(t, &c, 1);
      put(t, w + 1);
    } else {
      put(t, w);
    }
  }
  put(t, chance(10) ? "?" : ".");
}

static void words_text(shorn_buffer *b, int min, int spread) {
  shorn_buffer t = {0};
  sentence(&t, min, spread);
  text(b, &t);
  shorn_buffer_free(&t);
}

/* "first.last" of a name's ASCII letters, as an email's local part is. */
static void ascii_letters(char *out, size_t cap, const char *first, const char *last) {
  size_t n = 0;
  for (const char *p = first; *p && n + 2 < cap; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-') out[n++] = *p;
  out[n++] = '.';
  for (const char *p = last; *p && n + 1 < cap; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-') out[n++] = *p;
  out[n] = 0;
}

static void person_name(shorn_buffer *b) {
  shorn_buffer t = {0};
  put(&t, PICK(first_names));
  put(&t, " ");
  put(&t, PICK(last_names));
  text(b, &t);
  shorn_buffer_free(&t);
}

static void person(shorn_buffer *b) {
  put(b, "{");
  key(b, "name"), person_name(b);
  key(b, "age"), number(b, (double)below(100));
  static const char *const sexes[] = {"\"F\"", "\"M\"", "\"X\""};
  key(b, "sex"), put(b, PICK(sexes));
  put(b, "}");
}
/* The fixtures' schemas carry the bounds a real one would (the validated
 * mode's cost is measured against them); none changes a wire shape. */
static const char person_schema[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100},"
    "\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150},\"sex\":{\"enum\":[\"F\",\"M\",\"X\"]}},"
    "\"required\":[\"name\",\"age\",\"sex\"],\"additionalProperties\":false}";

static void event(shorn_buffer *b) {
  static const char *const kinds[] = {"\"click\"", "\"view\"", "\"purchase\"", "\"signup\"", "\"error\""};
  static const char *const hosts[] = {"\"web-01.eu.example.com\"", "\"web-02.eu.example.com\"",
                                      "\"api.us.example.com\"", "\"10.0.3.17\""};
  static const char *const tags[] = {"\"mobile\"", "\"desktop\"", "\"beta\"", "\"returning\"",
                                     "\"campaign-2026\"", "\"a/b\""};
  put(b, "{");
  key(b, "id"), number(b, (double)(1000000 + below(90000000)));
  key(b, "kind"), put(b, PICK(kinds));
  key(b, "ts"), number(b, (double)(1767225600000LL + (int64_t)below(31536000000LL)) / 1000);
  key(b, "source"), put(b, "{");
  key(b, "host"), put(b, PICK(hosts));
  key(b, "port"), number(b, (double)(1024 + below(60000)));
  put(b, "}");
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(4); i > 0; i--) separate(b), put(b, PICK(tags));
  put(b, "]");
  key(b, "value"), number(b, (double)below(1000000) / 100);
  put(b, "}");
}
static const char event_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"id\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000000000},"
    "\"kind\":{\"enum\":[\"click\",\"view\",\"purchase\",\"signup\",\"error\"]},"
    "\"ts\":{\"type\":\"number\",\"minimum\":0},"
    "\"source\":{\"type\":\"object\",\"properties\":{\"host\":{\"type\":\"string\",\"maxLength\":253,"
    "\"pattern\":\"^[a-z0-9.-]+$\"},\"port\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":65535}},"
    "\"required\":[\"host\",\"port\"],\"additionalProperties\":false},"
    "\"tags\":{\"type\":\"array\",\"maxItems\":10,\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":32}},"
    "\"value\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1000000,\"multipleOf\":0.01}},"
    "\"required\":[\"id\",\"kind\",\"ts\",\"source\",\"tags\",\"value\"],\"additionalProperties\":false}";

/* A document as a CMS or a blog keeps one: 27 keys (7 optional), a body of
 * paragraphs, comments and links as arrays of objects. */
static void document(shorn_buffer *b) {
  static const char *const statuses[] = {"\"draft\"", "\"review\"", "\"published\"", "\"archived\""};
  static const char *const languages[] = {"\"en\"", "\"fr\"", "\"de\"", "\"es\"", "\"ja\""};
  static const char *const licenses[] = {"\"CC-BY-4.0\"", "\"CC0-1.0\"", "\"All rights reserved\""};
  put(b, "{");
  key(b, "id");
  char uuid[40];
  uint64_t hi = rnd(), lo = rnd();
  snprintf(uuid, sizeof uuid, "\"%08x-%04x-4%03x-%04x-%012llx\"", (unsigned)(hi >> 32),
           (unsigned)(hi >> 16) & 0xFFFF, (unsigned)hi & 0xFFF, 0x8000 | ((unsigned)(lo >> 48) & 0x3FFF),
           (unsigned long long)(lo & 0xFFFFFFFFFFFFull));
  put(b, uuid);
  shorn_buffer t = {0};
  for (int i = 0; i < 3; i++) {
    if (i) put(&t, "-");
    put(&t, words[below(50)]);
  }
  char n[24];
  snprintf(n, sizeof n, "-%u", (unsigned)below(100000));
  put(&t, n);
  key(b, "slug"), text(b, &t);
  key(b, "title"), words_text(b, 4, 6);
  if (chance(70)) key(b, "summary"), words_text(b, 15, 16);
  t.length = 0;
  int paragraphs = 2 + (int)below(4), words_in_body = 0;
  for (int p = 0; p < paragraphs; p++) {
    if (p) put(&t, "\n\n");
    for (int s = 2 + (int)below(4); s > 0; s--) {
      size_t before = t.length;
      if (t.length && t.data[t.length - 1] != '\n') put(&t, " ");
      sentence(&t, 6, 14);
      for (size_t i = before; i < t.length; i++) words_in_body += t.data[i] == ' ';
    }
  }
  key(b, "body"), text(b, &t);
  shorn_buffer_free(&t);
  key(b, "author"), put(b, "{");
  const char *first = PICK(first_names), *last = PICK(last_names);
  char author[96];
  key(b, "id"), number(b, (double)below(100000));
  snprintf(author, sizeof author, "\"%s %s\"", first, last);
  key(b, "name"), put(b, author);
  char at[64];
  ascii_letters(at, sizeof at, first, last);
  snprintf(author, sizeof author, "\"%s@example.com\"", at);
  key(b, "email"), put(b, author);
  put(b, "}");
  key(b, "created_at"), date(b);
  if (chance(40)) key(b, "updated_at"), date(b);
  key(b, "status"), put(b, PICK(statuses));
  key(b, "language"), put(b, PICK(languages));
  key(b, "version"), number(b, (double)(1 + below(20)));
  key(b, "word_count"), number(b, (double)words_in_body);
  key(b, "reading_time"), number(b, (double)(words_in_body / 20) / 10);
  key(b, "draft"), boolean(b, chance(20));
  if (chance(30)) key(b, "featured"), boolean(b, chance(50));
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(7); i > 0; i--) separate(b), words_text(b, 1, 2);
  put(b, "]");
  key(b, "categories"), put(b, "[");
  for (int i = 1 + (int)below(3); i > 0; i--) separate(b), words_text(b, 1, 1);
  put(b, "]");
  key(b, "comments"), put(b, "[");
  for (int i = (int)below(6); i > 0; i--) {
    separate(b), put(b, "{");
    key(b, "author"), person_name(b);
    key(b, "body"), words_text(b, 5, 25);
    key(b, "likes"), number(b, (double)below(500));
    key(b, "at"), date(b);
    put(b, "}");
  }
  put(b, "]");
  if (chance(50)) {
    key(b, "links"), put(b, "[");
    for (int i = (int)below(4); i > 0; i--) {
      separate(b), put(b, "{");
      snprintf(n, sizeof n, "%u", (unsigned)below(100000));
      key(b, "href"), put(b, "\"https://example.com/articles/"), put(b, n), put(b, "\"");
      key(b, "title"), words_text(b, 2, 5);
      put(b, "}");
    }
    put(b, "]");
  }
  if (chance(60)) key(b, "rating"), number(b, (double)below(500) / 100);
  key(b, "views"), number(b, (double)below(10000000));
  key(b, "likes"), number(b, (double)below(100000));
  key(b, "shares"), number(b, (double)below(10000));
  if (chance(25)) key(b, "license"), put(b, PICK(licenses));
  if (chance(35)) {
    key(b, "location"), put(b, "{");
    key(b, "lat"), number(b, (double)((int64_t)below(1800000) - 900000) / 10000);
    key(b, "lon"), number(b, (double)((int64_t)below(3600000) - 1800000) / 10000);
    put(b, "}");
  }
  key(b, "revision"), number(b, (double)((int64_t)below(1000) - 500));
  key(b, "score"), number(b, (double)rnd() / 18446744073709551616.0); /* all 17 digits */
  put(b, "}");
}

#define OBJ(props, required)                                                \
  "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required \
  "],\"additionalProperties\":false}"
#define STR(most) "{\"type\":\"string\",\"maxLength\":" #most "}"
#define UINT(most) "{\"type\":\"integer\",\"minimum\":0,\"maximum\":" #most "}"
#define INT "{\"type\":\"integer\"}"
#define NUM(least, most) "{\"type\":\"number\",\"minimum\":" #least ",\"maximum\":" #most "}"
#define BOOL "{\"type\":\"boolean\"}"
/* z.iso.datetime({ precision: 3 }), as Zod writes it: the format and the
 * pattern its check uses. */
#define DATE                                                                                                  \
  "{\"type\":\"string\",\"format\":\"date-time\",\"pattern\":\"^(?:(?:\\\\d\\\\d[2468][048]|\\\\d\\\\d[13579][26]|"        \
  "\\\\d\\\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\\\d|3[01])|"  \
  "(?:0[469]|11)-(?:0[1-9]|[12]\\\\d|30)|(?:02)-(?:0[1-9]|1\\\\d|2[0-8])))T(?:(?:[01]\\\\d|2[0-3]):[0-5]\\\\d:"     \
  "[0-5]\\\\d\\\\.\\\\d{3}(?:Z))$\"}"
/* z.email(), as Zod writes it. */
#define EMAIL                                                                                             \
  "{\"type\":\"string\",\"format\":\"email\",\"pattern\":\"^(?:[A-Za-z0-9_'+\\\\-]+\\\\.)*[A-Za-z0-9_'+\\\\-]*"  \
  "[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\\\-]*\\\\.)+[A-Za-z]{2,}$\"}"
#define ARR(items, most) "{\"type\":\"array\",\"maxItems\":" #most ",\"items\":" items "}"
static const char document_schema[] = OBJ(
    "\"id\":{\"type\":\"string\",\"format\":\"uuid\"},\"slug\":{\"type\":\"string\",\"maxLength\":200,"
    "\"pattern\":\"^[a-z0-9-]+$\"},\"title\":" STR(200) ",\"summary\":" STR(2000)
    ",\"body\":" STR(100000) ",\"author\":" OBJ("\"id\":" UINT(1000000000) ",\"name\":" STR(100) ",\"email\":" EMAIL,
                                         "\"id\",\"name\",\"email\"")
    ",\"created_at\":" DATE ",\"updated_at\":" DATE
    ",\"status\":{\"enum\":[\"draft\",\"review\",\"published\",\"archived\"]}"
    ",\"language\":{\"enum\":[\"en\",\"fr\",\"de\",\"es\",\"ja\"]}"
    ",\"version\":" UINT(1000) ",\"word_count\":" UINT(10000000) ",\"reading_time\":" NUM(0, 100000) ",\"draft\":" BOOL
    ",\"featured\":" BOOL ",\"tags\":" ARR(STR(100), 20) ",\"categories\":" ARR(STR(100), 10)
    ",\"comments\":" ARR(OBJ("\"author\":" STR(100) ",\"body\":" STR(5000) ",\"likes\":" UINT(1000000000) ",\"at\":" DATE,
                             "\"author\",\"body\",\"likes\",\"at\""), 100)
    ",\"links\":" ARR(OBJ("\"href\":{\"type\":\"string\",\"format\":\"uri\"},\"title\":" STR(200),
                          "\"href\",\"title\""), 20)
    ",\"rating\":" NUM(0, 5) ",\"views\":" UINT(1000000000000) ",\"likes\":" UINT(1000000000000) ",\"shares\":" UINT(1000000000000)
    ",\"license\":" STR(50) ",\"location\":" OBJ("\"lat\":" NUM(-90, 90) ",\"lon\":" NUM(-180, 180), "\"lat\",\"lon\"")
    ",\"revision\":" INT ",\"score\":{\"type\":\"number\",\"minimum\":0,\"exclusiveMaximum\":1}",
    "\"id\",\"slug\",\"title\",\"body\",\"author\",\"created_at\",\"status\",\"language\","
    "\"version\",\"word_count\",\"reading_time\",\"draft\",\"tags\",\"categories\",\"comments\","
    "\"views\",\"likes\",\"shares\",\"revision\",\"score\"");

/* 30 numbers, as a metrics row holds them: f01-f10 counters, f11-f20
 * signed integers, f21-f25 two-decimal readings, f26-f30 computed ratios
 * with all their digits. */
static void wide(shorn_buffer *b) {
  put(b, "{");
  for (int i = 1; i <= 30; i++) {
    char k[8];
    snprintf(k, sizeof k, "f%02d", i);
    key(b, k);
    if (i <= 10)
      number(b, (double)below(1000000000));
    else if (i <= 20)
      number(b, (double)((int64_t)below(2000000) - 1000000));
    else if (i <= 25)
      number(b, (double)((int64_t)below(2000000) - 1000000) / 100);
    else
      number(b, (double)(rnd() >> 11) / 9007199254740992.0 * 100);
  }
  put(b, "}");
}
static char wide_schema[4096];
static void make_wide_schema(void) {
  shorn_buffer b = {0};
  put(&b, "{\"type\":\"object\",\"properties\":{");
  for (int i = 1; i <= 30; i++) {
    char p[160];
    snprintf(p, sizeof p, "%s\"f%02d\":%s", i > 1 ? "," : "", i,
             i <= 10   ? UINT(1000000000)
             : i <= 20 ? "{\"type\":\"integer\",\"minimum\":-1000000,\"maximum\":1000000}"
             : i <= 25 ? "{\"type\":\"number\",\"minimum\":-10000,\"maximum\":10000,\"multipleOf\":0.01}"
                       : NUM(0, 100));
    put(&b, p);
  }
  put(&b, "},\"required\":[");
  for (int i = 1; i <= 30; i++) {
    char p[16];
    snprintf(p, sizeof p, "%s\"f%02d\"", i > 1 ? "," : "", i);
    put(&b, p);
  }
  put(&b, "],\"additionalProperties\":false}");
  if (b.length >= sizeof wide_schema) die("wide schema too long");
  memcpy(wide_schema, b.data, b.length);
  shorn_buffer_free(&b);
}

/* A three-field record, all scalars: what a row costs when the function's
 * work is a few bytes and the call around it is most of it. */
static void record(shorn_buffer *b) {
  put(b, "{");
  key(b, "id"), number(b, (double)below(10000000));
  key(b, "ok"), boolean(b, chance(70));
  key(b, "qty"), number(b, (double)((int64_t)below(2000) - 1000));
  put(b, "}");
}
static const char record_schema[] =
    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000000},"
    "\"ok\":{\"type\":\"boolean\"},\"qty\":{\"type\":\"integer\",\"minimum\":-1000,\"maximum\":1000}},"
    "\"required\":[\"id\",\"ok\",\"qty\"],\"additionalProperties\":false}";

/* Text as articles in many languages hold it: CJK and Hangul (three bytes
 * a character, no spaces between Chinese and Japanese words), accented
 * Latin and Vietnamese, emoji, quotation marks that JSON escapes and those
 * it does not, tabs and newlines inside the strings, paragraphs from one
 * short sentence to several long ones. */
typedef struct language {
  const char *code;
  const char *const *words;
  size_t count;
  bool spaced;                     /* words are separated by spaces */
  const char *stop, *open, *close; /* the full stop and quotation marks */
} language;

static const char *const zh_words[] = {
    "数据", "模式", "字段", "查询", "存储", "格式", "二进制", "文本", "性能", "用户", "我们", "他们",
    "这个", "一个", "没有", "可以", "因为", "所以", "但是", "已经", "时间", "问题", "系统", "服务器",
    "记录", "编码", "解码", "速度", "的", "是", "在", "和", "了", "有", "更", "很", "快", "小"};
static const char *const ja_words[] = {
    "データ", "スキーマ", "フィールド", "検索", "保存", "形式", "文字列", "性能", "利用者", "私たち",
    "これ", "それ", "時間", "問題", "記録", "符号化", "速度", "の", "は", "を", "に", "が", "で",
    "と", "です", "ます", "した", "する", "ない", "とても", "速い", "小さい"};
static const char *const ko_words[] = {"데이터", "스키마", "필드", "검색", "저장", "형식", "문자열",
                                       "성능", "사용자", "우리는", "이것은", "시간", "문제", "기록",
                                       "빠르다", "작은", "그리고", "하지만", "있다", "없다"};
static const char *const vi_words[] = {"cơ", "sở", "dữ", "liệu", "lược", "đồ", "truy", "vấn", "trường",
                                       "người", "dùng", "được", "những", "điều", "nhanh", "nhỏ", "và",
                                       "là", "của", "trong", "không", "có", "thời", "gian", "đề", "hệ",
                                       "thống", "bản", "ghi", "mã", "hoá", "tốc", "độ"};
static const char *const fr_words[] = {"le", "la", "les", "des", "une", "données", "schéma", "requête",
                                       "champ", "très", "déjà", "été", "élève", "où", "ça", "garçon",
                                       "français", "problème", "système", "rapide", "légère", "à", "et",
                                       "qui", "être", "enregistrement", "encodé", "décodé", "vitesse"};
static const char *const de_words[] = {"der", "die", "das", "und", "Daten", "Schema", "Abfrage", "Feld",
                                       "über", "für", "schön", "Größe", "Straße", "Prüfung", "Übersicht",
                                       "müssen", "können", "schnell", "klein", "Zeichenkette", "Speicher",
                                       "Geschwindigkeit", "ist", "nicht", "mit", "auf"};
static const char *const es_words[] = {"el", "la", "los", "datos", "esquema", "consulta", "campo", "año",
                                       "niño", "también", "más", "rápido", "pequeño", "información",
                                       "registro", "codificación", "velocidad", "está", "sí", "qué",
                                       "cómo", "y", "de", "en", "señal", "España"};
static const char *const pt_words[] = {"os", "dados", "esquema", "consulta", "campo", "ação", "não",
                                       "coração", "informação", "rápido", "pequeno", "também", "você",
                                       "está", "é", "já", "até", "registro", "codificação", "velocidade",
                                       "e", "de", "em", "mãe", "pão"};
#define LANGUAGE(code, list, spaced, stop, open, close) \
  {code, list, sizeof list / sizeof *list, spaced, stop, open, close}
static const language languages[] = {
    LANGUAGE("zh", zh_words, false, "。", "“", "”"), LANGUAGE("ja", ja_words, false, "。", "「", "」"),
    LANGUAGE("ko", ko_words, true, ".", "“", "”"),   LANGUAGE("vi", vi_words, true, ".", "\"", "\""),
    LANGUAGE("fr", fr_words, true, ".", "« ", " »"), LANGUAGE("de", de_words, true, ".", "„", "“"),
    LANGUAGE("es", es_words, true, ".", "\"", "\""), LANGUAGE("pt", pt_words, true, ".", "\"", "\""),
    LANGUAGE("en", words, true, ".", "\"", "\""),
};
static const char *const emoji[] = {"🙂", "🚀", "📦", "✅", "👍", "🎉", "⚡", "🔥"};

/* Words of `l` into t: n of them, one perhaps quoted; returns n. */
static int phrase(shorn_buffer *t, const language *l, int n) {
  int quoted = chance(15) ? (int)below((uint64_t)n) : -1;
  for (int i = 0; i < n; i++) {
    if (i && l->spaced) put(t, " ");
    if (i == quoted) put(t, l->open);
    put(t, pick(l->words, l->count));
    if (i == quoted) put(t, l->close);
  }
  return n;
}

/* A paragraph of one to six sentences, some with an emoji, some followed
 * by a list on lines of their own, each indented by a tab; returns its
 * words. */
static int paragraph(shorn_buffer *t, const language *l) {
  int n = 0;
  for (int s = 1 + (int)below(6); s > 0; s--) {
    if (t->length && l->spaced) put(t, " ");
    n += phrase(t, l, 3 + (int)below(16));
    put(t, l->stop);
    if (chance(8)) put(t, PICK(emoji));
  }
  if (chance(20))
    for (int i = 1 + (int)below(4); i > 0; i--) put(t, "\n\t- "), n += phrase(t, l, 1 + (int)below(5));
  return n;
}

static void article(shorn_buffer *b) {
  const language *l = &languages[below(sizeof languages / sizeof *languages)];
  shorn_buffer t = {0};
  put(b, "{");
  key(b, "id"), number(b, (double)below(100000000));
  phrase(&t, l, 2 + (int)below(7));
  key(b, "title"), text(b, &t);
  key(b, "lang"), put(b, "\""), put(b, l->code), put(b, "\"");
  key(b, "published"), date(b);
  if (chance(60)) {
    t.length = 0;
    phrase(&t, l, 8 + (int)below(20));
    put(&t, l->stop);
    key(b, "summary"), text(b, &t);
  }
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(6); i > 0; i--) {
    t.length = 0;
    phrase(&t, l, 1);
    separate(b), text(b, &t);
  }
  put(b, "]");
  int n = 0;
  key(b, "paragraphs"), put(b, "[");
  for (int p = 1 + (int)below(8); p > 0; p--) {
    t.length = 0;
    n += paragraph(&t, l);
    separate(b), text(b, &t);
  }
  put(b, "]");
  key(b, "words"), number(b, (double)n);
  put(b, "}");
  shorn_buffer_free(&t);
}
static const char article_schema[] = OBJ(
    "\"id\":" UINT(1000000000) ",\"title\":" STR(300)
    ",\"lang\":{\"enum\":[\"zh\",\"ja\",\"ko\",\"vi\",\"fr\",\"de\",\"es\",\"pt\",\"en\"]}"
    ",\"published\":" DATE ",\"summary\":" STR(2000) ",\"tags\":" ARR(STR(50), 10) ",\"paragraphs\":"
    ARR(STR(20000), 50) ",\"words\":" UINT(10000000),
    "\"id\",\"title\",\"lang\",\"published\",\"tags\",\"paragraphs\",\"words\"");

typedef struct fixture {
  const char *name;
  const char *schema;
  void (*generate)(shorn_buffer *);
  /* A field near the start of the payload and its last scalar (canonical
   * key order). */
  const char *early, *late;
  const char *what;
} fixture;

/* Rows are drawn in this order from one generator: a fixture added at the
 * end leaves the rows of those before it as they were. */
static const fixture fixtures[] = {
    {"person", person_schema, person, "$.age", "$.sex", "3 fields: a name, an age, an enum"},
    {"event", event_schema, event, "$.id", "$.value", "6 fields: nested object, array, floats"},
    {"document", document_schema, document, "$.author.id", "$.word_count",
     "27 keys (7 optional), long strings, arrays of objects"},
    {"wide", wide_schema, wide, "$.f01", "$.f30", "30 numbers"},
    {"article", article_schema, article, "$.id", "$.words",
     "paragraphs in 9 languages: CJK, accents, emoji, quotes, tabs, newlines"},
    {"record", record_schema, record, "$.id", "$.qty", "3 scalars: an integer, a boolean, an integer"},
};
#define FIXTURES (int)(sizeof fixtures / sizeof *fixtures)

/* ---- the database ------------------------------------------------------------ */

static void exec(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) die("%s: %s", sql, error);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die("%s: %s", sql, sqlite3_errmsg(db));
  return st;
}

/* Run a query of one row and one integer column. */
static sqlite3_int64 query_int(sqlite3 *db, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  sqlite3_stmt *st = prepare(db, sql);
  if (sqlite3_step(st) != SQLITE_ROW) die("%s: %s", sql, sqlite3_errmsg(db));
  sqlite3_int64 v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return v;
}

/* The floor: a function that takes its argument and does nothing with it. */
static void floor_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, sqlite3_value_bytes(argv[0]) > 0);
}

/* The result floor: what SQLite charges any decoder (or encoder) per row,
 * the work itself aside.  It reads its argument as shorn_decode reads a
 * payload (or shorn_encode its JSON text), then hands SQLite a constant
 * result exactly as long as that row's real one, through the same call
 * (sqlite3_result_text64 or _blob64, SQLITE_TRANSIENT, and subtype 'J' for
 * text) that shorn_result_output makes.  The lengths come from the rows,
 * in rowid order; a full scan visits each row once in that order, so
 * cycling through them charges every row its own length. */
typedef struct result_floor {
  bool text; /* JSON text with subtype 'J', else a BLOB */
  int *lengths, rows, next;
} result_floor;

static char floor_bytes[1 << 16]; /* the constant result: longer than any row's */

static void result_floor_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  result_floor *rf = sqlite3_user_data(ctx);
  const void *argument = rf->text ? sqlite3_value_blob(argv[0]) : (const void *)sqlite3_value_text(argv[0]);
  int n = rf->lengths[rf->next];
  rf->next = (rf->next + 1) % rf->rows;
  if (!argument || !sqlite3_value_bytes(argv[0])) return;
  if (rf->text) {
    sqlite3_result_text64(ctx, floor_bytes, (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
    sqlite3_result_subtype(ctx, 'J');
  } else {
    sqlite3_result_blob64(ctx, floor_bytes, (sqlite3_uint64)n, SQLITE_TRANSIENT);
  }
}

static sqlite3 *open_database(const char *path, const char *extension) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) die("%s: %s", path, sqlite3_errmsg(db));
  sqlite3_enable_load_extension(db, 1);
  char *error = NULL;
  if (sqlite3_load_extension(db, extension, NULL, &error) != SQLITE_OK) die("%s: %s", extension, error);
  sqlite3_create_function(db, "bench_floor", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, floor_function,
                          NULL, NULL);
  /* Hold the whole database in the page cache: the queries measure CPU,
   * not the disk. */
  exec(db, "PRAGMA cache_size = -4000000");
  return db;
}

/* Every fixture as JSON text, as JSONB and as shorn. */
static void build(sqlite3 *db, int rows) {
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
           "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;"
           "CREATE TABLE bench_schema(name TEXT PRIMARY KEY, schema TEXT NOT NULL);");
  shorn_buffer json = {0};
  for (int f = 0; f < FIXTURES; f++) {
    const fixture *fx = &fixtures[f];
    fprintf(stderr, "bench: building %s, %d rows\n", fx->name, rows);
    char *sql = sqlite3_mprintf("INSERT INTO shorn_schemas(name, schema) VALUES (%Q, %Q);"
                                "INSERT INTO bench_schema VALUES (%Q, %Q);"
                                "CREATE TABLE %s_json(id INTEGER PRIMARY KEY, json TEXT NOT NULL);"
                                "CREATE TABLE %s_shorn(id INTEGER PRIMARY KEY, shorn BLOB NOT NULL);"
                                "BEGIN",
                                fx->name, fx->schema, fx->name, fx->schema, fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    sql = sqlite3_mprintf("INSERT INTO %s_json(json) VALUES (?1)", fx->name);
    sqlite3_stmt *insert = prepare(db, sql);
    sqlite3_free(sql);
    for (int i = 0; i < rows; i++) {
      json.length = 0;
      fx->generate(&json);
      sqlite3_bind_text(insert, 1, (const char *)json.data, (int)json.length, SQLITE_STATIC);
      if (sqlite3_step(insert) != SQLITE_DONE) die("%s row %d: %s", fx->name, i, sqlite3_errmsg(db));
      sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    sql = sqlite3_mprintf("INSERT INTO %s_shorn SELECT id, shorn_encode(json, %Q) FROM %s_json", fx->name,
                          fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    sql = sqlite3_mprintf("CREATE TABLE %s_jsonb(id INTEGER PRIMARY KEY, jsonb BLOB NOT NULL);"
                          "INSERT INTO %s_jsonb SELECT id, jsonb(json) FROM %s_json; COMMIT",
                          fx->name, fx->name, fx->name);
    exec(db, sql);
    sqlite3_free(sql);
    /* The round trip holds on every row, or the fixture is not what the
     * numbers claim to measure. */
    sqlite3_int64 bad = query_int(db,
                                  "SELECT count(*) FROM %s_shorn "
                                  "WHERE shorn_encode(shorn_decode(shorn, %Q), %Q) IS NOT shorn",
                                  fx->name, fx->name, fx->name);
    if (bad) die("%s: %lld rows do not round-trip", fx->name, (long long)bad);
  }
  shorn_buffer_free(&json);
}

/* The result floors of each fixture, as bench_json_floor_FIXTURE(shorn)
 * (a BLOB in, JSON text as long as the row's out) and
 * bench_payload_floor_FIXTURE(json) (JSON text in, a BLOB as long as the
 * row's payload out). */
static void register_result_floors(sqlite3 *db, const char *fixture_name, result_floor floors[2]) {
  static const char *const sql[2] = {"SELECT length(CAST(json AS BLOB)) FROM %s_json ORDER BY id",
                                     "SELECT length(shorn) FROM %s_shorn ORDER BY id"};
  static const char *const names[2] = {"bench_json_floor_%s", "bench_payload_floor_%s"};
  for (int k = 0; k < 2; k++) {
    result_floor *rf = &floors[k];
    *rf = (result_floor){.text = k == 0, .rows = (int)query_int(db, "SELECT count(*) FROM %s_json", fixture_name)};
    rf->lengths = calloc((size_t)rf->rows, sizeof *rf->lengths);
    if (!rf->lengths) die("out of memory");
    char *q = sqlite3_mprintf(sql[k], fixture_name);
    sqlite3_stmt *st = prepare(db, q);
    sqlite3_free(q);
    for (int i = 0; i < rf->rows && sqlite3_step(st) == SQLITE_ROW; i++) {
      rf->lengths[i] = sqlite3_column_int(st, 0);
      if ((size_t)rf->lengths[i] > sizeof floor_bytes) die("%s row %d is too long", fixture_name, i);
    }
    sqlite3_finalize(st);
    char *name = sqlite3_mprintf(names[k], fixture_name);
    if (sqlite3_create_function(db, name, 1, SQLITE_UTF8 | (rf->text ? SQLITE_RESULT_SUBTYPE : 0), rf,
                                result_floor_function, NULL, NULL) != SQLITE_OK)
      die("%s: %s", name, sqlite3_errmsg(db));
    sqlite3_free(name);
  }
}

/* ---- the SQL measurements ----------------------------------------------------- */

/* The queries, the floors first; SQLite's side reads JSONB, or with --text
 * the JSON text. */
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

/* Each query's name in the counts --calls dumps. */
static const char *const op_names[OPS] = {
    "floor_text", "floor_jsonb", "floor_shorn", "json_result_floor", "payload_result_floor", "json",
    "shorn_decode", "jsonb", "shorn_encode", "json_extract_early", "shorn_extract_early",
    "json_extract_late", "shorn_extract_late", "json_valid", "shorn_valid", "shorn_encode_unchecked",
    "jsonb_set", "composed_set", "shorn_set"};

/* The query of `o` over fixture `fx`, or NULL when `text` leaves it out:
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

typedef struct measure {
  sqlite3_stmt *st; /* NULL: not measured in this comparison */
  double *seconds;  /* per repetition */
  double median_ns; /* per row */
} measure;

static double run(sqlite3 *db, sqlite3_stmt *st) {
  double start = cpu_seconds();
  int rc = sqlite3_step(st);
  double spent = cpu_seconds() - start;
  if (rc != SQLITE_ROW) die("%s: %s", sqlite3_sql(st), sqlite3_errmsg(db));
  sqlite3_reset(st);
  return spent;
}

/* Every query of every fixture, `reps` repetitions of them all, after an
 * untimed pass of the floors, which brings every page into the cache. */
static void measure_all(sqlite3 *db, measure m[FIXTURES][OPS], int rows, int reps, bool text) {
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

/* ---- the core codec alone ----------------------------------------------------- */

/* Every row of a fixture, laid end to end as a file of records would be:
 * the JSON texts in one buffer, the payloads in another. */
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

static uint64_t count_values(const json_value *v) {
  uint64_t n = 1;
  if (v->type == JSON_ARRAY)
    for (uint32_t i = 0; i < v->length; i++) n += count_values(&v->u.items[i]);
  else if (v->type == JSON_OBJECT)
    for (uint32_t i = 0; i < v->length; i++) n += count_values(&v->u.items[2 * i + 1]);
  return n;
}

static uint64_t count_string_bytes(const json_value *v) {
  uint64_t n = v->type == JSON_STRING ? v->length : 0;
  if (v->type == JSON_ARRAY)
    for (uint32_t i = 0; i < v->length; i++) n += count_string_bytes(&v->u.items[i]);
  else if (v->type == JSON_OBJECT)
    for (uint32_t i = 0; i < v->length; i++) n += count_string_bytes(&v->u.items[2 * i + 1]);
  return n;
}

/* Row i of a corpus: its JSON text and payload appended, its values counted. */
static void corpus_add(corpus *c, const fixture *fx, int i, const char *json, size_t n, const void *payload,
                       size_t payload_length) {
  append(&c->json, json, n);
  append(&c->payloads, payload, payload_length);
  c->json_end[i] = c->json.length, c->payload_end[i] = c->payloads.length;
  arena a = {0};
  json_value *v;
  shorn_error e;
  if (json_parse(&a, json, n, &v, &e)) die("%s row %d: %s", fx->name, i, e.message);
  c->values += count_values(v);
  c->string_bytes += count_string_bytes(v);
  arena_free(&a);
}

static void load_corpus(sqlite3 *db, const fixture *fx, corpus *c, int rows, int reps) {
  c->rows = rows;
  c->json_end = calloc((size_t)rows, sizeof *c->json_end);
  c->payload_end = calloc((size_t)rows, sizeof *c->payload_end);
  c->encode_seconds = calloc((size_t)reps, sizeof(double));
  c->unchecked_seconds = calloc((size_t)reps, sizeof(double));
  c->decode_seconds = calloc((size_t)reps, sizeof(double));
  if (!c->json_end || !c->payload_end || !c->encode_seconds || !c->unchecked_seconds || !c->decode_seconds)
    die("out of memory");
  char *sql = sqlite3_mprintf("SELECT json, shorn FROM %s_json JOIN %s_shorn USING (id) ORDER BY id",
                              fx->name, fx->name);
  sqlite3_stmt *st = prepare(db, sql);
  sqlite3_free(sql);
  for (int i = 0; i < rows && sqlite3_step(st) == SQLITE_ROW; i++) {
    const char *json = (const char *)sqlite3_column_text(st, 0);
    corpus_add(c, fx, i, json, (size_t)sqlite3_column_bytes(st, 0), sqlite3_column_blob(st, 1),
               (size_t)sqlite3_column_bytes(st, 1));
  }
  sqlite3_finalize(st);
  shorn_error e;
  if (shorn_schema_compile(fx->schema, strlen(fx->schema), NULL, &c->schema, &e))
    die("%s: %s", fx->name, e.message);
}

/* One pass over every row: encode (JSON in; its keywords checked, or not)
 * or decode (JSON out), each into one buffer reused from row to row, as a
 * program converting a file would; or check (decode writing nothing, as
 * shorn_valid does). */
typedef enum pass { PASS_ENCODE, PASS_ENCODE_UNCHECKED, PASS_DECODE, PASS_CHECK } pass;

static double core_pass(corpus *c, pass what) {
  bool encode = what == PASS_ENCODE || what == PASS_ENCODE_UNCHECKED;
  shorn_buffer out = {0};
  shorn_error e;
  size_t decoded = 0;
  double start = cpu_seconds();
  for (int i = 0; i < c->rows; i++) {
    size_t j0 = i ? c->json_end[i - 1] : 0, p0 = i ? c->payload_end[i - 1] : 0;
    out.length = 0;
    const char *json = (const char *)c->json.data + j0;
    shorn_code rc = what == PASS_ENCODE ? shorn_encode(c->schema, json, c->json_end[i] - j0, 0, &out, &e)
                    : what == PASS_ENCODE_UNCHECKED
                        ? shorn_encode_unchecked(c->schema, json, c->json_end[i] - j0, 0, &out, &e)
                        : shorn_decode(c->schema, c->payloads.data + p0, c->payload_end[i] - p0, 0,
                                       what == PASS_CHECK ? NULL : &out, &e);
    if (rc) die("core %s row %d: %s", encode ? "encode" : "decode", i, e.message);
    decoded += out.length;
  }
  double spent = cpu_seconds() - start;
  if (what == PASS_DECODE) c->decoded_bytes = decoded;
  shorn_buffer_free(&out);
  return spent;
}

static void free_corpus(corpus *c) {
  shorn_buffer_free(&c->json);
  shorn_buffer_free(&c->payloads);
  free(c->json_end), free(c->payload_end);
  free(c->encode_seconds), free(c->unchecked_seconds), free(c->decode_seconds);
  shorn_schema_free(c->schema);
}

/* ---- instructions, for callgrind ------------------------------------------------ */

/* Each fixture's rows made in memory and encoded, then one decode, encode
 * and check pass over them, each dumped by callgrind at its end under the
 * name "FIXTURE decode|encode|check ROWS STRING_BYTES": every row was
 * passed once before, so no pass counts a first call's setting up. */
static void count_instructions(int rows) {
  shorn_buffer json = {0}, payload = {0};
  for (int f = 0; f < FIXTURES; f++) {
    const fixture *fx = &fixtures[f];
    corpus c = {.rows = rows};
    c.json_end = calloc((size_t)rows, sizeof *c.json_end);
    c.payload_end = calloc((size_t)rows, sizeof *c.payload_end);
    if (!c.json_end || !c.payload_end) die("out of memory");
    shorn_error e;
    if (shorn_schema_compile(fx->schema, strlen(fx->schema), NULL, &c.schema, &e))
      die("%s: %s", fx->name, e.message);
    for (int i = 0; i < rows; i++) {
      json.length = payload.length = 0;
      fx->generate(&json);
      if (shorn_encode(c.schema, (const char *)json.data, json.length, 0, &payload, &e))
        die("%s row %d: %s", fx->name, i, e.message);
      corpus_add(&c, fx, i, (const char *)json.data, json.length, payload.data, payload.length);
    }
    core_pass(&c, PASS_DECODE), core_pass(&c, PASS_ENCODE), core_pass(&c, PASS_CHECK);
    static const pass passes[3] = {PASS_DECODE, PASS_ENCODE, PASS_CHECK};
    static const char *const pass_names[3] = {"decode", "encode", "check"};
    for (int k = 0; k < 3; k++) {
      char name[128];
      snprintf(name, sizeof name, "%s %s %d %llu", fx->name, pass_names[k], rows,
               (unsigned long long)c.string_bytes);
      CALLGRIND_ZERO_STATS;
      core_pass(&c, passes[k]);
      CALLGRIND_DUMP_STATS_AT(name);
    }
    shorn_buffer_free(&c.json), shorn_buffer_free(&c.payloads);
    free(c.json_end), free(c.payload_end);
    shorn_schema_free(c.schema);
  }
  shorn_buffer_free(&json), shorn_buffer_free(&payload);
}

/* ---- schema compilations -------------------------------------------------------- */

typedef struct compile_case {
  const char *what;
  const char *schema_sql; /* the schema argument */
  sqlite3 *db;            /* a connection of its own, opened fresh */
  sqlite3_stmt *st;
  sqlite3_int64 compilations_before;
  double *seconds;
} compile_case;

#define MILLION 1000000

/* Each case decodes 1,000,000 person rows (each row as many times over as
 * it takes) on a fresh connection, so the schemas it compiles are counted
 * from nothing; the query runs once per repetition, all cases in turn. */
static void compile_case_open(compile_case *c, const char *path, const char *extension, int rows, int reps) {
  c->db = open_database(path, extension);
  c->compilations_before = query_int(c->db, "SELECT shorn_stats() ->> '$.compilations'");
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
static sqlite3_int64 compile_case_close(compile_case *c) {
  sqlite3_finalize(c->st);
  sqlite3_int64 n = query_int(c->db, "SELECT shorn_stats() ->> '$.compilations'") - c->compilations_before;
  sqlite3_close(c->db);
  return n;
}

/* ---- many types in one table ------------------------------------------------------ */

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

static char *type_schema(int t) {
  return sqlite3_mprintf(
      OBJ("\"id\":" UINT(1000000000000) ",\"type_%d\":" STR(40) ",\"at\":" DATE
          ",\"user\":" OBJ("\"id\":" UINT(1000000000) ",\"email\":" EMAIL ",\"name\":" STR(100),
                           "\"id\",\"email\",\"name\"")
          ",\"amount\":" NUM(0, 1000000) ",\"currency\":{\"enum\":[\"EUR\",\"USD\",\"GBP\",\"JPY\"]}"
          ",\"note\":{\"type\":[\"string\",\"null\"],\"maxLength\":500}"
          ",\"ref\":{\"type\":[\"string\",\"null\"],\"maxLength\":64},\"quantity\":" UINT(100000)
          ",\"price\":" NUM(0, 100000) ",\"discount\":" NUM(0, 1) ",\"ok\":" BOOL ",\"source\":" STR(100)
          ",\"device\":{\"enum\":[\"web\",\"ios\",\"android\"]},\"ip\":" STR(45) ",\"country\":" STR(2)
          ",\"session\":" STR(64) ",\"retries\":" UINT(10) ",\"latency_ms\":" NUM(0, 60000)
          ",\"tags\":" ARR(STR(32), 10) ",\"version\":" UINT(1000) ",\"flagged\":" BOOL
          ",\"comment\":{\"type\":[\"string\",\"null\"],\"maxLength\":1000}",
          "\"id\",\"type_%d\",\"at\",\"user\",\"amount\",\"currency\",\"note\",\"ref\",\"quantity\",\"price\","
          "\"discount\",\"ok\",\"source\",\"device\",\"ip\",\"country\",\"session\",\"retries\",\"latency_ms\","
          "\"tags\",\"version\",\"flagged\",\"comment\""),
      t, t);
}

static void nullable_words(shorn_buffer *b, int percent) {
  if (chance(percent))
    words_text(b, 3, 8);
  else
    put(b, "null");
}

static void typed_event(shorn_buffer *b, int t) {
  static const char *const currencies[] = {"\"EUR\"", "\"USD\"", "\"GBP\"", "\"JPY\""};
  static const char *const devices[] = {"\"web\"", "\"ios\"", "\"android\""};
  static const char *const countries[] = {"\"FR\"", "\"DE\"", "\"US\"", "\"JP\"", "\"BR\""};
  static const char *const tags[] = {"\"mobile\"", "\"beta\"", "\"returning\"", "\"campaign\""};
  char k[32], local[64], email[96];
  put(b, "{");
  key(b, "id"), number(b, (double)below(1000000000));
  snprintf(k, sizeof k, "type_%d", t);
  key(b, k), put(b, "\"kind\"");
  key(b, "at"), date(b);
  const char *first = PICK(first_names), *last = PICK(last_names);
  ascii_letters(local, sizeof local, first, last);
  snprintf(email, sizeof email, "%s@example.com", local);
  key(b, "user"), put(b, "{");
  key(b, "id"), number(b, (double)below(1000000));
  key(b, "email"), string(b, email, strlen(email));
  key(b, "name"), person_name(b);
  put(b, "}");
  key(b, "amount"), number(b, (double)below(10000000) / 100);
  key(b, "currency"), put(b, PICK(currencies));
  key(b, "note"), nullable_words(b, 30);
  key(b, "ref"), chance(50) ? put(b, "\"ORD-12345\"") : put(b, "null");
  key(b, "quantity"), number(b, (double)below(100));
  key(b, "price"), number(b, (double)below(1000000) / 100);
  key(b, "discount"), number(b, (double)below(100) / 100);
  key(b, "ok"), boolean(b, chance(90));
  key(b, "source"), put(b, "\"checkout\"");
  key(b, "device"), put(b, PICK(devices));
  key(b, "ip"), put(b, "\"192.0.2.17\"");
  key(b, "country"), put(b, PICK(countries));
  key(b, "session"), put(b, "\"5f0c1d2e-8a7b-4c3d-9e8f-0a1b2c3d4e5f\"");
  key(b, "retries"), number(b, (double)below(3));
  key(b, "latency_ms"), number(b, (double)below(500000) / 100);
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(3); i > 0; i--) separate(b), put(b, PICK(tags));
  put(b, "]");
  key(b, "version"), number(b, (double)below(10));
  key(b, "flagged"), boolean(b, chance(5));
  key(b, "comment"), nullable_words(b, 10);
  put(b, "}");
}

/* Type k of n with probability proportional to 1/(k+1). */
static int zipf_type(const double *cumulative, int n) {
  double u = (double)(rnd() >> 11) / 9007199254740992.0 * cumulative[n - 1];
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

static void measure_compile(double *microseconds, double *allocations, size_t *held) {
  char *text = type_schema(7);
  counting c = {0};
  shorn_allocator a = {counting_realloc, counting_free, &c};
  enum { COMPILES = 2000 };
  shorn_schema *s;
  shorn_error e;
  double start = cpu_seconds();
  for (int i = 0; i < COMPILES; i++) {
    if (shorn_schema_compile(text, strlen(text), &a, &s, &e)) die("type schema: %s", e.message);
    if (i < COMPILES - 1) shorn_schema_free(s);
  }
  *microseconds = (cpu_seconds() - start) * 1e6 / COMPILES;
  *allocations = (double)c.allocations / COMPILES;
  *held = c.live;
  shorn_schema_free(s);
  sqlite3_free(text);
}

static void run_types(const char *path, const char *extension, int rows, int reps) {
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
  double compile_us, compile_allocations;
  size_t held;
  measure_compile(&compile_us, &compile_allocations, &held);

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
         "%zu bytes. The %d types' connection's `shorn_stats()` after the run: `%s`\n",
         compile_us, compile_allocations, held, TYPES_MAX, stats ? stats : "?");
  sqlite3_free(stats);
}

/* ---- the report ------------------------------------------------------------------- */

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
  printf("Written by `make bench` (scripts/bench.c) on %s: %s, %ld cores, %s %s; SQLite %s of %.10s, "
         BENCH_SQLITE_ORIGIN "; "
         "%d rows per fixture, median of %d interleaved repetitions, thread CPU time; "
         "load average %.2f before, %.2f after.\n\n",
         when, cpu, sysconf(_SC_NPROCESSORS_ONLN), un.sysname, un.machine, sqlite3_libversion(),
         sqlite3_sourceid(), rows, reps, load_before[0], load_after[0]);
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

/* ---- instructions a call, for callgrind ------------------------------------------- */

/* --calls: every query the JSONB comparisons name, run once to warm it
 * (pages cached, schemas compiled, paths parsed), then again between
 * callgrind's zeroing and its dump, named "calls FIXTURE QUERY ROWS".
 * Callgrind instruments nothing before (run it with --instr-atstart=no):
 * building the database under it would take minutes.  Then the
 * comparisons on stdout, a line each, for scripts/bench-instructions.py:
 * "comparison|shorn's call|SQLite's|QUERY|QUERY|FLOOR|FLOOR|path",
 * SQLite's query and shorn's, each with its floor, and "fixture|NAME|EARLY|LATE". */
static void count_calls(sqlite3 *db, int rows) {
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

static void print_jsonb_tables(measure m[FIXTURES][OPS], sqlite3_int64 bytes[FIXTURES][3], int rows,
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

static void print_text_table(measure m[FIXTURES][OPS], int reps) {
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

static void print_core_table(corpus core[FIXTURES], int reps) {
  printf("\n## The core codec alone (no SQLite)\n\n");
  printf("`shorn_encode` and `shorn_decode` called from C on every row, one output buffer reused. "
         "MB/s counts JSON text: read by encode, written by decode.\n\n");
  printf("| fixture | JSON bytes/row | values/row | encode MB/s | encode ns/row | encode ns/value "
         "| decode MB/s | decode ns/row | decode ns/value |\n");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int f = 0; f < FIXTURES; f++) {
    corpus *c = &core[f];
    double enc = median(c->encode_seconds, reps), dec = median(c->decode_seconds, reps);
    printf("| %s | %.0f | %.1f | %.0f | %.0f | %.1f | %.0f | %.0f | %.1f |\n", fixtures[f].name,
           (double)c->json.length / c->rows, (double)c->values / c->rows, (double)c->json.length / enc / 1e6,
           enc * 1e9 / c->rows, enc * 1e9 / (double)c->values, (double)c->decoded_bytes / dec / 1e6,
           dec * 1e9 / c->rows, dec * 1e9 / (double)c->values);
  }

  printf("\n## The validated mode's cost\n\n");
  printf("`shorn_encode` checks each value against its schema's validation keywords; "
         "`shorn_encode_unchecked` checks the structure alone. Both from C, as above, over the fixtures, "
         "whose schemas carry the bounds a real one would (scripts/bench.c: lengths and ranges, "
         "`multipleOf`, Zod's email and date-time patterns, a slug and a host pattern). *Validation* "
         "is the median over repetitions of checked over unchecked, less one.\n\n");
  printf("| fixture | unchecked ns/row | checked ns/row | validation | target |\n");
  printf("| --- | ---: | ---: | ---: | --- |\n");
  for (int f = 0; f < FIXTURES; f++) {
    corpus *c = &core[f];
    double share = paired_ratio(c->encode_seconds, c->unchecked_seconds, reps) - 1;
    printf("| %s | %.0f | %.0f | %+.1f%% | ≤15%%: %s |\n", fixtures[f].name,
           median(c->unchecked_seconds, reps) * 1e9 / c->rows, median(c->encode_seconds, reps) * 1e9 / c->rows,
           100 * share, share <= 0.15 ? "yes" : "**no**");
  }
}

int main(int argc, char **argv) {
  int rows = 200000, reps = 7;
  bool text = false, instructions = false, calls = false, types = false, rows_given = false;
  const char *path = "build/bench.db", *extension = "build/shorn";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--text") == 0) {
      text = true;
      continue;
    }
    if (strcmp(a, "--instructions") == 0) {
      instructions = true;
      continue;
    }
    if (strcmp(a, "--calls") == 0) {
      calls = true;
      continue;
    }
    if (strcmp(a, "--types") == 0) {
      types = true;
      continue;
    }
    if (!v) die("%s needs a value", a);
    if (strcmp(a, "--rows") == 0) rows = atoi(v), rows_given = true;
    else if (strcmp(a, "--reps") == 0) reps = atoi(v);
    else if (strcmp(a, "--db") == 0) path = v;
    else if (strcmp(a, "--extension") == 0) extension = v;
    else die("unknown option %s (see the comment at the top of scripts/bench.c)", a);
    i++;
  }
  if (rows < 1 || reps < 1 || reps > REPS_MAX) die("--rows must be positive, --reps 1 to %d", REPS_MAX);
  if (instructions) {
    make_wide_schema();
    count_instructions(rows);
    return 0;
  }
  if (types) {
    run_types(path, extension, rows_given ? rows : 20000, reps);
    return 0;
  }
  if (!text && sqlite3_libversion_number() < 3045000)
    die("SQLite %s has no JSONB: compare with its text JSON functions (--text)", sqlite3_libversion());
  make_wide_schema();
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
  for (int f = 0; f < FIXTURES; f++) load_corpus(db, &fixtures[f], &core[f], rows, reps);
  sqlite3_close(db);
  for (int f = 0; f < FIXTURES; f++)
    core_pass(&core[f], PASS_ENCODE), core_pass(&core[f], PASS_ENCODE_UNCHECKED), core_pass(&core[f], PASS_DECODE);
  for (int r = 0; r < reps; r++)
    for (int f = 0; f < FIXTURES; f++) {
      core[f].encode_seconds[r] = core_pass(&core[f], PASS_ENCODE);
      core[f].unchecked_seconds[r] = core_pass(&core[f], PASS_ENCODE_UNCHECKED);
      core[f].decode_seconds[r] = core_pass(&core[f], PASS_DECODE);
    }

  fprintf(stderr, "bench: compilations in a 1,000,000-row query\n");
  compile_case cases[] = {
      {.what = "the schema's name as a literal", .schema_sql = "'person'"},
      {.what = "its name from a column", .schema_sql = "name"},
      {.what = "its JSON Schema text from a column", .schema_sql = "schema"},
  };
  enum { CASES = sizeof cases / sizeof *cases };
  for (int i = 0; i < CASES; i++) compile_case_open(&cases[i], path, extension, rows, reps);
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < CASES; i++) cases[i].seconds[r] = run(cases[i].db, cases[i].st);
  sqlite3_int64 compilations[CASES];
  for (int i = 0; i < CASES; i++) compilations[i] = compile_case_close(&cases[i]);

  printf("# shorn benchmark results\n\n");
  printf("## Against JSONB, on the SQLite that users run today\n\n");
  print_setting(started, load_before, rows, reps);
  printf("How many times faster shorn is than SQLite's function over the same rows (the median of "
         "each repetition's own ratio), the project's target in the heading, **bold** below it; the "
         "stored bytes per row of each form.\n\n");
  print_jsonb_tables(m, bytes, rows, reps);
  for (int f = 0; f < FIXTURES; f++)
    for (int o = 0; o < OPS; o++) free(m[f][o].seconds);
  print_core_table(core, reps);
  for (int f = 0; f < FIXTURES; f++) free_corpus(&core[f]);

  printf("\n## Schema compilations in a 1,000,000-row query\n\n");
  printf("`shorn_decode(shorn, S)` over 1,000,000 person rows, %d times, each case on a connection of "
         "its own opened for it; compilations as `shorn_stats()` counts them over all %d runs.\n\n",
         reps, reps);
  printf("| schema argument S | compilations | ns/row |\n| --- | ---: | ---: |\n");
  for (int i = 0; i < CASES; i++) {
    printf("| %s | %lld | %.0f |\n", cases[i].what, (long long)compilations[i],
           median(cases[i].seconds, reps) * 1e9 / MILLION);
    free(cases[i].seconds);
  }
  fprintf(stderr, "bench: done in %.0f s\n", difftime(time(NULL), started));
  return 0;
}
