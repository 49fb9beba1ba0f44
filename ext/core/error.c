/* error.c — setting a shorn_error, and formatting one for people. */
#include <stdio.h>

#include "error.h"

shorn_code error_vset(shorn_error *e, shorn_code code, shorn_where where, long long offset,
                      const char *fmt, va_list ap) {
  e->code = code;
  e->where = where;
  e->offset = offset;
  e->path[0] = 0;
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  return code;
}

shorn_code error_set(shorn_error *e, shorn_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(e, code, SHORN_WHERE_NONE, -1, fmt, ap);
  va_end(ap);
  return code;
}

shorn_code error_at_offset(shorn_error *e, shorn_code code, size_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(e, code, SHORN_WHERE_OFFSET, (long long)offset, fmt, ap);
  va_end(ap);
  return code;
}

shorn_code error_nomem(shorn_error *e) { return error_set(e, SHORN_ERROR_NOMEM, "Out of memory"); }

size_t shorn_error_format(const shorn_error *e, char *out, size_t cap) {
  int n;
  if (!cap) return 0;
  switch (e->where) {
    case SHORN_WHERE_OFFSET:
      n = snprintf(out, cap, "%s at byte %lld", e->message, e->offset);
      break;
    case SHORN_WHERE_PATH:
      n = snprintf(out, cap, "%s at %s", e->message, e->path);
      break;
    default:
      n = snprintf(out, cap, "%s", e->message);
  }
  if (n < 0) n = 0;
  return (size_t)n < cap ? (size_t)n : cap - 1;
}
