/* datetime.h — the byte layout's date-time and its ISO 8601 spelling. */
#ifndef SHORN_DATETIME_H
#define SHORN_DATETIME_H

#include "core/base/platform.h"

#define DATETIME_LIMIT 8640000000000000LL /* TimeClip: +-8.64e15 ms */
#define DATETIME_TEXT_MAX 32

/* Date.prototype.toISOString of an epoch millisecond count within the limit. */
SHORN_PRIVATE size_t datetime_format(int64_t ms, char out[DATETIME_TEXT_MAX]);
/* The inverse, accepting only the exact spelling datetime_format writes. */
SHORN_PRIVATE bool datetime_parse(const char *s, size_t n, int64_t *ms);

#endif
