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

/* What reads a payload of `from` as one of `to`: which parts of the two
 * are written alike, how each pair of objects' members line up, the
 * reader's defaults as it writes them.  Built once for the pair, read by
 * any number of calls at once; it keeps pointers into both schemas, which
 * must outlive it.  SHORN_ERROR_SCHEMA with evolve_check's reasons when
 * `to` cannot read what `from` wrote. */
typedef struct evolve_plan evolve_plan;
SHORN_PRIVATE shorn_code evolve_plan_new(const shorn_schema *from, const shorn_schema *to, evolve_plan **plan,
                                         shorn_error *error);
SHORN_PRIVATE void evolve_plan_free(evolve_plan *plan);

/* The payload data[0..n) of the plan's `from`, after its `from_width`-byte
 * fingerprint, appended to `out` as the JSON text the reader's decoder
 * writes for it once upgraded: members only the writer has left out,
 * members only the reader has given their defaults, every other value as
 * it was, in the reader's key order.  The payload is checked as the
 * writer's decoder checks it; on failure `out` is as long as it was. */
SHORN_PRIVATE shorn_code evolve_decode(const evolve_plan *plan, const uint8_t *data, size_t n, int from_width,
                                       shorn_buffer *out, shorn_error *error);

/* Where a path leads in both schemas, a step at a time from the roots: a
 * member by its name as JSON writes it, or an item by its index.  When the
 * place is `alike`, the writer's bytes there answer for the reader, so that
 * a path into an older payload is read from its own bytes, not rewritten
 * first. */
typedef struct evolve_place {
  const struct shape *from, *to; /* the reader's NULL under a dynamic value, which keeps the writer's */
  bool alike;
} evolve_place;
SHORN_PRIVATE evolve_place evolve_root(const evolve_plan *plan);
/* A member `key` of n bytes, or (key NULL) item `index`: false, the place
 * lost, where the two cannot be followed alike (a member one of them
 * lacks, a union, a Map). */
SHORN_PRIVATE bool evolve_path_step(const evolve_plan *plan, evolve_place *at, const char *key, size_t n, uint64_t index);

/* That value appended to `out` as a payload of `to` after its
 * `to_width`-byte fingerprint, its structure checked but not its
 * validation keywords, as no read checks them; `scratch` holds the JSON
 * text between. */
SHORN_PRIVATE shorn_code evolve_upgrade(const evolve_plan *plan, const uint8_t *data, size_t n, int from_width,
                                        int to_width, shorn_buffer *scratch, shorn_buffer *out, shorn_error *error);

/* The `width`-byte fingerprint (1..4) of the schema whose signature this
 * is, most significant byte first: a version's, found from the signature
 * the registry keeps without compiling the schema. */
SHORN_PRIVATE void evolve_fingerprint(const char *signature, size_t length, int width, uint8_t out[4]);

#endif
