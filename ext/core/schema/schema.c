/*
 * schema.c — JSON Schema to wire shapes, by the rules of
 * docs/format.md#from-json-schema-to-shapes, which keeps the published
 * library's translation with a few departures (x-shorn shapes, date-time,
 * type arrays of several types, -0 refused; docs/schemas.md).
 *
 * The translator walks the document depth first in exactly the reference's
 * order (union branches in sorted order, additionalProperties before the
 * properties, properties in UTF-16 key order, tuple items before the rest),
 * because that order numbers the definitions of a recursive schema.
 * Unions (anyOf, oneOf, type arrays of several types) are translated in
 * unions.c, which shares the translator's state and helpers through
 * translator.h and comes back here for each branch.
 *
 * A $ref is expanded once per pointer text and its shape reused wherever the
 * pointer appears again, so the shapes form a DAG whose expansion is the tree
 * the reference builds.  The DAG keeps memory linear in the document, but
 * every later walk (fold, widths, signature, encode, decode) pays for the
 * expansion, so each reuse is charged its full size and height, and a
 * document whose expansion passes the limits below is refused.
 *
 * Errors name the offending node by its JSON Pointer.  Nothing is recorded
 * on the way down for that: on failure the node is searched for in the
 * document, which is cheaper than keeping a path for every node that works.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "schema.h"

#include "core/text/error.h"
#include "core/json/json.h"
#include "core/numbers/number.h"
#include "core/regex/pattern.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "translator.h"
#include "validate.h"

/* Levels of nested schema nodes, $ref hops included, and the height of any
 * expanded shape, so that every recursive walk of a shape has a stack bound.
 * The reference runs out of JavaScript stack near 1,400. */
#define SCHEMA_MAX_DEPTH 512

/* Shapes and enum members in the expanded document: what shared $refs
 * reused inside each other ("billion laughs") may expand to. */
#define SCHEMA_MAX_UNITS 1000000

static shape *translate_node(translator *t, const json_value *node);

/* ---- errors ---------------------------------------------------------------- */

/* Append a member name as a JSON Pointer segment: RFC 6901 escapes "~" and
 * "/"; control characters and lone surrogates are percent-encoded so that a
 * path is always printable UTF-8. */
static bool put_segment(shorn_buffer *b, const char *s, size_t n) {
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    uint8_t c = (uint8_t)s[i];
    size_t encoded = c < 0x20 || c == 0x7F                                 ? 1
                     : c == 0xED && i + 2 < n && (uint8_t)s[i + 1] >= 0xA0 ? 3
                                                                           : 0;
    if (c == '~')
      ok = buffer_append(b, "~0", 2);
    else if (c == '/')
      ok = buffer_append(b, "~1", 2);
    else if (!encoded)
      ok = buffer_byte(b, c);
    for (size_t k = 0; ok && k < encoded; k++) {
      uint8_t e = (uint8_t)s[i + k];
      char text[3] = {'%'};
      hex_byte(text + 1, e, true);
      ok = buffer_append(b, text, 3);
    }
    if (encoded) i += encoded - 1;
  }
  return ok;
}

typedef struct search_frame {
  const json_value *container;
  uint32_t next; /* the child to look at next; the path goes through next - 1 */
} search_frame;

/* The containers from the document down to `node`, by a depth first search
 * that keeps its stack on the heap; NULL when not found or out of memory. */
static search_frame *search(const shorn_allocator *a, const json_value *document, const json_value *node,
                            size_t *depth) {
  size_t capacity = 0;
  search_frame *stack = array_grow(a, NULL, &capacity, 1, sizeof *stack, NULL);
  if (!stack) return NULL;
  stack[0] = (search_frame){document, 0};
  *depth = document->type == JSON_OBJECT || document->type == JSON_ARRAY;
  while (*depth) {
    search_frame *f = &stack[*depth - 1];
    const json_value *c = f->container;
    if (f->next == c->length) {
      --*depth;
      continue;
    }
    const json_value *child =
        c->type == JSON_OBJECT ? &c->u.items[2 * f->next + 1] : &c->u.items[f->next];
    f->next++;
    if (child == node) return stack;
    if ((child->type != JSON_OBJECT && child->type != JSON_ARRAY) || !child->length) continue;
    if (*depth == capacity) {
      search_frame *grown = array_grow(a, stack, &capacity, *depth + 1, sizeof *stack, NULL);
      if (!grown) break;
      stack = grown;
    }
    stack[(*depth)++] = (search_frame){child, 0};
  }
  mem_free(a, stack);
  return NULL;
}

/* Append the JSON Pointer of `node` within `document`. */
static bool put_location(shorn_buffer *b, const json_value *document, const json_value *node) {
  size_t depth = 0;
  search_frame *stack = node == document ? NULL : search(b->allocator, document, node, &depth);
  bool ok = buffer_byte(b, '#');
  for (size_t i = 0; ok && i < depth; i++) {
    const json_value *c = stack[i].container;
    uint32_t at = stack[i].next - 1;
    char index[16];
    ok = buffer_byte(b, '/');
    if (c->type == JSON_OBJECT)
      ok = ok && put_segment(b, c->u.items[2 * at].u.string, c->u.items[2 * at].length);
    else
      ok = ok && buffer_append(b, index, (size_t)snprintf(index, sizeof index, "%u", at));
  }
  mem_free(b->allocator, stack);
  return ok;
}

/* Store a path, keeping its end (which names the node) when it is too
 * long: from a segment boundary if one is near, else from a character's. */
static void set_path(shorn_error *e, const char *p, size_t n) {
  static const char elided[] = "#/...";
  size_t start = 0, head = 0;
  if (n >= SHORN_PATH_MAX) {
    head = sizeof elided - 1;
    size_t room = SHORN_PATH_MAX - 1 - head, limit = n - room + 64;
    start = n - room;
    while (start < limit && p[start] != '/') start++;
    if (start == limit)
      for (start = n - room; ((uint8_t)p[start] & 0xC0) == 0x80; start++) continue;
    memcpy(e->path, elided, head);
  }
  memcpy(e->path + head, p + start, n - start);
  e->path[head + n - start] = 0;
  e->where = SHORN_WHERE_PATH;
}

/* Point the error at `node`.  Without memory for the search, the path is
 * only the document. */
void locate(const translator *t, const json_value *node, shorn_error *e) {
  shorn_buffer b = {.allocator = t->allocator};
  if (put_location(&b, t->document, node))
    set_path(e, (const char *)b.data, b.length);
  else
    set_path(e, "#", 1);
  shorn_buffer_free(&b);
}

/* Refuse the schema because of `node`.  Returns NULL, which the helpers
 * that return bool pass on as false. */
void *refuse_node(translator *t, const json_value *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(t->error, SHORN_ERROR_SCHEMA, SHORN_WHERE_PATH, -1, fmt, ap);
  va_end(ap);
  locate(t, node, t->error);
  return NULL;
}

void *not_a_schema(translator *t, const json_value *node) {
  return refuse_node(t, node, "Expected a JSON Schema object here, found %s", describe_node(node));
}

/* ---- small things ---------------------------------------------------------- */

/* Room for one more item in a growable array: the new array, or NULL. */
static void *grow_list(translator *t, void *items, uint32_t count, size_t *capacity, size_t size) {
  if (count < *capacity) return items;
  return array_grow(t->allocator, items, capacity, (size_t)count + 1, size, NULL);
}

/* Count `units` towards the size of the expanded document. */
static bool charge(translator *t, const json_value *node, uint64_t units) {
  t->units += units;
  if (t->units <= SCHEMA_MAX_UNITS) return true;
  refuse_node(t, node, "The schema expands to more than %d shapes (a shared $ref counts at every use)",
         SCHEMA_MAX_UNITS);
  return false;
}

static void *too_deep(translator *t, const json_value *node) {
  return refuse_node(t, node, "The schema nests deeper than %d levels", SCHEMA_MAX_DEPTH);
}

shape *new_shape(translator *t, const json_value *node, shape_kind kind) {
  if (!charge(t, node, 1)) return NULL;
  shape *sh = arena_alloc(&t->schema->arena, sizeof *sh);
  if (!sh) return translator_nomem(t);
  memset(sh, 0, sizeof *sh);
  sh->kind = kind;
  return sh;
}

/* Remember where a shape the build checks may refuse came from. */
bool note_origin(translator *t, const shape *sh, const json_value *node) {
  origin *o = grow_list(t, t->origins, t->origin_count, &t->origin_capacity, sizeof *o);
  if (!o) return translator_nomem(t);
  t->origins = o;
  o[t->origin_count++] = (origin){sh, node};
  return true;
}

static const json_value *origin_of(const translator *t, const shape *sh) {
  for (uint32_t i = 0; sh && i < t->origin_count; i++)
    if (t->origins[i].shape == sh) return t->origins[i].node;
  return t->document;
}

/* An object's members sorted by key in UTF-16 order, a repeated key kept
 * once with its last value (as JSON.parse keeps it).  `object` may be NULL. */
static int compare_properties(const void *a, const void *b) {
  const property *x = a, *y = b;
  int c = utf16_compare(x->key->u.string, x->key->length, y->key->u.string, y->key->length);
  return c ? c : (x->key > y->key) - (x->key < y->key);
}

bool sorted_properties(translator *t, const json_value *object, property **out,
                       uint32_t *count) {
  uint32_t n = object ? object->length : 0, kept = 0;
  *out = NULL;
  *count = 0;
  if (!n) return true;
  property *p = mem_alloc(t->allocator, (size_t)n * sizeof *p);
  if (!p) return translator_nomem(t);
  for (uint32_t i = 0; i < n; i++)
    p[i] = (property){&object->u.items[2 * i], &object->u.items[2 * i + 1]};
  qsort(p, n, sizeof *p, compare_properties);
  for (uint32_t i = 0; i < n; i++) {
    bool repeated = i + 1 < n && p[i].key->length == p[i + 1].key->length &&
                    memcmp(p[i].key->u.string, p[i + 1].key->u.string, p[i].key->length) == 0;
    if (!repeated) p[kept++] = p[i];
  }
  *out = p;
  *count = kept;
  return true;
}

const property *find_property(const property *p, uint32_t n, const char *key,
                              uint32_t length) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = utf16_compare(p[mid].key->u.string, p[mid].key->length, key, length);
    if (c == 0) return &p[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* ---- scalars --------------------------------------------------------------- */

/* A const, enum member or discriminant case, with its JSON text.  -0 and the
 * infinities are refused: JSON.stringify writes them 0 and null, so the
 * signature could not tell them apart from 0 and null. */
bool scalar_of(translator *t, const json_value *v, const char *role, scalar *out) {
  static const char *const words[] = {
      [JSON_NULL] = "null", [JSON_FALSE] = "false", [JSON_TRUE] = "true"};
  char text[NUMBER_TEXT_MAX];
  memset(out, 0, sizeof *out);
  out->type = (json_type)v->type;
  const char *json = text;
  size_t length;
  if (v->type <= JSON_TRUE) {
    json = words[v->type];
    length = strlen(json);
  } else if (v->type == JSON_NUMBER) {
    out->number = v->u.number;
    if (v->u.number == 0 && signbit(v->u.number))
      return refuse_node(t, v, "%s -0 is refused: its JSON text is 0, so it cannot be told from 0",
                    role);
    length = number_format(v->u.number, text);
    if (!isfinite(v->u.number))
      return refuse_node(t, v, "%s %s is refused: it has no JSON text of its own", role, text);
  } else {
    out->string = v->u.string;
    out->string_length = v->length;
    t->scratch.length = 0;
    if (!buffer_json_string(&t->scratch, v->u.string, v->length)) return translator_nomem(t);
    json = (const char *)t->scratch.data;
    length = t->scratch.length;
  }
  if (!(out->json = arena_strdup(&t->schema->arena, json, length))) return translator_nomem(t);
  out->json_length = (uint32_t)length;
  return true;
}

static int compare_by_string(const void *a, const void *b) {
  const scalar *x = &((const ranked *)a)->value, *y = &((const ranked *)b)->value;
  return utf16_compare(x->string, x->string_length, y->string, y->string_length);
}

static int compare_by_json(const void *a, const void *b) {
  const scalar *x = &((const ranked *)a)->value, *y = &((const ranked *)b)->value;
  return utf16_compare(x->json, x->json_length, y->json, y->json_length);
}

/* Canonical order (docs/format.md#enum-order): strings by UTF-16 code
 * units when every member is a string, otherwise everything by its JSON
 * text.  Returns the comparison. */
comparison *sort_canonically(ranked *r, uint32_t n) {
  bool strings = true;
  for (uint32_t i = 0; i < n && strings; i++) strings = r[i].value.type == JSON_STRING;
  comparison *compare = strings ? compare_by_string : compare_by_json;
  qsort(r, n, sizeof *r, compare);
  return compare;
}

/* ---- $ref ------------------------------------------------------------------ */

/* Find or add the entry of a pointer text; its index, or UINT32_MAX. */
static uint32_t pointer_index(translator *t, const char *text, uint32_t length) {
  if (t->pointer_count >= t->pointer_mask / 2) {
    uint32_t size = t->pointer_mask ? 2 * (t->pointer_mask + 1) : 64;
    uint32_t *slots = mem_calloc(t->allocator, size, sizeof *slots);
    if (!slots) return UINT32_MAX;
    for (uint32_t i = 0; i < t->pointer_count; i++) {
      uint32_t h = key_hash(t->pointers[i].text, t->pointers[i].length) & (size - 1);
      while (slots[h]) h = (h + 1) & (size - 1);
      slots[h] = i + 1;
    }
    mem_free(t->allocator, t->pointer_slots);
    t->pointer_slots = slots;
    t->pointer_mask = size - 1;
  }
  uint32_t h = key_hash(text, length) & t->pointer_mask;
  for (; t->pointer_slots[h]; h = (h + 1) & t->pointer_mask) {
    const pointer_entry *e = &t->pointers[t->pointer_slots[h] - 1];
    if (e->length == length && memcmp(e->text, text, length) == 0) return t->pointer_slots[h] - 1;
  }
  pointer_entry *p = grow_list(t, t->pointers, t->pointer_count, &t->pointer_capacity, sizeof *p);
  if (!p) return UINT32_MAX;
  t->pointers = p;
  p[t->pointer_count] = (pointer_entry){.text = text, .length = length};
  t->pointer_slots[h] = ++t->pointer_count;
  return t->pointer_count - 1;
}

/* One segment of a pointer into the scratch buffer, "~1" then "~0" undone
 * (RFC 6901; a single pass is the same thing).  No percent-decoding. */
static bool unescape_segment(translator *t, const char *s, size_t n) {
  t->scratch.length = 0;
  if (!buffer_reserve(&t->scratch, n + 1)) return false;
  char *o = (char *)t->scratch.data;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1'))
      *o++ = s[++i] == '1' ? '/' : '~';
    else
      *o++ = s[i];
  }
  t->scratch.length = (size_t)(o - (char *)t->scratch.data);
  return true;
}

static uint32_t object_slot(const translator *t, const json_value *object) {
  uint32_t i = key_hash((const char *)&object, sizeof object) & t->object_index_mask;
  while (t->object_indexes[i].object && t->object_indexes[i].object != object)
    i = (i + 1) & t->object_index_mask;
  return i;
}

static object_index *index_of(translator *t, const json_value *object) {
  if (t->object_index_count >= t->object_index_mask / 2) {
    uint32_t size = t->object_index_mask ? 2 * (t->object_index_mask + 1) : 16;
    object_index *old = t->object_indexes, *grown = mem_calloc(t->allocator, size, sizeof *grown);
    if (!grown) return translator_nomem(t);
    uint32_t old_size = t->object_index_mask ? t->object_index_mask + 1 : 0;
    t->object_indexes = grown;
    t->object_index_mask = size - 1;
    for (uint32_t i = 0; i < old_size; i++)
      if (old[i].object) grown[object_slot(t, old[i].object)] = old[i];
    mem_free(t->allocator, old);
  }
  object_index *x = &t->object_indexes[object_slot(t, object)];
  if (x->object) return x;
  if (!sorted_properties(t, object, &x->sorted, &x->count)) return NULL;
  x->object = object;
  t->object_index_count++;
  return x;
}

/* The member of `object` named by the scratch buffer; false when out of
 * memory, *value NULL when there is none. */
static bool pointer_member(translator *t, const json_value *object, const json_value **value) {
  const char *key = (const char *)t->scratch.data;
  uint32_t n = (uint32_t)t->scratch.length;
  if (object->length < INDEXED_MEMBERS) {
    *value = json_get(object, key, n);
    return true;
  }
  const object_index *x = index_of(t, object);
  const property *p = x ? find_property(x->sorted, x->count, key, n) : NULL;
  *value = p ? p->value : NULL;
  return x != NULL;
}

/* The node a same-document pointer names (docs/format.md#references). */
const json_value *resolve_pointer(translator *t, const json_value *site, const char *p, uint32_t n) {
  char q[NODE_QUOTE_MAX];
  if (n == 0 || (n == 1 && p[0] == '#')) return t->document;
  if (n < 2 || p[0] != '#' || p[1] != '/')
    return refuse_node(t, site, "Only same-document references are supported, not $ref %s",
                  quote(q, p, n));
  const json_value *at = t->document;
  for (size_t i = 2;;) {
    size_t end = i;
    while (end < n && p[end] != '/') end++;
    if (!unescape_segment(t, p + i, end - i)) return translator_nomem(t);
    if (at->type != JSON_OBJECT)
      return refuse_node(t, site, "$ref %s passes through %s, not an object", quote(q, p, n),
                    describe_node(at));
    if (!pointer_member(t, at, &at)) return NULL;
    if (!at) return refuse_node(t, site, "$ref %s does not resolve", quote(q, p, n));
    if (end == n) return at;
    i = end + 1;
  }
}

/* A pointer expanded before: its shape, charged again at its full size. */
static shape *reuse(translator *t, const json_value *site, const pointer_entry *e) {
  if (!charge(t, site, e->units)) return NULL;
  uint32_t level = t->depth + e->height;
  if (level > SCHEMA_MAX_DEPTH) return too_deep(t, site);
  if (level > t->reach) t->reach = level;
  return e->shape;
}

/* A $ref back to a pointer being expanded reserves the next definition;
 * the pointer's expansion will fill it (docs/format.md#recursive-schemas). */
static shape *back_edge(translator *t, const json_value *site, uint32_t id) {
  shape *ref = new_shape(t, site, SHAPE_REF);
  if (!ref) return NULL;
  shape **defs = grow_list(t, t->defs, t->def_count, &t->def_capacity, sizeof *defs);
  if (!defs) return translator_nomem(t);
  t->defs = defs;
  ref->u.ref.index = t->def_count;
  defs[t->def_count++] = NULL;
  pointer_entry *e = &t->pointers[id];
  e->shape = ref;
  e->units = e->height = 1;
  return ref;
}

/* Every $ref, and the root as "#", by the exact pointer text
 * (docs/format.md#recursive-schemas). */
static shape *expand(translator *t, const json_value *site, const char *text, uint32_t length) {
  uint32_t id = pointer_index(t, text, length);
  if (id == UINT32_MAX) return translator_nomem(t);
  if (t->pointers[id].shape) return reuse(t, site, &t->pointers[id]);
  if (t->pointers[id].expanding) return back_edge(t, site, id);
  const json_value *target = resolve_pointer(t, site, text, length);
  if (!target) return NULL;
  uint64_t units = t->units;
  uint32_t reach = t->reach;
  t->pointers[id].expanding = true;
  t->reach = t->depth;
  shape *sh = translate_node(t, target);
  uint32_t height = t->reach - t->depth;
  if (t->reach < reach) t->reach = reach;
  pointer_entry *e = &t->pointers[id]; /* the table may have moved */
  e->expanding = false;
  if (!sh) return NULL;
  if (e->shape) { /* a back edge came here: this is a definition */
    t->defs[e->shape->u.ref.index] = sh;
    return e->shape;
  }
  e->shape = sh;
  e->height = height;
  e->units = t->units - units;
  return sh;
}

/* ---- x-shorn ------------------------------------------------------------- */

typedef enum extension {
  EXT_NONE, EXT_BIGINT, EXT_BYTES, EXT_FLOAT32, EXT_SET, EXT_MAP, EXT_STRING
} extension;

static const struct {
  const char *name, *type;
} extensions[] = {
    [EXT_BIGINT] = {"bigint", "string"},   [EXT_BYTES] = {"bytes", "string"},
    [EXT_FLOAT32] = {"float32", "number"}, [EXT_SET] = {"set", "array"},
    [EXT_MAP] = {"map", "array"},          [EXT_STRING] = {"string", "string"},
};

/* The node's "x-shorn", which must suit its "type" (NULL when absent). */
static bool read_extension(translator *t, const json_value *node, const json_value *type,
                           extension *out) {
  char q[NODE_QUOTE_MAX];
  const json_value *x = member(node, "x-shorn");
  *out = EXT_NONE;
  if (!x) return true;
  if (x->type != JSON_STRING)
    return refuse_node(t, node, "\"x-shorn\" must be a string, not %s", describe_node(x));
  for (extension e = EXT_BIGINT; e <= EXT_STRING; e++) {
    if (!is_string(x, extensions[e].name)) continue;
    if (!is_string(type, extensions[e].type))
      return refuse_node(t, node, "\"x-shorn\":\"%s\" needs \"type\":\"%s\"", extensions[e].name,
                    extensions[e].type);
    *out = e;
    return true;
  }
  return refuse_node(t, node,
                "Unknown \"x-shorn\" value %s; the values are bigint, bytes, float32, set, map and string",
                quote(q, x->u.string, x->length));
}

/* An x-shorn on a node decided before its "type" is read would be ignored
 * silently; refuse it instead. */
static bool extension_misplaced(translator *t, const json_value *node, const char *decider) {
  if (!member(node, "x-shorn")) return false;
  refuse_node(t, node,
         "\"x-shorn\" cannot sit beside %s, which decides the node; it needs a single \"type\"",
         decider);
  return true;
}

/* ---- arrays ---------------------------------------------------------------- */

/* minItems = maxItems, both numbers, fixes the count
 * (docs/format.md#array-schemas). */
static bool fixed_length(translator *t, const json_value *node, int64_t *length) {
  const json_value *min = member(node, "minItems"), *max = member(node, "maxItems");
  *length = -1;
  if (!min || !max || min->type != JSON_NUMBER || max->type != JSON_NUMBER) return true;
  double v = min->u.number;
  if (v != max->u.number) return true;
  if (!(v >= 0 && v <= SHORN_MAX_ELEMENTS && v == (double)(int64_t)v)) {
    char text[NUMBER_TEXT_MAX];
    number_format(v, text);
    return refuse_node(
        t, node,
        "Invalid fixed array length %s: minItems = maxItems must be a whole number from 0 "
        "to %d",
        text, SHORN_MAX_ELEMENTS);
  }
  *length = (int64_t)v;
  return true;
}

static shape *translate_tuple(translator *t, const json_value *node, const json_value *prefix,
                              const json_value *items) {
  shape **list = arena_array(t, prefix->length, sizeof *list);
  if (prefix->length && !list) return NULL;
  for (uint32_t i = 0; i < prefix->length; i++)
    if (!(list[i] = translate_node(t, &prefix->u.items[i]))) return NULL;
  shape *rest = NULL;
  if (items && items->type != JSON_FALSE && !(rest = translate_node(t, items))) return NULL;
  shape *sh = new_shape(t, node, SHAPE_TUPLE);
  if (!sh) return NULL;
  sh->u.tuple.items = list;
  sh->u.tuple.count = prefix->length;
  sh->u.tuple.rest = rest;
  return note_origin(t, sh, node) ? sh : NULL;
}

/* An array's element: "items", or any value when it is absent. */
static shape *element_of(translator *t, const json_value *node) {
  const json_value *items = member(node, "items");
  return items ? translate_node(t, items) : new_shape(t, node, SHAPE_ANY);
}

static shape *translate_array(translator *t, const json_value *node) {
  const json_value *prefix = member(node, "prefixItems");
  if (prefix && prefix->type == JSON_ARRAY)
    return translate_tuple(t, node, prefix, member(node, "items"));
  shape *element = element_of(t, node), *sh;
  int64_t length;
  if (!element || !fixed_length(t, node, &length) || !(sh = new_shape(t, node, SHAPE_ARRAY)))
    return NULL;
  sh->u.array.element = element;
  sh->u.array.length = length;
  return note_origin(t, sh, node) ? sh : NULL;
}

/* A set or map takes everything from "items"; prefixItems would be a tuple. */
static bool no_prefix_items(translator *t, const json_value *node, const char *what) {
  const json_value *prefix = member(node, "prefixItems");
  if (!prefix || prefix->type != JSON_ARRAY) return true;
  return refuse_node(t, node,
                "\"x-shorn\":\"%s\" takes its elements from \"items\", not \"prefixItems\"", what);
}

static shape *translate_set(translator *t, const json_value *node) {
  const json_value *unique = member(node, "uniqueItems");
  if (!unique || unique->type != JSON_TRUE)
    return refuse_node(t, node, "\"x-shorn\":\"set\" needs \"uniqueItems\":true");
  shape *element = no_prefix_items(t, node, "set") ? element_of(t, node) : NULL, *sh;
  if (!element || !(sh = new_shape(t, node, SHAPE_SET))) return NULL;
  sh->u.array.element = element;
  sh->u.array.length = -1;
  return note_origin(t, sh, node) ? sh : NULL;
}

static shape *translate_map(translator *t, const json_value *node) {
  const json_value *items = member(node, "items");
  if (!no_prefix_items(t, node, "map")) return NULL;
  if (!items) return refuse_node(t, node, "\"x-shorn\":\"map\" needs \"items\": the [key, value] tuple");
  shape *entry = translate_node(t, items), *sh;
  if (!entry) return NULL;
  if (entry->kind != SHAPE_TUPLE || entry->u.tuple.count != 2 || entry->u.tuple.rest)
    return refuse_node(t, items,
                  "\"x-shorn\":\"map\" needs \"items\" to be a tuple of two schemas, the key and "
                  "the value, with no rest");
  if (!(sh = new_shape(t, node, SHAPE_MAP))) return NULL;
  sh->u.map.key = entry->u.tuple.items[0];
  sh->u.map.value = entry->u.tuple.items[1];
  return note_origin(t, sh, node) ? sh : NULL;
}

/* ---- objects --------------------------------------------------------------- */

/* Every string in "required" must name a property
 * (docs/format.md#object-schemas). */
static bool mark_required(translator *t, const json_value *node, const property *p, field *fields,
                          uint32_t n) {
  char q[NODE_QUOTE_MAX];
  const json_value *required = member(node, "required");
  if (!required || required->type != JSON_ARRAY) return true;
  for (uint32_t i = 0; i < required->length; i++) {
    const json_value *key = &required->u.items[i];
    if (key->type != JSON_STRING) continue;
    const property *found = find_property(p, n, key->u.string, key->length);
    if (!found)
      return refuse_node(t, node, "Required property %s has no schema in \"properties\"",
                    quote(q, key->u.string, key->length));
    fields[found - p].optional = false;
  }
  return true;
}

/* Declaration order, for the encoder's guess at which field the next member
 * names (JSON usually lists them as the schema does): `p` is sorted by key,
 * and its keys point into the document, so their addresses rank them as
 * "properties" lists them. */
static int compare_by_address(const void *a, const void *b) {
  const json_value *x = (*(const property *const *)a)->key, *y = (*(const property *const *)b)->key;
  return (x > y) - (x < y);
}

static bool chain_declared_order(translator *t, const property *p, field *fields, uint32_t n,
                                 uint32_t *first) {
  *first = n;
  if (!n) return true;
  const property **order = mem_alloc(t->allocator, (size_t)n * sizeof *order);
  if (!order) return translator_nomem(t);
  for (uint32_t i = 0; i < n; i++) order[i] = &p[i];
  qsort(order, n, sizeof *order, compare_by_address);
  *first = (uint32_t)(order[0] - p);
  for (uint32_t i = 0; i < n; i++)
    fields[order[i] - p].declared_next = i + 1 < n ? (uint32_t)(order[i + 1] - p) : n;
  mem_free(t->allocator, order);
  return true;
}

static shape *build_object(translator *t, const json_value *node, const property *p, uint32_t n,
                           shape *extras, bool reject_unknown) {
  field *fields = arena_array(t, n, sizeof *fields);
  if (n && !fields) return NULL;
  for (uint32_t i = 0; i < n; i++)
    fields[i] = (field){.key = p[i].key->u.string,
                        .key_length = p[i].key->length,
                        .optional = true,
                        .default_value = member(p[i].value, "default")};
  uint32_t declared_first;
  if (!mark_required(t, node, p, fields, n) || !chain_declared_order(t, p, fields, n, &declared_first))
    return NULL;
  for (uint32_t i = 0; i < n; i++)
    if (!(fields[i].value = translate_node(t, p[i].value))) return NULL;
  shape *sh = new_shape(t, node, SHAPE_OBJECT);
  if (!sh) return NULL;
  sh->u.object.fields = fields;
  sh->u.object.declared_first = declared_first;
  sh->u.object.count = n;
  sh->u.object.reject_unknown = reject_unknown;
  sh->u.object.extras = extras;
  return sh;
}

/* docs/format.md#object-schemas: the extras first (definition numbering
 * depends on it, docs/format.md#recursive-schemas), then a
 * record when nothing is declared, else the fields in key order. */
static shape *translate_object(translator *t, const json_value *node) {
  const json_value *props = member(node, "properties"),
                   *additional = member(node, "additionalProperties");
  if (props && props->type != JSON_OBJECT) return not_a_schema(t, props);
  shape *extras = NULL;
  if (additional && additional->type != JSON_FALSE) {
    extras = additional->type == JSON_TRUE ? new_shape(t, additional, SHAPE_ANY)
                                           : translate_node(t, additional);
    if (!extras) return NULL;
  }
  property *p;
  uint32_t n;
  if (!sorted_properties(t, props, &p, &n)) return NULL;
  shape *sh;
  if (extras && n == 0) {
    if ((sh = new_shape(t, node, SHAPE_RECORD))) sh->u.record = extras;
  } else {
    sh = build_object(t, node, p, n, extras, additional == NULL);
  }
  mem_free(t->allocator, p);
  return sh;
}

/* ---- the decision list ----------------------------------------------------- */

static shape *translate_const(translator *t, const json_value *node, const json_value *value) {
  if (!is_scalar(value))
    return refuse_node(t, node, "A \"const\" must be a string, number, boolean or null");
  shape *sh = new_shape(t, node, SHAPE_LITERAL);
  return sh && scalar_of(t, value, "Literal", &sh->u.literal) ? sh : NULL;
}

static bool all_scalars(const json_value *list) {
  for (uint32_t i = 0; i < list->length; i++)
    if (!is_scalar(&list->u.items[i])) return false;
  return true;
}

/* Deduplicated, in canonical order (docs/format.md#enum-order). */
static shape *translate_enum(translator *t, const json_value *node, const json_value *list) {
  uint32_t n = list->length, kept = 0;
  if (n == 0) return refuse_node(t, node, "An empty \"enum\" admits no value");
  ranked *r = mem_alloc(t->allocator, (size_t)n * sizeof *r);
  if (!r) return translator_nomem(t);
  shape *sh = NULL;
  uint32_t i = 0;
  while (i < n && scalar_of(t, &list->u.items[i], "Enum member", &r[i].value)) i++;
  if (i == n) {
    comparison *compare = sort_canonically(r, n);
    for (i = 0; i < n; i++)
      if (!kept || compare(&r[kept - 1], &r[i]) != 0) r[kept++] = r[i];
    scalar *members = charge(t, node, kept) ? arena_array(t, kept, sizeof *members) : NULL;
    if (members && (sh = new_shape(t, node, SHAPE_ENUM))) {
      for (i = 0; i < kept; i++) members[i] = r[i].value;
      sh->u.enumeration.members = members;
      sh->u.enumeration.count = kept;
    }
  }
  mem_free(t->allocator, r);
  return sh;
}

static shape *translate_string(translator *t, const json_value *node, extension ext) {
  const json_value *format = member(node, "format");
  shape_kind kind = SHAPE_STRING;
  if (ext == EXT_BIGINT) {
    kind = SHAPE_BIGINT;
  } else if (ext == EXT_BYTES) {
    if (!is_string(member(node, "contentEncoding"), "base64"))
      return refuse_node(t, node, "\"x-shorn\":\"bytes\" needs \"contentEncoding\":\"base64\"");
    kind = SHAPE_BYTES;
  } else if (ext == EXT_STRING) {
    /* The library 0.4.0 writes a date-time as a plain string; this keeps its
     * bytes and fingerprint.  Anywhere else it would say nothing. */
    if (!is_string(format, "date-time"))
      return refuse_node(t, node, "\"x-shorn\":\"string\" needs \"format\":\"date-time\"");
  } else if (is_string(format, "uuid")) {
    kind = SHAPE_UUID;
  } else if (is_string(format, "date-time")) {
    kind = SHAPE_DATETIME;
  }
  return new_shape(t, node, kind);
}

/* Unsigned when a number bound keeps the value non-negative
 * (docs/format.md#signed-or-unsigned). */
static bool is_unsigned(const json_value *node) {
  const json_value *min = member(node, "minimum"), *above = member(node, "exclusiveMinimum");
  return (min && min->type == JSON_NUMBER && min->u.number >= 0) ||
         (above && above->type == JSON_NUMBER && above->u.number >= -1);
}

/* docs/format.md#decision-order with no "type": a combinator keyword is
 * refused, anything else is
 * the dynamic shape. */
static shape *translate_untyped(translator *t, const json_value *node) {
  if (member(node, "$ref")) return refuse_node(t, node, "\"$ref\" must be a string");
  if (member(node, "allOf")) return refuse_node(t, node, "\"allOf\" is not supported");
  if (member(node, "oneOf"))
    return refuse_node(t, node, "\"oneOf\" must be an array, and any \"anyOf\" beside it null");
  if (member(node, "not")) return refuse_node(t, node, "\"not\" is not supported");
  return new_shape(t, node, SHAPE_ANY);
}

/* The decision order's "type" rule, with x-shorn
 * (docs/format.md#decision-order). */
static shape *translate_type(translator *t, const json_value *node, const json_value *type) {
  char q[NODE_QUOTE_MAX];
  extension ext;
  if (!read_extension(t, node, type, &ext)) return NULL;
  if (!type) return translate_untyped(t, node);
  if (type->type != JSON_STRING)
    return refuse_node(t, node, "\"type\" must be a type name or an array of them, not %s",
                  describe_node(type));
  if (is_string(type, "string")) return translate_string(t, node, ext);
  if (is_string(type, "number"))
    return new_shape(t, node, ext == EXT_FLOAT32 ? SHAPE_FLOAT32 : SHAPE_FLOAT64);
  if (is_string(type, "integer"))
    return new_shape(t, node, is_unsigned(node) ? SHAPE_UINT : SHAPE_INT);
  if (is_string(type, "boolean")) return new_shape(t, node, SHAPE_BOOLEAN);
  if (is_string(type, "null")) return literal_null(t, node);
  if (is_string(type, "object")) return translate_object(t, node);
  if (is_string(type, "array"))
    return ext == EXT_SET   ? translate_set(t, node)
           : ext == EXT_MAP ? translate_map(t, node)
                            : translate_array(t, node);
  return refuse_node(t, node, "Unsupported JSON Schema type %s",
                quote(q, type->u.string, type->length));
}

/* The decision order's const, enum and type rules, with `type` standing for
 * the node's "type" (docs/format.md#decision-order). */
static shape *translate_typed(translator *t, const json_value *node, const json_value *type) {
  const json_value *value = member(node, "const");
  if (value)
    return extension_misplaced(t, node, "\"const\"") ? NULL : translate_const(t, node, value);
  const json_value *members = member(node, "enum");
  if (members && members->type == JSON_ARRAY && all_scalars(members))
    return extension_misplaced(t, node, "\"enum\"") ? NULL : translate_enum(t, node, members);
  return translate_type(t, node, type);
}

/* docs/format.md#decision-order: the first rule that applies decides. */
static shape *decide(translator *t, const json_value *node) {
  if (node->type != JSON_OBJECT) return not_a_schema(t, node);
  const json_value *ref = member(node, "$ref");
  if (ref && ref->type == JSON_STRING)
    return extension_misplaced(t, node, "\"$ref\"") ? NULL
                                                    : expand(t, node, ref->u.string, ref->length);
  const char *keyword = "anyOf", *decider = "\"anyOf\"";
  const json_value *list = member(node, keyword);
  if (!list || list->type == JSON_NULL)
    list = member(node, keyword = "oneOf"), decider = "\"oneOf\"";
  if (list && list->type == JSON_ARRAY)
    return extension_misplaced(t, node, decider) ? NULL : translate_any_of(t, node, keyword, list);
  const json_value *type = member(node, "type");
  if (type && type->type == JSON_ARRAY)
    return extension_misplaced(t, node, "a type array") ? NULL
                                                        : translate_type_array(t, node, type);
  return translate_typed(t, node, type);
}

/* ---- validation keywords -------------------------------------------------- */

static node_keywords *keyword_slot(const translator *t, const json_value *node) {
  uint32_t i = key_hash((const char *)&node, sizeof node) & t->keyword_mask;
  while (t->keywords[i].node && t->keywords[i].node != node) i = (i + 1) & t->keyword_mask;
  return &t->keywords[i];
}

/* An array's item named by a pointer's segment: digits, no leading zero. */
static const json_value *pointer_item(const json_value *array, const char *s, size_t n) {
  if (!n || n > 9 || (n > 1 && s[0] == '0')) return NULL;
  uint32_t index = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit(s[i])) return NULL;
    index = 10 * index + (uint32_t)(s[i] - '0');
  }
  return index < array->length ? &array->u.items[index] : NULL;
}

/* A $ref in a subschema no shape holds: a target, or NULL and the schema's
 * error as it was, the reference being one no check can follow. */
static const json_value *resolve_for_keywords(void *context, const json_value *site, const char *ref,
                                              uint32_t length) {
  translator *t = context;
  (void)site;
  if (length == 0 || (length == 1 && ref[0] == '#')) return t->document;
  if (length < 2 || ref[0] != '#' || ref[1] != '/') return NULL;
  /* The fragment percent-decoded (RFC 3986), then read as RFC 6901 reads
   * it, through arrays too. */
  char *pointer = mem_alloc(t->allocator, length);
  if (!pointer) return translator_nomem(t);
  uint32_t n = 0;
  for (uint32_t i = 1; i < length; i++) {
    int high = i + 2 < length && ref[i] == '%' ? hex_digit(ref[i + 1], true) : -1,
        low = high >= 0 ? hex_digit(ref[i + 2], true) : -1;
    if (low >= 0) {
      pointer[n++] = (char)(high << 4 | low);
      i += 2;
    } else {
      pointer[n++] = ref[i];
    }
  }
  const json_value *at = t->document;
  for (uint32_t i = 1; at && i <= n;) {
    uint32_t end = i;
    while (end < n && pointer[end] != '/') end++;
    if (!unescape_segment(t, pointer + i, end - i)) {
      at = translator_nomem(t);
      break;
    }
    const char *key = (const char *)t->scratch.data;
    size_t key_length = t->scratch.length;
    if (at->type == JSON_OBJECT) {
      at = json_get(at, key, key_length);
    } else if (at->type == JSON_ARRAY) {
      at = pointer_item(at, key, key_length);
    } else {
      at = NULL;
    }
    i = end + 1;
  }
  mem_free(t->allocator, pointer);
  return at;
}

/* The validated mode's refusal of a schema whose keyword no check stands
 * for, kept with the schema: the unchecked mode takes it. */
static bool note_uncheckable(translator *t) {
  validation_compiler *c = &t->compiler;
  if (!c->uncheckable || t->schema->uncheckable) return true;
  shorn_error *e = arena_alloc(&t->schema->arena, sizeof *e);
  if (!e) return translator_nomem(t);
  *e = (shorn_error){0};
  error_set(e, SHORN_ERROR_SCHEMA,
            "\"%s\" cannot be checked here: shorn_encode_unchecked takes this schema", c->uncheckable_keyword);
  e->where = SHORN_WHERE_PATH;
  locate(t, c->uncheckable, e);
  t->schema->uncheckable = e;
  return true;
}

static bool keywords_of(translator *t, const json_value *node, bool shapeless, const validation **out) {
  if (t->keyword_count >= t->keyword_mask / 2) {
    uint32_t old_size = t->keyword_mask ? t->keyword_mask + 1 : 0, size = old_size ? 2 * old_size : 64;
    node_keywords *old = t->keywords, *grown = mem_calloc(t->allocator, size, sizeof *grown);
    if (!grown) return translator_nomem(t);
    t->keywords = grown;
    t->keyword_mask = size - 1;
    for (uint32_t i = 0; i < old_size; i++)
      if (old[i].node) *keyword_slot(t, old[i].node) = old[i];
    mem_free(t->allocator, old);
  }
  node_keywords *slot = keyword_slot(t, node);
  if (!slot->node) {
    validation_compiler *c = &t->compiler;
    c->refused = NULL;
    shorn_code rc = validation_compile(c, node, shapeless, &slot->keywords);
    if (rc == SHORN_ERROR_SCHEMA) locate(t, c->refused, t->error);
    if (rc || !note_uncheckable(t)) return false;
    slot->node = node;
    t->keyword_count++;
  }
  *out = slot->keywords;
  return true;
}

/* Give the shape translated for `node` the node's validation keywords.  A
 * shape made for another node (a $ref's target, or a union's one other
 * branch) serves that node's other uses too, so the node gets a copy of
 * it: the same wire shape, its keywords joined to the node's. */
static shape *with_keywords(translator *t, const json_value *node, shape *sh) {
  const validation *own;
  if (!keywords_of(t, node, sh->kind == SHAPE_ANY, &own)) return NULL;
  if (!own) return sh;
  const json_value *ref = member(node, "$ref");
  const validation *joined = validation_join(&t->schema->aside, sh->keywords, own);
  if (!joined) return translator_nomem(t);
  if (!(ref && ref->type == JSON_STRING) && sh != t->last_result) {
    sh->keywords = joined;
    return sh;
  }
  shape *copy = arena_alloc(&t->schema->arena, sizeof *copy);
  if (!copy) return translator_nomem(t);
  *copy = *sh;
  copy->keywords = joined;
  return note_origin(t, copy, origin_of(t, sh)) ? copy : NULL;
}

static bool enter(translator *t, const json_value *node) {
  if (t->depth == SCHEMA_MAX_DEPTH) return too_deep(t, node);
  if (++t->depth > t->reach) t->reach = t->depth;
  return true;
}

static shape *translate_node(translator *t, const json_value *node) {
  if (!enter(t, node)) return NULL;
  shape *sh = decide(t, node);
  if (sh) sh = with_keywords(t, node, sh);
  t->depth--;
  t->last_result = sh;
  return sh;
}

shape *translate_branch(translator *t, const union_branch *b) {
  if (!b->typed) return translate_node(t, b->node);
  if (!enter(t, b->node)) return NULL;
  shape *sh = translate_typed(t, b->node, b->type);
  t->depth--;
  return sh;
}

/* ---- the document ---------------------------------------------------------- */

static shorn_code translate_document(translator *t) {
  shorn_schema *s = t->schema;
  if (!(s->root = expand(t, t->document, "#", 1))) return t->error->code;
  if (t->def_count) {
    if (!(s->defs = arena_array(t, t->def_count, sizeof *s->defs))) return t->error->code;
    memcpy(s->defs, t->defs, t->def_count * sizeof *s->defs);
    s->def_count = t->def_count;
    shorn_code rc = shape_fold(s, t->error);
    if (rc == SHORN_ERROR_SCHEMA) locate(t, t->document, t->error);
    if (rc != SHORN_OK) return rc;
  }
  const shape *refused = NULL;
  shorn_code rc = shape_finish(s, &refused, t->error);
  if (rc == SHORN_ERROR_SCHEMA) locate(t, origin_of(t, refused), t->error);
  return rc;
}

shorn_code schema_translate(shorn_schema *s, const json_value *document, shorn_error *error) {
  translator t = {.schema = s,
                  .allocator = s->allocator,
                  .document = document,
                  .error = error,
                  .scratch = {.allocator = s->allocator}};
  t.compiler = (validation_compiler){
      .schema = s, .error = error, .resolve = resolve_for_keywords, .resolve_context = &t};
  shorn_code rc = translate_document(&t);
  mem_free(t.allocator, t.pointers);
  mem_free(t.allocator, t.pointer_slots);
  mem_free(t.allocator, t.defs);
  mem_free(t.allocator, t.origins);
  for (uint32_t i = 0; t.object_index_mask && i <= t.object_index_mask; i++)
    mem_free(t.allocator, t.object_indexes[i].sorted);
  mem_free(t.allocator, t.object_indexes);
  mem_free(t.allocator, t.keywords);
  validation_compiler_release(&t.compiler);
  shorn_buffer_free(&t.scratch);
  return rc;
}

/* A small schema's arenas take each a block sized from its text, as yyjson
 * sizes a document's from its length, so that it holds one block, not the
 * doubling's four or five, the last half empty.  Each holds some times the
 * text's length (the bench's schemas: 3 to 4.5 bytes a byte of text in the
 * shapes, 4.6 to 6.1 aside, the text's copy included), in halves of a
 * byte.  A large schema's grow as any arena does, so that an estimate
 * never adds to what a large input holds at its peak. */
#define SCHEMA_ASIDE_HALVES_PER_BYTE 13
#define SCHEMA_SHAPES_HALVES_PER_BYTE 9
#define SCHEMA_RESERVED_TEXT_MAX 16384

static bool schema_reserve(shorn_schema *s, size_t length) {
  if (length > SCHEMA_RESERVED_TEXT_MAX) return true;
  return arena_reserve(&s->aside, TEXT_PAD + SCHEMA_ASIDE_HALVES_PER_BYTE * length / 2) &&
         arena_reserve(&s->arena, SCHEMA_SHAPES_HALVES_PER_BYTE * length / 2);
}

shorn_code schema_compile_sharing(const char *text, size_t length, const shorn_allocator *allocator,
                                  pattern_engine *patterns, shorn_schema **out, shorn_error *error) {
  *out = NULL;
  shorn_schema *s = mem_calloc(allocator, 1, sizeof *s);
  if (!s) return error_nomem(error);
  s->allocator = s->arena.allocator = s->aside.allocator = allocator;
  s->patterns = patterns;
  s->patterns_shared = patterns != NULL;
  json_value *document = NULL;
  char *copy = schema_reserve(s, length) ? arena_strdup(&s->aside, text, length) : NULL;
  shorn_code rc = copy ? json_parse_as(&s->aside, copy, length, &document, error, "schema is not JSON")
                       : error_nomem(error);
  if (rc == SHORN_OK) rc = schema_translate(s, document, error);
  if (rc != SHORN_OK) {
    shorn_schema_free(s);
    return rc;
  }
  *out = s;
  return SHORN_OK;
}

shorn_code shorn_schema_compile(const char *text, size_t length, const shorn_allocator *allocator,
                                shorn_schema **out, shorn_error *error) {
  return schema_compile_sharing(text, length, allocator, NULL, out, error);
}

pattern_engine *schema_patterns_new(const shorn_allocator *allocator, const size_t *live_bytes) {
  pattern_engine *e = pattern_engine_new(allocator);
  if (e) pattern_engine_measure(e, live_bytes);
  return e;
}

void schema_patterns_free(pattern_engine *patterns) { pattern_engine_free(patterns); }

uint32_t schema_patterns_count(const pattern_engine *patterns) { return pattern_engine_count(patterns); }

size_t schema_pattern_bytes(const shorn_schema *s) { return s->pattern_bytes; }

void shorn_schema_free(shorn_schema *schema) {
  if (!schema) return;
  if (schema->patterns_shared)
    for (const pattern_use *u = schema->pattern_uses; u; u = u->next) pattern_release(u->pattern);
  else
    pattern_engine_free(schema->patterns);
  arena_free(&schema->arena);
  arena_free(&schema->aside);
  mem_free(schema->allocator, schema);
}
