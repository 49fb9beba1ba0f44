-- Where SQLite's JSON functions changed after 3.40, shorn answers the same
-- on every SQLite (docs/querying.md, "Where shorn and SQLite's JSON functions
-- differ"): each case shows shorn's answer, then json_*'s over the decoded
-- JSON, which the expected output gives per version.
CREATE TABLE doc(schema TEXT, payload BLOB);
INSERT INTO doc(schema) VALUES ('{"type":"object","additionalProperties":{}}');
UPDATE doc SET payload = shorn_encode('{"s":"a\u0000b","k\u0000x":1,"a\"b":2,"a\\b":3,"m":[[1,2],[3,[4]]]}', schema);
SELECT shorn_decode(payload, schema) FROM doc;

.print -- a string holding U+0000 ends there, as in SQLite 3.40; 3.45 keeps it whole
SELECT hex(shorn_extract(payload, schema, '$.s')), hex(json_extract(shorn_decode(payload, schema), '$.s')) FROM doc;
SELECT hex(s.key), hex(j.key) FROM doc, shorn_each(doc.payload, doc.schema) AS s
  JOIN json_each(shorn_decode(doc.payload, doc.schema)) AS j ON j.fullkey = s.fullkey WHERE s.value = 1;
SELECT hex(s.value), hex(j.value) FROM doc, shorn_each(doc.payload, doc.schema) AS s
  JOIN json_each(shorn_decode(doc.payload, doc.schema)) AS j ON j.fullkey = s.fullkey WHERE s.fullkey = '$.s';

.print -- a path key is compared with the name as the JSON text writes it, escapes and all, as in 3.40;
.print -- 3.45 compares names unescaped, and reads escapes inside a quoted key
SELECT p, quote(shorn_extract(payload, schema, p)), quote(json_extract(shorn_decode(payload, schema), p))
  FROM doc, (SELECT '$.a\"b' AS p UNION ALL SELECT '$.a\\b' UNION ALL SELECT '$."a\\b"' UNION ALL SELECT '$.a\b');
SELECT quote(json_extract(shorn_decode(payload, schema), '$."a\"b"')) FROM doc;
SELECT shorn_extract(payload, schema, '$."a\"b"') FROM doc;

.print -- a malformed path is shorn's error, worded as 3.40 words it; 3.45 words its own otherwise
SELECT shorn_extract(payload, schema, '$.m[x]') FROM doc;
SELECT json_extract(shorn_decode(payload, schema), '$.m[x]') FROM doc;

.print -- an index too large for 32 bits names nothing; 3.40 wraps it at 2^32
SELECT quote(shorn_extract(payload, schema, '$.m[4294967296]')), quote(json_extract(shorn_decode(payload, schema), '$.m[4294967296]'))
  FROM doc;

.print -- shorn_valid(NULL) is NULL, as every shorn function's answer to NULL; json_valid(NULL) is 0 in 3.40
SELECT quote(shorn_valid(NULL, schema)), quote(json_valid(NULL)) FROM doc;

.print -- node ids are 3.40's (a node per value and per object key, in document order); 3.45 numbers
.print -- nodes by their offset in JSONB
SELECT s.fullkey, s.id, j.id, s.parent, j.parent FROM doc, shorn_tree(doc.payload, doc.schema, '$.m') AS s
  JOIN json_tree(shorn_decode(doc.payload, doc.schema), '$.m') AS j ON j.fullkey = s.fullkey;

.print -- under a path, shorn_tree's rows are 3.40's: [0] for each array above the first row, which has
.print -- no key; 3.45 writes the path as given, but the first row's key and path only when it is its parent's first child
SELECT key, fullkey, path FROM doc, shorn_tree(doc.payload, doc.schema, '$.m[1]');
SELECT key, fullkey, path FROM doc, json_tree(shorn_decode(doc.payload, doc.schema), '$.m[1]');
SELECT key, fullkey, path FROM doc, shorn_tree(doc.payload, doc.schema, '$.m[1][1]');
SELECT key, fullkey, path FROM doc, json_tree(shorn_decode(doc.payload, doc.schema), '$.m[1][1]');

.print -- shorn_encode reads RFC 8259 JSON text alone: JSON5, which json() takes from 3.42, and JSONB, which
.print -- SQLite makes from 3.45, go through json() first
SELECT shorn_encode('{a:1}', schema) FROM doc;
SELECT shorn_encode(x'4C17611331', schema) FROM doc;
SELECT json('{a:1}');
SELECT json(x'4C17611331');
