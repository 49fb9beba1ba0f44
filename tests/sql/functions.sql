-- The four SQL functions with inline schemas: results, NULLs, errors.
.mode list
.bail off
CREATE TEMP TABLE s(name TEXT PRIMARY KEY, schema TEXT);
INSERT INTO s VALUES
  ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},"required":["name","age","sex"],"additionalProperties":false}'),
  ('uints', '{"type":"array","items":{"type":"integer","minimum":0}}'),
  ('floats', '{"type":"array","items":{"type":"number"}}'),
  ('any', '{}'),
  ('literal', '{"const":"x"}');
CREATE TEMP VIEW person AS SELECT schema FROM s WHERE name = 'person';

SELECT '-- encode and decode';
SELECT hex(shorn_encode('{"name":"Grace","age":45,"sex":"F"}', (SELECT schema FROM person)));
SELECT hex(shorn_encode('{"name":"Grace","age":45,"sex":"F"}', (SELECT schema FROM person), 3));
SELECT shorn_decode(x'2d05477261636500', (SELECT schema FROM person));
SELECT shorn_decode(x'7236d12d05477261636500', (SELECT schema FROM person), 3);
SELECT typeof(shorn_encode('"x"', (SELECT schema FROM s WHERE name = 'literal'))),
       length(shorn_encode('"x"', (SELECT schema FROM s WHERE name = 'literal')));
SELECT shorn_decode(x'', (SELECT schema FROM s WHERE name = 'literal'));
-- A number argument is its text, as SQLite converts it.
SELECT hex(shorn_encode(300, '{"type":"integer","minimum":0}'));

SELECT '-- fingerprints and signatures';
SELECT shorn_fingerprint(schema), shorn_fingerprint(schema, 1), shorn_fingerprint(schema, 4) FROM person;
SELECT shorn_signature(schema) FROM person;
SELECT shorn_signature('{"type":["string","number"]}');

SELECT '-- the decoded text is JSON to SQLite';
SELECT json_object('person', shorn_decode(x'2d05477261636500', (SELECT schema FROM person)));
SELECT shorn_decode(x'2d05477261636500', (SELECT schema FROM person)) ->> '$.name';
SELECT json_type(shorn_decode(x'03010203', (SELECT schema FROM s WHERE name = 'uints')));

SELECT '-- JSON conventions';
SELECT shorn_decode(shorn_encode_unchecked('[0.1, -0, 1e21, 1e400, -1e400, 5e-324, 123456789012345680000]', schema), schema)
  FROM s WHERE name = 'floats'; SELECT shorn_check('[0.1, 1e400]', schema) FROM s WHERE name = 'floats';
SELECT shorn_decode(shorn_encode('{"b":1,"a":[true,null,"\u2028\u0001"],"😀":2,"Ａ":3}', schema), schema)
  FROM s WHERE name = 'any';
SELECT hex(shorn_encode('{"a":1,"a":2}', schema)) FROM s WHERE name = 'any';

SELECT '-- schemas from a column, one row each';
SELECT name, hex(shorn_encode(CASE name WHEN 'uints' THEN '[1,2]' WHEN 'floats' THEN '[1.5]'
                                WHEN 'literal' THEN '"x"' ELSE 'null' END, schema))
  FROM s WHERE name <> 'person' ORDER BY name;

SELECT '-- NULL in, NULL out';
SELECT quote(shorn_encode(NULL, '{}')), quote(shorn_encode('1', NULL)), quote(shorn_decode(NULL, '{}')),
       quote(shorn_decode(x'00', NULL)), quote(shorn_fingerprint(NULL)), quote(shorn_signature(NULL)),
       quote(shorn_encode('1', '{}', NULL));

SELECT '-- errors';
SELECT shorn_encode('{"name":"Grace","age":-1,"sex":"F"}', (SELECT schema FROM person));
SELECT shorn_encode('{"name":"Grace","age":45,"sex":"Q"}', (SELECT schema FROM person));
SELECT shorn_encode('{"name":"Grace","age":45}', (SELECT schema FROM person));
SELECT shorn_encode('[1,2,"3"]', (SELECT schema FROM s WHERE name = 'uints'));
SELECT shorn_encode('[1,2', (SELECT schema FROM s WHERE name = 'uints'));
SELECT shorn_encode('[1] x', (SELECT schema FROM s WHERE name = 'uints'));
SELECT shorn_decode(x'2d0547', (SELECT schema FROM person));
SELECT shorn_decode(x'2d0547726163650000', (SELECT schema FROM person));
SELECT shorn_decode(x'7236d22d05477261636500', (SELECT schema FROM person), 3);
SELECT shorn_decode(123, (SELECT schema FROM person));
SELECT shorn_encode('1', '{}', 5);
SELECT shorn_encode('1', '{}', 'two');
SELECT shorn_fingerprint('{}', 0);
SELECT shorn_signature('{"type":"strin"}');
SELECT shorn_signature('{"anyOf":[{"type":"integer"},{"type":"number"}]}');
SELECT shorn_signature('{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}');
SELECT shorn_signature('{"enum":[-0,1]}');
SELECT shorn_signature('{not json');

SELECT '-- fp_bytes as a REAL with an integral value, as Node binds every number';
SELECT hex(shorn_encode('{"name":"Grace","age":45,"sex":"F"}', (SELECT schema FROM person), 3.0)),
       shorn_decode(x'7236d12d05477261636500', (SELECT schema FROM person), 3.0),
       shorn_fingerprint((SELECT schema FROM person), 4.0);
SELECT shorn_encode('1', '{}', 2.5);

SELECT '-- errors quote as JSON.stringify does, and are strict UTF-8 when cut';
SELECT shorn_encode('"\ud800"', '{"enum":["a"]}');
SELECT shorn_encode('"a\"b\n"', '{"enum":["a"]}');
SELECT shorn_encode('"a' || replace(printf('%30s', ''), ' ', 'é') || '"', '{"enum":["a"]}');
SELECT shorn_encode('{"' || replace(printf('%150s', ''), ' ', 'é') || '":"x"}',
                    '{"type":"object","additionalProperties":{"type":"integer"}}');
SELECT shorn_encode('{"\ud800\"\u0001":1}', '{"type":"object"}');

SELECT '-- which input is at fault';
SELECT shorn_encode('{"a":', '{}');
SELECT shorn_encode('1', '{"type":');
SELECT shorn_decode(x'00', '{"type":');
SELECT shorn_fingerprint('{"type":');
SELECT shorn_decode('2d05477261636500', (SELECT schema FROM person));
SELECT shorn_decode(2.5, (SELECT schema FROM person));
-- A schema read from a file with readfile() is a BLOB of UTF-8 text.
SELECT hex(shorn_encode('true', CAST('{"type":"boolean"}' AS BLOB)));
SELECT shorn_encode('true', x'7bff7d');

SELECT '-- limits are named';
SELECT shorn_encode('9007199254740993', '{"type":"integer"}');
SELECT shorn_encode('9007199254740993', '{"type":"integer","minimum":0}');
SELECT shorn_encode('"' || printf('%.*c', 67108865, 'a') || '"', '{"type":"string"}');
SELECT shorn_decode(x'8180802061', '{"type":"string"}');
SELECT shorn_decode(x'c1843d00', '{"type":"array","items":{"type":"integer","minimum":0}}');

SELECT '-- NULL in, NULL out, once the schema is pinned';
-- A constant schema is pinned after the first row; a NULL on a later row is still NULL,
-- whatever else is wrong.
WITH t(j) AS (VALUES ('1'), (NULL), ('2')) SELECT group_concat(quote(shorn_encode(j, '{}')), ',') FROM t;
WITH t(w) AS (VALUES (1), (NULL), (4)) SELECT group_concat(quote(shorn_encode('1', '{}', w)), ',') FROM t;
WITH t(p, w) AS (VALUES (x'120302', 1), (NULL, 1), (x'120302', NULL))
SELECT group_concat(quote(shorn_decode(p, '{}', w)), ',') FROM t;
SELECT quote(shorn_encode(NULL, 'no such schema', 9)), quote(shorn_decode(NULL, 'no such schema', 9));

SELECT '-- results held at once, row after row, copied and handed over, and one past 64 KiB';
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300),
  v(i, j) AS (SELECT i, json_object('age', i, 'name', printf('%.*c', CASE i WHEN 300 THEN 70000 ELSE 3 * i END, 'x'),
                                    'sex', 'X') FROM n),
  e(i, j, a, b) AS (SELECT i, j, shorn_encode(j, (SELECT schema FROM person)),
                           shorn_encode(j, (SELECT schema FROM person), 4) FROM v)
SELECT count(*), sum(shorn_decode(a, (SELECT schema FROM person)) = j),
       sum(shorn_decode(b, (SELECT schema FROM person), 4) = j), sum(substr(b, 5) = a), max(length(a)),
       (SELECT max(a) FROM e) = (SELECT a FROM e ORDER BY a DESC LIMIT 1) FROM e;
