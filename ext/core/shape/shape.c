/*
 * shape.c — wire shapes after translation: their JSON text, which the fold
 * compares and the signature is; the fold of a recursive document; minimum
 * widths, slots and the build checks; the lookup tables encode.c and
 * decode.c read; the fingerprints.  docs/format.md describes each, under
 * #signature, #recursive-schemas, #minimum-widths, #build-refusals and
 * #fingerprint.
 *
 * A shape may be reached from several places (schema.c reuses the shape of
 * a $ref wherever the pointer recurs), so every walk here is over the
 * expansion, which schema.c keeps within bounded size and height, and
 * whatever a walk does to a shared shape comes out the same from each place
 * that reaches it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shape.h"

#include "core/text/error.h"
#include "core/numbers/number.h"
#include "core/text/text.h"

/* The format version the fingerprint seed mixes in
 * (docs/format.md#fingerprint). */
#define WIRE_FORMAT_VERSION 1

/* The longest text of shapes one compile may write: the signature, or all
 * of a recursive document's texts at once while it is folded. */
#define SHAPE_TEXT_MAX ((size_t)64 << 20)

/* ---- JSON text -------------------------------------------------------------- */

/* Where one shape's text lies in a writer's output.  While folding, every
 * shape written gets one, in the order written, which is the order
 * child_slot lists shapes in. */
typedef struct span {
  size_t start, end;
  uint64_t hash; /* of the text; see span_hash */
  uint32_t next; /* the span after this shape's subtree */
} span;

typedef struct text_writer {
  shorn_buffer *out;     /* NULL: the text is measured, not written */
  shorn_buffer *scratch; /* where put_string escapes a string */
  size_t length;         /* of the text so far, written or measured */
  bool with_reject_unknown; /* the member the fold compares and the signature leaves out */
  bool too_large;
  span *spans; /* NULL unless folding; grown with out's allocator */
  uint32_t span_count;
  size_t span_capacity;
  uint64_t prefix_hash; /* polynomial hash of out[0, hashed) */
  size_t hashed;
} text_writer;

#define HASH_BASE 0x100000001B3ull /* any odd multiplier; this is FNV's */

static bool shape_write_shape(text_writer *w, const shape *sh);

static bool shape_put(text_writer *w, const char *s, size_t n) {
  if (w->out && !buffer_append(w->out, s, n)) return false;
  w->length += n;
  w->too_large = w->length > SHAPE_TEXT_MAX;
  return !w->too_large;
}

#define PUT(w, literal) shape_put(w, literal, sizeof literal - 1)

/* Escaped aside, so a measurement counts exactly what a write appends, and
 * a write never reserves past the room measured for it. */
static bool shape_put_json_string(text_writer *w, const char *s, size_t n) {
  w->scratch->length = 0;
  return buffer_json_string(w->scratch, s, n) &&
         shape_put(w, (const char *)w->scratch->data, w->scratch->length);
}

static bool shape_put_count(text_writer *w, uint64_t v) {
  char text[24];
  return shape_put(w, text, (size_t)snprintf(text, sizeof text, "%llu", (unsigned long long)v));
}

static bool shape_put_scalars(text_writer *w, const scalar *list, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if ((i && !PUT(w, ",")) || !shape_put(w, list[i].json, list[i].json_length)) return false;
  return true;
}

static bool shape_put_shapes(text_writer *w, shape *const *list, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if ((i && !PUT(w, ",")) || !shape_write_shape(w, list[i])) return false;
  return true;
}

/* A name, quoted: it needs no escape. */
static bool shape_put_name(text_writer *w, const char *name) {
  return PUT(w, "\"") && shape_put(w, name, strlen(name)) && PUT(w, "\"");
}

/* `{"name":S}`, for a shape of one child. */
static bool shape_write_wrapped(text_writer *w, const shape *sh, const shape *inner) {
  return PUT(w, "{") && shape_put_name(w, shape_wires[sh->kind].name) && PUT(w, ":") && shape_write_shape(w, inner) && PUT(w, "}");
}

static bool shape_write_array(text_writer *w, const shape *sh) {
  if (!PUT(w, "{\"array\":") || !shape_write_shape(w, sh->u.array.element)) return false;
  if (sh->u.array.length >= 0 &&
      !(PUT(w, ",\"length\":") && shape_put_count(w, (uint64_t)sh->u.array.length)))
    return false;
  return PUT(w, "}");
}

static bool shape_write_tuple(text_writer *w, const shape *sh) {
  if (!PUT(w, "{\"tuple\":[") || !shape_put_shapes(w, sh->u.tuple.items, sh->u.tuple.count) ||
      !PUT(w, "]"))
    return false;
  if (sh->u.tuple.rest && !(PUT(w, ",\"rest\":") && shape_write_shape(w, sh->u.tuple.rest))) return false;
  return PUT(w, "}");
}

static bool shape_write_field(text_writer *w, const field *f) {
  return PUT(w, "{\"key\":") && shape_put_json_string(w, f->key, f->key_length) &&
         (f->optional ? PUT(w, ",\"optional\":true,\"value\":")
                      : PUT(w, ",\"optional\":false,\"value\":")) &&
         shape_write_shape(w, f->value) && PUT(w, "}");
}

static bool shape_write_object(text_writer *w, const shape *sh) {
  if (!PUT(w, "{\"object\":[")) return false;
  for (uint32_t i = 0; i < sh->u.object.count; i++)
    if ((i && !PUT(w, ",")) || !shape_write_field(w, &sh->u.object.fields[i])) return false;
  if (!PUT(w, "]")) return false;
  /* The reference's key order: object, rejectUnknown, extras. */
  if (w->with_reject_unknown && !(sh->u.object.reject_unknown ? PUT(w, ",\"rejectUnknown\":true")
                                                              : PUT(w, ",\"rejectUnknown\":false")))
    return false;
  if (sh->u.object.extras && !(PUT(w, ",\"extras\":") && shape_write_shape(w, sh->u.object.extras)))
    return false;
  return PUT(w, "}");
}

static bool shape_write_union(text_writer *w, const shape *sh) {
  if (sh->u.choice.on) {
    if (!PUT(w, "{\"on\":") || !shape_put_json_string(w, sh->u.choice.on, sh->u.choice.on_length) ||
        !PUT(w, ",\"cases\":[") || !shape_put_scalars(w, sh->u.choice.cases, sh->u.choice.count))
      return false;
  } else {
    if (!PUT(w, "{\"types\":[")) return false;
    for (uint32_t i = 0; i < sh->u.choice.count; i++) {
      if ((i && !PUT(w, ",")) || !shape_put_name(w, json_kind_names[sh->u.choice.types[i]])) return false;
    }
  }
  return PUT(w, "],\"union\":[") && shape_put_shapes(w, sh->u.choice.branches, sh->u.choice.count) &&
         PUT(w, "]}");
}

static bool shape_write_body(text_writer *w, const shape *sh) {
  switch (sh->kind) {
    case SHAPE_LITERAL:
      return PUT(w, "{\"literal\":") && shape_put_scalars(w, &sh->u.literal, 1) && PUT(w, "}");
    case SHAPE_ENUM:
      return PUT(w, "{\"enum\":[") &&
             shape_put_scalars(w, sh->u.enumeration.members, sh->u.enumeration.count) && PUT(w, "]}");
    case SHAPE_ARRAY: return shape_write_array(w, sh);
    case SHAPE_SET: return shape_write_wrapped(w, sh, sh->u.array.element);
    case SHAPE_MAP:
      return PUT(w, "{\"map\":[") && shape_write_shape(w, sh->u.map.key) && PUT(w, ",") &&
             shape_write_shape(w, sh->u.map.value) && PUT(w, "]}");
    case SHAPE_TUPLE: return shape_write_tuple(w, sh);
    case SHAPE_OBJECT: return shape_write_object(w, sh);
    case SHAPE_RECORD: return shape_write_wrapped(w, sh, sh->u.record);
    case SHAPE_NULLABLE: return shape_write_wrapped(w, sh, sh->u.inner);
    case SHAPE_UNION: return shape_write_union(w, sh);
    case SHAPE_REF: return PUT(w, "{\"ref\":") && shape_put_count(w, sh->u.ref.index) && PUT(w, "}");
    default: return shape_put_name(w, shape_wires[sh->kind].name);
  }
}

/* The polynomial hash of everything written so far. */
static uint64_t hash_so_far(text_writer *w) {
  for (; w->hashed < w->out->length; w->hashed++)
    w->prefix_hash = w->prefix_hash * HASH_BASE + w->out->data[w->hashed];
  return w->prefix_hash;
}

static uint64_t power_of_base(size_t exponent) {
  uint64_t result = 1, base = HASH_BASE;
  for (; exponent; exponent >>= 1, base *= base)
    if (exponent & 1) result *= base;
  return result;
}

static bool shape_write_shape(text_writer *w, const shape *sh) {
  if (!w->spans) return shape_write_body(w, sh);
  span *spans = w->spans;
  if (w->span_count == w->span_capacity) {
    spans = array_grow(w->out->allocator, w->spans, &w->span_capacity, (size_t)w->span_count + 1,
                       sizeof *spans, NULL);
    if (!spans) return false;
    w->spans = spans;
  }
  uint32_t i = w->span_count++;
  spans[i].start = w->out->length;
  spans[i].hash = hash_so_far(w);
  if (!shape_write_body(w, sh)) return false;
  span *s = &w->spans[i];
  s->end = w->out->length;
  /* The text's hash from the two prefix hashes around it. */
  s->hash = hash_so_far(w) - s->hash * power_of_base(s->end - s->start);
  s->next = w->span_count;
  return true;
}

static shorn_code shape_too_large(shorn_error *error) {
  return error_set(error, SHORN_ERROR_SCHEMA,
                   "The schema is too large: the text of its shapes passes %u MiB",
                   (unsigned)(SHAPE_TEXT_MAX >> 20));
}

/* Measure what `write` would write into `b` (empty), then make room for it:
 * a text too large is refused before memory is spent on it, where a few
 * shared $refs with long keys expand to gigabytes. */
static shorn_code shape_reserve_text(shorn_buffer *b, shorn_buffer *scratch, bool with_reject_unknown,
                               bool (*write)(text_writer *, const shorn_schema *),
                               const shorn_schema *s, shorn_error *error) {
  text_writer measure = {.scratch = scratch, .with_reject_unknown = with_reject_unknown};
  if (!write(&measure, s)) return measure.too_large ? shape_too_large(error) : error_nomem(error);
  return buffer_reserve(b, measure.length) ? SHORN_OK : error_nomem(error);
}

/* ---- walking ---------------------------------------------------------------- */

/* The i-th shape directly inside `sh`, in the order its text lists them, or
 * NULL past the last. */
static shape **child_slot(shape *sh, uint32_t i) {
  switch (sh->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET: return i == 0 ? &sh->u.array.element : NULL;
    case SHAPE_MAP: return i == 0 ? &sh->u.map.key : i == 1 ? &sh->u.map.value : NULL;
    case SHAPE_TUPLE:
      if (i < sh->u.tuple.count) return &sh->u.tuple.items[i];
      return i == sh->u.tuple.count && sh->u.tuple.rest ? &sh->u.tuple.rest : NULL;
    case SHAPE_OBJECT:
      if (i < sh->u.object.count) return &sh->u.object.fields[i].value;
      return i == sh->u.object.count && sh->u.object.extras ? &sh->u.object.extras : NULL;
    case SHAPE_RECORD: return i == 0 ? &sh->u.record : NULL;
    case SHAPE_NULLABLE: return i == 0 ? &sh->u.inner : NULL;
    case SHAPE_UNION: return i < sh->u.choice.count ? &sh->u.choice.branches[i] : NULL;
    default: return NULL;
  }
}

bool shape_admits_null(const shape *sh, const bool *definitions) {
  switch (sh->kind) {
    case SHAPE_ANY:
    case SHAPE_NULLABLE: return true;
    case SHAPE_LITERAL: return sh->u.literal.type == JSON_NULL;
    case SHAPE_ENUM:
      for (uint32_t i = 0; i < sh->u.enumeration.count; i++)
        if (sh->u.enumeration.members[i].type == JSON_NULL) return true;
      return false;
    case SHAPE_UNION:
      for (uint32_t i = 0; i < sh->u.choice.count; i++)
        if (shape_admits_null(sh->u.choice.branches[i], definitions)) return true;
      return false;
    case SHAPE_REF: return definitions && definitions[sh->u.ref.index];
    default: return false;
  }
}

/* ---- which definitions admit null ------------------------------------------ */

/* `to` admits null once `from` does: a ref to `from` lies on to's null
 * spine (its top, or union branches down from it). */
typedef struct null_edge {
  uint32_t from, to;
} null_edge;

typedef struct edge_list {
  null_edge *items;
  uint32_t count;
  size_t capacity;
  const shorn_allocator *allocator; /* the schema's */
} edge_list;

static bool collect_spine(const shape *sh, uint32_t to, edge_list *edges) {
  if (sh->kind == SHAPE_UNION) {
    for (uint32_t i = 0; i < sh->u.choice.count; i++)
      if (!collect_spine(sh->u.choice.branches[i], to, edges)) return false;
  } else if (sh->kind == SHAPE_REF) {
    if (edges->count == edges->capacity) {
      null_edge *grown = array_grow(edges->allocator, edges->items, &edges->capacity,
                                    (size_t)edges->count + 1, sizeof *grown, NULL);
      if (!grown) return false;
      edges->items = grown;
    }
    edges->items[edges->count++] = (null_edge){sh->u.ref.index, to};
  }
  return true;
}

static int compare_edges(const void *a, const void *b) {
  const null_edge *x = a, *y = b;
  return (x->from > y->from) - (x->from < y->from);
}

/* Propagate along the edges, sorted by `from`, from the definitions that
 * admit null on their own.  Each definition turns true once, so this is
 * linear where re-evaluating every definition until nothing changes (as
 * docs/format.md#recursive-schemas describes it) can take one pass per
 * definition. */
static bool propagate_null(bool *admits, uint32_t n, const edge_list *edges) {
  const shorn_allocator *a = edges->allocator;
  uint32_t *queue = mem_alloc(a, (size_t)n * sizeof *queue),
           *first = mem_calloc(a, (size_t)n + 1, sizeof *first);
  bool ok = queue && first;
  uint32_t head = 0, tail = 0;
  for (uint32_t i = 0; ok && i < edges->count; i++) first[edges->items[i].from + 1]++;
  for (uint32_t d = 0; ok && d < n; d++) {
    first[d + 1] += first[d];
    if (admits[d]) queue[tail++] = d;
  }
  while (ok && head < tail) {
    uint32_t d = queue[head++];
    for (uint32_t e = first[d]; e < first[d + 1]; e++) {
      uint32_t to = edges->items[e].to;
      if (!admits[to]) admits[to] = true, queue[tail++] = to;
    }
  }
  mem_free(a, queue);
  mem_free(a, first);
  return ok;
}

/* The fold's null step (docs/format.md#recursive-schemas): the least fixed
 * point of "admits null" over the definitions.  NULL when out of memory. */
static bool *definitions_admitting_null(const shorn_schema *s) {
  bool *admits = mem_calloc(s->allocator, s->def_count, sizeof *admits);
  edge_list edges = {.allocator = s->allocator};
  bool ok = admits != NULL;
  for (uint32_t d = 0; ok && d < s->def_count; d++) {
    admits[d] = shape_admits_null(s->defs[d], NULL);
    if (!admits[d]) ok = collect_spine(s->defs[d], d, &edges);
  }
  if (ok && edges.count) qsort(edges.items, edges.count, sizeof *edges.items, compare_edges);
  ok = ok && propagate_null(admits, s->def_count, &edges);
  mem_free(s->allocator, edges.items);
  if (ok) return admits;
  mem_free(s->allocator, admits);
  return NULL;
}

/* ---- the fold (docs/format.md#recursive-schemas) ----------------------------- */

typedef struct folder {
  shorn_schema *schema;
  shorn_buffer text;
  text_writer writer;
  uint32_t *tops;    /* the span of the root (0) and of each definition (1 + d) */
  uint32_t *by_text; /* open addressing over definition texts: d + 1, 0 empty */
  uint32_t mask;
  shape **refs; /* {ref:d}, made once each */
} folder;

static const span *definition_span(const folder *f, uint32_t d) {
  return &f->writer.spans[f->tops[1 + d]];
}

static bool shape_same_text(const folder *f, const span *a, const span *b) {
  return a->hash == b->hash && a->end - a->start == b->end - b->start &&
         memcmp(f->text.data + a->start, f->text.data + b->start, a->end - a->start) == 0;
}

/* The first definition whose (unfolded) text is the text of `s`, or -1. */
static int64_t definition_with_text(const folder *f, const span *s) {
  for (uint32_t i = (uint32_t)s->hash & f->mask; f->by_text[i]; i = (i + 1) & f->mask)
    if (shape_same_text(f, definition_span(f, f->by_text[i] - 1), s)) return f->by_text[i] - 1;
  return -1;
}

static bool index_definitions(folder *f) {
  uint32_t n = f->schema->def_count, size = 16;
  while (size < 2 * n) size *= 2;
  if (!(f->by_text = mem_calloc(f->schema->allocator, size, sizeof *f->by_text))) return false;
  f->mask = size - 1;
  for (uint32_t d = 0; d < n; d++) {
    const span *s = definition_span(f, d);
    uint32_t i = (uint32_t)s->hash & f->mask;
    for (; f->by_text[i]; i = (i + 1) & f->mask)
      if (shape_same_text(f, definition_span(f, f->by_text[i] - 1), s)) break;
    if (!f->by_text[i]) f->by_text[i] = d + 1; /* a repeated text keeps its first definition */
  }
  return true;
}

static shape *ref_to(folder *f, uint32_t d) {
  if (f->refs[d]) return f->refs[d];
  shape *ref = arena_alloc(&f->schema->arena, sizeof *ref);
  if (!ref) return NULL;
  memset(ref, 0, sizeof *ref);
  ref->kind = SHAPE_REF;
  ref->u.ref.index = d;
  return f->refs[d] = ref;
}

/* Replace, top down, every shape below `sh` whose text is a definition's.
 * The spans are those of the text written before any fold, so a shape
 * shared with a tree folded earlier is judged by its original text too. */
static bool fold_below(folder *f, shape *sh, uint32_t at) {
  shape **slot;
  uint32_t child = at + 1;
  for (uint32_t i = 0; (slot = child_slot(sh, i)); i++) {
    const span *s = &f->writer.spans[child];
    int64_t d = definition_with_text(f, s);
    if (d >= 0) {
      if (!(*slot = ref_to(f, (uint32_t)d))) return false;
    } else if (!fold_below(f, *slot, child)) {
      return false;
    }
    child = s->next;
  }
  return true;
}

/* The texts the fold compares, one after another: the root's, then each
 * definition's. */
static bool shape_write_texts(text_writer *w, const shorn_schema *s) {
  if (!shape_write_shape(w, s->root)) return false;
  for (uint32_t d = 0; d < s->def_count; d++)
    if (!shape_write_shape(w, s->defs[d])) return false;
  return true;
}

/* The root and inner folds (docs/format.md#recursive-schemas): every text
 * first, then the folds. */
static bool fold_all(folder *f) {
  shorn_schema *s = f->schema;
  text_writer *w = &f->writer;
  if (!shape_write_texts(w, s)) return false;
  f->tops[0] = 0;
  for (uint32_t t = 0; t < s->def_count; t++) f->tops[t + 1] = w->spans[f->tops[t]].next;
  if (!index_definitions(f)) return false;
  int64_t d = definition_with_text(f, &w->spans[f->tops[0]]);
  if (d >= 0) {
    if (!(s->root = ref_to(f, (uint32_t)d))) return false;
  } else if (!fold_below(f, s->root, f->tops[0])) {
    return false;
  }
  for (uint32_t i = 0; i < s->def_count; i++)
    if (!fold_below(f, s->defs[i], f->tops[1 + i])) return false;
  return true;
}

/* The fold's markers-dropped step (docs/format.md#recursive-schemas): a
 * nullable directly over a ref to a definition that admits null is the ref
 * alone. */
static void drop_markers(shape **slot, const bool *admits) {
  shape *sh = *slot, **child;
  if (sh->kind == SHAPE_NULLABLE && sh->u.inner->kind == SHAPE_REF &&
      admits[sh->u.inner->u.ref.index]) {
    *slot = sh->u.inner;
    return;
  }
  for (uint32_t i = 0; (child = child_slot(sh, i)); i++) drop_markers(child, admits);
}

shorn_code shape_fold(shorn_schema *s, shorn_error *error) {
  const shorn_allocator *a = s->allocator;
  folder f = {.schema = s, .text = {.allocator = a}};
  shorn_buffer scratch = {.allocator = a};
  shorn_code rc = shape_reserve_text(&f.text, &scratch, true, shape_write_texts, s, error);
  f.writer = (text_writer){
      .out = &f.text, .scratch = &scratch, .with_reject_unknown = true, .span_capacity = 64};
  f.writer.spans = mem_alloc(a, 64 * sizeof *f.writer.spans);
  f.tops = mem_alloc(a, ((size_t)s->def_count + 1) * sizeof *f.tops);
  f.refs = mem_calloc(a, s->def_count, sizeof *f.refs);
  bool ok = !rc && f.writer.spans && f.tops && f.refs && fold_all(&f);
  bool *admits = ok ? definitions_admitting_null(s) : NULL;
  if (admits) {
    drop_markers(&s->root, admits);
    for (uint32_t d = 0; d < s->def_count; d++) drop_markers(&s->defs[d], admits);
  }
  mem_free(a, admits);
  mem_free(a, f.writer.spans);
  mem_free(a, f.tops);
  mem_free(a, f.by_text);
  mem_free(a, f.refs);
  shorn_buffer_free(&f.text);
  shorn_buffer_free(&scratch);
  if (admits) return SHORN_OK;
  return rc ? rc : error_nomem(error);
}

/* ---- widths, slots, build checks (docs/format.md#minimum-widths) ------------- */

static uint64_t multiply_saturating(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static void shape_measure(shape *sh) {
  int64_t fixed = shape_fixed_width(sh);
  uint64_t width = fixed >= 0 ? (uint64_t)fixed : 1, slots = 0;
  switch (sh->kind) {
    case SHAPE_ARRAY: {
      const shape *e = sh->u.array.element;
      if (sh->u.array.length < 0) break;
      width = multiply_saturating((uint64_t)sh->u.array.length, e->min_width);
      if (e->min_width == 0)
        slots = multiply_saturating((uint64_t)sh->u.array.length, add_saturating(1, e->slots));
      break;
    }
    case SHAPE_TUPLE:
      width = sh->u.tuple.rest ? 1 : 0;
      slots = sh->u.tuple.count;
      for (uint32_t i = 0; i < sh->u.tuple.count; i++) {
        width = add_saturating(width, sh->u.tuple.items[i]->min_width);
        slots = add_saturating(slots, sh->u.tuple.items[i]->slots);
      }
      break;
    case SHAPE_OBJECT:
      width = bitmap_bytes(sh->u.object.optional_count) + (sh->u.object.extras ? 1 : 0);
      for (uint32_t i = 0; i < sh->u.object.count; i++) {
        const field *f = &sh->u.object.fields[i];
        if (!f->optional) width = add_saturating(width, f->value->min_width);
        slots = add_saturating(slots, f->value->slots);
      }
      break;
    case SHAPE_UNION:
      width = UINT64_MAX;
      for (uint32_t i = 0; i < sh->u.choice.count; i++)
        if (sh->u.choice.branches[i]->min_width < width)
          width = sh->u.choice.branches[i]->min_width;
      width = add_saturating(width, 1);
      break;
    default: break;
  }
  sh->min_width = width;
  sh->slots = slots;
}

typedef struct finisher {
  shorn_schema *schema;
  const bool *admits_null; /* per definition */
  shorn_buffer text;
  const shape **refused;
  shorn_error *error;
} finisher;

static shorn_code refuse_shape(finisher *f, const shape *sh, const char *message) {
  *f->refused = sh;
  return error_set(f->error, SHORN_ERROR_SCHEMA, "%s", message);
}

/* The build refusals (docs/format.md#build-refusals). */
#define NO_BYTES \
  " must take at least one byte, so that a count cannot outgrow the payload; these take none"

static shorn_code shape_check(finisher *f, const shape *sh) {
  switch (sh->kind) {
    case SHAPE_ARRAY:
      if (sh->u.array.element->min_width) return SHORN_OK;
      if (sh->u.array.length < 0) return refuse_shape(f, sh, "Array elements" NO_BYTES);
      if (sh->slots > SHORN_MAX_ELEMENTS)
        return refuse_shape(f, sh,
                      "This fixed array would decode to more than " NUMBER_TEXT(SHORN_MAX_ELEMENTS)
                      " elements from no input");
      return SHORN_OK;
    case SHAPE_TUPLE:
      if (sh->u.tuple.rest && !sh->u.tuple.rest->min_width)
        return refuse_shape(f, sh, "Tuple rest elements" NO_BYTES);
      return SHORN_OK;
    case SHAPE_SET:
      if (!sh->u.array.element->min_width) return refuse_shape(f, sh, "Set elements" NO_BYTES);
      return SHORN_OK;
    case SHAPE_MAP:
      if (!add_saturating(sh->u.map.key->min_width, sh->u.map.value->min_width))
        return refuse_shape(f, sh, "Map entries" NO_BYTES);
      return SHORN_OK;
    case SHAPE_NULLABLE:
      if (shape_admits_null(sh->u.inner, f->admits_null))
        return refuse_shape(f, sh,
                      "This shape already admits null, so a nullable marker over it would give "
                      "null two encodings");
      return SHORN_OK;
    default: return SHORN_OK;
  }
}

/* Presence bits, the "key": texts, the fields as a read takes them and the
 * key index; once per object, since a shared object is reached more than
 * once.  The texts lie end to end in one block after the reads, padded
 * once at its end: each is then readable TEXT_PAD bytes past its own end,
 * as copy_padded needs, and a read of the object takes a third of the
 * cache lines that texts padded one by one took. */
static bool index_object(finisher *f, shape *sh) {
  uint32_t n = sh->u.object.count, optional = 0, size = 2;
  if (!n || sh->u.object.index) return true;
  f->text.length = 0;
  for (uint32_t i = 0; i < n; i++) {
    field *fl = &sh->u.object.fields[i];
    if (fl->optional) fl->bit = optional++;
    size_t start = f->text.length;
    if (!buffer_json_string(&f->text, fl->key, fl->key_length) || !buffer_byte(&f->text, ':')) return false;
    fl->json_key_length = (uint32_t)(f->text.length - start);
  }
  field_read *reads = arena_alloc(&f->schema->arena, (size_t)n * sizeof *reads);
  const char *keys = reads ? arena_strdup(&f->schema->arena, (const char *)f->text.data, f->text.length) : NULL;
  if (!keys) return false;
  for (uint32_t i = 0; i < n; i++) {
    field *fl = &sh->u.object.fields[i];
    fl->json_key = keys;
    keys += fl->json_key_length;
    reads[i] = (field_read){.value = fl->value,
                            .json_key = fl->json_key,
                            .json_key_length = fl->json_key_length,
                            .bit = fl->bit,
                            .optional = fl->optional,
                            .value_kind = (uint8_t)fl->value->kind};
  }
  sh->u.object.reads = reads;
  while (size < 2 * n) size *= 2;
  uint32_t *index = arena_alloc(&f->schema->arena, (size_t)size * sizeof *index);
  if (!index) return false;
  memset(index, 0, (size_t)size * sizeof *index);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t h =
        key_hash(sh->u.object.fields[i].key, sh->u.object.fields[i].key_length) & (size - 1);
    while (index[h]) h = (h + 1) & (size - 1);
    index[h] = i + 1;
  }
  sh->u.object.optional_count = optional;
  sh->u.object.index_mask = size - 1;
  sh->u.object.index = index;
  return true;
}

/* The step a field's value takes and the n it adds to it: a leaf's folds
 * into a run of its kind; an array's, an object's or any other value's is
 * a step of its own. */
static pass_op pass_op_of(const shape *value, uint64_t *n) {
  *n = 1;
  switch (shape_form(value)) {
    case WIRE_FIXED: return *n = (uint64_t)shape_fixed_width(value), PASS_BYTES;
    case WIRE_VARINT: return PASS_VARINTS;
    case WIRE_BODY: return PASS_BODIES;
    case WIRE_ELEMENTS: return PASS_ARRAY;
    case WIRE_FIELDS: return PASS_OBJECT;
    default: return PASS_VALUE;
  }
}

/* An object's pass plan (shape.h): adjacent required fields of one kind
 * fold into one step; an optional field takes a step of its own, since
 * its presence decides whether its bytes are there.  Without `fold`,
 * every field is a PASS_VALUE step: the walk field by field, which the
 * tests hold the folded plan to. */
static bool plan_object(arena *a, shape *sh, bool fold) {
  uint32_t n = sh->u.object.count, length = 0;
  pass_step *plan = arena_alloc(a, (size_t)n * sizeof *plan);
  if (!plan) return false;
  for (uint32_t i = 0; i < n; i++) {
    field *fl = &sh->u.object.fields[i];
    uint64_t add = 1;
    pass_op op = fold ? pass_op_of(fl->value, &add) : PASS_VALUE;
    pass_step *last = length ? &plan[length - 1] : NULL;
    if (last && last->op == op && op <= PASS_BODIES && !last->optional && !fl->optional) {
      fl->plan_step = length - 1;
      fl->plan_skip = last->n;
      last->n += add;
      continue;
    }
    plan[length] = (pass_step){op, fl->optional, fl->optional ? fl->bit : 0, add, fl->value};
    fl->plan_step = length++;
    fl->plan_skip = 0;
  }
  sh->u.object.plan = plan;
  sh->u.object.plan_length = length;
  return true;
}

static void plan_below(shape *sh, arena *a, bool *ok) {
  shape **child;
  for (uint32_t i = 0; *ok && (child = child_slot(sh, i)); i++) plan_below(*child, a, ok);
  if (*ok && sh->kind == SHAPE_OBJECT && sh->u.object.count) *ok = plan_object(a, sh, false);
}

bool shape_plan_field_by_field(shorn_schema *s) {
  bool ok = true;
  for (uint32_t d = 0; ok && d < s->def_count; d++) plan_below(s->defs[d], &s->arena, &ok);
  if (ok) plan_below(s->root, &s->arena, &ok);
  return ok;
}

/* The field of a discriminated union's branch i that holds its case: the
 * literal of cases[i] under the discriminant's key.  The reference picks
 * the discriminant from each branch's "properties" before translating the
 * branch, so a "$ref" beside them can make the branch something else, or
 * the field something else; such a branch has no holder, and no value
 * decoded from it could be encoded, so decode.c refuses it. */
static const field *holder_of(const finisher *f, const shape *sh, uint32_t i) {
  const shape *b = sh->u.choice.branches[i];
  const scalar *c = &sh->u.choice.cases[i];
  if (b->kind == SHAPE_REF) b = f->schema->defs[b->u.ref.index];
  for (uint32_t k = 0; b->kind == SHAPE_OBJECT && k < b->u.object.count; k++) {
    const field *fl = &b->u.object.fields[k];
    if (fl->key_length != sh->u.choice.on_length ||
        memcmp(fl->key, sh->u.choice.on, fl->key_length) != 0)
      continue;
    const scalar *held = &fl->value->u.literal;
    bool same = fl->value->kind == SHAPE_LITERAL && held->json_length == c->json_length &&
                memcmp(held->json, c->json, c->json_length) == 0;
    return same ? fl : NULL;
  }
  return NULL;
}

static bool build_tables(finisher *f, shape *sh) {
  switch (sh->kind) {
    case SHAPE_OBJECT:
      return index_object(f, sh) &&
             (sh->u.object.plan || !sh->u.object.count || plan_object(&f->schema->arena, sh, true));
    case SHAPE_UNION:
      memset(sh->u.choice.by_kind, -1, sizeof sh->u.choice.by_kind);
      for (uint32_t i = 0; !sh->u.choice.on && i < sh->u.choice.count; i++)
        sh->u.choice.by_kind[sh->u.choice.types[i]] = (int8_t)i;
      if (sh->u.choice.on && !sh->u.choice.holders) {
        const field **holders = arena_alloc(&f->schema->arena, sh->u.choice.count * sizeof *holders);
        if (!holders) return false;
        for (uint32_t i = 0; i < sh->u.choice.count; i++) holders[i] = holder_of(f, sh, i);
        sh->u.choice.holders = holders;
      }
      return true;
    case SHAPE_REF: sh->u.ref.target = f->schema->defs[sh->u.ref.index]; return true;
    default: return true;
  }
}

/* Children first: a shape's width and checks need its children's. */
static shorn_code finish_shape(finisher *f, shape *sh) {
  shape **child;
  for (uint32_t i = 0; (child = child_slot(sh, i)); i++) {
    shorn_code rc = finish_shape(f, *child);
    if (rc != SHORN_OK) return rc;
  }
  if (!build_tables(f, sh)) return error_nomem(f->error);
  shape_measure(sh);
  return shape_check(f, sh);
}

/* docs/format.md#signature: one shape, or {"defs":[…],"root":…} for a
 * recursive document. */
static bool shape_write_signature_text(text_writer *w, const shorn_schema *s) {
  if (!s->def_count) return shape_write_shape(w, s->root);
  return PUT(w, "{\"defs\":[") && shape_put_shapes(w, s->defs, s->def_count) && PUT(w, "],\"root\":") &&
         shape_write_shape(w, s->root) && PUT(w, "}");
}

static shorn_code shape_write_signature(finisher *f) {
  shorn_schema *s = f->schema;
  shorn_buffer text = {.allocator = s->allocator};
  shorn_code rc = shape_reserve_text(&text, &f->text, false, shape_write_signature_text, s, f->error);
  text_writer w = {.out = &text, .scratch = &f->text};
  if (!rc && !shape_write_signature_text(&w, s)) rc = error_nomem(f->error);
  if (!rc && !(s->signature = arena_strdup(&s->aside, (const char *)text.data, text.length)))
    rc = error_nomem(f->error);
  if (!rc) s->signature_length = text.length;
  shorn_buffer_free(&text);
  if (rc) return rc;
  shape_fingerprint_hashes(s->signature, s->signature_length, s->fingerprints);
  return SHORN_OK;
}

shorn_code shape_finish(shorn_schema *s, const shape **refused, shorn_error *error) {
  finisher f = {.schema = s, .text = {.allocator = s->allocator}, .refused = refused, .error = error};
  shorn_code rc = SHORN_OK;
  *refused = NULL;
  bool *admits = s->def_count ? definitions_admitting_null(s) : NULL;
  f.admits_null = admits;
  if (s->def_count && !admits) rc = error_nomem(error);
  /* The reference builds the definitions, then the root. */
  for (uint32_t d = 0; rc == SHORN_OK && d < s->def_count; d++) rc = finish_shape(&f, s->defs[d]);
  if (rc == SHORN_OK) rc = finish_shape(&f, s->root);
  if (rc == SHORN_OK) rc = shape_write_signature(&f);
  mem_free(s->allocator, admits);
  shorn_buffer_free(&f.text);
  return rc;
}

/* ---- fingerprints (docs/format.md#fingerprint) ------------------------------- */

static uint32_t hash_unit(uint32_t h, uint32_t unit) {
  return fnv1a32_step(fnv1a32_step(h, unit & 0xFF), unit >> 8);
}

/* FNV-1a over the signature's UTF-16 code units, low byte first.  The
 * signature is UTF-8: its lone surrogates are written as \u escapes.  The
 * widths' chains are independent, so one pass runs them side by side for
 * about the time of one: in scalars, as a vector multiply of 32-bit lanes
 * is slower than four on x86 before SSE4.1. */
void shape_fingerprint_hashes(const char *signature, size_t length, uint32_t hashes[FINGERPRINT_WIDTH_MAX + 1]) {
  const uint8_t *p = (const uint8_t *)signature, *end = p + length;
  uint32_t seed = FNV1A32_BASIS ^ (WIRE_FORMAT_VERSION << 4);
  uint32_t h1 = seed ^ 1, h2 = seed ^ 2, h3 = seed ^ 3, h4 = seed ^ 4;
  _Static_assert(FINGERPRINT_WIDTH_MAX == 4, "a chain a width");
  while (p < end) {
    uint32_t c = *p++, units[2], count = 1;
    if (c >= 0xC0) {
      int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      c &= 0x3F >> more;
      for (; more > 0 && p < end; more--) c = c << 6 | (*p++ & 0x3F);
    }
    units[0] = c;
    if (c >= 0x10000) {
      c -= 0x10000;
      units[0] = 0xD800 | c >> 10;
      units[1] = 0xDC00 | (c & 0x3FF);
      count = 2;
    }
    for (uint32_t i = 0; i < count; i++) {
      h1 = hash_unit(h1, units[i]);
      h2 = hash_unit(h2, units[i]);
      h3 = hash_unit(h3, units[i]);
      h4 = hash_unit(h4, units[i]);
    }
  }
  hashes[0] = 0;
  hashes[1] = h1;
  hashes[2] = h2;
  hashes[3] = h3;
  hashes[4] = h4;
}

const char *shorn_schema_signature(const shorn_schema *schema, size_t *length) {
  if (length) *length = schema->signature_length;
  return schema->signature;
}

shorn_code fingerprint_width_refused(bool none_allowed, shorn_error *error) {
  return error_set(error, SHORN_ERROR_USAGE,
                   none_allowed ? "Fingerprint width must be 0 (no fingerprint), 1, 2, 3 or 4"
                                : "Fingerprint width must be 1, 2, 3 or 4");
}

shorn_code shorn_schema_fingerprint(const shorn_schema *schema, int width, unsigned char out[4],
                                    shorn_error *error) {
  if (!fingerprint_width_ok(width, false)) return fingerprint_width_refused(false, error);
  fingerprint_bytes(schema, width, out);
  return SHORN_OK;
}
