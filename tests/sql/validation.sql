-- The validated mode: shorn_encode checks the schema's validation keywords,
-- shorn_encode_unchecked does not, shorn_check says why a value would be
-- refused, shorn_check_payload the same of a stored payload; reads check
-- the structure only.
.mode list
.bail off
CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
-- Zod's z.object({ age: z.int().nonnegative().max(150), name: z.string().max(40),
-- email: z.email(), tags: z.array(z.string().regex(/^[a-z]+$/)).max(5) }).
INSERT INTO shorn_schemas(name, schema) VALUES
  ('event', '{"type":"object","properties":{"age":{"type":"integer","minimum":0,"maximum":150},"name":{"type":"string","maxLength":40},"email":{"type":"string","format":"email","pattern":"^(?:[A-Za-z0-9_''+\\-]+\\.)*[A-Za-z0-9_''+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"},"tags":{"maxItems":5,"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}}},"required":["age","name","email","tags"],"additionalProperties":false}');
CREATE TEMP TABLE plain(schema TEXT);
INSERT INTO plain VALUES ('{"type":"object","properties":{"age":{"type":"integer","minimum":0},"name":{"type":"string"},"email":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["age","name","email","tags"],"additionalProperties":false}');

.print -- the keywords are no part of the wire shape: one signature, one fingerprint
SELECT shorn_signature('event') = shorn_signature(schema), shorn_fingerprint('event', 4) = shorn_fingerprint(schema, 4),
       shorn_fingerprint('event') FROM plain;

.print -- the issue's four values, each refused with its keyword, bound and path
SELECT hex(shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":["navy"]}', 'event'));
SELECT shorn_encode('{"age":500,"name":"Grace","email":"grace@navy.mil","tags":[]}', 'event');
SELECT shorn_encode('{"age":45,"name":"' || printf('%.300c', 'x') || '","email":"grace@navy.mil","tags":[]}', 'event');
SELECT shorn_encode('{"age":45,"name":"Grace","email":"nope","tags":[]}', 'event');
SELECT shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":["A","B","C","D","E","F","G","H","I","J"]}', 'event');
SELECT shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":["a","b","c","d","e","f"]}', 'event');
-- Unknown keys under additionalProperties false are dropped, as Zod strips them.
SELECT hex(shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":[],"extra":1}', 'event'));

.print -- shorn_check: NULL when shorn_encode would take the value, else what it would say
SELECT shorn_check('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":["navy"]}', 'event') IS NULL;
SELECT shorn_check('{"age":-1,"name":"Grace","email":"grace@navy.mil","tags":[]}', 'event');
SELECT shorn_check('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":["navy","Army"]}', 'event');
SELECT shorn_check('{"age":45}', 'event');
SELECT shorn_check('{"age":45,', 'event');
SELECT shorn_check('[1,2,', '{"type":"array"}');
SELECT shorn_check(NULL, 'event') IS NULL, shorn_check('1', NULL) IS NULL;
-- A schema argument that names nothing is an error, as in shorn_encode.
SELECT shorn_check('1', 'no_such_schema');
SELECT shorn_check('"x"', '{"type":"string","pattern":"(a"}');
SELECT shorn_check('1');

.print -- shorn_encode_unchecked: the structure alone, as the library's unchecked()
SELECT hex(shorn_encode_unchecked('{"age":500,"name":"Grace","email":"nope","tags":["A"]}', 'event'));
SELECT hex(shorn_encode_unchecked('{"age":500,"name":"Grace","email":"nope","tags":["A"]}', 'event', 3));
SELECT shorn_encode_unchecked('{"age":-1,"name":"Grace","email":"nope","tags":[]}', 'event');
SELECT shorn_encode_unchecked(NULL, 'event') IS NULL;
SELECT shorn_encode_unchecked('1', '{"type":"integer"}', 5);

.print -- reads stay readable: a payload the keywords refuse still decodes and answers
CREATE TABLE loaded(p BLOB);
INSERT INTO loaded VALUES (shorn_encode_unchecked('{"age":500,"name":"Grace","email":"nope","tags":["A"]}', 'event', 4));
SELECT shorn_decode(p) FROM loaded;
SELECT shorn_extract(p, 4, '$.age'), shorn_valid(p, 'event', 4), shorn_error(p, 'event', 4) IS NULL FROM loaded;

.print -- shorn_check_payload: the decode's error, or else what shorn_encode would say of its value
SELECT shorn_check_payload(p, 'event', 4) FROM loaded;
SELECT shorn_check_payload(p, 4) FROM loaded;
SELECT shorn_check_payload(shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":[]}', 'event'), 'event') IS NULL;
SELECT shorn_check_payload(x'2d', 'event');
SELECT shorn_check_payload('2d', 'event');
SELECT shorn_check_payload(p, 'event') FROM loaded;
SELECT shorn_check_payload(x'00', 'no_such_schema');

.print -- a CHECK constraint on payloads the library wrote
CREATE TABLE stored(p BLOB CHECK (shorn_check_payload(p, 'event') IS NULL));
INSERT INTO stored VALUES (shorn_encode('{"age":45,"name":"Grace","email":"grace@navy.mil","tags":[]}', 'event'));
INSERT INTO stored VALUES (shorn_encode_unchecked('{"age":151,"name":"Grace","email":"grace@navy.mil","tags":[]}', 'event'));
SELECT count(*) FROM stored;

.print -- an UPDATE of 100 rows stops at the row that breaks a keyword; shorn_check finds it
CREATE TABLE t(j TEXT, p BLOB);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
INSERT INTO t(j) SELECT json_object('age', CASE i WHEN 73 THEN 500 ELSE i END, 'name', 'user' || i,
                                    'email', 'user' || i || '@example.com', 'tags', json_array('a', 'b'))
  FROM n;
UPDATE t SET p = shorn_encode(j, 'event');
SELECT count(p) FROM t;
SELECT rowid, shorn_check(j, 'event') FROM t WHERE shorn_check(j, 'event') IS NOT NULL;
UPDATE t SET j = json_set(j, '$.age', 150) WHERE rowid = 73;
UPDATE t SET p = shorn_encode(j, 'event');
SELECT count(p), sum(shorn_extract(p, 'event', '$.age')) FROM t;

.print -- each keyword's message
SELECT shorn_check('0', '{"type":"number","exclusiveMinimum":0}');
SELECT shorn_check('1', '{"type":"number","exclusiveMaximum":1}');
SELECT shorn_check('0.35', '{"type":"number","multipleOf":0.1}') , shorn_check('0.3', '{"type":"number","multipleOf":0.1}') IS NULL;
SELECT shorn_check('"a"', '{"type":"string","minLength":2}');
SELECT shorn_check('"😀😀"', '{"type":"string","maxLength":2}') IS NULL, shorn_check('"😀😀😀"', '{"type":"string","maxLength":2}');
SELECT shorn_check('"grace@navy"', '{"type":"string","format":"email"}');
SELECT shorn_check('"1.2.3.04"', '{"type":"string","format":"ipv4"}');
SELECT shorn_check('[]', '{"type":"array","minItems":1}');
SELECT shorn_check('[1,2,1]', '{"type":"array","uniqueItems":true}');
SELECT shorn_check('{}', '{"type":"object","additionalProperties":{"type":"integer"},"minProperties":1}');
SELECT shorn_check('{"a":1,"b":2}', '{"type":"object","additionalProperties":{"type":"integer"},"maxProperties":1}');
SELECT shorn_check('{"k_a":1,"x":2}', '{"type":"object","propertyNames":{"pattern":"^k_"},"additionalProperties":{"type":"integer"}}');
SELECT shorn_check('"abxy"', '{"type":"string","allOf":[{"pattern":"^ab"},{"pattern":"yz$"}]}');

.print -- hostile schemas: a clear error, never a hang
SELECT shorn_check('"' || printf('%.40c', 'a') || 'é"', '{"type":"string","pattern":"^(a+)+$"}');
SELECT shorn_check('"abc"', '{"type":"string","minLength":1e300}');
SELECT shorn_check('"abc"', '{"type":"string","pattern":"a{99999}"}');
SELECT shorn_check('"abc"', '{"type":"string","pattern":"' || printf('%.100000c', '(') || '"}');
SELECT shorn_check('"abc"', '{"type":"string","pattern":"(?<=a+)b"}');

.print -- a step not above 0 or a bound past the largest double refuses the schema
SELECT shorn_check('1', '{"type":"number","multipleOf":0}');
SELECT shorn_check('1', '{"type":"object","properties":{"n":{"type":"integer","minimum":1e400}}}');
SELECT shorn_encode_unchecked('1', '{"type":"number","exclusiveMaximum":-1e400}');

.print -- format uri: RFC 3986's URI, a scheme first
SELECT shorn_check('"https://example.com/a?b=c#d"', '{"type":"string","format":"uri"}') IS NULL;
SELECT shorn_check('"/relative/path"', '{"type":"string","format":"uri"}');
