/* error.h — filling a shorn_error, and a step of the path it points at. */
#ifndef SHORN_ERROR_H
#define SHORN_ERROR_H

#include "core/base/platform.h"

/* A step of the path an error points at: a key, or an index when key is
 * NULL. */
typedef struct path_segment {
  const char *key; /* WTF-8 */
  uint32_t key_length;
  uint64_t index;
} path_segment;

/* Set the error and return its code.  Messages are truncated to fit. */
SHORN_PRIVATE shorn_code error_set(shorn_error *e, shorn_code code, const char *fmt, ...) PRINTF_LIKE(3, 4);
SHORN_PRIVATE shorn_code error_at_offset(shorn_error *e, shorn_code code, size_t offset, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
SHORN_PRIVATE shorn_code error_nomem(shorn_error *e);
/* The common core of the three: the path, when there is one, is the
 * caller's to fill. */
SHORN_PRIVATE shorn_code error_vset(shorn_error *e, shorn_code code, shorn_where where, long long offset,
                      const char *fmt, va_list ap);

#endif
