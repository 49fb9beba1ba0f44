-- Versions of a name: a new version reads every payload the earlier ones
-- wrote, and every function answers in the newest version's shape.

CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"signupYear":{"type":"integer"},"plan":{"enum":["free","pro"]}},"required":["name","age","signupYear","plan"],"additionalProperties":false}', 4);
SELECT name, version, fp_bytes, fingerprint FROM shorn_schemas;

.print -- payloads carry the name's fingerprint; shorn_encode needs no fp_bytes
CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
INSERT INTO people(payload) VALUES (shorn_encode('{"name":"Grace","age":45,"signupYear":2019,"plan":"pro"}', 'person'));
SELECT hex(payload), shorn_decode(payload, 'person') FROM people;
SELECT shorn_encode('{"name":"Ada","age":36,"signupYear":2020,"plan":"free"}', 'person', 3);
SELECT hex(shorn_encode('{"name":"Ada","age":36,"signupYear":2020,"plan":"free"}', 'person', 4)) = hex(shorn_encode('{"name":"Ada","age":36,"signupYear":2020,"plan":"free"}', 'person'));
CREATE INDEX people_by_name ON people(shorn_extract(payload, 'person', '$.name'));

.print -- version 2: a member removed, one added with a default, one optional, age widened, plan gaining a member
INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"number"},"plan":{"enum":["free","pro","team"]},"locale":{"type":"string","default":"en"},"nick":{"type":"string"}},"required":["name","age","plan","locale"],"additionalProperties":false}', 2);
SELECT name, version, fp_bytes, fingerprint FROM shorn_schemas ORDER BY version;
INSERT INTO people(payload) VALUES (shorn_encode('{"name":"Ada","age":36.5,"plan":"team","nick":"countess"}', 'person'));

.print -- version 3: nick required no more matters, age may be null
INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":["number","null"]},"plan":{"enum":["free","pro","team"]},"locale":{"type":"string","default":"en"},"nick":{"type":"string"}},"required":["name","age","plan","locale"],"additionalProperties":false}', 3);
INSERT INTO people(payload) VALUES (shorn_encode('{"name":"Alan","age":null,"plan":"free","locale":"en-GB"}', 'person'));

.print -- one query, every row in the newest shape
SELECT id, shorn_payload_version(payload, 'person'), shorn_decode(payload, 'person') FROM people;
SELECT id, shorn_extract(payload, 'person', '$.locale'), shorn_extract(payload, 'person', '$.signupYear'), shorn_type(payload, 'person', '$.age') FROM people;
SELECT group_concat(key, ' ') FROM people, shorn_each(people.payload, 'person') WHERE people.id = 1;
SELECT shorn_valid(payload, 'person'), shorn_error(payload, 'person'), shorn_check_payload(payload, 'person') FROM people WHERE id = 1;
.print -- by fingerprint alone, the value as it was written
SELECT id, shorn_decode(payload) FROM people;

.print -- an expression index is used and right across versions
SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Grace';
EXPLAIN QUERY PLAN SELECT length(payload) FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Grace';
PRAGMA integrity_check;

.print -- the edit functions write the newest version
SELECT shorn_payload_version(shorn_set(payload, 'person', '$.nick', 'amazing'), 'person'), shorn_decode(shorn_set(payload, 'person', '$.nick', 'amazing'), 'person') FROM people WHERE id = 1;

.print -- counting rows per version, then upgrading them in place
SELECT shorn_payload_version(payload, 'person') AS version, count(*) FROM people GROUP BY version;
UPDATE people SET payload = shorn_upgrade(payload, 'person') WHERE id <= 1;
SELECT shorn_payload_version(payload, 'person') AS version, count(*) FROM people GROUP BY version;
UPDATE people SET payload = shorn_upgrade(payload, 'person');
SELECT shorn_payload_version(payload, 'person') AS version, count(*) FROM people GROUP BY version;
SELECT id, hex(payload), shorn_decode(payload) FROM people;
.print -- a payload already newest comes back as the same bytes
SELECT shorn_upgrade(payload, 'person') = payload FROM people;
PRAGMA integrity_check;

.print -- refused versions, each with every place it cannot read
INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":"object","properties":{"name":{"type":"integer"},"age":{"type":"integer"},"plan":{"enum":["free","pro"]},"locale":{"type":"string"},"nick":{"type":"string"},"email":{"type":"string"}},"required":["name","age","plan","locale","nick","email"],"additionalProperties":false}', 4);
INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}', 5);
INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":["number","null"]},"plan":{"enum":["free","pro","team"]},"locale":{"type":"string","default":"en"},"nick":{"type":"string"}},"required":["name","age","plan","locale"],"additionalProperties":false}', 4);
INSERT INTO shorn_schemas(name, schema, version, fp_bytes) VALUES ('person', '{"type":"string"}', 4, 3);
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('other', '{"type":"string"}', 5);
INSERT INTO shorn_schemas(name, schema, version) VALUES ('other', '{"type":"string"}', 0);
SELECT max(version) FROM shorn_schemas WHERE name = 'person';

.print -- a bare name takes no second version
INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{"type":"boolean"}');
INSERT INTO shorn_schemas(name, schema, version) VALUES ('flag', '{"type":["boolean","null"]}', 2);

.print -- a payload of no version of the name
SELECT shorn_decode(x'0102030405', 'person');
SELECT shorn_valid(x'0102030405', 'person'), shorn_error(x'0102030405', 'person'), shorn_payload_version(x'0102030405', 'person');
SELECT shorn_decode(payload, 'person', 3) FROM people WHERE id = 1;
SELECT shorn_upgrade(x'01', 'person');
SELECT shorn_upgrade('text', 'person');
SELECT shorn_upgrade(NULL, 'person'), shorn_upgrade(x'00', NULL), shorn_payload_version(NULL, 'person');
SELECT shorn_upgrade(x'01', 'nobody');

.print -- a schema's validation keywords alone change by UPDATE
UPDATE shorn_schemas SET schema = '{"type":"object","properties":{"name":{"type":"string","maxLength":3}},"required":["name"],"additionalProperties":false}' WHERE name = 'person' AND version = 3;
UPDATE shorn_schemas SET schema = '{"type":"object","properties":{"name":{"type":"string","maxLength":40},"age":{"type":["number","null"]},"plan":{"enum":["free","pro","team"]},"locale":{"type":"string","default":"en"},"nick":{"type":"string"}},"required":["name","age","plan","locale"],"additionalProperties":false}' WHERE name = 'person' AND version = 3;
SELECT shorn_check('{"name":"Grace Brewster Murray Hopper and a name of more than forty","age":1,"plan":"pro"}', 'person');
UPDATE shorn_schemas SET version = 7 WHERE name = 'person' AND version = 3;
UPDATE shorn_schemas SET fp_bytes = 2 WHERE name = 'person' AND version = 3;

.print -- fp_bytes of a name with one version may change; each width tells versions apart
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('tiny', '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}', 1);
UPDATE shorn_schemas SET fp_bytes = 2 WHERE name = 'tiny';
SELECT name, version, fp_bytes FROM shorn_schemas WHERE name = 'tiny';
SELECT hex(shorn_encode('{"a":"x"}', 'tiny'));

.print -- the rules apply inside objects, arrays, records, tuples and unions
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('order', '{"type":"object","properties":{"ship":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city","zip"],"additionalProperties":false},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":0}},"required":["sku","qty"],"additionalProperties":false}},"notes":{"type":"object","additionalProperties":{"type":"object","properties":{"by":{"type":"string"},"old":{"type":"boolean"}},"required":["by","old"],"additionalProperties":false}},"pair":{"type":"array","prefixItems":[{"type":"integer"},{"type":"object","properties":{"k":{"type":"string"},"gone":{"type":"string"}},"required":["k","gone"],"additionalProperties":false}],"minItems":2,"maxItems":2},"pay":{"oneOf":[{"type":"object","properties":{"kind":{"const":"card"},"last4":{"type":"string"},"cvv":{"type":"string"}},"required":["kind","last4","cvv"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"cash"}},"required":["kind"],"additionalProperties":false}]},"tag":{"anyOf":[{"type":"string"},{"type":"object","properties":{"id":{"type":"integer"},"x":{"type":"integer"}},"required":["id","x"],"additionalProperties":false}]}},"required":["ship","lines","notes","pair","pay","tag"],"additionalProperties":false}', 4);
CREATE TABLE orders(id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
INSERT INTO orders(payload) VALUES (shorn_encode('{"ship":{"city":"Oslo","zip":"0150"},"lines":[{"sku":"a","qty":1},{"sku":"b","qty":2}],"notes":{"n1":{"by":"ann","old":true}},"pair":[7,{"k":"v","gone":"x"}],"pay":{"kind":"card","last4":"4242","cvv":"123"},"tag":{"id":3,"x":4}}', 'order'));
INSERT INTO orders(payload) VALUES (shorn_encode('{"ship":{"city":"Rome","zip":"00100"},"lines":[],"notes":{},"pair":[8,{"k":"w","gone":"y"}],"pay":{"kind":"cash"},"tag":"rush"}', 'order'));
INSERT INTO shorn_schemas(name, schema, version) VALUES ('order', '{"type":"object","properties":{"ship":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string","default":"NO"}},"required":["city","country"],"additionalProperties":false},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"number"},"gift":{"type":"boolean","default":false}},"required":["sku","qty","gift"],"additionalProperties":false}},"notes":{"type":"object","additionalProperties":{"type":"object","properties":{"by":{"type":"string"}},"required":["by"],"additionalProperties":false}},"pair":{"type":"array","prefixItems":[{"type":"number"},{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}],"minItems":2,"maxItems":2},"pay":{"oneOf":[{"type":"object","properties":{"kind":{"const":"card"},"last4":{"type":"string"}},"required":["kind","last4"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"cash"}},"required":["kind"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"iou"}},"required":["kind"],"additionalProperties":false}]},"tag":{"anyOf":[{"type":"string"},{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}]}},"required":["ship","lines","notes","pair","pay","tag"],"additionalProperties":false}', 2);
SELECT id, shorn_decode(payload, 'order') FROM orders;
SELECT shorn_extract(payload, 'order', '$.lines[1].gift', '$.ship.country', '$.pay.kind') FROM orders WHERE id = 1;
.print -- a path read from an older payload's own bytes where both versions hold it alike, else from its rewrite
SELECT id, shorn_extract(payload, 'order', '$.ship.city'), shorn_extract(payload, 'order', '$.ship'), shorn_extract(payload, 'order', '$.lines[0].sku'), shorn_extract(payload, 'order', '$.lines[0]'), shorn_type(payload, 'order', '$.pair[0]'), shorn_type(payload, 'order', '$.notes'), shorn_extract(payload, 'order', '$.tag'), shorn_type(payload, 'order') FROM orders;
SELECT id, shorn_extract(payload, 'order', '$.pair[1].gone'), shorn_extract(payload, 'order', '$.nothing'), shorn_extract(payload, 'order', '$.lines[#-1].qty') FROM orders;
.print -- a union that loses a branch, and a tuple that gains an item, are refused
INSERT INTO shorn_schemas(name, schema, version) VALUES ('order', '{"type":"object","properties":{"ship":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"],"additionalProperties":false}},"notes":{"type":"object","additionalProperties":{"type":"string"}},"pair":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"},{"type":"string"}],"minItems":3,"maxItems":3},"pay":{"oneOf":[{"type":"object","properties":{"kind":{"const":"card"},"last4":{"type":"string"}},"required":["kind","last4"],"additionalProperties":false}]},"tag":{"type":"string"}},"required":["ship","lines","notes","pair","pay","tag"],"additionalProperties":false}', 3);

.print -- a new version rebuilds the indexes that read its name: a member it adds or drops reads anew in older rows
INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('item', '{"type":"object","properties":{"name":{"type":"string"},"gone":{"type":"string"}},"required":["name","gone"],"additionalProperties":false}', 4);
CREATE TABLE items(id INTEGER PRIMARY KEY, payload BLOB NOT NULL, gone TEXT GENERATED ALWAYS AS (shorn_extract(payload, 'item', '$.gone')));
CREATE INDEX items_by_locale ON items(shorn_extract(payload, 'item', '$.locale'));
CREATE INDEX items_by_gone ON items(gone);
INSERT INTO items(payload) VALUES (shorn_encode('{"name":"a","gone":"x"}', 'item'));
INSERT INTO shorn_schemas(name, schema, version) VALUES ('item', '{"type":"object","properties":{"name":{"type":"string"},"locale":{"type":"string","default":"en"}},"required":["name","locale"],"additionalProperties":false}', 2);
SELECT count(*) FROM items WHERE shorn_extract(payload, 'item', '$.locale') = 'en';
SELECT count(*) FROM items WHERE gone IS NULL;
EXPLAIN QUERY PLAN SELECT length(payload) FROM items WHERE shorn_extract(payload, 'item', '$.locale') = 'en';
UPDATE items SET payload = shorn_upgrade(payload, 'item');
PRAGMA integrity_check;
