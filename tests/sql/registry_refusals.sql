-- What the registry refuses, each with its reason; a refusal stores nothing.

CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema) VALUES
  ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},"required":["name","age","sex"],"additionalProperties":false}');
CREATE TABLE before AS SELECT rowid AS id, * FROM shorn_schemas;

.print -- a schema that does not compile, with the compiler's reason
INSERT INTO shorn_schemas(name, schema) VALUES ('bad', '{"type":"object","properties":{"age":{"type":"wat"}}}');
INSERT INTO shorn_schemas(name, schema) VALUES ('bad', '{"type":"string"');

.print -- a name already taken
INSERT INTO shorn_schemas(name, schema) VALUES ('person', '{"type":"string"}');

.print -- the same wire shape under a second name (the same fingerprint)
INSERT INTO shorn_schemas(name, schema) VALUES ('person_again', '{"title":"Person","type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},"required":["name","age","sex"],"additionalProperties":false}');

.print -- two wire shapes with one fingerprint, 07751154
INSERT INTO shorn_schemas(name, schema) VALUES ('k1', '{"type":"object","properties":{"k643978":{"type":"string"}},"required":["k643978"],"additionalProperties":false}');
INSERT INTO shorn_schemas(name, schema) VALUES ('k2', '{"type":"object","properties":{"k991622":{"type":"string"}},"required":["k991622"],"additionalProperties":false}');
DELETE FROM shorn_schemas WHERE name = 'k1';

.print -- an UPDATE that changes the wire shape of a name
UPDATE shorn_schemas SET schema = '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}' WHERE name = 'person';

.print -- signature and fingerprint are computed
INSERT INTO shorn_schemas(name, schema, fingerprint) VALUES ('flag', '{"type":"boolean"}', '00000000');
UPDATE shorn_schemas SET signature = '"any"' WHERE name = 'person';

.print -- names that would read as inline JSON Schema, or are not text
INSERT INTO shorn_schemas(name, schema) VALUES ('{flag}', '{"type":"boolean"}');
INSERT INTO shorn_schemas(name, schema) VALUES (' flag', '{"type":"boolean"}');
INSERT INTO shorn_schemas(name, schema) VALUES ('', '{"type":"boolean"}');
INSERT INTO shorn_schemas(name, schema) VALUES (42, '{"type":"boolean"}');
INSERT INTO shorn_schemas(schema) VALUES ('{"type":"boolean"}');
INSERT INTO shorn_schemas(name) VALUES ('flag');
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', x'7b7d');

.print -- a registry other than main.shorn_schemas, which the functions would never read
CREATE VIRTUAL TABLE schemas USING shorn_registry;
CREATE VIRTUAL TABLE temp.shorn_schemas USING shorn_registry;
ALTER TABLE shorn_schemas RENAME TO schemas;

.print -- one refused row takes its whole statement with it
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"boolean"}'), ('flag', '{"type":"string"}');

.print -- nothing was stored
SELECT count(*) FROM (SELECT rowid AS id, * FROM shorn_schemas EXCEPT SELECT * FROM before);
SELECT count(*) FROM shorn_schemas;
SELECT name FROM sqlite_schema ORDER BY name;
