/*
 * fuzz.h — what the libFuzzer harnesses of tests/fuzz/ share: the schema
 * list, the counting allocator and the memory bound it checks, a check
 * that aborts, and a check of decoded JSON text.
 *
 * A decode, round trip or encode input starts with two bytes, little
 * endian, that pick a schema by its line in tests/fuzz/schemas.jsonl
 * (modulo the line count); the rest is the payload or the JSON text.  The
 * list is compiled once, when the harness starts.  It is only ever appended
 * to (corpus.py), so that a saved input keeps meaning the same schema.
 *
 * The checks of a payload, fuzz_check_decode and fuzz_check_round_trip, are
 * here rather than in their harnesses because the compile harness runs them
 * too, on the schemas it makes.
 *
 * Each harness is built twice from the same file: with clang's libFuzzer,
 * and with replay.c's main() for `make test`, which feeds it the regression
 * corpus under gcc, the sanitizers and valgrind.
 */
#ifndef SHORN_FUZZ_H
#define SHORN_FUZZ_H

#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>

#include "../support/counting.h"
#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/regex/pattern.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "../support/canonical.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_SCHEMAS
#define FUZZ_SCHEMAS "tests/fuzz/schemas.jsonl"
#endif

/* An abort is what both libFuzzer and the replay driver report as a crash,
 * with the input that caused it. */
#define FUZZ_CHECK(cond)                                                               \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);    \
      abort();                                                                         \
    }                                                                                  \
  } while (0)

static shorn_schema **fuzz_schemas;
static char **fuzz_schema_texts; /* each line as it was compiled, NUL-terminated */
static size_t fuzz_schema_count;

static void fuzz_free_schemas(void) {
  for (size_t i = 0; i < fuzz_schema_count; i++) {
    shorn_schema_free(fuzz_schemas[i]);
    free(fuzz_schema_texts[i]);
  }
  free(fuzz_schemas);
  free(fuzz_schema_texts);
}

/* Compile the list with the counting allocator, as the harnesses compile
 * (and free it at exit, so that valgrind sees nothing left).  A line that
 * does not compile stops the harness, since every input after it would
 * silently pick another schema. */
static inline void fuzz_load_schemas(void) {
  atexit(fuzz_free_schemas);
  const char *path = getenv("SHORN_FUZZ_SCHEMAS");
  if (!path) path = FUZZ_SCHEMAS;
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  char *line = NULL;
  size_t capacity = 0, allocated = 0;
  ssize_t n;
  while ((n = getline(&line, &capacity, f)) > 0) {
    if (line[n - 1] == '\n') n--;
    if (fuzz_schema_count == allocated) {
      allocated = allocated ? 2 * allocated : 1024;
      fuzz_schemas = realloc(fuzz_schemas, allocated * sizeof *fuzz_schemas);
      fuzz_schema_texts = realloc(fuzz_schema_texts, allocated * sizeof *fuzz_schema_texts);
      if (!fuzz_schemas || !fuzz_schema_texts) exit(2);
    }
    shorn_error e;
    shorn_schema **compiled = &fuzz_schemas[fuzz_schema_count];
    if (shorn_schema_compile(line, (size_t)n, &counting_allocator, compiled, &e) != SHORN_OK) {
      char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
      shorn_error_format(&e, text, sizeof text);
      fprintf(stderr, "%s:%zu: does not compile: %s\n", path, fuzz_schema_count + 1, text);
      exit(2);
    }
    if (!(fuzz_schema_texts[fuzz_schema_count] = strndup(line, (size_t)n))) exit(2);
    fuzz_schema_count++;
  }
  free(line);
  fclose(f);
  if (!fuzz_schema_count) {
    fprintf(stderr, "%s: no schemas\n", path);
    exit(2);
  }
}

/* The line the input's first two bytes pick, the input moved past them;
 * false when the input is shorter. */
static inline bool fuzz_pick(const uint8_t **data, size_t *size, size_t *line) {
  if (*size < 2) return false;
  *line = ((size_t)(*data)[0] | (size_t)(*data)[1] << 8) % fuzz_schema_count;
  *data += 2;
  *size -= 2;
  return true;
}

/* The whole of a harness whose input picks a schema from the list: `check`
 * gets the schema and the rest of the input. */
#define FUZZ_SCHEMA_HARNESS(check)                                                     \
  int LLVMFuzzerInitialize(int *argc, char ***argv) {                                  \
    (void)argc, (void)argv;                                                            \
    fuzz_load_schemas();                                                               \
    return 0;                                                                          \
  }                                                                                    \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {                       \
    size_t line;                                                                       \
    if (fuzz_pick(&data, &size, &line)) check(fuzz_schemas[line], data, size);         \
    return 0;                                                                          \
  }

/* counting.h's bound on what a call may hold at once, plus the schema's own
 * per-call state (a depth per recursive definition) and, where it has
 * patterns, what a match may hold to backtrack in (pattern.h), twice over:
 * the backtrack stack grows by doubling, the old block held while the new
 * one fills.
 * `out` is the output buffer's capacity, the high-water mark of what was
 * written, so a call that failed half-way is judged by what it wrote
 * before failing. */
static inline void fuzz_check_peak(const shorn_schema *s, size_t in, size_t out) {
  size_t bound = COUNTING_BOUND(in, out) + (s ? s->def_count * sizeof(uint32_t) : 0) +
                 (s && s->patterns ? 2 * ((size_t)PATTERN_HEAP_FIXED_KIB * 1024 + PATTERN_HEAP_PER_BYTE * in) : 0);
  if (counting_peak() <= bound) return;
  fprintf(stderr, "peak %zu bytes for %zu in and %zu out (bound %zu)\n", counting_peak(), in, out,
          bound);
  abort();
}

/* Decoded text is strict JSON with canonical key order. */
static inline void fuzz_check_json(const shorn_buffer *b) {
  arena a = {.allocator = &counting_allocator};
  json_value *v;
  shorn_error e;
  FUZZ_CHECK(json_parse(&a, (const char *)b->data, b->length, &v, &e) == SHORN_OK);
  FUZZ_CHECK(json_canonical(v));
  arena_free(&a);
}

/* Whether two buffers hold the same bytes. */
static inline bool fuzz_same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && (!an || memcmp(a, b, an) == 0);
}

/* Any bytes give JSON or a decode error at an offset inside the payload,
 * never a crash, an overread or more memory than the bound; decoded text is
 * strict JSON in canonical key order; and the validating walk (no output
 * buffer) agrees with the decoding one, error for error. */
static inline void fuzz_check_decode(const shorn_schema *s, const uint8_t *data, size_t size) {
  shorn_buffer out = {.allocator = &counting_allocator};
  shorn_error e, v;
  counting_mark();
  shorn_code rc = shorn_decode(s, data, size, 0, &out, &e);
  fuzz_check_peak(s, size, out.capacity);
  FUZZ_CHECK(rc == SHORN_OK || rc == SHORN_ERROR_DECODE);
  if (rc) {
    FUZZ_CHECK(e.where == SHORN_WHERE_OFFSET && e.offset >= 0 && (size_t)e.offset <= size);
    FUZZ_CHECK(e.message[0] != 0);
    FUZZ_CHECK(out.length == 0);
  } else {
    fuzz_check_json(&out);
  }
  shorn_buffer_free(&out);

  counting_mark();
  FUZZ_CHECK(shorn_decode(s, data, size, 0, NULL, &v) == rc);
  fuzz_check_peak(s, size, 0);
  if (rc) FUZZ_CHECK(v.offset == e.offset && strcmp(v.message, e.message) == 0);
  FUZZ_CHECK(counted.current == counted.mark);
}

/* ---- one value, one encoding ----------------------------------------------
 * Bytes that decode re-encode to exactly the same bytes, or some other bytes
 * would decode to the same value.  The one thing JSON cannot carry is NaN,
 * which the decoder writes as null: a payload holding one comes back as a
 * null (a nullable, a union, a dynamic value) or not at all (a float field).
 * So every 8 bytes that spell a float64 NaN and every 4 that spell a float32
 * NaN, wherever they sit, are replaced by the infinity of the same width and
 * sign, and the exact round trip is required of the result, which holds no
 * NaN anywhere.  Every other byte is the input's, so a second encoding
 * outside a NaN is still caught.  Of the input itself, when it held NaN
 * spellings, the JSON it decodes to must still survive encoding and
 * decoding. */

static inline uint64_t fuzz_load(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* Exponent all ones, fraction not zero. */
static inline bool fuzz_spells_nan(const uint8_t *p, int width) {
  uint64_t v = fuzz_load(p, width);
  uint64_t exponent = width == 8 ? 0x7FF0000000000000ull : 0x7F800000u;
  uint64_t fraction = width == 8 ? 0x000FFFFFFFFFFFFFull : 0x007FFFFFu;
  return (v & exponent) == exponent && (v & fraction) != 0;
}

/* Making a NaN infinite (its fraction zeroed) only clears bits, and
 * clearing bits never makes a NaN spelling (that needs the exponent's bits
 * set), so one pass from the left leaves none anywhere. */
static inline bool fuzz_replace_nans(uint8_t *b, size_t n) {
  bool replaced = false;
  for (size_t i = 0; i < n; i++) {
    for (int width = 8; width >= 4; width -= 4) {
      if (i + (size_t)width <= n && fuzz_spells_nan(b + i, width)) {
        memset(b + i, 0, (size_t)width - 2);
        b[i + (size_t)width - 2] &= width == 8 ? 0xF0 : 0x80;
        replaced = true;
      }
    }
  }
  return replaced;
}

/* The JSON `b` decodes to, in `json`; false when it does not decode. */
static inline bool fuzz_decodes(const shorn_schema *s, const uint8_t *b, size_t n,
                                shorn_buffer *json) {
  shorn_error e;
  json->length = 0;
  shorn_code rc = shorn_decode(s, b, n, 0, json, &e);
  FUZZ_CHECK(rc == SHORN_OK || rc == SHORN_ERROR_DECODE);
  return rc == SHORN_OK;
}

/* Encoding and decoding again gives back `json`.  The round trips are the
 * structure's: a payload need not satisfy the schema's validation keywords
 * (a float32 rounded past a bound) to be read and written back. */
static inline void fuzz_check_json_survives(const shorn_schema *s, const shorn_buffer *json) {
  shorn_buffer bytes = {.allocator = &counting_allocator}, again = {.allocator = &counting_allocator};
  shorn_error e;
  shorn_code rc = shorn_encode_unchecked(s, (const char *)json->data, json->length, 0, &bytes, &e);
  FUZZ_CHECK(rc == SHORN_OK || rc == SHORN_ERROR_ENCODE);
  if (rc == SHORN_OK) {
    FUZZ_CHECK(fuzz_decodes(s, bytes.data, bytes.length, &again));
    FUZZ_CHECK(fuzz_same(json->data, json->length, again.data, again.length));
  }
  shorn_buffer_free(&bytes);
  shorn_buffer_free(&again);
}

static inline void fuzz_check_round_trip(const shorn_schema *s, const uint8_t *data, size_t size) {
  uint8_t *plain = malloc(size ? size : 1);
  FUZZ_CHECK(plain != NULL);
  if (size) memcpy(plain, data, size);
  bool replaced = fuzz_replace_nans(plain, size);
  shorn_buffer json = {.allocator = &counting_allocator}, bytes = {.allocator = &counting_allocator};
  counting_mark();
  if (replaced && fuzz_decodes(s, data, size, &json)) fuzz_check_json_survives(s, &json);
  if (fuzz_decodes(s, plain, size, &json)) {
    shorn_error e;
    FUZZ_CHECK(shorn_encode_unchecked(s, (const char *)json.data, json.length, 0, &bytes, &e) == SHORN_OK);
    FUZZ_CHECK(fuzz_same(plain, size, bytes.data, bytes.length));
  }
  shorn_buffer_free(&json);
  shorn_buffer_free(&bytes);
  FUZZ_CHECK(counted.current == counted.mark);
  free(plain);
}

#endif
