/* decode.h — the decoder's walk over a payload, shared with query.c, which
 * reads the headers on a path with its readers and checks the value a path
 * names with its walk. */
#ifndef SHORN_DECODE_H
#define SHORN_DECODE_H

#include "core/base/platform.h"
#include "core/text/error.h"
#include "core/shape/shape.h"

typedef struct decoder {
  const uint8_t *start, *p, *end; /* offsets in errors count from start */
  shorn_buffer *out;              /* NULL: validate without writing JSON */
  shorn_error *error;
  const shorn_allocator *allocator; /* the schema's, for scratch */
  uint32_t *ref_depth;            /* open levels per definition */
  uint32_t nesting;
} decoder;

SHORN_PRIVATE shorn_code decode_value(decoder *d, const shape *s);

static inline size_t remaining(const decoder *d) { return (size_t)(d->end - d->p); }

/* Would `count` elements of `width` bytes each overrun the input?  Widths
 * saturate and multiply past 2^64 in hostile schemas, hence the division. */
static inline bool exceeds(const decoder *d, uint64_t count, uint64_t width) {
  return width && count > remaining(d) / width;
}

/* The readers of what heads a value, each with the decoder's checks and
 * messages.  A payload's `width`-byte fingerprint (a usage error past 4). */
SHORN_PRIVATE shorn_code read_fingerprint(decoder *d, const shorn_schema *s, int width);
/* A collection's count: within SHORN_MAX_ELEMENTS, and no more values of
 * `width` bytes at least than the bytes left hold.  `what` names it in
 * messages ("Array length"). */
SHORN_PRIVATE shorn_code read_count(decoder *d, uint64_t width, const char *what, uint64_t *count);
/* An array's or a Set's count: the schema's fixed one, or read_count's. */
SHORN_PRIVATE shorn_code read_array_length(decoder *d, const shape *s, uint64_t *count);
/* An object's presence bitmap (NULL when it has no optional fields). */
SHORN_PRIVATE shorn_code read_bitmap(decoder *d, const shape *s, const uint8_t **bitmap);
/* A nullable's marker, a union's branch (checked against its
 * discriminant), a dynamic value's tag. */
SHORN_PRIVATE shorn_code read_marker(decoder *d, bool *present);
SHORN_PRIVATE shorn_code read_branch(decoder *d, const shape *s, uint64_t *index);
SHORN_PRIVATE shorn_code read_tag(decoder *d, dynamic_tag *tag);
/* Counts, lengths, uint: 8 bytes at most.  Most are one byte, read inline
 * rather than with a call, which small records feel; read_uvarint_long
 * reads the rest, and only read_uvarint calls it. */
SHORN_PRIVATE shorn_code read_uvarint_long(decoder *d, uint64_t *value);
static inline shorn_code read_uvarint(decoder *d, uint64_t *value) {
  if (likely(d->p < d->end && *d->p < 0x80)) {
    *value = *d->p++;
    return SHORN_OK;
  }
  return read_uvarint_long(d, value);
}
SHORN_PRIVATE shorn_code read_int(decoder *d, int64_t *value);      /* ZigZag, 10 bytes at most */
SHORN_PRIVATE shorn_code read_string(decoder *d, const uint8_t **s, size_t *n);

#endif
