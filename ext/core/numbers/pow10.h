/* pow10.h — the powers of ten that number.c scales by, 128 bits each, from
 * 10^POW10_MIN to 10^POW10_MAX: the table scripts/gen_pow10.py writes into
 * pow10.c, with the range it checks. */
#ifndef SHORN_POW10_H
#define SHORN_POW10_H

#include "core/base/platform.h"

#define POW10_MIN (-342)
#define POW10_MAX 324

/* Entry j - POW10_MIN is floor(10^j * 2^(127 - floor(j log2 10))) as
 * {high, low}. */
SHORN_PRIVATE_DATA const uint64_t POW10[POW10_MAX - POW10_MIN + 1][2];

#endif
