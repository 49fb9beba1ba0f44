-- Querying payloads: shorn_extract, shorn_type, shorn_valid, shorn_error,
-- shorn_each and shorn_tree answer as SQLite's JSON functions answer over
-- shorn_decode(payload, schema), reading the bytes.

CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema) VALUES ('person', '{"type":"object","properties":{
  "name":{"type":"string"},"age":{"type":"integer","minimum":0},"email":{"type":"string"},
  "tags":{"type":"array","items":{"type":"string"}},"score":{"type":"number"},
  "address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},
             "required":["city"],"additionalProperties":false}},
  "required":["name","age","tags","score"],"additionalProperties":false}');
CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB);
INSERT INTO people(payload) VALUES
  (shorn_encode('{"name":"Grace","age":45,"tags":["navy","cobol"],"score":9.5,"address":{"city":"Arlington"}}', 'person')),
  (shorn_encode('{"name":"Ada","age":36,"email":"ada@example.org","tags":[],"score":10}', 'person')),
  (shorn_encode('{"name":"Alan","age":41,"tags":["enigma"],"score":-0.25,"address":{"city":"Wilmslow","zip":"SK9"}}', 'person'));
SELECT id, shorn_decode(payload, 'person') FROM people;

.print -- shorn_extract: what json_extract gives, of the same SQL type
SELECT shorn_extract(payload, 'person', '$.name'), shorn_extract(payload, 'person', '$.age'),
       typeof(shorn_extract(payload, 'person', '$.age')), shorn_extract(payload, 'person', '$.score'),
       typeof(shorn_extract(payload, 'person', '$.score'))
  FROM people;
-- An absent optional field and a missing path give NULL.
SELECT id, quote(shorn_extract(payload, 'person', '$.email')), quote(shorn_extract(payload, 'person', '$.nope'))
  FROM people;
-- Objects and arrays come back as JSON (subtype 'J'), so JSON functions take them as JSON.
SELECT shorn_extract(payload, 'person', '$.tags'), json_array(shorn_extract(payload, 'person', '$.address'))
  FROM people WHERE id = 1;
SELECT shorn_extract(payload, 'person', '$.tags[0]'), shorn_extract(payload, 'person', '$.tags[#-1]'),
       quote(shorn_extract(payload, 'person', '$.tags[2]')), shorn_extract(payload, 'person', '$.address.city')
  FROM people WHERE id = 1;
-- Several paths: a JSON array of the answers, null where there is none.
SELECT shorn_extract(payload, 'person', '$.name', '$.tags', '$.email', '$.address.zip') FROM people;
-- Exactly json_extract over the decoded JSON, value and type.
SELECT count(*) FROM people, (SELECT '$' AS p UNION ALL SELECT '$.name' UNION ALL SELECT '$.age'
  UNION ALL SELECT '$.score' UNION ALL SELECT '$.tags' UNION ALL SELECT '$.tags[0]' UNION ALL SELECT '$.address'
  UNION ALL SELECT '$.address.zip' UNION ALL SELECT '$.email')
  WHERE shorn_extract(payload, 'person', p) IS json_extract(shorn_decode(payload, 'person'), p)
    AND typeof(shorn_extract(payload, 'person', p)) = typeof(json_extract(shorn_decode(payload, 'person'), p));
-- An inline schema works as well as a name.
SELECT shorn_extract(shorn_encode('[1,2.5,"x",true,null]', '{"type":"array","items":{}}'),
                     '{"type":"array","items":{}}', '$[0]', '$[1]', '$[2]', '$[3]', '$[4]');
SELECT shorn_extract(x'01', '{"type":"boolean"}', '$'), typeof(shorn_extract(x'01', '{"type":"boolean"}', '$')),
       shorn_extract(x'00', '{"type":"boolean"}', '$');

.print -- numbers as SQLite reads the decoded text
CREATE TABLE numbers(v);
INSERT INTO numbers VALUES (shorn_encode('[1, 1.5, -0, 1e21, 123456789012345680000, 9007199254740993]',
                                         '{"type":"array","items":{"type":"number"}}'));
SELECT shorn_decode(v, '{"type":"array","items":{"type":"number"}}') FROM numbers;
-- A REAL printed with 17 digits: SQLite 3.40 writes 15 of them (1.23456789012346e+20), 3.53 as many as
-- the value needs, so printf gives both the same text.
SELECT key, typeof(value), iif(typeof(value) = 'real', printf('%!.17g', value), value), type
  FROM shorn_each((SELECT v FROM numbers), '{"type":"array","items":{"type":"number"}}');
-- Infinity is 9e999 (REAL), NaN is null, in JSON and in SQL.
SELECT shorn_extract(x'000000000000f07f', '{"type":"number"}', '$'), shorn_type(x'000000000000f07f', '{"type":"number"}'),
       quote(shorn_extract(x'000000000000f87f', '{"type":"number"}', '$')), shorn_type(x'000000000000f87f', '{"type":"number"}');

.print -- strings come back as json_extract unescapes them: cut at an escaped NUL, a lone surrogate as WTF-8
CREATE TABLE texts(schema TEXT, payload BLOB);
INSERT INTO texts(schema) VALUES ('{"type":"object","properties":{
  "s":{"type":"string"},"n":{"anyOf":[{"type":"string"},{"type":"null"}]},
  "u":{"anyOf":[{"type":"string"},{"type":"integer"}]},
  "e":{"enum":["plain","a\"q\\b","tab\there","nul\u0000cut","lone\ud800","pair\ud83d\ude00",""]},
  "m":{"enum":["x",1,true,null]}},"required":["s","n","u","e","m"],"additionalProperties":false}');
INSERT INTO texts(payload) SELECT shorn_encode(value, (SELECT schema FROM texts WHERE payload IS NULL)) FROM json_each('[
  {"s":"Grace","n":"here","u":"text","e":"plain","m":"x"},
  {"s":"a\"q\\b/\b\f\n\r\t\u0001\u001f\u007f","n":null,"u":7,"e":"a\"q\\b","m":1},
  {"s":"nul\u0000cut","n":"\u0000","u":"\u00e9\u20ac\ud83d\ude00","e":"tab\there","m":true},
  {"s":"","n":"","u":"","e":"nul\u0000cut","m":null},
  {"s":"\u00e9t\u00e9 caf\u00e9 \u4e2d\u6587 \ud83d\ude00","n":"x","u":-1,"e":"lone\ud800","m":"x"},
  {"s":"0123456789abcdef0123456789abcdef0123456789","n":"y","u":"z","e":"pair\ud83d\ude00","m":"x"},
  {"s":"s","n":"n","u":"u","e":"","m":"x"}]');
UPDATE texts SET schema = (SELECT schema FROM texts WHERE payload IS NULL) WHERE payload IS NOT NULL;
DELETE FROM texts WHERE payload IS NULL;
SELECT rowid, hex(shorn_extract(payload, schema, '$.s')), quote(shorn_extract(payload, schema, '$.n')),
       typeof(shorn_extract(payload, schema, '$.u')), hex(shorn_extract(payload, schema, '$.e')),
       quote(shorn_extract(payload, schema, '$.m')) FROM texts ORDER BY rowid;
-- Value and type exactly json_extract's over the decoded text, for every field of every row; from
-- SQLite 3.45 on, json_extract keeps a string whole past an escaped U+0000, where shorn keeps 3.40's
-- rule (docs/querying.md): the three fields holding one differ there.
SELECT count(*), sum(shorn_extract(payload, schema, p) IS json_extract(shorn_decode(payload, schema), p)
                     AND typeof(shorn_extract(payload, schema, p)) = typeof(json_extract(shorn_decode(payload, schema), p)))
  FROM texts, (SELECT '$.' || value AS p FROM json_each('["s","n","u","e","m"]'));

.print -- the byte layout's shapes: strings, numbers, and Maps as arrays of [key, value]
CREATE TABLE rich(schema TEXT, payload BLOB);
INSERT INTO rich(schema) VALUES ('{"type":"object","properties":{
  "at":{"type":"string","format":"date-time"},"big":{"type":"string","x-shorn":"bigint"},
  "blob":{"type":"string","contentEncoding":"base64","x-shorn":"bytes"},"f32":{"type":"number","x-shorn":"float32"},
  "map":{"type":"array","items":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer","minimum":0}],
         "items":false,"minItems":2,"maxItems":2},"x-shorn":"map"},
  "set":{"type":"array","items":{"type":"string"},"uniqueItems":true,"x-shorn":"set"},
  "z":{"type":"string"}},"required":["at","big","blob","f32","map","set","z"],"additionalProperties":false}');
UPDATE rich SET payload = shorn_encode('{"at":"2026-09-03T12:00:00.000Z","big":"-123456789012345678901234567890",
  "blob":"CQk=","f32":1.5,"map":[["x",1],["y",300]],"set":["a","b"],"z":"last"}', schema);
SELECT shorn_decode(payload, schema) FROM rich;
SELECT shorn_extract(payload, schema, '$.z'), shorn_extract(payload, schema, '$.big'), shorn_extract(payload, schema, '$.at'),
       shorn_extract(payload, schema, '$.map[1][0]'), shorn_extract(payload, schema, '$.map[#-1][1]'),
       shorn_extract(payload, schema, '$.map[0]'), shorn_type(payload, schema, '$.f32') FROM rich;
SELECT s.fullkey, s.type, s.atom FROM rich, shorn_tree(rich.payload, rich.schema, '$.map') AS s;
-- Row for row json_tree's; id and parent too before SQLite 3.45, which numbers nodes by their offset
-- in JSONB, where shorn keeps 3.40's numbering.
SELECT count(*), sum(s.id = j.id AND s.parent IS j.parent) FROM rich, shorn_tree(rich.payload, rich.schema) AS s
  JOIN json_tree(shorn_decode(rich.payload, rich.schema)) AS j ON j.fullkey = s.fullkey
  WHERE s.value IS j.value AND s.type = j.type;

.print -- paths: quoted keys, [#-N], and path errors
SELECT shorn_extract(shorn_encode('{"a.b":1,"c d":{"e":2}}', '{"type":"object","additionalProperties":{}}'),
                     '{"type":"object","additionalProperties":{}}', '$."a.b"', '$.c d.e', '$."c d"."e"');
-- [#-N] counts from the end of an array; on an object, or as [#] (one past the end), it names nothing.
SELECT shorn_extract(payload, 'person', '$.tags[#-2]'), quote(shorn_extract(payload, 'person', '$[#-1]')),
       quote(shorn_extract(payload, 'person', '$.tags[#]')) FROM people WHERE id = 1;
-- fullkey spells a key bare only when it is a letter then letters and digits, as SQLite does.
CREATE TABLE keyed AS SELECT '{"type":"object","additionalProperties":{"type":"integer"}}' AS record_schema,
  '{"a_b":1,"A1":2,"1a":3,"é":4,"":5,"q\"":6,"a b":7}' AS record;
SELECT s.key, s.fullkey, j.fullkey FROM keyed,
  shorn_each(shorn_encode(record, record_schema), record_schema) AS s
  JOIN json_each(shorn_decode(shorn_encode(record, record_schema), record_schema)) AS j ON j.key = s.key;
SELECT shorn_extract(payload, 'person', '$.tags[') FROM people WHERE id = 1;
SELECT shorn_extract(payload, 'person', 'name') FROM people WHERE id = 1;
SELECT shorn_type(payload, 'person', '$.') FROM people WHERE id = 1;
-- SQLite reports a malformed step only when its lookup gets that far;
-- shorn always does.
SELECT quote(json_extract('{}', '$.a[#-x]'));
SELECT shorn_extract(payload, 'person', '$.a[#-x]') FROM people WHERE id = 1;

.print -- NULL in gives NULL out
SELECT quote(shorn_extract(NULL, 'person', '$')), quote(shorn_extract(payload, NULL, '$')),
       quote(shorn_extract(payload, 'person', NULL)), shorn_extract(payload, 'person', '$.age', NULL),
       quote(shorn_type(payload, 'person', NULL)), quote(shorn_valid(NULL, 'person')), quote(shorn_error(NULL, 'person'))
  FROM people WHERE id = 2;
SELECT count(*) FROM shorn_each(NULL, 'person');

.print -- shorn_type: json_type's names
SELECT shorn_type(payload, 'person'), shorn_type(payload, 'person', '$.name'), shorn_type(payload, 'person', '$.age'),
       shorn_type(payload, 'person', '$.score'), shorn_type(payload, 'person', '$.tags'),
       quote(shorn_type(payload, 'person', '$.email'))
  FROM people;
SELECT shorn_type(shorn_encode('[null,true,false,0,0.5,"s",[],{}]', '{"type":"array","items":{}}'), '{"type":"array","items":{}}', p)
  FROM (SELECT '$[0]' AS p UNION ALL SELECT '$[1]' UNION ALL SELECT '$[2]' UNION ALL SELECT '$[3]' UNION ALL SELECT '$[4]'
        UNION ALL SELECT '$[5]' UNION ALL SELECT '$[6]' UNION ALL SELECT '$[7]');

.print -- shorn_valid and shorn_error: what shorn_decode would say, without failing
SELECT hex(payload), shorn_valid(payload, 'person'), quote(shorn_error(payload, 'person')) FROM people WHERE id = 2;
SELECT shorn_valid(x'0541', 'person'), shorn_error(x'0541', 'person');
SELECT shorn_valid(x'00', '{"type":"boolean"}'), shorn_valid(x'02', '{"type":"boolean"}'), shorn_error(x'02', '{"type":"boolean"}');
SELECT shorn_error(x'0100', '{"type":"boolean"}'), shorn_error(42, '{"type":"boolean"}');
SELECT shorn_decode(x'0100', '{"type":"boolean"}');
-- A bad schema is still an error.
SELECT shorn_valid(x'00', '{"type":"bool"}');
SELECT shorn_valid(x'00', 'nobody');
SELECT shorn_valid(x'00', '{"type":"boolean"}', 9);
SELECT shorn_extract(42, 'person', '$.name');
SELECT shorn_extract(x'00', '{"type":"boolean"}');

.print -- a reader reads what its path needs, and checks that, as SQLite's JSONB functions do
-- Every path of the person reads its presence bitmap first: a bad one is every reader's error.
SELECT shorn_extract(x'0541', 'person', '$.name');
SELECT shorn_type(x'0541', 'person', '$.name');
SELECT * FROM shorn_each(x'0541', 'person');
SELECT shorn_decode(x'0541', 'person');
-- Ada with a byte of her email that is not UTF-8 (FF): the paths that pass over it answer,
-- the ones that read it fail, and shorn_valid and shorn_error find it.
CREATE TABLE damaged AS SELECT 'email' AS what,
  x'02240FFF6461406578616D706C652E6F726703416461000000000000244000' AS p;
SELECT shorn_extract(p, 'person', '$.name'), shorn_extract(p, 'person', '$.age'), shorn_extract(p, 'person', '$.tags'),
       shorn_type(p, 'person', '$.tags'), (SELECT count(*) FROM shorn_each(damaged.p, 'person', '$.tags')),
       shorn_valid(p, 'person'), shorn_error(p, 'person') FROM damaged;
SELECT shorn_extract(p, 'person', '$.email') FROM damaged;
SELECT shorn_type(p, 'person', '$.email') FROM damaged;
SELECT shorn_extract(p, 'person', '$') FROM damaged;
SELECT count(*) FROM shorn_tree((SELECT p FROM damaged), 'person');
SELECT shorn_decode(p, 'person') FROM damaged;
-- On the path, each header is checked before it is trusted: tags counting 200 strings in 2 bytes.
INSERT INTO damaged VALUES ('tags', x'02240F616461406578616D706C652E6F7267034164610000000000002440C8010161');
SELECT shorn_extract(p, 'person', '$.name'), shorn_valid(p, 'person'), shorn_error(p, 'person') FROM damaged WHERE what = 'tags';
SELECT shorn_extract(p, 'person', '$.tags[0]') FROM damaged WHERE what = 'tags';
SELECT shorn_extract(p, 'person', '$.tags') FROM damaged WHERE what = 'tags';
SELECT * FROM shorn_each((SELECT p FROM damaged WHERE what = 'tags'), 'person', '$.tags');
-- The name cut short: named or passed over, it fails.
INSERT INTO damaged VALUES ('cut', x'02240F616461406578616D706C652E6F7267034164');
SELECT shorn_extract(p, 'person', '$.age'), shorn_error(p, 'person') FROM damaged WHERE what = 'cut';
SELECT shorn_extract(p, 'person', '$.name') FROM damaged WHERE what = 'cut';
SELECT shorn_extract(p, 'person', '$.tags') FROM damaged WHERE what = 'cut';
-- A non-canonical varint returned: age 36 in two bytes (A4 00).
INSERT INTO damaged VALUES ('age', x'02A4000F616461406578616D706C652E6F726703416461000000000000244000');
SELECT shorn_extract(p, 'person', '$.name'), shorn_error(p, 'person') FROM damaged WHERE what = 'age';
SELECT shorn_extract(p, 'person', '$.age') FROM damaged WHERE what = 'age';
-- Bytes after the value are outside every path, '$' included; shorn_decode refuses them.
INSERT INTO damaged VALUES ('trailing', x'02240F616461406578616D706C652E6F72670341646100000000000024400000');
SELECT shorn_extract(p, 'person', '$.name'), shorn_extract(p, 'person', '$'), shorn_valid(p, 'person'), shorn_error(p, 'person')
  FROM damaged WHERE what = 'trailing';
-- A CHECK constraint keeps a column valid, and every path then answers as over shorn_decode.
CREATE TABLE checked(p BLOB CHECK (shorn_valid(p, 'person')));
INSERT INTO checked SELECT payload FROM people;
INSERT INTO checked SELECT p FROM damaged WHERE what = 'email';
SELECT count(*) FROM checked;

.print -- fingerprinted payloads: fp_bytes (an INTEGER) right after the schema
CREATE TABLE stamped AS SELECT id, shorn_encode(shorn_decode(payload, 'person'), 'person', 3) AS payload FROM people;
SELECT hex(substr(payload, 1, 3)), shorn_fingerprint('person') FROM stamped WHERE id = 1;
SELECT shorn_extract(payload, 'person', 3, '$.name'), shorn_extract(payload, 'person', 3, '$.name', '$.age'),
       shorn_type(payload, 'person', 3), shorn_type(payload, 'person', 3, '$.tags'),
       shorn_valid(payload, 'person', 3), quote(shorn_error(payload, 'person', 3))
  FROM stamped WHERE id = 1;
SELECT key, value FROM shorn_each((SELECT payload FROM stamped WHERE id = 1), 'person', 3, '$.tags');
SELECT count(*) FROM shorn_tree((SELECT payload FROM stamped WHERE id = 1), 'person', 3);
-- The wrong width, or none, is a different payload.
SELECT shorn_valid(payload, 'person', 4), shorn_error(payload, 'person', 4), shorn_valid(payload, 'person')
  FROM stamped WHERE id = 1;
SELECT shorn_extract(payload, 'person', 4, '$.name') FROM stamped WHERE id = 1;
SELECT shorn_extract(payload, 'person', 5, '$.name') FROM stamped WHERE id = 1;
SELECT shorn_extract(payload, 'person', 3) FROM stamped WHERE id = 1;
SELECT shorn_type(payload, 'person', '$', '$') FROM stamped WHERE id = 1;

.print -- shorn_each and shorn_tree: json_each's and json_tree's columns
SELECT * FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person');
SELECT * FROM shorn_tree((SELECT payload FROM people WHERE id = 1), 'person');
SELECT * FROM shorn_tree((SELECT payload FROM people WHERE id = 1), 'person', '$.address');
-- rowid counts the rows from 0, as json_each's does.
SELECT rowid, key FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person') ORDER BY rowid;
-- A scalar is one row; a missing path, none.
SELECT * FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person', '$.age');
SELECT count(*) FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person', '$.email');
-- Joined to the table, like json_each: one row per tag.
SELECT p.id, t.value FROM people AS p, shorn_each(p.payload, 'person', '$.tags') AS t ORDER BY p.id, t.key;
-- Row for row what json_each and json_tree give over the decoded JSON, but
-- for id and parent, which count from the node the path names (equal at '$'
-- before SQLite 3.45, which numbers nodes by their offset in JSONB).
SELECT count(*), sum(s.id = j.id AND s.parent IS j.parent) FROM people AS p, shorn_tree(p.payload, 'person') AS s
  JOIN json_tree(shorn_decode(p.payload, 'person')) AS j ON j.fullkey = s.fullkey
  WHERE s.key IS j.key AND s.value IS j.value AND s.type = j.type AND s.atom IS j.atom AND s.path = j.path;
SELECT count(*) FROM people AS p, shorn_tree(p.payload, 'person');
SELECT s.id, j.id, s.parent, j.parent, s.fullkey FROM shorn_tree((SELECT payload FROM people WHERE id = 1), 'person', '$.tags') AS s
  JOIN json_tree((SELECT shorn_decode(payload, 'person') FROM people WHERE id = 1), '$.tags') AS j USING (fullkey);
-- The hidden columns are the arguments, as json_each's json and root are.
SELECT DISTINCT typeof(payload), schema, quote(fp_bytes), root FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person', '$.tags');
SELECT DISTINCT fp_bytes, root FROM shorn_each((SELECT payload FROM stamped WHERE id = 1), 'person', 3);
SELECT key FROM shorn_each WHERE payload = (SELECT payload FROM people WHERE id = 3) AND schema = 'person' AND root = '$.address';
SELECT * FROM shorn_each((SELECT payload FROM people WHERE id = 1), 'person', '$.tags[');
SELECT * FROM shorn_tree((SELECT payload FROM people WHERE id = 1), 'nobody');
SELECT * FROM shorn_each(42, 'person');
SELECT * FROM shorn_each((SELECT payload FROM stamped WHERE id = 1), 'person', 3, 4);

.print -- an index on shorn_extract: built, and used by the planner
CREATE INDEX people_by_name ON people(shorn_extract(payload, 'person', '$.name'));
-- The plans select the payload, which the index does not hold: a plan that
-- needs only the rowid is "USING COVERING INDEX" in SQLite 3.53, not in 3.40.
EXPLAIN QUERY PLAN SELECT payload FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada';
SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada';
SELECT id, shorn_extract(payload, 'person', '$.name') FROM people ORDER BY shorn_extract(payload, 'person', '$.name');
EXPLAIN QUERY PLAN SELECT payload FROM people ORDER BY shorn_extract(payload, 'person', '$.name');
-- A generated column over it, indexed too.
ALTER TABLE people ADD COLUMN age INTEGER GENERATED ALWAYS AS (shorn_extract(payload, 'person', '$.age'));
CREATE INDEX people_by_age ON people(age);
EXPLAIN QUERY PLAN SELECT id FROM people WHERE age > 40;
SELECT id, age FROM people WHERE age > 40 ORDER BY age;
PRAGMA integrity_check;

.print -- fp_bytes as a REAL with an integral value, as Node binds every number
SELECT shorn_extract(payload, 'person', 3.0, '$.name'), shorn_type(payload, 'person', 3.0), shorn_valid(payload, 'person', 3.0),
       (SELECT count(*) FROM shorn_each(stamped.payload, 'person', 3.0, '$.tags'))
  FROM stamped WHERE id = 1;
SELECT shorn_extract(payload, 'person', 2.5, '$.name') FROM stamped WHERE id = 1;
