-- The schema cache (docs/registry.md): shorn_config's limit, shorn_stats'
-- counts, eviction under a small limit that still finds most of a round
-- robin, and names and fingerprints that follow the registry.
.mode list
.bail off
CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
CREATE TEMP TABLE s(i INTEGER PRIMARY KEY, schema TEXT);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 40)
INSERT INTO s SELECT i, '{"type":"object","properties":{"k' || i || '":{"type":"integer"}}}' FROM k;
CREATE TEMP TABLE passes(p INTEGER PRIMARY KEY);
INSERT INTO passes VALUES (1), (2), (3), (4), (5), (6), (7), (8);
CREATE TEMP VIEW stats AS SELECT shorn_stats() AS j;

SELECT '-- the setting';
SELECT shorn_config('cache_bytes');
SELECT shorn_config('cache_bytes', 1000000), shorn_config('cache_bytes');
SELECT shorn_config('cache_size');
SELECT shorn_config('cache_bytes', -1);
SELECT shorn_config('cache_bytes', 'a lot');
SELECT shorn_config('cache_bytes', 1.5);
SELECT shorn_config(NULL);

SELECT '-- not from a view, a trigger or an index of the database: it changes the connection';
CREATE VIEW sneaky AS SELECT shorn_config('cache_bytes', 0);
SELECT * FROM sneaky;
SELECT shorn_config('cache_bytes');

SELECT '-- forty schemas compiled once each, then found';
SELECT count(shorn_encode('{}', schema)) FROM s;
SELECT j ->> 'compilations', j ->> 'misses', j ->> 'hits', j ->> 'entries', j ->> 'bytes' > 0,
       j ->> '$.process.schemas', j ->> '$.process.bytes' <= j ->> 'bytes' FROM stats;
SELECT count(shorn_encode('{}', schema)) FROM s;
SELECT j ->> 'compilations', j ->> 'misses', j ->> 'hits', j ->> 'entries' FROM stats;

SELECT '-- a quarter of the bytes: the entries fit the limit, and a round robin of';
SELECT '-- eight passes over forty schemas finds most of those kept, not none';
CREATE TEMP TABLE before AS SELECT j ->> 'hits' AS hits, j ->> 'misses' AS misses, j ->> 'bytes' AS bytes FROM stats;
SELECT shorn_config('cache_bytes', (SELECT bytes / 4 FROM before)) = (SELECT bytes / 4 FROM before);
SELECT j ->> 'entries' BETWEEN 8 AND 12, j ->> 'bytes' <= j ->> 'cache_bytes' FROM stats;
SELECT count(shorn_encode('{}', schema)) FROM passes CROSS JOIN s;
SELECT j ->> 'hits' - hits >= 24, j ->> 'misses' - misses < 300, j ->> 'hits' + j ->> 'misses' - hits - misses,
       j ->> 'entries' <= 13 FROM stats, before;
SELECT shorn_config('cache_bytes', 0);
SELECT j ->> 'entries', j ->> 'bytes' FROM stats;

SELECT '-- a constant schema holds for its statement while the others evict it';
SELECT count(shorn_decode(shorn_encode('{}', schema), schema)), count(shorn_encode('{"k1":1}', '{"type":"object","properties":{"k1":{"type":"integer"}}}')) FROM s;
SELECT shorn_config('cache_bytes', 268435456);

SELECT '-- a name and a fingerprint are aliases of their text: three entries, one schema';
SELECT shorn_config('cache_bytes', 0), shorn_config('cache_bytes', 268435456);
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"integer","minimum":0}');
SELECT shorn_decode(x'01', 'flag'), shorn_decode(shorn_encode('1', 'flag', 4)), shorn_decode(x'01', '{"type":"integer","minimum":0}');
SELECT j ->> 'entries', j ->> '$.process.schemas' FROM stats;

SELECT '-- the registry changes: the name follows, the stale entries go';
BEGIN;
DELETE FROM shorn_schemas WHERE name = 'flag';
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"boolean"}');
COMMIT;
SELECT shorn_decode(x'01', 'flag');
SELECT j ->> 'entries' FROM stats;
SELECT shorn_decode(x'0d32320f01');
SELECT j ->> 'entries' FROM stats;

SELECT '-- ATTACH and DETACH: only main.shorn_schemas is read';
ATTACH ':memory:' AS other;
CREATE TABLE other.shorn_schemas_data(id INTEGER PRIMARY KEY, name TEXT, schema TEXT, signature TEXT, fingerprint TEXT);
INSERT INTO other.shorn_schemas_data VALUES (1, 'flag', '{"type":"string"}', '', '');
SELECT shorn_decode(x'01', 'flag');
DETACH other;
SELECT shorn_decode(x'01', 'flag');

SELECT '-- names read round robin from a column, more of them than a few: each name''s';
SELECT '-- versions are read and its older version compiled once, not once a row';
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 24)
INSERT INTO shorn_schemas(name, schema, fp_bytes)
SELECT 'event' || i, '{"type":"object","properties":{"e' || i || '":{"type":"integer"}},"required":["e' || i || '"]}', 4 FROM k;
CREATE TABLE events(name TEXT, payload BLOB);
INSERT INTO events SELECT name, shorn_encode(json_object('e' || substr(name, 6), 1), name) FROM shorn_schemas WHERE name LIKE 'event%';
INSERT INTO shorn_schemas(name, schema, version)
SELECT name, '{"type":"object","properties":{"e' || substr(name, 6) || '":{"type":"integer"},"seen":{"type":"boolean","default":false}},"required":["e' || substr(name, 6) || '","seen"]}', 2
FROM shorn_schemas WHERE name LIKE 'event%';
SELECT shorn_config('cache_bytes', 0), shorn_config('cache_bytes', 268435456);
CREATE TEMP TABLE before_names AS SELECT j ->> 'compilations' AS compilations, j ->> 'misses' AS misses FROM stats;
SELECT count(shorn_decode(payload, name)), min(shorn_decode(payload, name) ->> 'seen') FROM passes CROSS JOIN events;
SELECT j ->> 'compilations' - compilations, j ->> 'misses' - misses FROM stats, before_names;

SELECT '-- shorn_registry_version(): NULL with no transaction on main; the same while the registry is; moved by its writes, rollbacks and commits';
SELECT shorn_registry_version() IS NULL;
CREATE TEMP TABLE seen(step INTEGER PRIMARY KEY, what TEXT, version INTEGER);
CREATE TEMP VIEW moved AS SELECT what, version > (SELECT version FROM seen s WHERE s.step = seen.step - 1) FROM seen WHERE step > 1;
INSERT INTO seen(what, version) SELECT 'start', shorn_registry_version() FROM main.sqlite_schema LIMIT 1;
SELECT shorn_decode(x'01', 'flag');
INSERT INTO seen(what, version) SELECT 'a read', shorn_registry_version() FROM main.sqlite_schema LIMIT 1;
INSERT INTO shorn_schemas(name, schema) VALUES ('mark', '{"type":"integer"}');
INSERT INTO seen(what, version) SELECT 'a commit', shorn_registry_version() FROM main.sqlite_schema LIMIT 1;
BEGIN;
INSERT INTO shorn_schemas(name, schema) VALUES ('note', '{"type":"string"}');
SELECT 'a write', shorn_registry_version() > (SELECT max(version) FROM seen);
ROLLBACK;
INSERT INTO seen(what, version) SELECT 'its rollback', shorn_registry_version() FROM main.sqlite_schema LIMIT 1;
SELECT * FROM moved;

SELECT '-- main in memory, which no other connection writes: a name found by one statement is found by the next, outside a transaction too';
SELECT shorn_decode(x'01', 'flag');
CREATE TEMP TABLE before_autocommit AS SELECT j ->> 'misses' AS misses FROM stats;
SELECT shorn_decode(x'01', 'flag');
SELECT shorn_decode(x'01', 'flag');
SELECT j ->> 'misses' - misses FROM stats, before_autocommit;

SELECT '-- a pattern is compiled once for all the schemas that have it, and freed with the last of them';
SELECT shorn_config('cache_bytes', 0), shorn_config('cache_bytes', 268435456);
CREATE TEMP TABLE before_patterns AS
SELECT j ->> '$.process.schemas' AS schemas, j ->> '$.process.patterns' AS patterns, j ->> '$.process.bytes' AS bytes FROM stats;
SELECT hex(shorn_encode('"ab-1"', '{"type":"string","pattern":"^[a-z]+-[0-9]$"}'));
SELECT hex(shorn_encode('"cd-2"', '{"type":"string","maxLength":9,"pattern":"^[a-z]+-[0-9]$"}'));
SELECT shorn_encode('"cd-x"', '{"type":"string","maxLength":9,"pattern":"^[a-z]+-[0-9]$"}');
SELECT j ->> '$.process.schemas' - schemas, j ->> '$.process.patterns' - patterns FROM stats, before_patterns;
SELECT shorn_config('cache_bytes', 0), shorn_config('cache_bytes', 268435456);
SELECT j ->> '$.process.patterns' - patterns, j ->> '$.process.bytes' - bytes FROM stats, before_patterns;
