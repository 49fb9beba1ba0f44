/*
 * codec.c — the core codec alone, without SQLite: shorn_encode,
 * shorn_encode_unchecked and shorn_decode called from C on every row of a
 * fixture, timed; and, for callgrind, the same passes over rows made in
 * memory, each dumped at its end (--instructions), which
 * scripts/bench-instructions.py reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include "bench.h"

/* A corpus (bench.h) is every row of a fixture, laid end to end as a file
 * of records would be: the JSON texts in one buffer, the payloads in
 * another. */

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
  if (!buffer_append(&c->json, json, n) || !buffer_append(&c->payloads, payload, payload_length))
    die("out of memory");
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

void free_corpus(corpus *c) {
  shorn_buffer_free(&c->json);
  shorn_buffer_free(&c->payloads);
  free(c->json_end), free(c->payload_end);
  free(c->encode_seconds), free(c->unchecked_seconds), free(c->decode_seconds);
  shorn_schema_free(c->schema);
}

/* Every fixture's rows from the database, then `reps` repetitions of an
 * encode, an unchecked encode and a decode pass over each, after one
 * untimed repetition. */
void measure_codec(sqlite3 *db, corpus core[FIXTURES], int rows, int reps) {
  for (int f = 0; f < FIXTURES; f++) load_corpus(db, &fixtures[f], &core[f], rows, reps);
  for (int f = 0; f < FIXTURES; f++)
    core_pass(&core[f], PASS_ENCODE), core_pass(&core[f], PASS_ENCODE_UNCHECKED), core_pass(&core[f], PASS_DECODE);
  for (int r = 0; r < reps; r++)
    for (int f = 0; f < FIXTURES; f++) {
      core[f].encode_seconds[r] = core_pass(&core[f], PASS_ENCODE);
      core[f].unchecked_seconds[r] = core_pass(&core[f], PASS_ENCODE_UNCHECKED);
      core[f].decode_seconds[r] = core_pass(&core[f], PASS_DECODE);
    }
}

/* Each fixture's rows made in memory and encoded, then one decode, encode
 * and check pass over them, each dumped by callgrind at its end under the
 * name "FIXTURE decode|encode|check ROWS STRING_BYTES": every row was
 * passed once before, so no pass counts a first call's setting up. */
void count_instructions(int rows) {
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

void print_codec_tables(corpus core[FIXTURES], int reps) {
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
         "whose schemas carry the bounds a real one would (scripts/bench/fixtures.c: lengths and ranges, "
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
