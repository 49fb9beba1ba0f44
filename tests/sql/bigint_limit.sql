-- The built-in BigInt conversion's limit, SHORN_BIGINT_MAX_BYTES (1 MiB by
-- default): the largest value converts both ways, one byte more is refused
-- in both directions with the limit's name and what lifts it.  (A build
-- with GMP, make WITH_GMP=1, converts up to the layout's 64 MiB instead.)
.mode list
-- 2^(8 * (2^20 - 1)): a magnitude of 1 MiB, 2,525,221 digits.
SELECT length(shorn_decode(CAST(x'80808001' || zeroblob(1048575) || x'01' AS BLOB),
                           '{"type":"string","x-shorn":"bigint"}'));
SELECT length(shorn_encode(shorn_decode(CAST(x'80808001' || zeroblob(1048575) || x'01' AS BLOB),
                                        '{"type":"string","x-shorn":"bigint"}'),
                           '{"type":"string","x-shorn":"bigint"}'));
-- One byte more: 2^(8 * 2^20), a 1 followed by zero bytes.
SELECT shorn_decode(CAST(x'82808001' || zeroblob(1048576) || x'01' AS BLOB), '{"type":"string","x-shorn":"bigint"}');
-- The layout allows it, but this build cannot read it: shorn_check_payload says so.
SELECT shorn_check_payload(CAST(x'82808001' || zeroblob(1048576) || x'01' AS BLOB), '{"type":"string","x-shorn":"bigint"}');
-- More digits than any magnitude of 1 MiB has: refused before converting.
SELECT shorn_encode('"1' || hex(zeroblob(1262612)) || '"', '{"type":"string","x-shorn":"bigint"}');
-- As many digits as the largest, but a larger value: refused after.
SELECT shorn_encode('"9' || replace(hex(zeroblob(1262611)), '0', '9') || '"', '{"type":"string","x-shorn":"bigint"}');
