/*
 * roundtrip.c — libFuzzer harness: a schema from the list, then payload
 * bytes that must come back from their JSON byte for byte: one value, one
 * encoding.  fuzz_check_round_trip (fuzz.h) says how NaN, which JSON cannot
 * carry, is accounted for.
 */
#include "fuzz.h"

FUZZ_SCHEMA_HARNESS(fuzz_check_round_trip)
