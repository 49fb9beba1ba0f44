/*
 * roundtrip.c — libFuzzer harness: a schema from the list, then payload
 * bytes that must come back from their JSON byte for byte: one value, one
 * encoding.  fuzz_check_round_trip (fuzz.h) says how NaN, which JSON cannot
 * carry, is accounted for.
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_init(true);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const shorn_schema *s = fuzz_pick(&data, &size);
  if (s) fuzz_check_round_trip(s, data, size);
  return 0;
}
