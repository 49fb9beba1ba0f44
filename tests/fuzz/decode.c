/*
 * decode.c — libFuzzer harness: a schema from the list, then payload bytes,
 * held to fuzz_check_decode (fuzz.h): a result or an error at an offset,
 * strict canonical JSON, memory within the bound, the validating walk in
 * agreement.
 */
#include "fuzz.h"

FUZZ_SCHEMA_HARNESS(fuzz_check_decode)
