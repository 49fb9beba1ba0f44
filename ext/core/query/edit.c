/*
 * edit.c — SQLite's json_set, json_insert, json_replace and json_remove on
 * a payload, and json_patch, without decoding what the edit leaves alone.
 *
 * The layout is positional and holds no byte lengths of containers, so a
 * value's bytes can be written anew while the bytes before and after it
 * are copied.  The value written anew is the smallest that holds every
 * byte the edit changes and every rule it can break:
 *   - the value a path names, when it is replaced where it stands;
 *   - else the container it is added to or removed from, whose count or
 *     presence bitmap changes and whose keywords (maxItems, required…)
 *     are checked again;
 *   - or, above either, the outermost value whose rules look at everything
 *     inside it: a Set's or a Map's uniqueness, uniqueItems, a const or an
 *     enum of containers, a union whose discriminant the edit reaches, and
 *     a dynamic value, whose nesting limit counts from its top.
 * That value is decoded to JSON (the decoder checks it), edited as SQLite
 * edits JSON, and encoded under its shape by the validated encoder, which
 * is told where it stands: its path, for messages, and the levels above
 * it, for the limits on nesting.
 */
#include "edit.h"

#include "core/wire/decode.h"
#include "core/wire/encode.h"
#include "core/text/error.h"
#include "core/base/memory.h"
#include "core/text/text.h"
#include "core/schema/validate.h"

/* ---- the edit on a DOM, as SQLite's JSON functions make it ----------------- */

/* Does a member's name match a path key?  As query.c compares them: the
 * name as JSON text writes it, escapes included. */
static bool edit_member_named(const shorn_allocator *a, const json_value *name, const path_step *step, bool *nomem) {
  if (step->plain) return name->length == step->key_length && memcmp(name->u.string, step->key, name->length) == 0;
  shorn_buffer written = {.allocator = a};
  if (!buffer_json_string(&written, name->u.string, name->length)) return *nomem = true, false;
  bool same = written.length == step->key_length + 2u &&
              memcmp(written.data + 1, step->key, step->key_length) == 0;
  shorn_buffer_free(&written);
  return same;
}

/* A container of `length` items (an object's members count twice) in the
 * arena; NULL when out of memory. */
static json_value *edit_new_container(arena *a, json_type type, uint32_t length) {
  json_value *v = arena_alloc(a, sizeof *v);
  size_t slots = type == JSON_OBJECT ? 2 * (size_t)length : length;
  json_value *items = slots ? arena_alloc(a, slots * sizeof *items) : NULL;
  if (!v || (slots && !items)) return NULL;
  *v = (json_value){.type = (uint8_t)type, .length = length, .u.items = items};
  return v;
}

/* What json_set puts where a path goes on past the document: for each
 * step left, an object of one member or an array of one element, the value
 * innermost.  *made NULL when a step names no place in a new array (an
 * index but [0] and [#]): then SQLite changes nothing. */
static shorn_code edit_build_missing(arena *a, const path_step *steps, uint32_t n, const json_value *value,
                                const json_value **made, shorn_error *error) {
  *made = value;
  for (uint32_t i = n; i-- > 0;) {
    const path_step *step = &steps[i];
    if (step->kind != STEP_KEY && step->index != 0) return *made = NULL, SHORN_OK;
    json_value *v = edit_new_container(a, step->kind == STEP_KEY ? JSON_OBJECT : JSON_ARRAY, 1);
    if (!v) return error_nomem(error);
    if (step->kind == STEP_KEY) {
      /* A new member is named by the key's text as the path writes it. */
      v->u.items[0] = (json_value){.type = JSON_STRING, .length = step->key_length, .u.string = step->key};
      v->u.items[1] = **made;
    } else {
      v->u.items[0] = **made;
    }
    *made = v;
  }
  return SHORN_OK;
}

/* Add an item (a member: a name and a value) at the end of `container`. */
static shorn_code edit_append_item(arena *a, json_value *container, const json_value *name, const json_value *value,
                              shorn_error *error) {
  uint32_t per = container->type == JSON_OBJECT ? 2 : 1;
  json_value *items = arena_alloc(a, ((size_t)container->length + 1) * per * sizeof *items);
  if (!items) return error_nomem(error);
  if (container->length) memcpy(items, container->u.items, (size_t)container->length * per * sizeof *items);
  json_value *end = items + (size_t)container->length * per;
  if (name) *end++ = *name;
  *end = *value;
  container->u.items = items;
  container->length++;
  return SHORN_OK;
}

static void edit_remove_item(json_value *container, uint32_t at) {
  uint32_t per = container->type == JSON_OBJECT ? 2 : 1;
  json_value *items = container->u.items;
  memmove(items + (size_t)at * per, items + ((size_t)at + 1) * per,
          ((size_t)container->length - at - 1) * per * sizeof *items);
  container->length--;
}

/* The edit of steps[0..n) from `root`, as json_set and its kin make it;
 * *changed false when they leave the document as it is.  A root the edit
 * removes is the caller's to handle (n is 1 at least for EDIT_REMOVE). */
static shorn_code dom_edit(arena *a, json_value *root, const path_step *steps, uint32_t n, const edit *e,
                           bool *changed, shorn_error *error) {
  json_value *v = root, *parent = NULL;
  uint32_t at = 0;
  *changed = false;
  for (uint32_t i = 0; i < n; i++) {
    const path_step *step = &steps[i];
    uint64_t index = 0;
    bool nomem = false, found = false;
    if (step->kind == STEP_KEY) {
      if (v->type != JSON_OBJECT) return SHORN_OK;
      for (; index < v->length && !nomem; index++)
        if ((found = edit_member_named(a->allocator, &v->u.items[2 * index], step, &nomem))) break;
      if (nomem) return error_nomem(error);
    } else {
      if (v->type != JSON_ARRAY || (step->kind == STEP_FROM_END && step->index > v->length)) return SHORN_OK;
      index = step->kind == STEP_FROM_END ? v->length - step->index : step->index;
      found = index < v->length;
    }
    if (found) {
      parent = v;
      at = (uint32_t)index;
      v = &v->u.items[step->kind == STEP_KEY ? 2 * index + 1 : index];
      continue;
    }
    /* Missing: json_set and json_insert add it, at the end of an object or
     * one past an array's last element, with what the rest of the path
     * needs around the value. */
    if (e->kind == EDIT_REPLACE || e->kind == EDIT_REMOVE || (step->kind != STEP_KEY && index != v->length))
      return SHORN_OK;
    const json_value *made;
    shorn_code rc = edit_build_missing(a, steps + i + 1, n - i - 1, e->value, &made, error);
    if (rc || !made) return rc;
    json_value name = {.type = JSON_STRING, .length = step->key_length, .u.string = step->key};
    *changed = true;
    return edit_append_item(a, v, step->kind == STEP_KEY ? &name : NULL, made, error);
  }
  if (e->kind == EDIT_INSERT) return SHORN_OK;
  *changed = true;
  if (e->kind == EDIT_REMOVE)
    edit_remove_item(parent, at);
  else
    *v = *e->value;
  return SHORN_OK;
}

/* RFC 7396's MergePatch(target, patch), as json_patch applies it: members
 * the patch sets to null removed, objects merged member by member, and
 * anything else replaced by the patch.  It recurses once a level of the
 * patch's objects, which the parser lets nest deeper than a payload can:
 * past a payload's deepest nesting, the merge could not be written, and
 * going on would spend a thread's stack for nothing. */
static shorn_code edit_merge_patch(arena *a, const json_value *target, const json_value *patch,
                                   const json_value **out, uint32_t depth, shorn_error *error) {
  *out = patch;
  if (patch->type != JSON_OBJECT) return SHORN_OK;
  if (depth == NESTING_MAX)
    return error_set(error, SHORN_ERROR_ENCODE, "Patch nests deeper than %d levels", NESTING_MAX);
  uint32_t have = target->type == JSON_OBJECT ? target->length : 0;
  json_value *merged = edit_new_container(a, JSON_OBJECT, have);
  if (!merged) return error_nomem(error);
  if (have) memcpy(merged->u.items, target->u.items, 2 * (size_t)have * sizeof *merged->u.items);
  static const json_value empty = {.type = JSON_OBJECT};
  for (uint32_t i = 0; i < patch->length; i++) {
    const json_value *name = &patch->u.items[2 * i], *value = &patch->u.items[2 * i + 1];
    uint32_t j = 0;
    while (j < merged->length && !(merged->u.items[2 * j].length == name->length &&
                                   memcmp(merged->u.items[2 * j].u.string, name->u.string, name->length) == 0))
      j++;
    bool found = j < merged->length;
    if (value->type == JSON_NULL) {
      if (found) edit_remove_item(merged, j);
      continue;
    }
    const json_value *result;
    shorn_code rc =
        edit_merge_patch(a, found ? &merged->u.items[2 * j + 1] : &empty, value, &result, depth + 1, error);
    if (!rc && found) merged->u.items[2 * j + 1] = *result;
    if (!rc && !found) rc = edit_append_item(a, merged, name, result, error);
    if (rc) return rc;
  }
  *out = merged;
  return SHORN_OK;
}

/* ---- where the edit writes ------------------------------------------------ */

/* A value on the path: where it starts and its shape as its container
 * holds it (before a nullable's marker or a union's branch), and the path
 * segment that leads to it from its container. */
typedef struct level {
  query_node node;
  path_segment segment;
} level;

/* Rules that look at the whole of a value, not only at its count or its
 * keys: a change anywhere inside may break them. */
static bool edit_has_deep_rules(const validation *v) {
  for (uint32_t i = 0; v && i < v->count; i++)
    if (v->rules[i].kind == RULE_UNIQUE_ITEMS || v->rules[i].kind == RULE_ONE_OF_VALUES ||
        v->rules[i].kind == RULE_ANY_OF)
      return true;
  return false;
}

/* Must a change below a value of shape `s`, reached by `step`, be written
 * as the whole of that value?  When it holds a Set, a Map, a dynamic value
 * or deep rules, or is a union the step reaches the discriminant of.
 * Looked at through every branch, so that it holds whichever the bytes
 * take; past WHOLE_DEPTH_MAX levels of wrappers, yes. */
#define WHOLE_DEPTH_MAX 32
static bool edit_needs_whole(const shape *s, const path_step *step, int depth) {
  if (depth > WHOLE_DEPTH_MAX || edit_has_deep_rules(s->keywords)) return true;
  switch (s->kind) {
    case SHAPE_SET:
    case SHAPE_MAP:
    case SHAPE_ANY: return true;
    case SHAPE_NULLABLE: return edit_needs_whole(s->u.inner, step, depth + 1);
    case SHAPE_REF: return edit_needs_whole(s->u.ref.target, step, depth + 1);
    case SHAPE_UNION:
      if (s->u.choice.on && step->kind == STEP_KEY &&
          (!step->plain || (step->key_length == s->u.choice.on_length &&
                            memcmp(step->key, s->u.choice.on, step->key_length) == 0)))
        return true;
      for (uint32_t i = 0; i < s->u.choice.count; i++)
        if (edit_needs_whole(s->u.choice.branches[i], step, depth + 1)) return true;
      return false;
    default: return false;
  }
}

/* The encoder's count of levels on the way through `n` to the container
 * below it, and the recursive definitions it opens: every wrapper (a
 * nullable, a union, a reference) and the container each take one. */
static void edit_count_levels(query *q, query_node n, uint32_t def_count, uint32_t *nesting, uint32_t *ref_depth) {
  shorn_code rc;
  for (uint32_t hops = 0; hops <= def_count + 1;) {
    ++*nesting;
    if (n.shape->kind == SHAPE_REF) ref_depth[n.shape->u.ref.index]++, hops++;
    if (!query_unwrap(&q->d, &n, &rc)) return;
  }
}

/* The segment a found step adds to messages' paths: the member's name (a
 * key's text, its escapes undone, for a key that has any) or the index. */
static shorn_code edit_segment_of(arena *a, const path_step *step, uint64_t index, path_segment *segment,
                             shorn_error *error) {
  *segment = (path_segment){NULL, 0, index};
  if (step->kind != STEP_KEY) return SHORN_OK;
  if (step->plain) {
    *segment = (path_segment){step->key, step->key_length, 0};
    return SHORN_OK;
  }
  /* It matched a name as JSON writes it, so its escapes are valid ones. */
  uint8_t *name = arena_alloc(a, step->key_length + 1u);
  if (!name) return error_nomem(error);
  uint8_t *end = json_unescape(name, (const uint8_t *)step->key, step->key_length, false, NULL);
  *segment = (path_segment){(const char *)name, (uint32_t)(end - name), 0};
  return SHORN_OK;
}

/* Where one edit's path leads in the payload as it is. */
typedef struct walk {
  level *levels; /* one per step and the root */
  uint32_t found; /* levels[0..found] exist */
  int64_t change; /* the level its change is written at; -1: none */
} walk;

/* The edits of one call, their walks, and the arena that holds them, the
 * names and the DOM. */
typedef struct editor {
  const shorn_schema *s;
  query q;
  const edit *edits;
  size_t count;
  walk *walks;
  arena dom;
  shorn_error *error;
  /* A single edit's walk and a short path's levels need no allocation. */
  walk walk_here;
  level levels_here[8];
  path_segment segments_here[8];
  uint32_t depth_here[REF_DEPTHS_HERE];
} editor;

static shorn_code edit_find_levels(editor *ed, const edit *e, walk *w) {
  const query_path *path = e->path;
  w->levels = ed->count == 1 && path->count < COUNT_OF(ed->levels_here)
                  ? ed->levels_here
                  : arena_alloc(&ed->dom, ((size_t)path->count + 1) * sizeof *w->levels);
  if (!w->levels) return error_nomem(ed->error);
  w->levels[0] = (level){ed->q.root, {NULL, 0, 0}};
  for (w->found = 0; w->found < path->count; w->found++) {
    const path_step *step = &path->steps[w->found];
    level *next = &w->levels[w->found + 1];
    shorn_code rc = query_step(&ed->q, &w->levels[w->found].node, step, &next->node);
    if (!rc && next->node.shape) rc = edit_segment_of(&ed->dom, step, ed->q.index, &next->segment, ed->error);
    if (rc || !next->node.shape) return rc;
  }
  return SHORN_OK;
}

/* The level whose value an edit writes anew, raised to the outermost
 * value above it that must be written whole; -1 when the edit alone
 * changes nothing (json_replace of what is not there, json_insert of what
 * is).  Among several edits, one may change what an earlier one made, so
 * each counts where its path stops. */
static int64_t edit_changed_level(const walk *w, const edit *e, bool alone) {
  uint32_t count = e->path->count, change;
  if (e->kind == EDIT_REMOVE && !count) return 0; /* the root: the result is NULL */
  if (w->found == count) {
    if (e->kind == EDIT_INSERT && alone) return -1;
    change = e->kind == EDIT_REMOVE ? count - 1 : count;
  } else {
    if ((e->kind == EDIT_REPLACE || e->kind == EDIT_REMOVE) && alone) return -1;
    change = w->found;
  }
  for (uint32_t j = 0; j < change; j++)
    if (edit_needs_whole(w->levels[j].node.shape, &e->path->steps[j], 0)) return j;
  return change;
}

static bool edit_same_segment(const path_segment *a, const path_segment *b) {
  if (!a->key || !b->key) return !a->key && !b->key && a->index == b->index;
  return a->key_length == b->key_length && memcmp(a->key, b->key, a->key_length) == 0;
}

/* The deepest level that holds every edit's change: the walks' common
 * ancestor, told apart by the names and indexes that lead to it (values
 * that take no bytes may share a position). */
static uint32_t edit_common_level(const editor *ed) {
  int64_t k = ed->walks[0].change;
  for (size_t i = 1; i < ed->count; i++) k = ed->walks[i].change < k ? ed->walks[i].change : k;
  for (size_t i = 1; i < ed->count; i++)
    for (int64_t j = 1; j <= k; j++)
      if (!edit_same_segment(&ed->walks[i].levels[j].segment, &ed->walks[0].levels[j].segment)) k = j - 1;
  return (uint32_t)k;
}

/* Whether `key` is an optional member of objects of shape s: of every
 * branch of a union that has it, through references and nullables. */
static bool edit_optional_in(const shape *s, const path_step *key, int depth) {
  while (s->kind == SHAPE_REF || s->kind == SHAPE_NULLABLE) s = s->kind == SHAPE_REF ? s->u.ref.target : s->u.inner;
  if (s->kind == SHAPE_OBJECT) {
    const field *f = object_find_hashed(s, key->key, key->key_length, key->key_hash);
    return f && f->optional;
  }
  if (s->kind != SHAPE_UNION || depth > 8) return false;
  bool found = false;
  for (uint32_t i = 0; i < s->u.choice.count; i++) {
    const shape *branch = s->u.choice.branches[i];
    if (!edit_optional_in(branch, key, depth + 1)) {
      while (branch->kind == SHAPE_REF || branch->kind == SHAPE_NULLABLE)
        branch = branch->kind == SHAPE_REF ? branch->u.ref.target : branch->u.inner;
      if (branch->kind == SHAPE_OBJECT && object_find_hashed(branch, key->key, key->key_length, key->key_hash))
        return false;
    } else {
      found = true;
    }
  }
  return found;
}

/* Whether the value at level k is an optional member of an object, its
 * key in the first edit's path. */
static bool edit_optional_member(const editor *ed, uint32_t k) {
  if (!k) return false;
  const path_step *step = &ed->edits[0].path->steps[k - 1];
  return step->kind == STEP_KEY && step->plain && edit_optional_in(ed->walks[0].levels[k - 1].node.shape, step, 0);
}

/* The new bytes of the value at level `k`, appended to `out`; *end just
 * past its old bytes; *changed false when the edits leave it as it is. */
static shorn_code edit_write_level(editor *ed, uint32_t k, const encode_place *place, shorn_buffer *out,
                              const uint8_t **end, bool *changed) {
  const query_node *node = &ed->walks[0].levels[k].node;
  const edit *e = &ed->edits[0];
  shorn_code rc;
  *changed = true;
  if (ed->count == 1 && k == e->path->count) {
    /* The value the path names, replaced where it stands: its old bytes
     * are checked on the way past them, and nothing else is decoded. */
    if ((rc = query_check(&ed->q, node))) return rc;
    *end = ed->q.d.p;
    rc = encode_at(ed->s, node->shape, e->value, place, out, ed->error);
    return rc == SHORN_ERROR_ENCODE && e->value->type == JSON_NULL && edit_optional_member(ed, k)
               ? encode_refuse_null_member(ed->error)
               : rc;
  }
  shorn_buffer text = {.allocator = ed->s->allocator};
  json_value *value = NULL;
  rc = query_json(&ed->q, node, &text);
  *end = ed->q.d.p;
  if (!rc) rc = json_parse(&ed->dom, (const char *)text.data, text.length, &value, ed->error);
  bool any = false;
  for (size_t i = 0; !rc && i < ed->count; i++, any |= *changed) {
    e = &ed->edits[i];
    rc = dom_edit(&ed->dom, value, e->path->steps + k, e->path->count - k, e, changed, ed->error);
  }
  *changed = any;
  if (!rc && any) rc = encode_at(ed->s, node->shape, value, place, out, ed->error);
  if (rc == SHORN_ERROR_ENCODE && any && value->type == JSON_NULL && edit_optional_member(ed, k))
    rc = encode_refuse_null_member(ed->error);
  shorn_buffer_free(&text);
  return rc;
}

/* The payload with level k written anew: the bytes before it, its new
 * bytes and the bytes after it; the payload as it is when nothing
 * changes. */
static shorn_code edit_splice(editor *ed, uint32_t k, const uint8_t *data, size_t length, shorn_buffer *out) {
  const level *levels = ed->walks[0].levels;
  uint32_t def_count = ed->s->def_count;
  uint32_t *ref_depth = def_count <= COUNT_OF(ed->depth_here) ? ed->depth_here
                                                              : arena_alloc(&ed->dom, def_count * sizeof *ref_depth);
  path_segment *segments = k <= COUNT_OF(ed->segments_here) ? ed->segments_here
                                                             : arena_alloc(&ed->dom, k * sizeof *segments);
  if (!ref_depth || !segments) return error_nomem(ed->error);
  if (def_count) memset(ref_depth, 0, def_count * sizeof *ref_depth);
  encode_place place = {segments, k, 0, ref_depth};
  for (uint32_t j = 0; j < k; j++) {
    segments[j] = levels[j + 1].segment;
    edit_count_levels(&ed->q, levels[j].node, def_count, &place.nesting, ref_depth);
  }
  const uint8_t *start = levels[k].node.at, *end = NULL;
  size_t mark = out->length;
  bool changed = false;
  shorn_code rc = buffer_append(out, data, (size_t)(start - data)) ? SHORN_OK : error_nomem(ed->error);
  if (!rc) rc = edit_write_level(ed, k, &place, out, &end, &changed);
  if (!rc && !changed) out->length = mark;
  if (!rc && !buffer_append(out, changed ? end : data, changed ? (size_t)(data + length - end) : length))
    rc = error_nomem(ed->error);
  if (rc) out->length = mark;
  return rc;
}

/* Walk every edit's path; *removed when one removes the root. */
static shorn_code edit_find_changes(editor *ed, bool *removed) {
  ed->walks = ed->count == 1 ? &ed->walk_here : arena_alloc(&ed->dom, ed->count * sizeof *ed->walks);
  if (!ed->walks) return error_nomem(ed->error);
  for (size_t i = 0; i < ed->count; i++) {
    const edit *e = &ed->edits[i];
    walk *w = &ed->walks[i];
    shorn_code rc = edit_find_levels(ed, e, w);
    if (rc) return rc;
    if (e->kind == EDIT_REMOVE && e->path->count == 0) *removed = true;
    w->change = edit_changed_level(w, e, ed->count == 1);
  }
  return SHORN_OK;
}

shorn_code edit_payload(const shorn_schema *s, const uint8_t *data, size_t length, int fingerprint_width,
                        const edit *edits, size_t count, shorn_buffer *out, bool *removed, shorn_error *error) {
  _Alignas(8) char dom_here[JSON_DOM_HERE];
  /* Field by field: zeroing the whole of it (the query's scratch among it)
   * would cost a small record's edit a sixth of its time. */
  editor ed;
  ed.s = s;
  ed.edits = edits;
  ed.count = count;
  ed.dom = (arena){.next = dom_here, .end = dom_here + sizeof dom_here, .allocator = s->allocator};
  ed.error = error;
  *removed = false;
  shorn_code rc = query_open(&ed.q, s, data, length, fingerprint_width, error);
  /* The bytes the walk points into (an empty payload's among them). */
  data = ed.q.d.start;
  if (!rc && count) rc = edit_find_changes(&ed, removed);
  if (!rc && !*removed) {
    if (!count || ed.walks[0].change < 0)
      rc = buffer_append(out, data, length) ? SHORN_OK : error_nomem(error);
    else
      rc = edit_splice(&ed, edit_common_level(&ed), data, length, out);
  }
  query_close(&ed.q);
  arena_free(&ed.dom);
  return rc;
}

shorn_code edit_patch(const shorn_schema *s, const uint8_t *data, size_t length, int fingerprint_width,
                      const json_value *patch, shorn_buffer *out, shorn_error *error) {
  _Alignas(8) char dom_here[JSON_DOM_HERE];
  arena dom = {.next = dom_here, .end = dom_here + sizeof dom_here, .allocator = s->allocator};
  shorn_buffer text = {.allocator = s->allocator};
  json_value *value = NULL;
  const json_value *merged = NULL;
  size_t mark = out->length;
  shorn_code rc = shorn_decode(s, data, length, fingerprint_width, &text, error);
  if (!rc) rc = json_parse(&dom, (const char *)text.data, text.length, &value, error);
  if (!rc) rc = edit_merge_patch(&dom, value, patch, &merged, 0, error);
  if (!rc && !buffer_append(out, data, (size_t)fingerprint_width)) rc = error_nomem(error);
  if (!rc) rc = encode_at(s, s->root, merged, NULL, out, error);
  if (rc) out->length = mark;
  shorn_buffer_free(&text);
  arena_free(&dom);
  return rc;
}
