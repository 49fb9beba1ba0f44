/* edit.h — SQLite's json_set, json_insert, json_replace, json_remove and
 * json_patch on a payload: the bytes shorn_encode writes for the edited
 * value, with only the value the edit changes written anew. */
#ifndef SHORN_EDIT_H
#define SHORN_EDIT_H

#include "core/base/platform.h"
#include "core/json/json.h"
#include "query.h"

typedef enum edit_kind { EDIT_SET, EDIT_INSERT, EDIT_REPLACE, EDIT_REMOVE } edit_kind;

/* One path and value pair of json_set (or a path of json_remove, with no
 * value). */
typedef struct edit {
  edit_kind kind;
  const query_path *path;
  const json_value *value;
} edit;

/* Append to `out` the payload `data` (with its `fingerprint_width`-byte
 * fingerprint, kept) after the edits, in order: what shorn_encode writes
 * for json_set(shorn_decode(data), path, value, …) and its kin, or its
 * refusal with its message and path.  *removed when an edit removes the
 * whole value, where json_remove gives NULL (and `out` is left alone).
 * Only the bytes the paths lead through and the values they change are
 * read, and checked as shorn_decode checks them; the rest is copied
 * (docs/querying.md states the contract). */
SHORN_PRIVATE shorn_code edit_payload(const shorn_schema *s, const uint8_t *data, size_t length,
                                      int fingerprint_width, const edit *edits, size_t count, shorn_buffer *out,
                                      bool *removed, shorn_error *error);

/* The same for json_patch(shorn_decode(data), patch), an RFC 7396 merge
 * patch, which may touch any part of the value: it is decoded whole. */
SHORN_PRIVATE shorn_code edit_patch(const shorn_schema *s, const uint8_t *data, size_t length,
                                    int fingerprint_width, const json_value *patch, shorn_buffer *out,
                                    shorn_error *error);

#endif
