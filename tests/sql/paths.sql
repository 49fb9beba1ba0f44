-- shorn_paths(schema): a row for every place a value of the schema has,
-- each shape kind's; each listed path reaches the place with shorn_extract.

.print -- every leaf shape, a member each
SELECT path, type, shape, optional, quote(leads_to) FROM shorn_paths('{"type":"object","properties":{
  "any":{},"bool":{"type":"boolean"},"f64":{"type":"number"},"int":{"type":"integer"},
  "uint":{"type":"integer","minimum":0},"str":{"type":"string"},"id":{"type":"string","format":"uuid"},
  "at":{"type":"string","format":"date-time"},"big":{"type":"string","x-shorn":"bigint"},
  "raw":{"type":"string","contentEncoding":"base64","x-shorn":"bytes"},"f32":{"type":"number","x-shorn":"float32"},
  "v":{"const":2},"sex":{"enum":["M","F",null]},"odd key":{"type":"string"}},
  "required":["any","bool","f64","int","uint","str","id","at","big","raw","f32","v","sex"],"additionalProperties":false}');

.print -- containers: array, Set, Map, tuple with rest, record, open object, nullable, unions
SELECT path, type, shape, optional FROM shorn_paths('{"type":"object","properties":{
  "tags":{"type":"array","items":{"type":"string"}},
  "ids":{"type":"array","items":{"type":"integer"},"uniqueItems":true,"x-shorn":"set"},
  "counts":{"type":"array","items":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2,"maxItems":2},"x-shorn":"map"},
  "pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"items":{"type":"number"},"minItems":2},
  "scores":{"type":"object","additionalProperties":{"type":"number"}},
  "extra":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":{"type":"integer"}},
  "nick":{"type":["string","null"]},
  "either":{"anyOf":[{"type":"string"},{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}]},
  "shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
                    {"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"],"additionalProperties":false}]}},
  "required":["tags","ids","counts","pair","scores","extra","either","shape"],"additionalProperties":false}');

.print -- a recursion is listed once, naming where it leads
SELECT path, type, shape, quote(leads_to) FROM shorn_paths('{"$ref":"#/$defs/node","$defs":{"node":{"type":"object",
  "properties":{"value":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},
  "required":["value"],"additionalProperties":false}}}');

.print -- a definition used twice side by side is listed at each use; a recursion names its own place
SELECT path, shape, quote(leads_to) FROM shorn_paths('{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"},
  "other":{"$ref":"#/$defs/node"}},"required":["tree"],"$defs":{"node":{"type":"object","properties":{
  "v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v","kids"]}}}');

.print -- a schema with more places than are listed: 2^17 from seventeen definitions of two members each
WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 16)
SELECT count(*) FROM shorn_paths((SELECT '{"$ref":"#/$defs/d0","$defs":{' || group_concat(printf(
  '"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}},"required":["a","b"]}',
  i, i + 1, i + 1), ',') || ',"d17":{"type":"integer"}}}' FROM d));

.print -- a registered name, and a misspelt path found by what is listed
CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry;
INSERT INTO shorn_schemas(name, schema) VALUES ('person', '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}');
SELECT group_concat(path, ' ') FROM shorn_paths('person');
SELECT count(*) FROM shorn_paths('person') WHERE path = '$.nmae';
SELECT p.path, shorn_extract(shorn_encode('{"name":"Grace","age":45}', 'person'), 'person', p.path)
  FROM shorn_paths('person') AS p WHERE p.path <> '$';
-- The schema column, and no rows without a schema.
SELECT DISTINCT schema FROM shorn_paths('person');
SELECT count(*) FROM shorn_paths(NULL);
SELECT count(*) FROM shorn_paths;

.print -- refusals
SELECT * FROM shorn_paths('persn');
SELECT * FROM shorn_paths('{"type":"strin"}');
SELECT * FROM shorn_paths(x'ff');
