-- shorn_stats(): a query compiles its schema once, not once a row, whether
-- the schema is a literal, a subquery or a column; and results that come
-- from the connection's reused output buffer stay distinct row by row.
.mode list
.bail off
SELECT shorn_stats();
CREATE TEMP TABLE n(i INTEGER PRIMARY KEY);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1000) INSERT INTO n SELECT i FROM k;
CREATE TEMP TABLE s(schema TEXT);
INSERT INTO s VALUES ('{"type":"array","items":{"type":"integer","minimum":0}}');

SELECT '-- a literal';
SELECT sum(shorn_decode(shorn_encode(i, '{"type":"integer","minimum":0}'), '{"type":"integer","minimum":0}')) FROM n;
SELECT shorn_stats() ->> '$.compilations', shorn_stats() ->> '$.entries';

SELECT '-- a column, then a subquery: the same text, compiled already';
SELECT count(shorn_encode(json_array(i, i + 1), schema)) FROM n, s;
SELECT count(shorn_encode(json_array(i), (SELECT schema FROM s))) FROM n;
SELECT shorn_stats() ->> '$.compilations', shorn_stats() ->> '$.entries';

SELECT '-- each row its own result';
SELECT group_concat(shorn_decode(shorn_encode(json_array(i, i * 1000), schema), schema), ' ')
  FROM (SELECT i FROM n WHERE i <= 3), s;
SELECT count(DISTINCT shorn_encode(json_array(i), schema)) FROM n, s;

SELECT '-- not deterministic: no index may use it';
CREATE TEMP TABLE t(x);
CREATE INDEX temp.bad ON t(shorn_stats());
