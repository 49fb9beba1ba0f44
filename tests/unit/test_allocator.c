/*
 * test_allocator.c — allocators belong to schemas and buffers, not to the
 * process: two in one program each see exactly their own blocks.
 *
 * Two counting allocators, told apart by their context, compile a schema
 * each.  Each schema encodes, decodes, is queried and refuses a value,
 * writing into buffers of the other allocator: its scratch must come from
 * and go back to its own allocator, its output from the buffers'.  A
 * refused schema frees what it took.  In the end every block was resized
 * and freed by the allocator that made it, nothing is left, and the
 * default counting (a NULL context) was never asked.
 */
#include "../support/counting.h"
#include "check.h"
#include "core/query/query.h"

static counting count_a, count_b;
static const shorn_allocator allocator_a = {counting_realloc, counting_free, &count_a};
static const shorn_allocator allocator_b = {counting_realloc, counting_free, &count_b};

/* Something of everything that takes scratch memory: seventeen recursive
 * definitions (more depth counters than the stack holds), a set and a map
 * (their unique sets), an open object (its member list), a long BigInt (its
 * conversion's work space, both ways, with GMP or without), and a value
 * longer than the DOM's first storage on the stack. */
static char schema_text[4096], value_text[32768];

#define UINT "{\"type\":\"integer\",\"minimum\":0}"

static void make_texts(void) {
  char *o = schema_text;
  o += sprintf(o, "{\"type\":\"object\",\"$defs\":{");
  for (int i = 0; i < 17; i++)
    o += sprintf(o, "%s\"d%d\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/d%d\"}}",
                 i ? "," : "", i, i);
  o += sprintf(o, "},\"properties\":{");
  for (int i = 0; i < 17; i++) o += sprintf(o, "\"p%d\":{\"$ref\":\"#/$defs/d%d\"},", i, i);
  sprintf(o,
          "\"s\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true,"
          "\"x-shorn\":\"set\"},"
          "\"m\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"number\"},"
          UINT "],\"items\":false,\"minItems\":2,\"maxItems\":2},\"x-shorn\":\"map\"},"
          "\"o\":{\"type\":\"object\",\"properties\":{\"a\":" UINT "},\"required\":[\"a\"],"
          "\"additionalProperties\":" UINT "},"
          "\"b\":{\"type\":\"string\",\"x-shorn\":\"bigint\"},\"t\":{\"type\":\"string\"}}}");
  o = value_text;
  o += sprintf(o, "{\"p0\":[[[]]],\"p16\":[[]],\"s\":[\"x\",\"y\",\"z\"],\"m\":[[1.5,1],[2,2]],"
                  "\"o\":{\"a\":1,\"z\":2,\"\\t\":3},\"b\":\"-");
  for (int i = 0; i < 20000; i++) *o++ = (char)('1' + i % 9);
  o += sprintf(o, "\",\"t\":\"");
  memset(o, 'x', 5000);
  strcpy(o + 5000, "\"}");
}

/* Encode, decode and encode again, query an extra member by a key that
 * needs escaping, and refuse a value deep down: `s` (whose allocator counts
 * in `mine`) writing into buffers of `theirs` (counting in `their_count`). */
static void use(const shorn_schema *s, counting *mine, const shorn_allocator *theirs,
                counting *their_count) {
  size_t held = mine->blocks, their_held = their_count->blocks;
  unsigned long calls = mine->calls, their_calls = their_count->calls;
  shorn_error e;
  shorn_buffer payload = {.allocator = theirs}, json = {.allocator = theirs},
               again = {.allocator = theirs};
  CHECK(shorn_encode(s, value_text, strlen(value_text), 0, &payload, &e) == SHORN_OK);
  CHECK(shorn_decode(s, payload.data, payload.length, 0, &json, &e) == SHORN_OK);
  CHECK(shorn_encode(s, (const char *)json.data, json.length, 0, &again, &e) == SHORN_OK);
  CHECK(again.length == payload.length && memcmp(again.data, payload.data, payload.length) == 0);
  /* The scratch was the schema's, and is given back; the output is the buffers'. */
  CHECK(mine->calls > calls && mine->blocks == held);
  CHECK(their_count->calls > their_calls && their_count->blocks == their_held + 3);

  query q;
  query_node node;
  shorn_buffer answer = {.allocator = theirs};
  query_path *path = query_path_parse(theirs, "$.o.\"\\t\"", 8, &e);
  CHECK(path && query_open(&q, s, payload.data, payload.length, 0, &e) == SHORN_OK);
  CHECK(mine->blocks == held + 1); /* the depth of each definition, while open */
  CHECK(path && query_find(&q, path, &node) == SHORN_OK && node.shape);
  CHECK(node.shape && query_json(&q, &node, &answer) == SHORN_OK);
  CHECK(answer.length == 1 && answer.data[0] == '3');
  query_close(&q);
  query_path_free(path);
  CHECK(mine->blocks == held);

  shorn_buffer refused = {.allocator = theirs};
  calls = mine->calls;
  CHECK(shorn_encode(s, "{\"p0\":[[[\"x\"]]]}", 16, 0, &refused, &e) == SHORN_ERROR_ENCODE);
  CHECK_STR(e.path, "$.p0[0][0][0]");
  CHECK(refused.length == 0 && mine->calls > calls && mine->blocks == held);

  shorn_buffer_free(&payload);
  shorn_buffer_free(&json);
  shorn_buffer_free(&again);
  shorn_buffer_free(&answer);
  shorn_buffer_free(&refused);
  CHECK(payload.allocator == theirs); /* kept for reuse */
  CHECK(their_count->blocks == their_held && mine->blocks == held);
}

/* A schema refused at a path (found by a search of the document, with its
 * own stack) holds nothing afterwards. */
static void refuse(const shorn_allocator *allocator, counting *count) {
  static const char bad[] = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strin\"}}}";
  shorn_schema *s;
  shorn_error e;
  unsigned long calls = count->calls;
  CHECK(shorn_schema_compile(bad, strlen(bad), allocator, &s, &e) == SHORN_ERROR_SCHEMA && !s);
  CHECK_STR(e.path, "#/properties/a");
  CHECK(count->calls > calls && count->blocks == 0);
}

int main(void) {
  make_texts();
  shorn_schema *a, *b;
  shorn_error e;
  CHECK(shorn_schema_compile(schema_text, strlen(schema_text), &allocator_a, &a, &e) == SHORN_OK);
  size_t held_a = count_a.blocks;
  CHECK(held_a > 0 && count_b.calls == 0); /* compiling with A asks nothing of B */
  CHECK(shorn_schema_compile(schema_text, strlen(schema_text), &allocator_b, &b, &e) == SHORN_OK);
  CHECK(count_b.blocks > 0 && count_a.blocks == held_a);

  use(a, &count_a, &allocator_b, &count_b);
  use(b, &count_b, &allocator_a, &count_a);
  shorn_schema_free(a);
  shorn_schema_free(b);
  refuse(&allocator_a, &count_a);
  refuse(&allocator_b, &count_b);

  CHECK(count_a.foreign == 0 && count_b.foreign == 0);
  CHECK(count_a.blocks == 0 && count_a.current == 0);
  CHECK(count_b.blocks == 0 && count_b.current == 0);
  CHECK(counted.calls == 0);
  printf("allocator: A asked %lu times, B %lu, each block freed by its own\n", count_a.calls,
         count_b.calls);
  return check_report("allocator");
}
