/* places.h — every place a value of a schema can have, listed from its
 * shapes as json_tree lists the places of one value. */
#ifndef SHORN_PLACES_H
#define SHORN_PLACES_H

#include "core/base/platform.h"

/* More rows than any schema a user reads them for: a bound on the work a
 * hostile schema can ask for. */
#define PLACES_MAX 100000

/* Room for places_types_text's longest answer, every type named. */
#define PLACES_TYPES_TEXT 64

typedef struct places_row {
  size_t path_start, path_length; /* in the list's `paths` */
  unsigned types;                 /* the JSON types a value there takes, for places_types_text */
  const char *shape;              /* its wire shape's kind, as the signature names it */
  bool optional;                  /* an object member that may be left out */
  int64_t leads_to;               /* the row of the value a recursion repeats, or -1 */
} places_row;

typedef struct places {
  shorn_buffer current; /* the path of the place being listed */
  shorn_buffer paths;   /* every row's path, one after another */
  places_row *rows;
  size_t count, capacity;
  int64_t *definition_rows; /* per definition, the row listing its body, or -1 */
  int depth;
} places;

typedef enum places_code { PLACES_OK, PLACES_NOMEM, PLACES_TOO_MANY } places_code;

/* The rows of every place of the schema, in json_tree's order, their memory
 * from `a`: a path ('$', '$.name', '$.tags[*]' for any element, '$.scores.*'
 * for any record or open object member, '$.counts[*][0]' for a Map's keys).
 * PLACES_TOO_MANY past PLACES_MAX rows or nested too deep.  Free with
 * places_free, whatever it returns. */
SHORN_PRIVATE places_code places_list(places *l, const shorn_schema *schema, const shorn_allocator *a);
SHORN_PRIVATE void places_free(places *l);

/* A row's types as text, 'integer|null', and its length. */
SHORN_PRIVATE size_t places_types_text(unsigned types, char text[PLACES_TYPES_TEXT]);

#endif
