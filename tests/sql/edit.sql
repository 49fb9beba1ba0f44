-- Changing payloads: shorn_set, shorn_insert, shorn_replace, shorn_remove and
-- shorn_patch give the payload shorn_encode writes for what json_set,
-- json_insert, json_replace, json_remove and json_patch make of
-- shorn_decode(payload, schema), or shorn_encode's refusal, its path from the
-- root.  (tests/edit/differential.py compares them with that composition.)

CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema) VALUES ('person', '{"type":"object","properties":{
  "name":{"type":"string","minLength":1},"age":{"type":"integer","minimum":0,"maximum":150},
  "email":{"type":"string"},"tags":{"type":"array","items":{"type":"string"},"maxItems":3,"uniqueItems":true},
  "address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},
             "required":["city"],"additionalProperties":false}},
  "required":["name","age","tags"],"additionalProperties":false}');
CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB);
INSERT INTO people(payload) VALUES
  (shorn_encode('{"name":"Grace","age":45,"tags":["navy","cobol"],"address":{"city":"Arlington"}}', 'person')),
  (shorn_encode('{"name":"Ada","age":36,"email":"ada@example.org","tags":[]}', 'person'));

.print -- a field changed in place: only its bytes are new
SELECT hex(payload), hex(shorn_set(payload, 'person', '$.age', 46)) FROM people WHERE id = 1;
SELECT shorn_decode(shorn_set(payload, 'person', '$.age', 46), 'person') FROM people WHERE id = 1;
UPDATE people SET payload = shorn_set(payload, 'person', '$.address.city', 'Boston') WHERE id = 1;
SELECT shorn_extract(payload, 'person', '$.address') FROM people WHERE id = 1;

.print -- values as json_set takes them: TEXT is a string, JSON (subtype J) is JSON, NULL is null
SELECT shorn_decode(shorn_set(payload, 'person', '$.tags', json('["a","b"]')), 'person') FROM people WHERE id = 2;
SELECT shorn_set(payload, 'person', '$.tags', '["a","b"]') FROM people WHERE id = 2;
SELECT shorn_decode(shorn_set(people.payload, 'person', '$.tags', shorn_extract(p2.payload, 'person', '$.tags')), 'person')
  FROM people, people AS p2 WHERE people.id = 2 AND p2.id = 1;
SELECT shorn_set(payload, 'person', '$.email', NULL) FROM people WHERE id = 2;

.print -- optional members added and removed, array elements appended and removed
SELECT shorn_decode(shorn_set(payload, 'person', '$.email', 'grace@navy.mil'), 'person') FROM people WHERE id = 1;
SELECT shorn_decode(shorn_remove(payload, 'person', '$.email'), 'person') FROM people WHERE id = 2;
SELECT shorn_decode(shorn_insert(payload, 'person', '$.tags[#]', 'fortran'), 'person') FROM people WHERE id = 1;
SELECT shorn_decode(shorn_remove(payload, 'person', '$.tags[0]', '$.address.zip'), 'person') FROM people WHERE id = 1;
-- json_insert leaves what is there, json_replace what is not: the payload as it was.
SELECT shorn_insert(payload, 'person', '$.age', 1) = payload, shorn_replace(payload, 'person', '$.email', 'x') = payload,
       shorn_replace(payload, 'person', '$.tags[5]', 'x') = payload, shorn_set(payload, 'person', '$.age.x', 1) = payload
  FROM people WHERE id = 1;
SELECT shorn_decode(shorn_replace(payload, 'person', '$.name', 'Ada Lovelace'), 'person') FROM people WHERE id = 2;
-- Several pairs apply left to right, and are checked once, as one encode.
SELECT shorn_decode(shorn_set(payload, 'person', '$.tags[#]', 'x', '$.tags[#]', 'y', '$.tags[0]', 'z'), 'person')
  FROM people WHERE id = 2;
SELECT shorn_decode(shorn_set(payload, 'person', '$.age', 'old', '$.age', 37), 'person') FROM people WHERE id = 2;
-- A NULL path: json_set passes over its pair, json_remove gives NULL; so does removing the root.
SELECT shorn_decode(shorn_set(payload, 'person', NULL, 1, '$.age', 2), 'person') FROM people WHERE id = 2;
SELECT quote(shorn_remove(payload, 'person', NULL)), quote(shorn_remove(payload, 'person', '$')) FROM people WHERE id = 2;
SELECT quote(shorn_set(NULL, 'person', '$.age', 1)), quote(shorn_set(payload, NULL, '$.age', 1)) FROM people WHERE id = 2;

.print -- refusals: shorn_encode's message and the path from the root
SELECT shorn_set(payload, 'person', '$.age', 200) FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.age', 'old') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.address.city', 5) FROM people WHERE id = 1;
SELECT shorn_remove(payload, 'person', '$.address.city') FROM people WHERE id = 1;
SELECT shorn_remove(payload, 'person', '$.name') FROM people WHERE id = 1;
-- A property additionalProperties: false leaves out is left out, as shorn_encode leaves it out.
SELECT shorn_set(payload, 'person', '$.nickname', 'Amazing') = payload FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.tags[#]', 'navy') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.tags[#]', 'a', '$.tags[#]', 'b') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.tags[1]', 7) FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.name', '') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$', json('[1]')) FROM people WHERE id = 1;

.print -- refusals of the arguments
SELECT shorn_set(payload, 'person', '$.age') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person') FROM people WHERE id = 1;
SELECT shorn_remove(payload, 'person') FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.tags[', 1) FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', 'age', 1) FROM people WHERE id = 1;
SELECT shorn_set(payload, 'person', '$.age', x'01') FROM people WHERE id = 1;
SELECT shorn_set('{"age":1}', 'person', '$.age', 2);
SELECT shorn_set(x'00', 'person', '$.age', 2);
SELECT shorn_set(payload, 'nobody', '$.age', 2) FROM people WHERE id = 1;
SELECT shorn_patch(payload, 'person') FROM people WHERE id = 1;
SELECT shorn_patch(payload, 'person', '{"age":') FROM people WHERE id = 1;

.print -- the fingerprint kept: fp_bytes after the schema, or in its place to dispatch
SELECT hex(shorn_encode('{"name":"Grace","age":45,"tags":[]}', 'person', 2)),
       hex(shorn_set(shorn_encode('{"name":"Grace","age":45,"tags":[]}', 'person', 2), 'person', 2, '$.age', 46)),
       hex(shorn_set(shorn_encode('{"name":"Grace","age":45,"tags":[]}', 'person', 4), 4, '$.age', 46));
SELECT shorn_set(shorn_encode('{"name":"Grace","age":45,"tags":[]}', 'person', 2), 2, 2, '$.age', 46);
SELECT shorn_set(shorn_encode('{"name":"Grace","age":45,"tags":[]}', 'person', 2), 'person', 5, '$.age', 46);
SELECT shorn_set(x'0000', 'person', 2, '$.age', 46);

.print -- shorn_patch: an RFC 7396 merge patch, as json_patch applies it
SELECT shorn_decode(shorn_patch(payload, 'person', '{"age":46,"address":{"zip":"22201"},"email":null}'), 'person')
  FROM people WHERE id = 1;
SELECT shorn_decode(shorn_patch(payload, 'person', '{"address":null,"tags":["x"]}'), 'person') FROM people WHERE id = 1;
SELECT shorn_patch(payload, 'person', '{"age":null}') FROM people WHERE id = 1;
SELECT shorn_patch(payload, 'person', '[1]') FROM people WHERE id = 1;
SELECT quote(shorn_patch(payload, 'person', NULL)) FROM people WHERE id = 1;
-- A patch nested deeper than any payload can be is refused before it is merged.
SELECT shorn_patch(payload, 'person', replace(printf('%.*c', 8193, '~'), '~', '{"a":') || '1' || printf('%.*c', 8193, '}'))
  FROM people WHERE id = 1;

.print -- every shape
-- Tuples: a fixed count, and the rest's count.
CREATE TABLE shapes(name TEXT PRIMARY KEY, schema TEXT);
INSERT INTO shapes VALUES
  ('rest', '{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}'),
  ('pair', '{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2,"maxItems":2}'),
  ('three', '{"type":"array","items":{"type":"integer"},"minItems":3,"maxItems":3}'),
  ('shape', '{"oneOf":[
    {"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
    {"type":"object","properties":{"kind":{"const":"rect"},"w":{"type":"integer"},"h":{"type":"integer"}},"required":["kind","w","h"],"additionalProperties":false}],
    "discriminator":{"propertyName":"kind"}}'),
  ('either', '{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}},"required":["v"]}'),
  ('scores', '{"type":"object","additionalProperties":{"type":"integer"},"maxProperties":3,"propertyNames":{"pattern":"^[a-z]$"}}'),
  ('open', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":true}'),
  ('letters', '{"type":"array","items":{"type":"string"},"uniqueItems":true,"x-shorn":"set"}'),
  ('counts', '{"type":"array","items":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer","minimum":0}],"items":false,"minItems":2,"maxItems":2},"x-shorn":"map"}'),
  ('any', '{"type":"object","properties":{"any":{}},"required":["any"]}'),
  ('wire', '{"type":"object","properties":{"big":{"type":"string","x-shorn":"bigint"},"raw":{"type":"string","contentEncoding":"base64","x-shorn":"bytes"},
    "f":{"type":"number","x-shorn":"float32"},"at":{"type":"string","format":"date-time"}},"required":["big","raw","f","at"]}'),
  ('node', '{"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},
    "required":["value","children"],"additionalProperties":false}},"$ref":"#/$defs/node"}');
CREATE TABLE samples(name TEXT, payload BLOB);
WITH v(n, value) AS (VALUES
  ('rest', '["x",2,1]'), ('pair', '["a",1]'), ('three', '[1,2,3]'), ('shape', '{"kind":"circle","r":2}'),
  ('either', '{"v":"x"}'), ('scores', '{"b":2}'), ('open', '{"name":"x","n":5}'), ('letters', '["a","b"]'),
  ('counts', '[["x",1],["y",300]]'), ('any', '{"any":{"x":[1,{"y":null}]}}'),
  ('wire', '{"big":"1","raw":"CQk=","f":1.5,"at":"2026-01-02T00:00:00.000Z"}'),
  ('node', '{"value":1,"children":[{"value":2,"children":[]}]}'))
INSERT INTO samples SELECT name, shorn_encode(value, schema) FROM shapes JOIN v ON n = name;
CREATE VIEW sample AS SELECT samples.name, payload, schema FROM samples JOIN shapes USING (name);
-- Tuples: the items, and the rest's count.
SELECT shorn_decode(shorn_set(payload, schema, '$[1]', 9), schema), shorn_decode(shorn_remove(payload, schema, '$[2]'), schema),
       shorn_decode(shorn_set(payload, schema, '$[#]', 5), schema) FROM sample WHERE name = 'rest';
SELECT shorn_remove(payload, schema, '$[1]') FROM sample WHERE name = 'pair';
SELECT hex(payload), hex(shorn_set(payload, schema, '$[0]', 9)) FROM sample WHERE name = 'three';
SELECT shorn_set(payload, schema, '$[#]', 4) FROM sample WHERE name = 'three';
-- Discriminated unions: a member of the branch, or the discriminant, which changes the branch.
SELECT hex(payload), hex(shorn_set(payload, schema, '$.r', 3)),
       shorn_decode(shorn_set(payload, schema, '$', json('{"kind":"rect","w":1,"h":2}')), schema),
       shorn_decode(shorn_set(payload, schema, '$.kind', 'rect', '$.w', 1, '$.h', 2, '$.r', NULL), schema)
  FROM sample WHERE name = 'shape';
SELECT shorn_set(payload, schema, '$.kind', 'rect') FROM sample WHERE name = 'shape';
-- Type-disjoint unions: the branch follows the value.
SELECT hex(payload), hex(shorn_set(payload, schema, '$.v', 5)), hex(shorn_set(payload, schema, '$.v', NULL))
  FROM sample WHERE name = 'either';
SELECT shorn_set(payload, schema, '$.v', json('{}')) FROM sample WHERE name = 'either';
-- Records and open objects: keys added in order, the keywords over the keys checked.
SELECT shorn_decode(shorn_set(payload, schema, '$.a', 1, '$.c', 3), schema) FROM sample WHERE name = 'scores';
SELECT shorn_set(payload, schema, '$.a', 1, '$.c', 3, '$.d', 4) FROM sample WHERE name = 'scores';
SELECT shorn_set(payload, schema, '$.B', 1) FROM sample WHERE name = 'scores';
SELECT shorn_decode(shorn_set(payload, schema, '$.n', json('[1,{"y":null}]'), '$.name', 'y', '$.m', 1), schema)
  FROM sample WHERE name = 'open';
-- Sets and Maps: a repeated element or key refused.
SELECT shorn_decode(shorn_set(payload, schema, '$[#]', 'c'), schema) FROM sample WHERE name = 'letters';
SELECT shorn_set(payload, schema, '$[0]', 'b') FROM sample WHERE name = 'letters';
SELECT shorn_decode(shorn_set(payload, schema, '$[0][1]', 7), schema),
       shorn_decode(shorn_set(payload, schema, '$[#]', json('["z",1]')), schema) FROM sample WHERE name = 'counts';
SELECT shorn_set(payload, schema, '$[1][0]', 'x') FROM sample WHERE name = 'counts';
-- Dynamic values: anything JSON, edited inside.
SELECT shorn_decode(shorn_set(payload, schema, '$.any.x[1].y', 2, '$.any.z', json('[true]')), schema),
       shorn_decode(shorn_remove(payload, schema, '$.any.x[0]'), schema) FROM sample WHERE name = 'any';
-- The x-shorn shapes: a BigInt, bytes, a float32; and a date-time.
SELECT shorn_decode(shorn_set(payload, schema, '$.big', '-18446744073709551616', '$.raw', 'CQkJ', '$.f', 0.5,
                              '$.at', '2026-12-04T18:00:00.000Z'), schema) FROM sample WHERE name = 'wire';
SELECT shorn_set(payload, schema, '$.raw', 'not base64!') FROM sample WHERE name = 'wire';
SELECT shorn_set(payload, schema, '$.at', '2026-12-04') FROM sample WHERE name = 'wire';
SELECT shorn_set(payload, schema, '$.big', 1.5) FROM sample WHERE name = 'wire';
-- Recursion: a node deep in a tree.
SELECT shorn_decode(shorn_set(payload, schema, '$.children[0].children[#]', json('{"value":3,"children":[]}')), schema)
  FROM sample WHERE name = 'node';
SELECT shorn_set(payload, schema, '$.children[0].value', 'x') FROM sample WHERE name = 'node';
