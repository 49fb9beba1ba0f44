/*
 * cache.c — compiled schemas shared by the connections of a process, and
 * each connection's cache of what a text, a name or a fingerprint stands
 * for (docs/registry.md, "The schema cache").
 *
 * The process table is keyed by the schema's text and guarded by a mutex of
 * SQLite's (none in a single-threaded SQLite); a schema is compiled under
 * it, so that connections missing the same text at once compile it once.  A
 * connection finds its own entries without the mutex: the table is taken
 * only on the connection's miss and when an entry lets go of its schema.
 */
#include <stddef.h>
#include <string.h>

#include "sqlite/cache.h"

#include "core/base/memory.h"
#include "core/schema/schema.h"

#ifndef SQLITE_MUTEX_STATIC_MAIN /* before 3.35 it was SQLITE_MUTEX_STATIC_MASTER */
#define SQLITE_MUTEX_STATIC_MAIN 2
#endif

/* A single-threaded SQLite has no mutex functions (left out of sqlite3.c,
 * null in a loadable extension's API table) and needs none: compiled with
 * SQLITE_THREADSAFE=0 the cache calls none, and where sqlite3_threadsafe()
 * is 0 it allocates none, so that a NULL mutex means one thread. */
#if defined(SQLITE_THREADSAFE) && SQLITE_THREADSAFE == 0
static inline sqlite3_mutex *shared_mutex_alloc(int kind) {
  (void)kind;
  return NULL;
}
static inline void shared_mutex_free(sqlite3_mutex *mutex) { (void)mutex; }
static inline void shared_lock(sqlite3_mutex *mutex) { (void)mutex; }
static inline void shared_unlock(sqlite3_mutex *mutex) { (void)mutex; }
#else
static inline sqlite3_mutex *shared_mutex_alloc(int kind) {
  return sqlite3_threadsafe() ? sqlite3_mutex_alloc(kind) : NULL;
}
static inline void shared_mutex_free(sqlite3_mutex *mutex) {
  if (mutex) sqlite3_mutex_free(mutex);
}
static inline void shared_lock(sqlite3_mutex *mutex) {
  if (mutex) sqlite3_mutex_enter(mutex);
}
static inline void shared_unlock(sqlite3_mutex *mutex) {
  if (mutex) sqlite3_mutex_leave(mutex);
}
#endif

/* ---- hashing ------------------------------------------------------------- */

static inline uint64_t cache_rotate(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

#define PRIME1 0x9E3779B185EBCA87ull
#define PRIME2 0xC2B2AE3D27D4EB4Full

static inline uint64_t round_word(uint64_t acc, uint64_t word) { return cache_rotate(acc + word * PRIME2, 31) * PRIME1; }

/* Four words at a time in four independent lanes (xxHash64's round): a
 * column's schema text is hashed on every row that misses the entry found
 * last, and a byte at a time cost a third of a row's decode. */
uint64_t shorn_text_hash(const char *text, size_t n) {
  const uint8_t *p = (const uint8_t *)text;
  uint64_t a = PRIME1 + PRIME2, b = PRIME2, c = 0, d = 0 - PRIME1, h;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = round_word(a, load_le64(p + i));
    b = round_word(b, load_le64(p + i + 8));
    c = round_word(c, load_le64(p + i + 16));
    d = round_word(d, load_le64(p + i + 24));
  }
  h = cache_rotate(a, 1) + cache_rotate(b, 7) + cache_rotate(c, 12) + cache_rotate(d, 18) + n;
  for (; i + 8 <= n; i += 8) h = cache_rotate(h ^ round_word(0, load_le64(p + i)), 27) * PRIME1 + PRIME2;
  for (; i < n; i++) h = cache_rotate(h ^ (p[i] * PRIME1), 11) * PRIME2;
  h ^= h >> 33;
  h *= PRIME2;
  h ^= h >> 29;
  return h ^ (h >> 32);
}

/* ---- the process table --------------------------------------------------- */

static struct {
  sqlite3_mutex *mutex; /* while connections > 0 */
  int connections;
  shorn_compiled **buckets;
  size_t bucket_count, count, bytes;
  unsigned long long compilations;
  /* The schemas' patterns, each compiled once for all of them; their
   * memory is `pattern_bytes`, and in `bytes`.  Used under the mutex alone. */
  pattern_engine *patterns;
  shorn_allocator pattern_allocator;
  size_t pattern_bytes;
} cache_shared;

static void *cache_pattern_realloc(void *context, void *block, size_t size) {
  (void)context;
  size_t before = block ? (size_t)sqlite3_msize(block) : 0;
  void *p = sqlite3_realloc64(block, size);
  if (p || !size) {
    size_t change = (size_t)(p ? sqlite3_msize(p) : 0) - before;
    cache_shared.bytes += change;
    cache_shared.pattern_bytes += change;
  }
  return p;
}

static void cache_pattern_free(void *context, void *block) {
  (void)context;
  size_t size = block ? (size_t)sqlite3_msize(block) : 0;
  cache_shared.bytes -= size;
  cache_shared.pattern_bytes -= size;
  sqlite3_free(block);
}

int shorn_shared_open(void) {
  sqlite3_mutex *guard = shared_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN);
  shared_lock(guard);
  if (!cache_shared.connections) cache_shared.mutex = shared_mutex_alloc(SQLITE_MUTEX_FAST);
  int rc = cache_shared.mutex || !guard ? SQLITE_OK : SQLITE_NOMEM; /* no guard: one thread, no mutex */
  if (rc == SQLITE_OK) cache_shared.connections++;
  shared_unlock(guard);
  return rc;
}

void shorn_shared_close(void) {
  sqlite3_mutex *guard = shared_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN);
  shared_lock(guard);
  if (--cache_shared.connections == 0) {
    /* Every schema went with the entries and statements that held it. */
    schema_patterns_free(cache_shared.patterns);
    sqlite3_free(cache_shared.buckets);
    shared_mutex_free(cache_shared.mutex);
    memset(&cache_shared, 0, sizeof cache_shared);
  }
  shared_unlock(guard);
}

void shorn_shared_counts(unsigned long long *schemas, unsigned long long *patterns, unsigned long long *bytes,
                         unsigned long long *compilations) {
  shared_lock(cache_shared.mutex);
  *schemas = cache_shared.count;
  *patterns = schema_patterns_count(cache_shared.patterns);
  *bytes = cache_shared.bytes;
  *compilations = cache_shared.compilations;
  shared_unlock(cache_shared.mutex);
}

static void *counting_realloc(void *context, void *block, size_t size) {
  shorn_compiled *c = context;
  sqlite3_uint64 before = c->compiling && block ? sqlite3_msize(block) : 0;
  void *p = sqlite3_realloc64(block, size);
  if (c->compiling && (p || !size)) c->bytes += (size_t)(p ? sqlite3_msize(p) : 0) - (size_t)before;
  return p;
}

static void counting_free(void *context, void *block) {
  shorn_compiled *c = context;
  if (c->compiling && block) c->bytes -= (size_t)sqlite3_msize(block);
  sqlite3_free(block);
}

/* Compile `text` with SQLite's allocator, counting what the schema holds. */
static shorn_compiled *compile_counted(const char *text, int n, uint64_t hash, shorn_error *error) {
  shorn_compiled *c = sqlite3_malloc64(sizeof *c + (size_t)n + 1);
  if (!c) {
    error->code = SHORN_ERROR_NOMEM;
    return NULL;
  }
  memset(c, 0, sizeof *c);
  c->allocator = (shorn_allocator){counting_realloc, counting_free, c};
  c->compiling = true;
  c->bytes = (size_t)sqlite3_msize(c);
  if (schema_compile_sharing(text, (size_t)n, &c->allocator, cache_shared.patterns, &c->schema, error) != SHORN_OK) {
    sqlite3_free(c);
    return NULL;
  }
  c->compiling = false;
  c->pattern_bytes = schema_pattern_bytes(c->schema);
  c->hash = hash;
  c->text_length = n;
  memcpy(c->text, text, (size_t)n);
  c->text[n] = 0;
  return c;
}

/* Twice the buckets when the table holds more schemas than buckets; a
 * table that cannot grow keeps longer chains. */
static void shared_grow(void) {
  size_t count = cache_shared.bucket_count ? 2 * cache_shared.bucket_count : 64;
  shorn_compiled **buckets = sqlite3_malloc64(count * sizeof *buckets);
  if (!buckets) return;
  memset(buckets, 0, count * sizeof *buckets);
  for (size_t i = 0; i < cache_shared.bucket_count; i++)
    for (shorn_compiled *c = cache_shared.buckets[i], *next; c; c = next) {
      next = c->next;
      c->next = buckets[c->hash & (count - 1)];
      buckets[c->hash & (count - 1)] = c;
    }
  sqlite3_free(cache_shared.buckets);
  cache_shared.buckets = buckets;
  cache_shared.bucket_count = count;
}

shorn_compiled *shorn_compiled_get(const char *text, int n, uint64_t hash, unsigned long long *compilations,
                                   shorn_error *error) {
  shared_lock(cache_shared.mutex);
  shorn_compiled *c = NULL;
  if (cache_shared.count >= cache_shared.bucket_count) shared_grow();
  if (cache_shared.buckets) {
    c = cache_shared.buckets[hash & (cache_shared.bucket_count - 1)];
    while (c && !(c->hash == hash && c->text_length == n && memcmp(c->text, text, (size_t)n) == 0)) c = c->next;
  }
  if (!cache_shared.patterns) {
    cache_shared.pattern_allocator = (shorn_allocator){cache_pattern_realloc, cache_pattern_free, NULL};
    cache_shared.patterns = schema_patterns_new(&cache_shared.pattern_allocator, &cache_shared.pattern_bytes);
  }
  if (c) {
    c->refs++;
  } else if (!cache_shared.buckets || !cache_shared.patterns) {
    error->code = SHORN_ERROR_NOMEM;
  } else {
    cache_shared.compilations++;
    (*compilations)++;
    if ((c = compile_counted(text, n, hash, error))) {
      c->refs = 1;
      shorn_compiled **bucket = &cache_shared.buckets[hash & (cache_shared.bucket_count - 1)];
      c->next = *bucket;
      *bucket = c;
      cache_shared.count++;
      cache_shared.bytes += c->bytes;
    }
  }
  shared_unlock(cache_shared.mutex);
  return c;
}

void shorn_compiled_retain(shorn_compiled *c) {
  shared_lock(cache_shared.mutex);
  c->refs++;
  shared_unlock(cache_shared.mutex);
}

void shorn_compiled_release(void *p) {
  shorn_compiled *c = p;
  if (!c) return;
  shared_lock(cache_shared.mutex);
  bool last = --c->refs == 0;
  if (last) {
    shorn_compiled **link = &cache_shared.buckets[c->hash & (cache_shared.bucket_count - 1)];
    while (*link != c) link = &(*link)->next;
    *link = c->next;
    cache_shared.count--;
    cache_shared.bytes -= c->bytes;
    /* Under the mutex: the schema lets go of the patterns it shares. */
    shorn_schema_free(c->schema);
  }
  shared_unlock(cache_shared.mutex);
  if (last) sqlite3_free(c);
}

/* ---- names' versions ----------------------------------------------------- */

void shorn_lineage_free(shorn_lineage *l) {
  /* A plan points into two versions' schemas: the plans go first. */
  for (int i = 0; i < l->count; i++) evolve_plan_free(l->versions[i].plan);
  for (int i = 0; i < l->count; i++) {
    if (l->versions[i].compiled) shorn_compiled_release(l->versions[i].compiled);
    sqlite3_free(l->versions[i].text);
  }
  sqlite3_free(l->versions);
  sqlite3_free(l);
}

/* What a lineage just read holds, to charge its entry: the record, its
 * versions and their texts (their schemas are charged as they compile). */
static size_t lineage_bytes(shorn_lineage *l) {
  size_t bytes = (size_t)sqlite3_msize(l) + (size_t)sqlite3_msize(l->versions);
  for (int i = 0; i < l->count; i++) bytes += (size_t)sqlite3_msize(l->versions[i].text);
  return bytes;
}

/* Its entry goes: freed unless a binding pins it, then by the last unpin. */
static void lineage_let_go(shorn_lineage *l) {
  if (!l) return;
  l->holder = NULL;
  if (!l->pins) shorn_lineage_free(l);
}

void shorn_lineage_unpin(shorn_lineage *l) {
  if (--l->pins == 0 && !l->holder) shorn_lineage_free(l);
}

/* ---- a connection's cache ------------------------------------------------ */

/* Where an entry is: in the table and the ring (a text entry), in the
 * table alone (an alias), in the transient place, or nowhere, left to the
 * statement that pins it. */
enum { PLACE_LOOSE, PLACE_RING, PLACE_ALIAS, PLACE_TRANSIENT };

/* Once the cache is full, one miss in ADMIT_ONE_IN takes an entry's place. */
#define ADMIT_ONE_IN 8

static bool cache_entry_valid(const shorn_cache *cache, const shorn_cache_entry *e) {
  return e->kind == SHORN_KEY_TEXT || e->generation == cache->generation;
}

static bool cache_entry_is(const shorn_cache_entry *e, shorn_key kind, const char *key, int n) {
  return e->kind == kind && e->key_length == n && memcmp(e->key, key, (size_t)n) == 0;
}

static void cache_entry_free(shorn_cache_entry *e) {
  shorn_compiled_release(e->compiled);
  lineage_let_go(e->lineage);
  sqlite3_free(e);
}

static void unlink_from(shorn_cache_entry **link, shorn_cache_entry *e, size_t offset) {
  while (*link != e) link = (shorn_cache_entry **)((char *)*link + offset);
  *link = *(shorn_cache_entry **)((char *)e + offset);
}

static void ring_remove(shorn_cache *cache, shorn_cache_entry *e) {
  if (e->after == e) {
    cache->hand = NULL;
  } else {
    e->before->after = e->after;
    e->after->before = e->before;
    if (cache->hand == e) cache->hand = e->after;
  }
}

/* Take `e` out of the table (and the ring, with its aliases), or out of the
 * transient place; freed unless a statement pins it. */
static void cache_entry_let_go(shorn_cache *cache, shorn_cache_entry *e) {
  if (e->place == PLACE_RING || e->place == PLACE_ALIAS) {
    unlink_from(&cache->buckets[e->hash & (cache->bucket_count - 1)], e, offsetof(shorn_cache_entry, next));
    cache->count--;
    cache->bytes -= e->bytes;
  }
  if (e->place == PLACE_RING) {
    ring_remove(cache, e);
    while (e->aliases) cache_entry_let_go(cache, e->aliases);
  } else if (e->place == PLACE_ALIAS) {
    unlink_from(&e->target->aliases, e, offsetof(shorn_cache_entry, next_alias));
  } else if (e->place == PLACE_TRANSIENT) {
    cache->transient = NULL;
  }
  if (cache->last == e) cache->last = NULL;
  e->place = PLACE_LOOSE;
  if (!e->pins) cache_entry_free(e);
}

void shorn_cache_unpin(void *p) {
  shorn_cache_entry *e = p;
  if (--e->pins == 0 && e->place == PLACE_LOOSE) cache_entry_free(e);
}

/* The clock: the first entry at or after the hand not found since the hand
 * last passed it, every entry passed over losing that mark. */
static void evict_one(shorn_cache *cache, const shorn_cache_entry *keep) {
  shorn_cache_entry *e = cache->hand;
  while (e->referenced || e == keep) {
    e->referenced = false;
    e = e->after;
  }
  cache->hand = e->after;
  cache_entry_let_go(cache, e);
}

static void evict_to(shorn_cache *cache, size_t bytes, const shorn_cache_entry *keep) {
  while (cache->bytes > bytes && cache->hand && !(cache->hand == keep && keep->after == keep))
    evict_one(cache, keep);
}

void shorn_cache_limit(shorn_cache *cache, size_t limit) {
  cache->limit = limit;
  evict_to(cache, limit, NULL);
}

shorn_cache_entry *shorn_cache_find(shorn_cache *cache, shorn_key kind, const char *key, int n, uint64_t *hash) {
  shorn_cache_entry *e = cache->last;
  if (e && cache_entry_is(e, kind, key, n) && cache_entry_valid(cache, e)) {
    cache->hits++;
    (e->target ? e->target : e)->referenced = true;
    return e;
  }
  *hash = shorn_text_hash(key, (size_t)n) ^ kind;
  e = cache->bucket_count ? cache->buckets[*hash & (cache->bucket_count - 1)] : NULL;
  while (e && !(e->hash == *hash && cache_entry_is(e, kind, key, n))) e = e->next;
  if (e && !cache_entry_valid(cache, e)) {
    cache_entry_let_go(cache, e);
    e = NULL;
  }
  if (!e) {
    cache->misses++;
    return NULL;
  }
  cache->hits++;
  (e->target ? e->target : e)->referenced = true;
  cache->last = e;
  return e;
}

static bool cache_table_grow(shorn_cache *cache) {
  size_t count = cache->bucket_count ? 2 * cache->bucket_count : 64;
  shorn_cache_entry **buckets = sqlite3_malloc64(count * sizeof *buckets);
  if (!buckets) return cache->bucket_count != 0;
  memset(buckets, 0, count * sizeof *buckets);
  for (size_t i = 0; i < cache->bucket_count; i++)
    for (shorn_cache_entry *e = cache->buckets[i], *next; e; e = next) {
      next = e->next;
      e->next = buckets[e->hash & (count - 1)];
      buckets[e->hash & (count - 1)] = e;
    }
  sqlite3_free(cache->buckets);
  cache->buckets = buckets;
  cache->bucket_count = count;
  return true;
}

static void cache_table_insert(shorn_cache *cache, shorn_cache_entry *e, unsigned char place) {
  shorn_cache_entry **bucket = &cache->buckets[e->hash & (cache->bucket_count - 1)];
  e->next = *bucket;
  *bucket = e;
  e->place = place;
  cache->count++;
  cache->bytes += e->bytes;
}

/* Into the ring just behind the hand: the last entry the clock looks at. */
static void ring_insert(shorn_cache *cache, shorn_cache_entry *e) {
  shorn_cache_entry *hand = cache->hand;
  if (!hand) {
    e->before = e->after = cache->hand = e;
  } else {
    e->after = hand;
    e->before = hand->before;
    hand->before->after = e;
    hand->before = e;
  }
}

/* A new entry for `key`, holding `compiled` (the caller's reference, let go
 * when memory runs out). */
static shorn_cache_entry *cache_entry_new(shorn_cache *cache, shorn_key kind, const char *key, int n, uint64_t hash,
                                    shorn_compiled *compiled) {
  size_t stored = kind == SHORN_KEY_TEXT ? 0 : (size_t)n;
  shorn_cache_entry *e = NULL;
  if (cache->count < cache->bucket_count || cache_table_grow(cache)) e = sqlite3_malloc64(sizeof *e + stored);
  if (!e) {
    shorn_compiled_release(compiled);
    return NULL;
  }
  memset(e, 0, sizeof *e);
  e->compiled = compiled;
  e->key = kind == SHORN_KEY_TEXT ? compiled->text : memcpy(e->stored_key, key, stored);
  e->key_length = n;
  e->kind = (unsigned char)kind;
  e->hash = hash;
  e->generation = cache->generation;
  e->bytes = (size_t)sqlite3_msize(e) + (kind == SHORN_KEY_TEXT ? compiled->bytes + compiled->pattern_bytes : 0);
  return e;
}

shorn_cache_entry *shorn_cache_store(shorn_cache *cache, uint64_t hash, shorn_compiled *compiled) {
  shorn_cache_entry *e = cache_entry_new(cache, SHORN_KEY_TEXT, compiled->text, compiled->text_length, hash, compiled);
  if (!e) return NULL;
  if (cache->bytes + e->bytes <= cache->limit || cache->full_misses++ % ADMIT_ONE_IN == 0) {
    cache_table_insert(cache, e, PLACE_RING);
    ring_insert(cache, e);
    evict_to(cache, cache->limit, e);
  } else {
    /* Used by this call (and its statement, if pinned), then let go at the
     * next refusal. */
    if (cache->transient) cache_entry_let_go(cache, cache->transient);
    e->place = PLACE_TRANSIENT;
    cache->transient = e;
  }
  cache->last = e;
  return e;
}

/* `e` holds `l` from now on, in place of any it held. */
static void cache_entry_hold(shorn_cache_entry *e, shorn_lineage *l) {
  lineage_let_go(e->lineage);
  e->lineage = l;
  if (l) l->holder = e;
}

shorn_cache_entry *shorn_cache_alias(shorn_cache *cache, shorn_key kind, const char *key, int n, uint64_t hash,
                                     shorn_cache_entry *target, shorn_lineage *lineage) {
  if (target->place != PLACE_RING) {
    /* The entry standing in for the name, used by this call and let go
     * with its lineage at the next refusal. */
    cache_entry_hold(target, lineage);
    return target;
  }
  shorn_compiled_retain(target->compiled);
  shorn_cache_entry *e = cache_entry_new(cache, kind, key, n, hash, target->compiled);
  if (!e) {
    if (lineage) shorn_lineage_free(lineage);
    return NULL;
  }
  cache_entry_hold(e, lineage);
  if (lineage) e->bytes += lineage_bytes(lineage);
  cache_table_insert(cache, e, PLACE_ALIAS);
  e->target = target;
  e->next_alias = target->aliases;
  target->aliases = e;
  evict_to(cache, cache->limit, target);
  cache->last = e;
  return e;
}

void shorn_cache_charge(shorn_cache *cache, shorn_lineage *l, size_t bytes) {
  shorn_cache_entry *e = l->holder;
  if (!e || e->place != PLACE_ALIAS) return;
  e->bytes += bytes;
  cache->bytes += bytes;
  evict_to(cache, cache->limit, e->target);
}

void shorn_cache_free(shorn_cache *cache) {
  while (cache->hand) cache_entry_let_go(cache, cache->hand);
  if (cache->transient) cache_entry_let_go(cache, cache->transient);
  sqlite3_free(cache->buckets);
  memset(cache, 0, sizeof *cache);
}
