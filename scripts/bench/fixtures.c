/*
 * fixtures.c — the rows `make bench` measures, as JSON text, and their
 * schemas: a person, an event, a document, a wide row of numbers, an
 * article in nine languages, a row of three scalars, a catalog of events
 * keyed by id as a record and as an object; and the event types of
 * --types.  Drawn from one seeded generator, so that they are the same
 * on every run and every machine.
 */
#include <stdio.h>
#include <string.h>

#include "core/numbers/datetime.h"
#include "core/numbers/number.h"
#include "core/text/text.h"
#include "bench.h"

/* xorshift64*: fixtures are the same on every run and every machine. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
uint64_t fixture_random(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint64_t below(uint64_t n) { return fixture_random() % n; }
static bool chance(int percent) { return below(100) < (uint64_t)percent; }
static const char *pick(const char *const *list, size_t n) { return list[below(n)]; }
#define PICK(list) pick(list, sizeof list / sizeof *list)

static void append(shorn_buffer *b, const void *p, size_t n) {
  if (!buffer_append(b, p, n)) die("out of memory");
}
static void put(shorn_buffer *b, const char *s) { append(b, s, strlen(s)); }

/* A comma unless the container has just opened. */
static void separate(shorn_buffer *b) {
  char last = (char)b->data[b->length - 1];
  if (last != '{' && last != '[') put(b, ",");
}
static void key(shorn_buffer *b, const char *k) {
  separate(b);
  put(b, "\"");
  put(b, k);
  put(b, "\":");
}
static void string(shorn_buffer *b, const char *s, size_t n) {
  if (!buffer_json_string(b, s, n)) die("out of memory");
}
static void text(shorn_buffer *b, const shorn_buffer *t) { string(b, (const char *)t->data, t->length); }
static void number(shorn_buffer *b, double v) {
  char digits[NUMBER_TEXT_MAX];
  append(b, digits, number_format(v, digits));
}
static void boolean(shorn_buffer *b, bool v) { put(b, v ? "true" : "false"); }
static void date(shorn_buffer *b) {
  /* Milliseconds from 2020 to 2026. */
  char iso[DATETIME_TEXT_MAX];
  size_t n = datetime_format(1577836800000LL + (int64_t)below(6ull * 365 * 86400000), iso);
  string(b, iso, n);
}

static const char *const first_names[] = {"Grace", "Alan", "Ada", "Edsger", "Barbara", "Donald",
                                          "Frances", "Ken", "Margaret", "Dennis", "Radia", "Niklaus",
                                          "Sophie", "John", "Hedy", "Tim", "Katherine", "Linus",
                                          "Zoë", "José"};
static const char *const last_names[] = {"Hopper", "Turing", "Lovelace", "Dijkstra", "Liskov", "Knuth",
                                         "Allen", "Thompson", "Hamilton", "Ritchie", "Perlman", "Wirth",
                                         "Wilson", "McCarthy", "Lamarr", "Berners-Lee", "Johnson",
                                         "Torvalds", "Müller", "Ñúñez"};
static const char *const words[] = {
    "the", "of", "and", "schema", "payload", "value", "field", "record", "binary", "format",
    "query", "index", "table", "column", "byte", "string", "number", "array", "object", "key",
    "encoding", "decoder", "stream", "buffer", "cache", "page", "tree", "node", "merge", "sort",
    "fast", "small", "compact", "strict", "stable", "simple", "every", "which", "where", "when",
    "reads", "writes", "stores", "keeps", "drops", "finds", "joins", "counts", "checks", "builds",
    "is", "a", "to", "in", "it", "that", "for", "on", "with", "as", "by", "from", "at", "or",
    "café", "naïve", "déjà", "vu", "Zürich", "São", "Paulo", "—", "“quoted”", "über"};

static void sentence(shorn_buffer *t, int min, int spread) {
  int n = min + (int)below((uint64_t)spread);
  for (int i = 0; i < n; i++) {
    if (i) put(t, " ");
    const char *w = PICK(words);
    if (i == 0 && w[0] >= 'a' && w[0] <= 'z') {
      char c = (char)(w[0] - 'a' + 'A');
      append(t, &c, 1);
      put(t, w + 1);
    } else {
      put(t, w);
    }
  }
  put(t, chance(10) ? "?" : ".");
}

static void words_text(shorn_buffer *b, int min, int spread) {
  shorn_buffer t = {0};
  sentence(&t, min, spread);
  text(b, &t);
  shorn_buffer_free(&t);
}

/* "first.last" of a name's ASCII letters, as an email's local part is. */
static void ascii_letters(char *out, size_t cap, const char *first, const char *last) {
  size_t n = 0;
  for (const char *p = first; *p && n + 2 < cap; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-') out[n++] = *p;
  out[n++] = '.';
  for (const char *p = last; *p && n + 1 < cap; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-') out[n++] = *p;
  out[n] = 0;
}

static void person_name(shorn_buffer *b) {
  shorn_buffer t = {0};
  put(&t, PICK(first_names));
  put(&t, " ");
  put(&t, PICK(last_names));
  text(b, &t);
  shorn_buffer_free(&t);
}

static void person(shorn_buffer *b) {
  put(b, "{");
  key(b, "name"), person_name(b);
  key(b, "age"), number(b, (double)below(100));
  static const char *const sexes[] = {"\"F\"", "\"M\"", "\"X\""};
  key(b, "sex"), put(b, PICK(sexes));
  put(b, "}");
}
/* The fixtures' schemas carry the bounds a real one would (the validated
 * mode's cost is measured against them); none changes a wire shape. */
static const char person_schema[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100},"
    "\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150},\"sex\":{\"enum\":[\"F\",\"M\",\"X\"]}},"
    "\"required\":[\"name\",\"age\",\"sex\"],\"additionalProperties\":false}";

static void event(shorn_buffer *b) {
  static const char *const kinds[] = {"\"click\"", "\"view\"", "\"purchase\"", "\"signup\"", "\"error\""};
  static const char *const hosts[] = {"\"web-01.eu.example.com\"", "\"web-02.eu.example.com\"",
                                      "\"api.us.example.com\"", "\"10.0.3.17\""};
  static const char *const tags[] = {"\"mobile\"", "\"desktop\"", "\"beta\"", "\"returning\"",
                                     "\"campaign-2026\"", "\"a/b\""};
  put(b, "{");
  key(b, "id"), number(b, (double)(1000000 + below(90000000)));
  key(b, "kind"), put(b, PICK(kinds));
  key(b, "ts"), number(b, (double)(1767225600000LL + (int64_t)below(31536000000LL)) / 1000);
  key(b, "source"), put(b, "{");
  key(b, "host"), put(b, PICK(hosts));
  key(b, "port"), number(b, (double)(1024 + below(60000)));
  put(b, "}");
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(4); i > 0; i--) separate(b), put(b, PICK(tags));
  put(b, "]");
  key(b, "value"), number(b, (double)below(1000000) / 100);
  put(b, "}");
}
static const char event_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"id\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000000000},"
    "\"kind\":{\"enum\":[\"click\",\"view\",\"purchase\",\"signup\",\"error\"]},"
    "\"ts\":{\"type\":\"number\",\"minimum\":0},"
    "\"source\":{\"type\":\"object\",\"properties\":{\"host\":{\"type\":\"string\",\"maxLength\":253,"
    "\"pattern\":\"^[a-z0-9.-]+$\"},\"port\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":65535}},"
    "\"required\":[\"host\",\"port\"],\"additionalProperties\":false},"
    "\"tags\":{\"type\":\"array\",\"maxItems\":10,\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":32}},"
    "\"value\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1000000,\"multipleOf\":0.01}},"
    "\"required\":[\"id\",\"kind\",\"ts\",\"source\",\"tags\",\"value\"],\"additionalProperties\":false}";

/* A document as a CMS or a blog keeps one: 27 keys (7 optional), a body of
 * paragraphs, comments and links as arrays of objects. */
static void document(shorn_buffer *b) {
  static const char *const statuses[] = {"\"draft\"", "\"review\"", "\"published\"", "\"archived\""};
  static const char *const languages[] = {"\"en\"", "\"fr\"", "\"de\"", "\"es\"", "\"ja\""};
  static const char *const licenses[] = {"\"CC-BY-4.0\"", "\"CC0-1.0\"", "\"All rights reserved\""};
  put(b, "{");
  key(b, "id");
  char uuid[40];
  uint64_t hi = fixture_random(), lo = fixture_random();
  snprintf(uuid, sizeof uuid, "\"%08x-%04x-4%03x-%04x-%012llx\"", (unsigned)(hi >> 32),
           (unsigned)(hi >> 16) & 0xFFFF, (unsigned)hi & 0xFFF, 0x8000 | ((unsigned)(lo >> 48) & 0x3FFF),
           (unsigned long long)(lo & 0xFFFFFFFFFFFFull));
  put(b, uuid);
  shorn_buffer t = {0};
  for (int i = 0; i < 3; i++) {
    if (i) put(&t, "-");
    put(&t, words[below(50)]);
  }
  char n[24];
  snprintf(n, sizeof n, "-%u", (unsigned)below(100000));
  put(&t, n);
  key(b, "slug"), text(b, &t);
  key(b, "title"), words_text(b, 4, 6);
  if (chance(70)) key(b, "summary"), words_text(b, 15, 16);
  t.length = 0;
  int paragraphs = 2 + (int)below(4), words_in_body = 0;
  for (int p = 0; p < paragraphs; p++) {
    if (p) put(&t, "\n\n");
    for (int s = 2 + (int)below(4); s > 0; s--) {
      size_t before = t.length;
      if (t.length && t.data[t.length - 1] != '\n') put(&t, " ");
      sentence(&t, 6, 14);
      for (size_t i = before; i < t.length; i++) words_in_body += t.data[i] == ' ';
    }
  }
  key(b, "body"), text(b, &t);
  shorn_buffer_free(&t);
  key(b, "author"), put(b, "{");
  const char *first = PICK(first_names), *last = PICK(last_names);
  char author[96];
  key(b, "id"), number(b, (double)below(100000));
  snprintf(author, sizeof author, "\"%s %s\"", first, last);
  key(b, "name"), put(b, author);
  char at[64];
  ascii_letters(at, sizeof at, first, last);
  snprintf(author, sizeof author, "\"%s@example.com\"", at);
  key(b, "email"), put(b, author);
  put(b, "}");
  key(b, "created_at"), date(b);
  if (chance(40)) key(b, "updated_at"), date(b);
  key(b, "status"), put(b, PICK(statuses));
  key(b, "language"), put(b, PICK(languages));
  key(b, "version"), number(b, (double)(1 + below(20)));
  key(b, "word_count"), number(b, (double)words_in_body);
  key(b, "reading_time"), number(b, (double)(words_in_body / 20) / 10);
  key(b, "draft"), boolean(b, chance(20));
  if (chance(30)) key(b, "featured"), boolean(b, chance(50));
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(7); i > 0; i--) separate(b), words_text(b, 1, 2);
  put(b, "]");
  key(b, "categories"), put(b, "[");
  for (int i = 1 + (int)below(3); i > 0; i--) separate(b), words_text(b, 1, 1);
  put(b, "]");
  key(b, "comments"), put(b, "[");
  for (int i = (int)below(6); i > 0; i--) {
    separate(b), put(b, "{");
    key(b, "author"), person_name(b);
    key(b, "body"), words_text(b, 5, 25);
    key(b, "likes"), number(b, (double)below(500));
    key(b, "at"), date(b);
    put(b, "}");
  }
  put(b, "]");
  if (chance(50)) {
    key(b, "links"), put(b, "[");
    for (int i = (int)below(4); i > 0; i--) {
      separate(b), put(b, "{");
      snprintf(n, sizeof n, "%u", (unsigned)below(100000));
      key(b, "href"), put(b, "\"https://example.com/articles/"), put(b, n), put(b, "\"");
      key(b, "title"), words_text(b, 2, 5);
      put(b, "}");
    }
    put(b, "]");
  }
  if (chance(60)) key(b, "rating"), number(b, (double)below(500) / 100);
  key(b, "views"), number(b, (double)below(10000000));
  key(b, "likes"), number(b, (double)below(100000));
  key(b, "shares"), number(b, (double)below(10000));
  if (chance(25)) key(b, "license"), put(b, PICK(licenses));
  if (chance(35)) {
    key(b, "location"), put(b, "{");
    key(b, "lat"), number(b, (double)((int64_t)below(1800000) - 900000) / 10000);
    key(b, "lon"), number(b, (double)((int64_t)below(3600000) - 1800000) / 10000);
    put(b, "}");
  }
  key(b, "revision"), number(b, (double)((int64_t)below(1000) - 500));
  key(b, "score"), number(b, (double)fixture_random() / 18446744073709551616.0); /* all 17 digits */
  put(b, "}");
}

#define OBJ(props, required)                                                \
  "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required \
  "],\"additionalProperties\":false}"
#define STR(most) "{\"type\":\"string\",\"maxLength\":" #most "}"
#define UINT(most) "{\"type\":\"integer\",\"minimum\":0,\"maximum\":" #most "}"
#define INT "{\"type\":\"integer\"}"
#define NUM(least, most) "{\"type\":\"number\",\"minimum\":" #least ",\"maximum\":" #most "}"
#define BOOL "{\"type\":\"boolean\"}"
/* z.iso.datetime({ precision: 3 }), as Zod writes it: the format and the
 * pattern its check uses. */
#define DATE                                                                                                  \
  "{\"type\":\"string\",\"format\":\"date-time\",\"pattern\":\"^(?:(?:\\\\d\\\\d[2468][048]|\\\\d\\\\d[13579][26]|"        \
  "\\\\d\\\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\\\d|3[01])|"  \
  "(?:0[469]|11)-(?:0[1-9]|[12]\\\\d|30)|(?:02)-(?:0[1-9]|1\\\\d|2[0-8])))T(?:(?:[01]\\\\d|2[0-3]):[0-5]\\\\d:"     \
  "[0-5]\\\\d\\\\.\\\\d{3}(?:Z))$\"}"
/* z.email(), as Zod writes it. */
#define EMAIL                                                                                             \
  "{\"type\":\"string\",\"format\":\"email\",\"pattern\":\"^(?:[A-Za-z0-9_'+\\\\-]+\\\\.)*[A-Za-z0-9_'+\\\\-]*"  \
  "[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\\\-]*\\\\.)+[A-Za-z]{2,}$\"}"
#define ARR(items, most) "{\"type\":\"array\",\"maxItems\":" #most ",\"items\":" items "}"
static const char document_schema[] = OBJ(
    "\"id\":{\"type\":\"string\",\"format\":\"uuid\"},\"slug\":{\"type\":\"string\",\"maxLength\":200,"
    "\"pattern\":\"^[a-z0-9-]+$\"},\"title\":" STR(200) ",\"summary\":" STR(2000)
    ",\"body\":" STR(100000) ",\"author\":" OBJ("\"id\":" UINT(1000000000) ",\"name\":" STR(100) ",\"email\":" EMAIL,
                                         "\"id\",\"name\",\"email\"")
    ",\"created_at\":" DATE ",\"updated_at\":" DATE
    ",\"status\":{\"enum\":[\"draft\",\"review\",\"published\",\"archived\"]}"
    ",\"language\":{\"enum\":[\"en\",\"fr\",\"de\",\"es\",\"ja\"]}"
    ",\"version\":" UINT(1000) ",\"word_count\":" UINT(10000000) ",\"reading_time\":" NUM(0, 100000) ",\"draft\":" BOOL
    ",\"featured\":" BOOL ",\"tags\":" ARR(STR(100), 20) ",\"categories\":" ARR(STR(100), 10)
    ",\"comments\":" ARR(OBJ("\"author\":" STR(100) ",\"body\":" STR(5000) ",\"likes\":" UINT(1000000000) ",\"at\":" DATE,
                             "\"author\",\"body\",\"likes\",\"at\""), 100)
    ",\"links\":" ARR(OBJ("\"href\":{\"type\":\"string\",\"format\":\"uri\"},\"title\":" STR(200),
                          "\"href\",\"title\""), 20)
    ",\"rating\":" NUM(0, 5) ",\"views\":" UINT(1000000000000) ",\"likes\":" UINT(1000000000000) ",\"shares\":" UINT(1000000000000)
    ",\"license\":" STR(50) ",\"location\":" OBJ("\"lat\":" NUM(-90, 90) ",\"lon\":" NUM(-180, 180), "\"lat\",\"lon\"")
    ",\"revision\":" INT ",\"score\":{\"type\":\"number\",\"minimum\":0,\"exclusiveMaximum\":1}",
    "\"id\",\"slug\",\"title\",\"body\",\"author\",\"created_at\",\"status\",\"language\","
    "\"version\",\"word_count\",\"reading_time\",\"draft\",\"tags\",\"categories\",\"comments\","
    "\"views\",\"likes\",\"shares\",\"revision\",\"score\"");

/* 30 numbers, as a metrics row holds them: f01-f10 counters, f11-f20
 * signed integers, f21-f25 two-decimal readings, f26-f30 computed ratios
 * with all their digits. */
static void wide(shorn_buffer *b) {
  put(b, "{");
  for (int i = 1; i <= 30; i++) {
    char k[8];
    snprintf(k, sizeof k, "f%02d", i);
    key(b, k);
    if (i <= 10)
      number(b, (double)below(1000000000));
    else if (i <= 20)
      number(b, (double)((int64_t)below(2000000) - 1000000));
    else if (i <= 25)
      number(b, (double)((int64_t)below(2000000) - 1000000) / 100);
    else
      number(b, (double)(fixture_random() >> 11) / 9007199254740992.0 * 100);
  }
  put(b, "}");
}
static char wide_schema[4096];
static void make_wide_schema(void) {
  shorn_buffer b = {0};
  put(&b, "{\"type\":\"object\",\"properties\":{");
  for (int i = 1; i <= 30; i++) {
    char p[160];
    snprintf(p, sizeof p, "%s\"f%02d\":%s", i > 1 ? "," : "", i,
             i <= 10   ? UINT(1000000000)
             : i <= 20 ? "{\"type\":\"integer\",\"minimum\":-1000000,\"maximum\":1000000}"
             : i <= 25 ? "{\"type\":\"number\",\"minimum\":-10000,\"maximum\":10000,\"multipleOf\":0.01}"
                       : NUM(0, 100));
    put(&b, p);
  }
  put(&b, "},\"required\":[");
  for (int i = 1; i <= 30; i++) {
    char p[16];
    snprintf(p, sizeof p, "%s\"f%02d\"", i > 1 ? "," : "", i);
    put(&b, p);
  }
  put(&b, "],\"additionalProperties\":false}");
  if (b.length >= sizeof wide_schema) die("wide schema too long");
  memcpy(wide_schema, b.data, b.length);
  shorn_buffer_free(&b);
}

/* A three-field record, all scalars: what a row costs when the function's
 * work is a few bytes and the call around it is most of it. */
static void record(shorn_buffer *b) {
  put(b, "{");
  key(b, "id"), number(b, (double)below(10000000));
  key(b, "ok"), boolean(b, chance(70));
  key(b, "qty"), number(b, (double)((int64_t)below(2000) - 1000));
  put(b, "}");
}
static const char record_schema[] =
    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000000},"
    "\"ok\":{\"type\":\"boolean\"},\"qty\":{\"type\":\"integer\",\"minimum\":-1000,\"maximum\":1000}},"
    "\"required\":[\"id\",\"ok\",\"qty\"],\"additionalProperties\":false}";

/* A catalog as citm_catalog holds its events: ids mapped to small objects,
 * the ids nine digits each and in rising order, as JSON.stringify writes
 * an object's index-like keys.  The same rows under two schemas: a record
 * (`additionalProperties`, the ids data) and an object declaring every id
 * of the pool as an optional field, so that what record keys cost shows
 * between the two. */
#define CATALOG_IDS 48
static uint32_t catalog_id(int i) { return 138586341u + 1237u * (uint32_t)i + (uint32_t)i * 7919u % 613u; }

static void catalog_row(shorn_buffer *b) {
  static const char *const names[] = {
      "Orchestre Philharmonique de Radio France", "Quatuor Ébène", "Le Mariage de Figaro",
      "Récital de piano", "Les Arts Florissants", "Concert du Nouvel An", "Carmen", "La Traviata",
      "Ensemble intercontemporain", "Orchestre de chambre de Paris", "Don Giovanni", "Les Noces"};
  put(b, "{");
  for (int i = 0; i < CATALOG_IDS; i++) {
    /* The first and last ids are in every row: the early and late paths. */
    if (i && i < CATALOG_IDS - 1 && !chance(75)) continue;
    char k[16];
    snprintf(k, sizeof k, "%u", (unsigned)catalog_id(i));
    key(b, k), put(b, "{");
    key(b, "id"), number(b, (double)catalog_id(i));
    const char *name = PICK(names);
    key(b, "name"), string(b, name, strlen(name));
    key(b, "topicIds"), put(b, "[");
    for (int t = 1 + (int)below(3); t > 0; t--) separate(b), number(b, (double)(107888604 + below(300000000)));
    put(b, "]");
    key(b, "venueCode"), number(b, (double)below(1000));
    put(b, "}");
  }
  put(b, "}");
}
/* Both fixtures draw their rows from a generator of their own, seeded
 * alike, so that row i is the same under both schemas and the rows of the
 * other fixtures are as they were. */
static void catalog_from(shorn_buffer *b, uint64_t *state) {
  uint64_t shared = rng_state;
  rng_state = *state;
  catalog_row(b);
  *state = rng_state;
  rng_state = shared;
}
static uint64_t catalog_state[2] = {0x2545F4914F6CDD1Dull, 0x2545F4914F6CDD1Dull};
static void catalog(shorn_buffer *b) { catalog_from(b, &catalog_state[0]); }
static void catalog_object(shorn_buffer *b) { catalog_from(b, &catalog_state[1]); }
#define CATALOG_EVENT                                                                          \
  OBJ("\"id\":" UINT(1000000000) ",\"name\":" STR(200) ",\"topicIds\":" ARR(UINT(1000000000), 20) \
      ",\"venueCode\":" UINT(100000),                                                            \
      "\"id\",\"name\",\"topicIds\",\"venueCode\"")
static const char catalog_schema[] = "{\"type\":\"object\",\"additionalProperties\":" CATALOG_EVENT "}";
static char catalog_object_schema[32768];
static void make_catalog_object_schema(void) {
  shorn_buffer b = {0};
  put(&b, "{\"type\":\"object\",\"properties\":{");
  for (int i = 0; i < CATALOG_IDS; i++) {
    char p[32];
    snprintf(p, sizeof p, "%s\"%u\":", i ? "," : "", (unsigned)catalog_id(i));
    put(&b, p), put(&b, CATALOG_EVENT);
  }
  put(&b, "},\"additionalProperties\":false}");
  if (b.length >= sizeof catalog_object_schema) die("catalog object schema too long");
  memcpy(catalog_object_schema, b.data, b.length);
  shorn_buffer_free(&b);
}

/* Text as articles in many languages hold it: CJK and Hangul (three bytes
 * a character, no spaces between Chinese and Japanese words), accented
 * Latin and Vietnamese, emoji, quotation marks that JSON escapes and those
 * it does not, tabs and newlines inside the strings, paragraphs from one
 * short sentence to several long ones. */
typedef struct language {
  const char *code;
  const char *const *words;
  size_t count;
  bool spaced;                     /* words are separated by spaces */
  const char *stop, *open, *close; /* the full stop and quotation marks */
} language;

static const char *const zh_words[] = {
    "数据", "模式", "字段", "查询", "存储", "格式", "二进制", "文本", "性能", "用户", "我们", "他们",
    "这个", "一个", "没有", "可以", "因为", "所以", "但是", "已经", "时间", "问题", "系统", "服务器",
    "记录", "编码", "解码", "速度", "的", "是", "在", "和", "了", "有", "更", "很", "快", "小"};
static const char *const ja_words[] = {
    "データ", "スキーマ", "フィールド", "検索", "保存", "形式", "文字列", "性能", "利用者", "私たち",
    "これ", "それ", "時間", "問題", "記録", "符号化", "速度", "の", "は", "を", "に", "が", "で",
    "と", "です", "ます", "した", "する", "ない", "とても", "速い", "小さい"};
static const char *const ko_words[] = {"데이터", "스키마", "필드", "검색", "저장", "형식", "문자열",
                                       "성능", "사용자", "우리는", "이것은", "시간", "문제", "기록",
                                       "빠르다", "작은", "그리고", "하지만", "있다", "없다"};
static const char *const vi_words[] = {"cơ", "sở", "dữ", "liệu", "lược", "đồ", "truy", "vấn", "trường",
                                       "người", "dùng", "được", "những", "điều", "nhanh", "nhỏ", "và",
                                       "là", "của", "trong", "không", "có", "thời", "gian", "đề", "hệ",
                                       "thống", "bản", "ghi", "mã", "hoá", "tốc", "độ"};
static const char *const fr_words[] = {"le", "la", "les", "des", "une", "données", "schéma", "requête",
                                       "champ", "très", "déjà", "été", "élève", "où", "ça", "garçon",
                                       "français", "problème", "système", "rapide", "légère", "à", "et",
                                       "qui", "être", "enregistrement", "encodé", "décodé", "vitesse"};
static const char *const de_words[] = {"der", "die", "das", "und", "Daten", "Schema", "Abfrage", "Feld",
                                       "über", "für", "schön", "Größe", "Straße", "Prüfung", "Übersicht",
                                       "müssen", "können", "schnell", "klein", "Zeichenkette", "Speicher",
                                       "Geschwindigkeit", "ist", "nicht", "mit", "auf"};
static const char *const es_words[] = {"el", "la", "los", "datos", "esquema", "consulta", "campo", "año",
                                       "niño", "también", "más", "rápido", "pequeño", "información",
                                       "registro", "codificación", "velocidad", "está", "sí", "qué",
                                       "cómo", "y", "de", "en", "señal", "España"};
static const char *const pt_words[] = {"os", "dados", "esquema", "consulta", "campo", "ação", "não",
                                       "coração", "informação", "rápido", "pequeno", "também", "você",
                                       "está", "é", "já", "até", "registro", "codificação", "velocidade",
                                       "e", "de", "em", "mãe", "pão"};
#define LANGUAGE(code, list, spaced, stop, open, close) \
  {code, list, sizeof list / sizeof *list, spaced, stop, open, close}
static const language languages[] = {
    LANGUAGE("zh", zh_words, false, "。", "“", "”"), LANGUAGE("ja", ja_words, false, "。", "「", "」"),
    LANGUAGE("ko", ko_words, true, ".", "“", "”"),   LANGUAGE("vi", vi_words, true, ".", "\"", "\""),
    LANGUAGE("fr", fr_words, true, ".", "« ", " »"), LANGUAGE("de", de_words, true, ".", "„", "“"),
    LANGUAGE("es", es_words, true, ".", "\"", "\""), LANGUAGE("pt", pt_words, true, ".", "\"", "\""),
    LANGUAGE("en", words, true, ".", "\"", "\""),
};
static const char *const emoji[] = {"🙂", "🚀", "📦", "✅", "👍", "🎉", "⚡", "🔥"};

/* Words of `l` into t: n of them, one perhaps quoted; returns n. */
static int phrase(shorn_buffer *t, const language *l, int n) {
  int quoted = chance(15) ? (int)below((uint64_t)n) : -1;
  for (int i = 0; i < n; i++) {
    if (i && l->spaced) put(t, " ");
    if (i == quoted) put(t, l->open);
    put(t, pick(l->words, l->count));
    if (i == quoted) put(t, l->close);
  }
  return n;
}

/* A paragraph of one to six sentences, some with an emoji, some followed
 * by a list on lines of their own, each indented by a tab; returns its
 * words. */
static int paragraph(shorn_buffer *t, const language *l) {
  int n = 0;
  for (int s = 1 + (int)below(6); s > 0; s--) {
    if (t->length && l->spaced) put(t, " ");
    n += phrase(t, l, 3 + (int)below(16));
    put(t, l->stop);
    if (chance(8)) put(t, PICK(emoji));
  }
  if (chance(20))
    for (int i = 1 + (int)below(4); i > 0; i--) put(t, "\n\t- "), n += phrase(t, l, 1 + (int)below(5));
  return n;
}

static void article(shorn_buffer *b) {
  const language *l = &languages[below(sizeof languages / sizeof *languages)];
  shorn_buffer t = {0};
  put(b, "{");
  key(b, "id"), number(b, (double)below(100000000));
  phrase(&t, l, 2 + (int)below(7));
  key(b, "title"), text(b, &t);
  key(b, "lang"), put(b, "\""), put(b, l->code), put(b, "\"");
  key(b, "published"), date(b);
  if (chance(60)) {
    t.length = 0;
    phrase(&t, l, 8 + (int)below(20));
    put(&t, l->stop);
    key(b, "summary"), text(b, &t);
  }
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(6); i > 0; i--) {
    t.length = 0;
    phrase(&t, l, 1);
    separate(b), text(b, &t);
  }
  put(b, "]");
  int n = 0;
  key(b, "paragraphs"), put(b, "[");
  for (int p = 1 + (int)below(8); p > 0; p--) {
    t.length = 0;
    n += paragraph(&t, l);
    separate(b), text(b, &t);
  }
  put(b, "]");
  key(b, "words"), number(b, (double)n);
  put(b, "}");
  shorn_buffer_free(&t);
}
static const char article_schema[] = OBJ(
    "\"id\":" UINT(1000000000) ",\"title\":" STR(300)
    ",\"lang\":{\"enum\":[\"zh\",\"ja\",\"ko\",\"vi\",\"fr\",\"de\",\"es\",\"pt\",\"en\"]}"
    ",\"published\":" DATE ",\"summary\":" STR(2000) ",\"tags\":" ARR(STR(50), 10) ",\"paragraphs\":"
    ARR(STR(20000), 50) ",\"words\":" UINT(10000000),
    "\"id\",\"title\",\"lang\",\"published\",\"tags\",\"paragraphs\",\"words\"");

/* Rows are drawn in this order from one generator: a fixture added at the
 * end leaves the rows of those before it as they were. */
const fixture fixtures[FIXTURES] = {
    {"person", person_schema, person, "$.age", "$.sex", "3 fields: a name, an age, an enum"},
    {"event", event_schema, event, "$.id", "$.value", "6 fields: nested object, array, floats"},
    {"document", document_schema, document, "$.author.id", "$.word_count",
     "27 keys (7 optional), long strings, arrays of objects"},
    {"wide", wide_schema, wide, "$.f01", "$.f30", "30 numbers"},
    {"article", article_schema, article, "$.id", "$.words",
     "paragraphs in 9 languages: CJK, accents, emoji, quotes, tabs, newlines"},
    {"record", record_schema, record, "$.id", "$.qty", "3 scalars: an integer, a boolean, an integer"},
    {"catalog", catalog_schema, catalog, "$.\"138586341\".id", "$.\"138644582\".venueCode",
     "a record: about 36 ids to objects of a name, two integers, an array"},
    {"catalog_object", catalog_object_schema, catalog_object, "$.\"138586341\".id", "$.\"138644582\".venueCode",
     "the same as an object: 48 optional fields"},
};

/* The schemas made rather than written out. */
void make_schemas(void) {
  make_wide_schema();
  make_catalog_object_schema();
}

/* An event of type t, for --types: the same 23 fields in every type, one
 * of them named after it. */
char *type_schema(int t) {
  return sqlite3_mprintf(
      OBJ("\"id\":" UINT(1000000000000) ",\"type_%d\":" STR(40) ",\"at\":" DATE
          ",\"user\":" OBJ("\"id\":" UINT(1000000000) ",\"email\":" EMAIL ",\"name\":" STR(100),
                           "\"id\",\"email\",\"name\"")
          ",\"amount\":" NUM(0, 1000000) ",\"currency\":{\"enum\":[\"EUR\",\"USD\",\"GBP\",\"JPY\"]}"
          ",\"note\":{\"type\":[\"string\",\"null\"],\"maxLength\":500}"
          ",\"ref\":{\"type\":[\"string\",\"null\"],\"maxLength\":64},\"quantity\":" UINT(100000)
          ",\"price\":" NUM(0, 100000) ",\"discount\":" NUM(0, 1) ",\"ok\":" BOOL ",\"source\":" STR(100)
          ",\"device\":{\"enum\":[\"web\",\"ios\",\"android\"]},\"ip\":" STR(45) ",\"country\":" STR(2)
          ",\"session\":" STR(64) ",\"retries\":" UINT(10) ",\"latency_ms\":" NUM(0, 60000)
          ",\"tags\":" ARR(STR(32), 10) ",\"version\":" UINT(1000) ",\"flagged\":" BOOL
          ",\"comment\":{\"type\":[\"string\",\"null\"],\"maxLength\":1000}",
          "\"id\",\"type_%d\",\"at\",\"user\",\"amount\",\"currency\",\"note\",\"ref\",\"quantity\",\"price\","
          "\"discount\",\"ok\",\"source\",\"device\",\"ip\",\"country\",\"session\",\"retries\",\"latency_ms\","
          "\"tags\",\"version\",\"flagged\",\"comment\""),
      t, t);
}

static void nullable_words(shorn_buffer *b, int percent) {
  if (chance(percent))
    words_text(b, 3, 8);
  else
    put(b, "null");
}

void typed_event(shorn_buffer *b, int t) {
  static const char *const currencies[] = {"\"EUR\"", "\"USD\"", "\"GBP\"", "\"JPY\""};
  static const char *const devices[] = {"\"web\"", "\"ios\"", "\"android\""};
  static const char *const countries[] = {"\"FR\"", "\"DE\"", "\"US\"", "\"JP\"", "\"BR\""};
  static const char *const tags[] = {"\"mobile\"", "\"beta\"", "\"returning\"", "\"campaign\""};
  char k[32], local[64], email[96];
  put(b, "{");
  key(b, "id"), number(b, (double)below(1000000000));
  snprintf(k, sizeof k, "type_%d", t);
  key(b, k), put(b, "\"kind\"");
  key(b, "at"), date(b);
  const char *first = PICK(first_names), *last = PICK(last_names);
  ascii_letters(local, sizeof local, first, last);
  snprintf(email, sizeof email, "%s@example.com", local);
  key(b, "user"), put(b, "{");
  key(b, "id"), number(b, (double)below(1000000));
  key(b, "email"), string(b, email, strlen(email));
  key(b, "name"), person_name(b);
  put(b, "}");
  key(b, "amount"), number(b, (double)below(10000000) / 100);
  key(b, "currency"), put(b, PICK(currencies));
  key(b, "note"), nullable_words(b, 30);
  key(b, "ref"), chance(50) ? put(b, "\"ORD-12345\"") : put(b, "null");
  key(b, "quantity"), number(b, (double)below(100));
  key(b, "price"), number(b, (double)below(1000000) / 100);
  key(b, "discount"), number(b, (double)below(100) / 100);
  key(b, "ok"), boolean(b, chance(90));
  key(b, "source"), put(b, "\"checkout\"");
  key(b, "device"), put(b, PICK(devices));
  key(b, "ip"), put(b, "\"192.0.2.17\"");
  key(b, "country"), put(b, PICK(countries));
  key(b, "session"), put(b, "\"5f0c1d2e-8a7b-4c3d-9e8f-0a1b2c3d4e5f\"");
  key(b, "retries"), number(b, (double)below(3));
  key(b, "latency_ms"), number(b, (double)below(500000) / 100);
  key(b, "tags"), put(b, "[");
  for (int i = (int)below(3); i > 0; i--) separate(b), put(b, PICK(tags));
  put(b, "]");
  key(b, "version"), number(b, (double)below(10));
  key(b, "flagged"), boolean(b, chance(5));
  key(b, "comment"), nullable_words(b, 10);
  put(b, "}");
}
