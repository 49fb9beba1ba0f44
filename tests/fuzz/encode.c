/*
 * encode.c — libFuzzer harness: a schema from the list, then JSON text.
 *
 * Any text gives a payload, a JSON error at an offset inside the text, or an
 * encode error at a path, never a crash or more memory than fuzz.h's bound.
 * A payload decodes, and what it decodes to encodes to the same payload:
 * the encoder writes only what the decoder reads back as the same value.
 * The validation keywords only ever refuse: what shorn_encode takes,
 * shorn_encode_unchecked takes too and writes the same bytes for, and what
 * the structure refuses shorn_encode refuses.
 */
#include "fuzz.h"

static void check_encode(const shorn_schema *s, const uint8_t *data, size_t size) {
  shorn_buffer out = {.allocator = &counting_allocator}, json = {.allocator = &counting_allocator},
               again = {.allocator = &counting_allocator}, plain = {.allocator = &counting_allocator};
  shorn_error e, u;
  counting_mark();
  shorn_code rc = shorn_encode(s, (const char *)data, size, 0, &out, &e);
  fuzz_check_peak(s, size, out.capacity);
  switch (rc) {
    case SHORN_OK:
      FUZZ_CHECK(shorn_decode(s, out.data, out.length, 0, &json, &e) == SHORN_OK);
      fuzz_check_json(&json);
      FUZZ_CHECK(shorn_encode_unchecked(s, (const char *)json.data, json.length, 0, &again, &e) == SHORN_OK);
      FUZZ_CHECK(fuzz_same(out.data, out.length, again.data, again.length));
      break;
    case SHORN_ERROR_JSON:
      FUZZ_CHECK(e.where == SHORN_WHERE_OFFSET && e.offset >= 0 && (size_t)e.offset <= size);
      break;
    case SHORN_ERROR_ENCODE:
      FUZZ_CHECK(e.where == SHORN_WHERE_PATH && e.path[0] == '$');
      break;
    default:
      FUZZ_CHECK(!"an encode fails only for its JSON or its value");
  }
  FUZZ_CHECK(rc == SHORN_OK || (e.message[0] && out.length == 0));
  shorn_code structural = shorn_encode_unchecked(s, (const char *)data, size, 0, &plain, &u);
  FUZZ_CHECK(rc != SHORN_OK || (structural == SHORN_OK && fuzz_same(out.data, out.length, plain.data, plain.length)));
  FUZZ_CHECK(structural == SHORN_OK || rc == structural);
  shorn_buffer_free(&out);
  shorn_buffer_free(&json);
  shorn_buffer_free(&again);
  shorn_buffer_free(&plain);
  FUZZ_CHECK(counted.current == counted.mark);
}

FUZZ_SCHEMA_HARNESS(check_encode)
