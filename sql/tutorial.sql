-- shorn in SQLite, a walk-through.  `make demo` runs it in the sqlite3 shell
-- with the extension loaded, on an in-memory database.  `.echo on` prints
-- each statement, with the comments above it, before its result: everything
-- below is what the reader sees.
.headers on
.mode box
.echo on

-- ==========================================================================
-- shorn in SQLite, a walk-through
-- ==========================================================================
-- shorn writes a JSON value as its values alone, in the order a JSON Schema
-- gives them: no keys, no quotes, no type tags.  The schema is what makes
-- the bytes readable again, so the database keeps its schemas, by name.
-- Each step below shows its SQL, then what SQLite answers.

-- --------------------------------------------------------------------------
-- Step 1. The registry
-- --------------------------------------------------------------------------
-- One virtual table holds the schemas.  It is stored in the database file
-- like any other table, and takes part in transactions like one.
CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;

-- Register a schema under a name.  This is the JSON Schema Zod writes for
--   z.object({ name: z.string(), age: z.int().nonnegative(), sex: z.enum(["M", "F", "X"]) })
INSERT INTO shorn_schemas(name, schema) VALUES ('person',
  '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0,"maximum":9007199254740991},"sex":{"type":"string","enum":["M","F","X"]}},"required":["name","age","sex"],"additionalProperties":false}');

-- The registry works out the wire shape (the signature) and its 4-byte
-- fingerprint.  A schema that does not compile is refused, and so is a
-- name or a wire shape already there.
SELECT name, fingerprint, signature FROM shorn_schemas;

-- --------------------------------------------------------------------------
-- Step 2. Encode by name
-- --------------------------------------------------------------------------
-- shorn_encode takes JSON text and a schema, here by its registered name.
CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
INSERT INTO people(payload)
  SELECT shorn_encode(value, 'person') FROM json_each('[
    {"name": "Grace", "age": 45, "sex": "F"},
    {"name": "Ada", "age": 36, "sex": "F"},
    {"name": "Alan", "age": 41, "sex": "M"}
  ]');

-- Grace is the age (45, one byte: 2d), the name's length and letters, and
-- the position of "F" in the enum's sorted members (0).
SELECT id, hex(payload) AS payload FROM people;

-- --------------------------------------------------------------------------
-- Step 3. Decode by name
-- --------------------------------------------------------------------------
-- The result is JSON text (keys in canonical order), and SQLite's JSON
-- functions take it as JSON.
SELECT id, shorn_decode(payload, 'person') AS person FROM people;

-- Its fields work in a WHERE clause: who is over 40?
SELECT shorn_decode(payload, 'person') ->> '$.name' AS name
  FROM people WHERE shorn_decode(payload, 'person') ->> '$.age' > 40;

-- --------------------------------------------------------------------------
-- Step 4. Sizes
-- --------------------------------------------------------------------------
-- The same rows as JSON text, for comparison.
SELECT id,
       length(payload) AS shorn_bytes,
       length(shorn_decode(payload, 'person')) AS json_bytes
  FROM people;

-- And in total:
SELECT sum(length(payload)) AS shorn_total,
       sum(length(shorn_decode(payload, 'person'))) AS json_total
  FROM people;

-- --------------------------------------------------------------------------
-- Step 5. A schema that changes
-- --------------------------------------------------------------------------
-- A name registered with fp_bytes puts its version's fingerprint in front
-- of every payload, so that it can take new versions while its rows live.
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('member',
  '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}', 4);
CREATE TABLE events(id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
INSERT INTO events(payload) VALUES (shorn_encode('{"name":"Grace","age":45}', 'member'));

-- Version 2 adds an optional email and a locale with a default.  It is taken
-- because it reads everything version 1 wrote; a change it could not read
-- (age as a string, say) would be refused, saying where and why.
INSERT INTO shorn_schemas(name, schema, version) VALUES ('member',
  '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"email":{"type":"string","format":"email"},"locale":{"type":"string","default":"en"}},"required":["name","age","locale"],"additionalProperties":false}', 2);
INSERT INTO events(payload) VALUES
  (shorn_encode('{"name":"Alan","age":41,"email":"alan@example.org"}', 'member'));

-- Every row reads in the newest shape; the fingerprint says who wrote it.
SELECT id, shorn_payload_version(payload, 'member') AS version,
       shorn_decode(payload, 'member') AS value
  FROM events;

-- shorn_upgrade rewrites the older rows in version 2, whenever convenient.
UPDATE events SET payload = shorn_upgrade(payload, 'member');
SELECT shorn_payload_version(payload, 'member') AS version, count(*) FROM events GROUP BY version;

-- --------------------------------------------------------------------------
-- Step 6. Index by name
-- --------------------------------------------------------------------------
-- The functions are deterministic, so a name works in generated columns,
-- CHECK constraints and indexes.  (An index keeps what the name meant when
-- each row was written: never delete and re-register a name an index uses.)
-- shorn_extract reads the one field from the bytes, where
-- shorn_decode(...) ->> '$.name' would decode the whole payload first.
ALTER TABLE people ADD COLUMN name TEXT
  GENERATED ALWAYS AS (shorn_extract(payload, 'person', '$.name')) VIRTUAL;
CREATE INDEX people_by_name ON people(name);

-- The generated column reads like any other:
SELECT id, name FROM people WHERE name = 'Ada';

-- and the query plan searches the index rather than decoding every row:
EXPLAIN QUERY PLAN SELECT id FROM people WHERE name = 'Ada';

-- --------------------------------------------------------------------------
-- Step 7. Read a field without decoding the rest
-- --------------------------------------------------------------------------
-- shorn_extract answers as json_extract would over the decoded JSON, but
-- reads the bytes directly: nothing is built for the fields it skips.
SELECT id, shorn_extract(payload, 'person', '$.name') AS name,
       shorn_type(payload, 'person', '$.age') AS age_type
  FROM people;

-- shorn_each lists an object's members, as json_each does over JSON:
SELECT key, value, type FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person');

-- shorn_set changes a field as json_set would change the decoded JSON, but
-- writes only that field's bytes; the rest of the row is copied.
UPDATE people SET payload = shorn_set(payload, 'person', '$.age', 46) WHERE id = 1;
SELECT id, shorn_extract(payload, 'person', '$.age') AS age FROM people WHERE id = 1;

-- A damaged payload is an error for shorn_decode; shorn_valid and
-- shorn_error ask without failing.
SELECT shorn_valid(x'2d0547', 'person') AS valid, shorn_error(x'2d0547', 'person') AS error;

-- --------------------------------------------------------------------------
-- Step 8. The shapes JSON has no type for
-- --------------------------------------------------------------------------
-- A date-time string is stored as its epoch milliseconds (six bytes), a
-- BigInt as its magnitude, a Set as an array that refuses repeats.
SELECT hex(shorn_encode('"2026-09-03T12:00:00.000Z"', '{"type":"string","format":"date-time"}')) AS date_time,
       hex(shorn_encode('"-256"', '{"type":"string","x-shorn":"bigint"}')) AS bigint,
       hex(shorn_encode('["a","b"]',
         '{"type":"array","items":{"type":"string"},"uniqueItems":true,"x-shorn":"set"}')) AS set_of_strings;
