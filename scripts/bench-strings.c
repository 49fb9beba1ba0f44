#define _POSIX_C_SOURCE 200809L /* setenv */
/*
 * bench-strings.c — `make bench-instructions`' string table: the codec over
 * a payload that is one long string, for callgrind to count instructions a
 * byte of the string's value, on each string path (core/text/simd.h).
 *
 *   bench-strings [--rows N]
 *
 * Three texts, each a string value of the same length: prose with nothing
 * to escape (ASCII words and full stops), escape-dense text (short fields
 * between tabs, newlines and quotation marks, as a pasted table or a code
 * snippet holds them), and CJK prose (three bytes a character, nothing to
 * escape).  For each path this build and CPU have, forced as SHORN_SIMD
 * forces it, a pass of shorn_decode and one of shorn_encode over N copies
 * of each, every copy passed once before so that no pass counts a first
 * call's setting up; callgrind dumps each pass at its end under the name
 * "strings PATH TEXT decode|encode ROWS BYTES ESCAPED", which
 * scripts/bench-instructions.py reads.  The schema is a bare string, so a
 * row's cost is the string's and a call's few instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include "core/text/simd.h"
#include "shorn.h"

/* The bytes of a string's value, a fixed length for every text. */
#define BENCH_STRING_BYTES 4096

static uint64_t bench_rng = 0x9E3779B97F4A7C15ull;

static uint64_t bench_below(uint64_t n) {
  bench_rng ^= bench_rng << 13, bench_rng ^= bench_rng >> 7, bench_rng ^= bench_rng << 17;
  return bench_rng % n;
}

static void die(const char *what, const char *why) {
  fprintf(stderr, "bench-strings: %s: %s\n", what, why);
  exit(1);
}

static const char *const latin_words[] = {"the",    "data", "schema", "field",  "query", "stored", "format",
                                          "binary", "text", "users",  "record", "speed", "small",  "and",
                                          "of",     "to",   "is",     "a",      "value", "string"};
static const char *const cjk_words[] = {"数据", "模式", "字段", "查询", "存储", "格式", "二进制", "文本",
                                        "性能", "用户", "データ", "スキーマ", "検索", "保存", "の", "は",
                                        "を", "的", "是", "在", "。"};
#define COUNT(list) (sizeof list / sizeof *list)

/* Words of `list` into out, each after `gap` (a separator drawn for it),
 * until the value has BENCH_STRING_BYTES bytes; cut at a character's
 * start so that it stays UTF-8. */
typedef const char *(*gap_fn)(void);

static size_t bench_text(char *out, const char *const *list, size_t count, gap_fn gap) {
  size_t n = 0;
  for (;;) {
    const char *g = gap(), *w = list[bench_below(count)];
    size_t gl = strlen(g), wl = strlen(w);
    if (n + gl + wl > BENCH_STRING_BYTES) break;
    memcpy(out + n, g, gl), n += gl;
    memcpy(out + n, w, wl), n += wl;
  }
  while (n < BENCH_STRING_BYTES) out[n++] = '.';
  return n;
}

static const char *prose_gap(void) { return bench_below(10) ? " " : ". "; }
static const char *cjk_gap(void) { return ""; }
/* A separator that JSON escapes before most words: tabs between fields,
 * newlines between lines, quoted words, a backslash now and then. */
static const char *dense_gap(void) {
  static const char *const gaps[] = {"\t", "\n", "\"", "\" ", "\t\"", "\\", " ", "\r\n"};
  return gaps[bench_below(COUNT(gaps))];
}

/* The value as a JSON string, escaped as JSON.stringify escapes it; returns
 * its length and counts the bytes escaped. */
static size_t bench_json(char *out, const char *s, size_t n, size_t *escaped) {
  size_t o = 0;
  out[o++] = '"';
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
                    : c == '\r' ? "\\r" : NULL;
    if (e) {
      memcpy(out + o, e, 2), o += 2, ++*escaped;
    } else if (c < 0x20) {
      o += (size_t)sprintf(out + o, "\\u%04x", c), ++*escaped;
    } else {
      out[o++] = (char)c;
    }
  }
  out[o++] = '"';
  return o;
}

typedef struct bench_case {
  const char *name;
  const char *const *words;
  size_t count;
  gap_fn gap;
} bench_case;

static const bench_case cases[] = {
    {"escape-free", latin_words, COUNT(latin_words), prose_gap},
    {"escape-dense", latin_words, COUNT(latin_words), dense_gap},
    {"cjk", cjk_words, COUNT(cjk_words), cjk_gap},
};

int main(int argc, char **argv) {
  int rows = 200;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
      rows = atoi(argv[++i]);
    else
      die(argv[i], "usage: bench-strings [--rows N]");
  }
  static const char schema_text[] = "{\"type\":\"string\"}";
  shorn_schema *schema;
  shorn_error e;
  if (shorn_schema_compile(schema_text, sizeof schema_text - 1, NULL, &schema, &e)) die("schema", e.message);
  static char value[BENCH_STRING_BYTES], json[6 * BENCH_STRING_BYTES + 2];
  shorn_buffer payload = {0}, out = {0};
  for (int p = 0; p < SIMD_PATHS; p++) {
    if (!simd_kernels_of((simd_path)p)) continue;
    setenv("SHORN_SIMD", simd_path_names[p], 1);
    simd_choose();
    for (size_t c = 0; c < COUNT(cases); c++) {
      bench_rng = 0x9E3779B97F4A7C15ull;
      size_t n = bench_text(value, cases[c].words, cases[c].count, cases[c].gap), escaped = 0;
      size_t json_length = bench_json(json, value, n, &escaped);
      payload.length = 0;
      if (shorn_encode(schema, json, json_length, 0, &payload, &e)) die(cases[c].name, e.message);
      for (int pass = 0; pass < 2; pass++) {
        char name[160];
        snprintf(name, sizeof name, "strings %s %s %s %d %zu %zu", simd_path_names[p], cases[c].name,
                 pass ? "encode" : "decode", rows, n, escaped);
        /* Every row once before, then counted. */
        for (int counted = 0; counted < 2; counted++) {
          if (counted) CALLGRIND_ZERO_STATS;
          for (int r = 0; r < rows; r++) {
            out.length = 0;
            shorn_code rc = pass ? shorn_encode(schema, json, json_length, 0, &out, &e)
                                 : shorn_decode(schema, payload.data, payload.length, 0, &out, &e);
            if (rc) die(cases[c].name, e.message);
          }
          if (counted) CALLGRIND_DUMP_STATS_AT(name);
        }
        if (!pass && (out.length != json_length || memcmp(out.data, json, json_length) != 0))
          die(cases[c].name, "decode does not give back the JSON text");
      }
    }
  }
  shorn_buffer_free(&payload), shorn_buffer_free(&out);
  shorn_schema_free(schema);
  return 0;
}
