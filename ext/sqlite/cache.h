/*
 * cache.h — compiled schemas: one table per process, keyed by the schema's
 * text and shared by every connection, and each connection's cache in
 * front of it, keyed by text, name or fingerprint and bounded in bytes.
 */
#ifndef SHORN_CACHE_H
#define SHORN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3ext.h>

#include "core/base/platform.h"
#include "core/evolve/evolve.h"
#include "shorn.h"

#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* A compiled schema, immutable once compiled, shared by the connections of
 * the process, and freed when the last reference goes. */
typedef struct shorn_compiled {
  shorn_schema *schema;
  size_t bytes;  /* the schema's memory and this record's */
  /* The patterns' it shares with the process's other schemas: counted
   * once by the process, in full by each cache that holds the schema. */
  size_t pattern_bytes;
  uint64_t hash; /* of text */
  /* The process table's, changed under its mutex alone. */
  struct shorn_compiled *next;
  int refs;
  /* sqlite3_realloc64 and sqlite3_free, counting into `bytes` while
   * `compiling`; set before the schema is shared, read-only after. */
  shorn_allocator allocator;
  bool compiling;
  int text_length;
  char text[];
} shorn_compiled;

/* A connection arrives, or goes: the process table lives while any
 * connection has the extension, so that sqlite3_shutdown, which needs every
 * connection closed, finds none of it.  SQLITE_OK or SQLITE_NOMEM. */
SHORN_PRIVATE int shorn_shared_open(void);
SHORN_PRIVATE void shorn_shared_close(void);

/* The hash the caches key a text by. */
SHORN_PRIVATE uint64_t shorn_text_hash(const char *text, size_t n);

/* A reference to `text` compiled (hash is shorn_text_hash's): the one the
 * process holds, or compiled now, then *compilations counts it.  NULL with
 * `error` set when the text does not compile or memory ran out. */
SHORN_PRIVATE shorn_compiled *shorn_compiled_get(const char *text, int n, uint64_t hash,
                                                 unsigned long long *compilations, shorn_error *error);
SHORN_PRIVATE void shorn_compiled_retain(shorn_compiled *c);
SHORN_PRIVATE void shorn_compiled_release(void *compiled);

/* What the process holds: schemas, their patterns, the bytes of both,
 * compilations so far. */
SHORN_PRIVATE void shorn_shared_counts(unsigned long long *schemas, unsigned long long *patterns,
                                       unsigned long long *bytes, unsigned long long *compilations);

/* What a connection's entry is keyed by.  A text key is the schema itself
 * and holds forever; the others are read from the registry and hold only
 * for the generation they were read in. */
typedef enum shorn_key {
  SHORN_KEY_TEXT,       /* inline JSON Schema text */
  SHORN_KEY_NAME,       /* a registered name */
  SHORN_KEY_FINGERPRINT /* a registered fingerprint, in hex */
} shorn_key;

typedef struct shorn_cache_entry shorn_cache_entry;
typedef struct shorn_lineage shorn_lineage;
struct shorn_cache_entry {
  shorn_cache_entry *next;          /* in its bucket */
  shorn_cache_entry *before, *after; /* in the clock's ring */
  shorn_compiled *compiled;          /* a reference */
  shorn_cache_entry *aliases;        /* a text entry's: the names and fingerprints that stand for it */
  shorn_cache_entry *target;         /* an alias's: the text entry it stands for */
  shorn_cache_entry *next_alias;
  shorn_lineage *lineage;            /* a name's versions, read with it */
  const char *key;                   /* the schema's own text, or stored_key */
  uint64_t hash;
  size_t bytes; /* charged to the cache: this record, and a text entry's compiled schema */
  unsigned generation;
  int key_length;
  int pins; /* statements' auxdata holding it */
  unsigned char kind;
  unsigned char place; /* PLACE_*, in cache.c */
  bool referenced;     /* found since the clock's hand last passed */
  char stored_key[];
};

/* One version of a name. */
typedef struct shorn_version {
  int number;
  unsigned char fingerprint[4]; /* its first `width` bytes: the lineage's width */
  char *text;                                      /* its schema, compiled on the first payload that needs it */
  int text_length;
  shorn_compiled *compiled; /* a reference, or NULL */
  evolve_plan *plan;        /* how it is read as the newest version, once a payload needed it */
} shorn_version;

/* A registered name's versions, oldest first, as the registry had them in
 * one generation of the cache.  It goes with the name's entry, which holds
 * only for that generation and is charged its bytes, unless pinned then;
 * immutable but for `compiled` and `plan`. */
struct shorn_lineage {
  shorn_cache_entry *holder; /* the entry it goes with; NULL once that went */
  int pins;
  int width; /* fp_bytes: fingerprint bytes before each payload, 0 when bare */
  int count;
  shorn_version *versions;
  int name_length;
  char name[];
};

SHORN_PRIVATE void shorn_lineage_free(shorn_lineage *lineage);

/* A binding holding a lineage keeps it past its entry until unpinned. */
static inline void shorn_lineage_pin(shorn_lineage *l) { l->pins++; }
SHORN_PRIVATE void shorn_lineage_unpin(shorn_lineage *lineage);

/* One per connection: a hash table over a clock's ring, within `limit`
 * bytes.  Once full, a miss is admitted one time in a few (the others are
 * used once and let go), so that a round robin over more schemas than fit
 * keeps most of them rather than replacing every entry before its turn. */
typedef struct shorn_cache {
  shorn_cache_entry **buckets;
  size_t bucket_count, count, bytes, limit;
  shorn_cache_entry *hand;      /* the ring's entry the clock looks at next */
  shorn_cache_entry *last;      /* found or stored last: a column's schema is asked for row after row */
  shorn_cache_entry *transient; /* the miss last refused admission */
  unsigned generation;
  unsigned long long hits, misses, compilations;
  unsigned long long full_misses; /* misses while full, for admission */
} shorn_cache;

/* The default limit of a connection's cache, in bytes. */
#define SHORN_CACHE_BYTES (256 * 1024 * 1024)

/* The entry valid for `key`, or NULL (a miss: *hash is the key's, for
 * shorn_cache_store).  Valid until the next store or limit. */
SHORN_PRIVATE shorn_cache_entry *shorn_cache_find(shorn_cache *cache, shorn_key kind, const char *key, int n,
                                                  uint64_t *hash);

/* Keep `compiled` under its text, taking over the caller's reference;
 * NULL when memory ran out (the reference let go).  The entry is valid
 * until the next store, alias or limit. */
SHORN_PRIVATE shorn_cache_entry *shorn_cache_store(shorn_cache *cache, uint64_t hash, shorn_compiled *compiled);

/* Keep a name or a fingerprint as an alias of the text entry `target`: it
 * is charged its own bytes and a name's lineage's (taken over from the
 * caller, NULL for a fingerprint), since the schema's are the text
 * entry's, and goes when the text entry does.  Returns the alias, or
 * `target` itself when that is not kept (see shorn_cache_store), holding
 * the lineage until it goes; NULL when memory ran out (the lineage let go).
 * Valid as shorn_cache_store's result is. */
SHORN_PRIVATE shorn_cache_entry *shorn_cache_alias(shorn_cache *cache, shorn_key kind, const char *key, int n,
                                                   uint64_t hash, shorn_cache_entry *target, shorn_lineage *lineage);

/* Charge the entry holding `lineage` for `bytes` it took since it was kept
 * (an older version compiled), evicting others down to the limit. */
SHORN_PRIVATE void shorn_cache_charge(shorn_cache *cache, shorn_lineage *lineage, size_t bytes);

/* What was read from the registry is stale from now on. */
static inline void shorn_cache_invalidate(shorn_cache *cache) { cache->generation++; }

/* Set the limit and evict down to it. */
SHORN_PRIVATE void shorn_cache_limit(shorn_cache *cache, size_t limit);

/* An entry held by a statement's auxdata stays valid, evicted or not, until
 * unpinned. */
static inline void shorn_cache_pin(shorn_cache_entry *e) { e->pins++; }
SHORN_PRIVATE void shorn_cache_unpin(void *entry);

SHORN_PRIVATE void shorn_cache_free(shorn_cache *cache);

#endif
