/*
 * onepass.c — libFuzzer harness: a schema from the list, then JSON text,
 * through each of the encoder's two ways alone.
 *
 * What the one pass takes, the tree (the DOM parsed whole, then walked)
 * takes too, with the same bytes, in both modes; a text the pass leaves
 * has nothing written for it; and neither holds more memory than fuzz.h's
 * bound or keeps any after.
 */
#include "fuzz.h"

#include "core/wire/encode.h"

static void compare(const shorn_schema *s, const uint8_t *data, size_t size, bool checked) {
  shorn_buffer pass = {.allocator = &counting_allocator}, tree = {.allocator = &counting_allocator};
  shorn_error e;
  counting_mark();
  bool took = encode_by_one_pass(s, (const char *)data, size, &pass, checked);
  fuzz_check_peak(s, size, pass.capacity);
  shorn_code rc = encode_by_tree(s, (const char *)data, size, &tree, &e, checked);
  FUZZ_CHECK(took || pass.length == 0);
  FUZZ_CHECK(!took || (rc == SHORN_OK && fuzz_same(pass.data, pass.length, tree.data, tree.length)));
  shorn_buffer_free(&pass);
  shorn_buffer_free(&tree);
  FUZZ_CHECK(counted.current == counted.mark);
}

static void check_onepass(const shorn_schema *s, const uint8_t *data, size_t size) {
  compare(s, data, size, true);
  compare(s, data, size, false);
}

FUZZ_SCHEMA_HARNESS(check_onepass)
