-- The schema registry: register a schema once, name it in every query.
-- (The refusals are in registry_refusals.sql.)

CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;
-- The documented setup can run again.
CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;

INSERT INTO shorn_schemas(name, schema) VALUES
  ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},"required":["name","age","sex"],"additionalProperties":false}'),
  ('person_v2', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]},"email":{"type":"string"}},"required":["name","age","sex"],"additionalProperties":false}');
SELECT rowid, name, fingerprint, signature FROM shorn_schemas ORDER BY name;

.print -- every function takes a name where it takes a schema
SELECT hex(shorn_encode('{"name":"Grace","age":45,"sex":"F"}', 'person'));
SELECT hex(shorn_encode('{"name":"Grace","age":45,"sex":"F"}', 'person', 3));
SELECT shorn_decode(x'2d05477261636500', 'person');
SELECT shorn_decode(x'7236d12d05477261636500', 'person', 3);
SELECT shorn_fingerprint('person'), shorn_fingerprint('person', 4);
SELECT shorn_signature('person') = signature FROM shorn_schemas WHERE name = 'person';
-- Text starting with '{' (after white space) is inline JSON Schema.
SELECT shorn_signature('  {"type":"boolean"}');

.print -- one table, two versions of a schema: the fingerprint picks the schema
CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB);
INSERT INTO people(payload) VALUES
  (shorn_encode('{"name":"Grace","age":45,"sex":"F"}', 'person', 4)),
  (shorn_encode('{"name":"Alan","age":41,"sex":"M","email":"alan@example.org"}', 'person_v2', 4));
SELECT id, hex(substr(payload, 1, 4)), shorn_decode(payload) FROM people;
SELECT p.id, s.name FROM people AS p
  JOIN shorn_schemas AS s ON s.fingerprint = lower(hex(substr(p.payload, 1, 4)));
EXPLAIN QUERY PLAN SELECT name FROM shorn_schemas WHERE fingerprint = 'a3b4e3de';
SELECT shorn_decode(x'0000000000');
SELECT shorn_decode(x'a3b4');

.print -- a generated column, an index and a CHECK constraint by name
CREATE TABLE staff(
  payload BLOB NOT NULL CHECK (json_extract(shorn_decode(payload, 'person'), '$.age') >= 18),
  name TEXT GENERATED ALWAYS AS (json_extract(shorn_decode(payload, 'person'), '$.name'))
);
CREATE INDEX staff_by_name ON staff(name);
CREATE INDEX staff_by_sex ON staff(json_extract(shorn_decode(payload, 'person'), '$.sex'));
INSERT INTO staff(payload) SELECT shorn_encode(value, 'person') FROM json_each(
  '[{"name":"Grace","age":45,"sex":"F"},{"name":"Ada","age":36,"sex":"F"},{"name":"Alan","age":41,"sex":"M"}]');
SELECT length(payload), name FROM staff WHERE name = 'Ada';
EXPLAIN QUERY PLAN SELECT payload FROM staff WHERE name = 'Ada';
SELECT name FROM staff WHERE json_extract(shorn_decode(payload, 'person'), '$.sex') = 'M';
EXPLAIN QUERY PLAN SELECT name FROM staff WHERE json_extract(shorn_decode(payload, 'person'), '$.sex') = 'M';
INSERT INTO staff(payload) VALUES (shorn_encode('{"name":"Kim","age":9,"sex":"X"}', 'person'));
SELECT count(*) FROM staff;
PRAGMA integrity_check;

.print -- ROLLBACK undoes a registration
BEGIN;
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"boolean"}');
SELECT shorn_decode(payload, 'flag') FROM (SELECT x'01' AS payload);
ROLLBACK;
SELECT count(*) FROM shorn_schemas WHERE name = 'flag';
SELECT shorn_decode(x'01', 'flag');

.print -- a name deleted and registered again means the new schema
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"boolean"}');
SELECT shorn_decode(x'01', 'flag');
DELETE FROM shorn_schemas WHERE name = 'flag';
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"integer","minimum":0}');
SELECT shorn_decode(x'01', 'flag');

.print -- renaming: allowed, and the old name stops resolving
UPDATE shorn_schemas SET name = 'count' WHERE name = 'flag';
SELECT shorn_decode(x'01', 'count');
CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry(extra);
SELECT shorn_decode(x'01', 'flag');

.print -- INSERT OR IGNORE makes a setup script safe to run again
INSERT OR IGNORE INTO shorn_schemas(name, schema) VALUES ('count', '{"type":"integer","minimum":0}');
SELECT count(*) FROM shorn_schemas;

.print -- in defensive mode only the virtual table writes the shadow table
.dbconfig defensive on
INSERT INTO shorn_schemas_data(name, schema, signature, fingerprint) VALUES ('x', '{}', '"any"', '57afa32f');
UPDATE shorn_schemas_data SET signature = '"string"';
DELETE FROM shorn_schemas WHERE name = 'count';
SELECT name FROM shorn_schemas ORDER BY name;
.dbconfig defensive off

.print -- a registry copies with INSERT ... SELECT *, computed columns and all
ATTACH ':memory:' AS backup;
CREATE TABLE backup.schemas AS SELECT * FROM shorn_schemas;
DELETE FROM shorn_schemas;
INSERT INTO shorn_schemas SELECT * FROM backup.schemas;
SELECT name, fingerprint FROM shorn_schemas ORDER BY name;

.print -- DROP TABLE takes the shadow table with it
DROP INDEX staff_by_sex;
DROP TABLE staff;
DROP TABLE shorn_schemas;
SELECT name FROM sqlite_schema;
SELECT shorn_decode(x'01', 'count');
CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry(extra);
