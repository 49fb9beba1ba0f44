/* decode.h — the decoder's walk over a payload, shared with query.c, which
 * validates through it and reads values with its readers. */
#ifndef SHORN_DECODE_H
#define SHORN_DECODE_H

#include "platform.h"
#include "error.h"
#include "shape.h"

/* Where the declared fields of the first object a validating walk enters
 * begin (the root object, most often), so that a query goes straight to
 * one rather than passing over the fields before it.  `field` holds the
 * present fields' starts, by field index. */
#define FIELD_MARKS_MAX 64
typedef struct field_marks {
  const shape *object; /* NULL until marked */
  const uint8_t *at;   /* the object's first byte, as a query_node's */
  const uint8_t *field[FIELD_MARKS_MAX];
} field_marks;

typedef struct decoder {
  const uint8_t *start, *p, *end; /* offsets in errors count from start */
  shorn_buffer *out;              /* NULL: validate without writing JSON */
  shorn_error *error;
  const shorn_allocator *allocator; /* the schema's, for scratch */
  uint32_t *ref_depth;            /* open levels per definition */
  uint32_t nesting;
  field_marks *marks;             /* NULL but in a query's validation */
} decoder;

SHORN_PRIVATE shorn_code decode_value(decoder *d, const shape *s);
/* shorn_decode's validation (no output), marking fields as it goes. */
SHORN_PRIVATE shorn_code decode_marking(const shorn_schema *s, const uint8_t *data, size_t length, int fingerprint_width,
                          field_marks *marks, shorn_error *error);
/* Counts, lengths, uint: 8 bytes at most.  Most are one byte, read inline
 * rather than with a call, which small records feel. */
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
