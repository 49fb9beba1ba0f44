/*
 * decode.c — libFuzzer harness: a schema from the list, then payload bytes,
 * held to fuzz_check_decode (fuzz.h): a result or an error at an offset,
 * strict canonical JSON, memory within the bound, the validating walk in
 * agreement.
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_init(true);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const shorn_schema *s = fuzz_pick(&data, &size);
  if (s) fuzz_check_decode(s, data, size);
  return 0;
}
