/* error.c — setting a shorn_error, and formatting one for people. */
#include <stdio.h>

#include "error.h"
#include "text.h"

/* Finish text that snprintf wrote into out[0..cap) (cap >= 1) as `wanted`
 * bytes: when they did not fit, cut at a character boundary and mark the
 * cut with "…" where there is room, so the text stays strict UTF-8.
 * Returns its length. */
static size_t finish_cut(char *out, size_t cap, int wanted) {
  if (wanted < 0) return out[0] = 0, 0;
  if ((size_t)wanted < cap) return (size_t)wanted;
  size_t mark = cap > sizeof TEXT_ELLIPSIS ? sizeof TEXT_ELLIPSIS - 1 : 0;
  size_t n = utf8_cut(out, cap - 1 - mark);
  memcpy(out + n, TEXT_ELLIPSIS, mark);
  out[n + mark] = 0;
  return n + mark;
}

shorn_code error_vset(shorn_error *e, shorn_code code, shorn_where where, long long offset,
                      const char *fmt, va_list ap) {
  e->code = code;
  e->where = where;
  e->offset = offset;
  e->path[0] = 0;
  finish_cut(e->message, sizeof e->message, vsnprintf(e->message, sizeof e->message, fmt, ap));
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
  return finish_cut(out, cap, n);
}
