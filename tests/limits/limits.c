/*
 * limits.c — peak memory at the byte layout's limits, through SQL.
 *
 * A 64 MiB string, an array of 1,000,000 integers and a BigInt (the
 * built-in conversion's limit, SHORN_BIGINT_MAX_BYTES; with GMP 8 MiB here,
 * the layout's 64 MiB with --bigint-bytes 67108864) are each encoded by
 * shorn_encode and decoded by shorn_decode, each direction in a process of
 * its own (this program run again with the case's name) so that each peak is
 * its own: the extension linked in and a connection opened, the process's
 * peak resident memory is read; then the input is made, exactly its size,
 * and converted by one statement; then the peak is read again.  What the
 * conversion added, the second peak less the first, must stay within
 * FACTOR times input plus output, plus SLACK: the input and the output are
 * what the caller holds anyway, and the factor is what converting may cost
 * beside them (docs/limits.md has the figures).  Each result is checked
 * after its peak is read: against the form made directly, and for the
 * BigInt against the value's residues and, decoded, by encoding it back.
 * Without GMP, a BigInt one byte past the built-in limit must be refused
 * both ways, the message naming the limit and what lifts it.
 *
 *   limits [--bigint-bytes N]      every case, each in a child process
 *   limits CASE DIRECTION [N]      one, in this process
 */
#define _XOPEN_SOURCE 700 /* fork, execl, waitpid and getrusage under -std=c11 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "shorn.h"
#include "shorn_sqlite.h"

#include "core/numbers/bigint.h"

#include "../support/bigints.h"
#include "../unit/check.h"

/* From the measurements in docs/limits.md: the most is encoding the array,
 * whose parsed JSON takes more than its short text, then the BigInt's,
 * mostly GMP's scratch or the built-in conversion's work space; the
 * string's is one copy SQLite makes of the result.  SLACK covers what does not grow with the value: the allocators'
 * rounding, the statement, the schema. */
#define FACTOR 4
#define SLACK ((size_t)8 << 20)

#define STRING_BYTES ((size_t)SHORN_MAX_BYTES)
#define ARRAY_ELEMENTS 1000000u
/* The BigInt converted by default: 8 MiB, within the built-in limit. */
#define BIGINT_BYTES ((size_t)8 << 20 < BIGINT_MAX_BYTES ? (size_t)8 << 20 : BIGINT_MAX_BYTES)

static const char *const schemas[] = {
    "{\"type\":\"string\"}",
    "{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":0}}",
    "{\"type\":\"string\",\"x-shorn\":\"bigint\"}",
    "{\"type\":\"string\",\"x-shorn\":\"bigint\"}",
};
/* PAST_LIMIT: a BigInt of BIGINT_MAX_BYTES + 1 bytes, which only a build
 * without GMP has (its limit is below the layout's). */
enum { STRING, ARRAY, BIGINT, PAST_LIMIT };
static const char *const case_names[] = {"string", "array", "bigint", "bigint-past-limit"};
static const int case_count = BIGINT_MAX_BYTES < SHORN_MAX_BYTES ? 4 : 3;

/* Peak resident memory so far, in bytes. */
static size_t peak_bytes(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage)) return 0;
#if defined(__APPLE__)
  return (size_t)usage.ru_maxrss;
#else
  return (size_t)usage.ru_maxrss * 1024;
#endif
}

static size_t put_uvarint(uint8_t *o, uint64_t v) {
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) o[n++] = (uint8_t)(v | 0x80);
  o[n++] = (uint8_t)v;
  return n;
}

/* ---- the inputs, each form made directly, in exactly its size ------------ */

/* The string: letters, nothing JSON escapes. */
static char *string_json(size_t *n) {
  char *t = malloc(STRING_BYTES + 3);
  t[0] = '"';
  for (size_t i = 0; i < STRING_BYTES; i++) t[i + 1] = (char)('a' + i % 26);
  t[STRING_BYTES + 1] = '"';
  t[STRING_BYTES + 2] = 0;
  *n = STRING_BYTES + 2;
  return t;
}

static uint8_t *string_payload(size_t *n) {
  uint8_t *p = malloc(STRING_BYTES + 10);
  size_t h = put_uvarint(p, STRING_BYTES);
  for (size_t i = 0; i < STRING_BYTES; i++) p[h + i] = (uint8_t)('a' + i % 26);
  *n = h + STRING_BYTES;
  return p;
}

/* The array: 0, 1, ..., 999999. */
static char *array_json(size_t *n) {
  size_t length = 2 + ARRAY_ELEMENTS - 1;
  for (uint32_t i = 0; i < ARRAY_ELEMENTS; i++) length += (size_t)snprintf(NULL, 0, "%u", i);
  char *t = malloc(length + 1), *o = t;
  *o++ = '[';
  for (uint32_t i = 0; i < ARRAY_ELEMENTS; i++) o += sprintf(o, i ? ",%u" : "%u", i);
  *o++ = ']';
  *o = 0;
  *n = length;
  return t;
}

static uint8_t *array_payload(size_t *n) {
  size_t length = put_uvarint((uint8_t[10]){0}, ARRAY_ELEMENTS);
  for (uint32_t i = 0; i < ARRAY_ELEMENTS; i++) length += put_uvarint((uint8_t[10]){0}, i);
  uint8_t *p = malloc(length), *o = p;
  o += put_uvarint(o, ARRAY_ELEMENTS);
  for (uint32_t i = 0; i < ARRAY_ELEMENTS; i++) o += put_uvarint(o, i);
  *n = length;
  return p;
}

/* The BigInt: random digits, as many as any magnitude of `bytes` bytes
 * has, less one, so that the value fits in it; or a random magnitude of
 * `bytes` bytes.  Neither form is made from the other: the results are
 * checked by residues. */
static char *bigint_text(size_t bytes, size_t *n) {
  size_t count = (size_t)((double)bytes * 8 * 0.30102999566398119521);
  char *t = malloc(count + 3);
  t[0] = '"';
  t[1] = (char)('1' + random_next() % 9);
  for (size_t i = 1; i < count; i++) t[i + 1] = (char)('0' + (random_next() >> 32) % 10);
  t[count + 1] = '"';
  t[count + 2] = 0;
  *n = count + 2;
  return t;
}

static uint8_t *bigint_payload(size_t bytes, size_t *n) {
  uint8_t *p = malloc(bytes + 10);
  size_t h = put_uvarint(p, (uint64_t)bytes * 2);
  for (size_t i = 0; i < bytes; i++) p[h + i] = (uint8_t)(random_next() >> 32);
  if (!p[h + bytes - 1]) p[h + bytes - 1] = 1;
  *n = h + bytes;
  return p;
}

/* ---- one conversion ------------------------------------------------------ */

/* shorn_encode or shorn_decode of `input`, which SQLite reads in place; the
 * result stays the statement's until it is finalized. */
static const void *convert(sqlite3 *db, sqlite3_stmt **st, bool encode, const char *schema,
                           const void *input, size_t n, size_t *out, bool refusal_expected) {
  const char *sql = encode ? "SELECT shorn_encode(?1, ?2)" : "SELECT shorn_decode(?1, ?2)";
  *out = 0;
  if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) return NULL;
  /* Text bound with its terminator counted, so SQLite need not copy it to
   * add one. */
  if (encode)
    sqlite3_bind_text(*st, 1, input, -1, SQLITE_STATIC);
  else
    sqlite3_bind_blob64(*st, 1, input, n, SQLITE_STATIC);
  sqlite3_bind_text(*st, 2, schema, -1, SQLITE_STATIC);
  if (sqlite3_step(*st) != SQLITE_ROW) {
    if (!refusal_expected) fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    return NULL;
  }
  const void *result = encode ? sqlite3_column_blob(*st, 0) : (const void *)sqlite3_column_text(*st, 0);
  *out = (size_t)sqlite3_column_bytes(*st, 0);
  return result;
}

static void *make_input(int which, bool encode, size_t bigint_bytes, size_t *n) {
  switch (which) {
    case STRING: return encode ? (void *)string_json(n) : (void *)string_payload(n);
    case ARRAY: return encode ? (void *)array_json(n) : (void *)array_payload(n);
    case BIGINT: return encode ? (void *)bigint_text(bigint_bytes, n) : (void *)bigint_payload(bigint_bytes, n);
    default:
      return encode ? (void *)bigint_text(BIGINT_MAX_BYTES + 1, n) : (void *)bigint_payload(BIGINT_MAX_BYTES + 1, n);
  }
}

/* The result checked against the other form: made directly for the string
 * and the array; for the BigInt, by residues, and a decoded one encoded back
 * to the input, the round trip. */
static void check_result(sqlite3 *db, int which, bool encode, const void *input, size_t in,
                         const void *output, size_t out) {
  if (which != BIGINT) {
    size_t want_n;
    void *want = make_input(which, !encode, 0, &want_n);
    CHECK(out == want_n && memcmp(output, want, out) == 0);
    free(want);
    return;
  }
  const uint8_t *wire = encode ? output : input;
  const char *text = encode ? input : output;
  size_t wire_n = encode ? out : in, text_n = encode ? in : out;
  size_t h = 0;
  while (h < wire_n && wire[h] & 0x80) h++;
  CHECK(h < wire_n && text_n > 2 && text[0] == '"' && text[text_n - 1] == '"');
  CHECK(same_residues(wire + h + 1, wire_n - h - 1, text + 1, text_n - 2));
  if (encode) return;
  sqlite3_stmt *st = NULL;
  size_t back_n;
  const void *back = convert(db, &st, !encode, schemas[which], output, out, &back_n, false);
  CHECK(back && back_n == in && memcmp(back, input, in) == 0);
  sqlite3_finalize(st);
}

/* One case in one direction: prints its figures; the exit status says
 * whether its peak and its result were right. */
static int run_case(int which, bool encode, size_t bigint_bytes) {
  CHECK(sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init) == SQLITE_OK);
  sqlite3 *db = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  size_t before = peak_bytes(), in, out;
  void *input = make_input(which, encode, bigint_bytes, &in);
  sqlite3_stmt *st = NULL;
  const void *output = convert(db, &st, encode, schemas[which], input, in, &out, which == PAST_LIMIT);
  size_t added = peak_bytes() - before, bound = FACTOR * (in + out) + SLACK;
  if (which == PAST_LIMIT) {
    /* Refused before any conversion, with the limit's name and the build
     * option that lifts it. */
    const char *message = sqlite3_errmsg(db);
    CHECK(output == NULL && strstr(message, "SHORN_BIGINT_MAX_BYTES") && strstr(message, "-DSHORN_WITH_GMP"));
    CHECK(added <= bound);
    printf("limits: %s %s: input %9zu B refused, peak %5.1f MiB above the process's: %s\n", case_names[which],
           encode ? "encode" : "decode", in, added / 1048576.0, message);
    sqlite3_finalize(st);
    free(input);
    sqlite3_close(db);
    return check_failures ? 1 : 0;
  }
  CHECK(output != NULL);
  CHECK(added <= bound);
  printf("limits: %-6s %s: input %9zu B, output %9zu B, peak %5.1f MiB above the process's, "
         "%.2f x (input + output)%s\n",
         case_names[which], encode ? "encode" : "decode", in, out, added / 1048576.0,
         (double)added / (double)(in + out), added <= bound ? "" : ", over the bound");
  if (output) check_result(db, which, encode, input, in, output, out);
  sqlite3_finalize(st);
  free(input);
  sqlite3_close(db);
  return check_failures ? 1 : 0;
}

int main(int argc, char **argv) {
  size_t bigint_bytes = BIGINT_BYTES;
  if (argc == 3 && strcmp(argv[1], "--bigint-bytes") == 0) {
    bigint_bytes = strtoull(argv[2], NULL, 10);
    if (!bigint_bytes || bigint_bytes > BIGINT_MAX_BYTES) {
      fprintf(stderr, "limits: --bigint-bytes must be 1 to %ld in this build\n", (long)BIGINT_MAX_BYTES);
      return 2;
    }
  }
  if (argc == 4) {
    int which = 0;
    while (which < case_count && strcmp(argv[1], case_names[which])) which++;
    return which < case_count ? run_case(which, strcmp(argv[2], "encode") == 0, strtoull(argv[3], NULL, 10)) : 2;
  }
  int passed = 0, failed = 0;
  for (int which = 0; which < case_count; which++) {
    for (int encode = 1; encode >= 0; encode--) {
      char bytes[32];
      snprintf(bytes, sizeof bytes, "%zu", bigint_bytes);
      fflush(stdout);
      pid_t child = fork();
      if (child == 0) {
        execl(argv[0], argv[0], case_names[which], encode ? "encode" : "decode", bytes, (char *)NULL);
        _exit(127);
      }
      int status = 0;
      bool ok = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      ok ? passed++ : failed++;
    }
  }
  printf("limits: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
