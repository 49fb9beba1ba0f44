/* evolve.h — schema evolution: whether a newer schema (the reader) reads
 * every payload an older one (the writer) wrote, and a writer's payload
 * rewritten as the reader's (docs/registry.md, "Changing a schema"). */
#ifndef SHORN_EVOLVE_H
#define SHORN_EVOLVE_H

#include "core/base/platform.h"

/* Append to `why` what keeps the schema `to` (the reader) from reading
 * the payloads of `from` (the writer), a place each, "; " between them, as
 * "#/properties/age: an integer cannot be read as a string" (a JSON
 * Pointer into the reader's schema).  Nothing appended when it reads them
 * all.  SHORN_OK, or SHORN_ERROR_NOMEM. */
SHORN_PRIVATE shorn_code evolve_check(const shorn_schema *from, const shorn_schema *to, shorn_buffer *why);

/* The payload data[0..n) of `from`, after its `from_width`-byte
 * fingerprint, appended to `out` as a payload of `to` after its
 * `to_width`-byte fingerprint: members only the writer has dropped,
 * members only the reader has given their defaults, every other value as
 * it was.  The payload is decoded with the writer's checks; the reader's
 * validation keywords are not checked, as no read checks them.  On
 * failure `out` is as long as it was. */
SHORN_PRIVATE shorn_code evolve_upgrade(const shorn_schema *from, const shorn_schema *to, const uint8_t *data,
                                        size_t n, int from_width, int to_width, shorn_buffer *out,
                                        shorn_error *error);

#endif
