-- Dispatch: a number in the schema's place is fp_bytes, and the registered
-- schema whose fingerprint of that width starts the payload decodes it.

CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema) VALUES
  ('point', '{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"]}'),
  ('word', '{"type":"string"}');
SELECT name, shorn_fingerprint(name, 1), shorn_fingerprint(name, 2), shorn_fingerprint(name, 3), fingerprint
  FROM shorn_schemas ORDER BY name;

CREATE TABLE events(w INTEGER, payload BLOB);
WITH widths(w) AS (VALUES (1), (2), (3), (4))
INSERT INTO events SELECT w, shorn_encode('{"x":3,"y":-4}', 'point', w) FROM widths
  UNION ALL SELECT w, shorn_encode('"hi"', 'word', w) FROM widths;

.print -- shorn_decode(payload, fp_bytes) at each width; 4 is what shorn_decode(payload) reads
SELECT w, shorn_decode(payload, w) FROM events ORDER BY rowid;
SELECT shorn_decode(payload) = shorn_decode(payload, 4) FROM events WHERE w = 4;
-- A REAL with an integral value is a width, as Node binds numbers; TEXT is a schema.
SELECT shorn_decode(payload, 3.0) FROM events WHERE w = 3 ORDER BY rowid;
SELECT shorn_decode(payload, '3') FROM events WHERE w = 3;

.print -- the query functions take fp_bytes in the schema's place too
SELECT w, shorn_extract(payload, w, '$.x'), shorn_extract(payload, w, '$.y', '$.x') FROM events WHERE rowid <= 4;
SELECT w, shorn_type(payload, w), shorn_type(payload, w, '$.x') FROM events ORDER BY rowid;
SELECT w, shorn_valid(payload, w), shorn_error(payload, w) FROM events ORDER BY rowid;
SELECT key, value FROM shorn_each((SELECT payload FROM events WHERE rowid = 2), 2);
SELECT fullkey, type FROM shorn_tree((SELECT payload FROM events WHERE rowid = 1), 1, '$.y');
-- A payload that fails to decode with the schema it names is invalid, as is
-- one that is no BLOB; one that names no registered schema is an error, as
-- an unknown name is.
SELECT shorn_valid(x'66', 1), shorn_error(x'66', 1), shorn_valid(42, 1), shorn_error(42, 1);
SELECT shorn_valid(x'1bad', 1);

.print -- errors
SELECT shorn_decode(x'1e3122', 3);
SELECT shorn_decode(x'12', 2);
SELECT shorn_decode(x'', 1);
SELECT shorn_decode(payload, 5) FROM events WHERE w = 1;
SELECT shorn_decode(payload, 1.5) FROM events WHERE w = 1;
SELECT shorn_decode(payload, 1, 1) FROM events WHERE w = 1;
SELECT shorn_extract(payload, 1, 1, '$.x') FROM events WHERE w = 1;
SELECT shorn_type(payload, 1, 1) FROM events WHERE w = 1;
SELECT shorn_valid(payload, 1, 1) FROM events WHERE w = 1;
SELECT * FROM shorn_each((SELECT payload FROM events WHERE rowid = 1), 1, 1);
SELECT * FROM shorn_tree(x'1e', 2);
-- NULL in any place is NULL, as before.
SELECT shorn_decode(NULL, 1) IS NULL, shorn_decode(x'00', NULL) IS NULL, shorn_extract(NULL, 1, '$') IS NULL;

.print -- two schemas sharing a 1-byte fingerprint: dispatch at 1 byte names them
INSERT INTO shorn_schemas(name, schema) VALUES
  ('nothing', '{"type":"null"}'),
  ('counter', '{"type":"object","properties":{"c":{"type":"integer"}},"required":["c"]}');
SELECT name, shorn_fingerprint(name, 1), shorn_fingerprint(name, 2) FROM shorn_schemas
  WHERE name IN ('nothing', 'counter') ORDER BY name;
SELECT shorn_decode(shorn_encode('null', 'nothing', 1), 1);
SELECT shorn_extract(shorn_encode('{"c":7}', 'counter', 1), 1, '$.c');
SELECT shorn_decode(shorn_encode('{"c":7}', 'counter', 2), 2);
SELECT shorn_decode(shorn_encode('{"c":7}', 'counter', 1), 'counter', 1);

.print -- the registry's changes are seen by the next dispatch in the connection
-- A prefix dispatched once is cached; deleting its schema drops it.
SELECT shorn_decode(payload, 2) FROM events WHERE rowid = 6;
DELETE FROM shorn_schemas WHERE name = 'word';
SELECT shorn_decode(payload, 2) FROM events WHERE rowid = 6;
INSERT INTO shorn_schemas(name, schema) VALUES ('word', '{"type":"string"}');
SELECT shorn_decode(payload, 2) FROM events WHERE rowid = 6;
-- Renaming changes what an ambiguity names; a rolled-back delete is undone.
UPDATE shorn_schemas SET name = 'empty' WHERE name = 'nothing';
SELECT shorn_decode(shorn_encode('{"c":7}', 'counter', 1), 1);
BEGIN;
DELETE FROM shorn_schemas WHERE name = 'empty';
SELECT shorn_decode(shorn_encode('{"c":7}', 'counter', 1), 1);
ROLLBACK;
SELECT shorn_decode(shorn_encode('{"c":7}', 'counter', 1), 1);

.print -- without a registry
DROP TABLE shorn_schemas;
SELECT shorn_decode(x'2900', 1);
