/*
 * compile.c — libFuzzer harness: schema text, then optionally a NUL and
 * payload bytes (no JSON text holds a NUL, so it cannot be part of one).
 *
 * Any text compiles, or is refused with a JSON error at an offset inside it
 * or a schema error at a JSON Pointer, never a crash, a hang or a leak.  A
 * compiled schema has a signature that is JSON text, and the payload (16
 * zero bytes when there is none: the first value of most shapes) is held to
 * the decode harness's checks and the round trip's, so that shapes no
 * vector has are decoded too.
 */
#include "fuzz.h"

/* Nothing to set up: each input brings its own schema. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static void check_compiled(const shorn_schema *s, const uint8_t *payload, size_t n) {
  size_t length;
  const char *signature = shorn_schema_signature(s, &length);
  arena a = {.allocator = &counting_allocator};
  json_value *v;
  shorn_error e;
  FUZZ_CHECK(json_parse(&a, signature, length, &v, &e) == SHORN_OK);
  arena_free(&a);
  static const uint8_t zeros[16];
  if (!payload) payload = zeros, n = sizeof zeros;
  fuzz_check_decode(s, payload, n);
  fuzz_check_round_trip(s, payload, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t text = nul ? (size_t)(nul - data) : size;
  shorn_schema *s;
  shorn_error e;
  size_t before = counted.current;
  shorn_code rc = shorn_schema_compile((const char *)data, text, &counting_allocator, &s, &e);
  switch (rc) {
    case SHORN_OK:
      check_compiled(s, nul ? nul + 1 : NULL, nul ? size - text - 1 : 0);
      shorn_schema_free(s);
      break;
    case SHORN_ERROR_JSON:
      FUZZ_CHECK(e.where == SHORN_WHERE_OFFSET && e.offset >= 0 && (size_t)e.offset <= text);
      break;
    case SHORN_ERROR_SCHEMA:
      FUZZ_CHECK(e.where == SHORN_WHERE_PATH && e.path[0] == '#');
      break;
    default:
      FUZZ_CHECK(!"a compile fails only for its text");
  }
  FUZZ_CHECK(rc == SHORN_OK || (e.message[0] && s == NULL));
  FUZZ_CHECK(counted.current == before);
  return 0;
}
