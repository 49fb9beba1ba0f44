#!/usr/bin/env bash
# The shorn command, end to end: every golden vector through --lines, then
# each rule and error class, checking stdout, stderr and the exit status
# exactly.
#   tests/cli/run.sh SHORN VECTOR_DIR [EVERY]
# EVERY N takes the vectors of every Nth schema only (a sanitized build starts
# each process slowly); the rules all run.
# `check && pass || fail` is an if-then-else here: pass always succeeds.
# shellcheck disable=SC2015
set -u
shorn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
vectors=$(cd "$2" && pwd)
every=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1 # every case runs here, so messages name files plainly

passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}

# ---- the golden vectors -----------------------------------------------------

mkdir vectors
$python "$here/vectors.py" "$shorn" "$vectors" vectors "$every" && pass || fail "the golden vectors (above)"

# ---- one rule at a time ----------------------------------------------------

given() { printf '%b' "$1" > stdin; }

# expect STATUS STDOUT STDERR ARG...: run `shorn ARG...` on the file stdin;
# STDOUT and STDERR are the exact outputs, with printf %b escapes.
expect() {
  local status=$1 out=$2 err=$3
  shift 3
  "$shorn" "$@" < stdin > got.out 2> got.err
  local got=$?
  printf '%b' "$out" > want.out
  printf '%b' "$err" > want.err
  if [ "$got" = "$status" ] && cmp -s got.out want.out && cmp -s got.err want.err; then
    pass
  else
    fail "shorn $*: exit $got, want $status"
    diff want.out got.out | head -6
    diff want.err got.err | head -6
  fi
}

# A usage error: exit 2, nothing on stdout, one line on stderr.
refuse() {
  local message=$1
  shift
  expect 2 '' "shorn: $message. Run shorn --help.\n" "$@"
}

printf '%s\n' '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F"]}},"required":["name","age","sex"],"additionalProperties":false}' > person.json
printf '{"type":"string"}' > string.json
printf '{"type":"integer"}' > integer.json
printf '{"const":"x"}' > const.json
printf '{"type":' > truncated.json
printf '{"type":"object","properties":{"a":{"type":"strin"}}}' > refused.json
cp string.json ./-dash.json
grace='{"name":"Grace","age":45,"sex":"F"}'
printf '%s' "$grace" > grace.json

# The published library's own example (Person, docs/format.md), and the
# string schema's fingerprints from tests/vectors/schemas.jsonl (ps00001).
given "$grace\n"
expect 0 'LQVHcmFjZQA=\n' '' encode person.json --base64
expect 0 '\x2d\x05Grace\x00' '' encode person.json
expect 0 'LQVHcmFjZQA=\n' '' --base64 encode person.json
expect 0 'LQVHcmFjZQA=\n' '' encode person.json --base64 --in grace.json
expect 0 'LQVHcmFjZQA=\n' '' encode person.json --base64 --in=grace.json
expect 0 'LQVHcmFjZQA=\n' '' encode person.json --base64 --in -
given '"a"'
expect 0 '\x1c\x4b\x3a\x6c\x01a' '' encode string.json --fingerprint 4
expect 0 'nGoBYQ==\n' '' encode string.json --fingerprint=2 --base64
expect 0 '\x24\x6c\xab\x01a' '' encode string.json --fingerprint 3
expect 0 '\x29\x01a' '' encode string.json --fingerprint 1
given '\x2d\x05Grace\x00'
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n' '' decode person.json
# The validation keywords, checked unless --unchecked, which encode alone takes.
printf '{"type":"integer","minimum":0,"maximum":150}' > age.json
given '500'
expect 1 '' 'shorn: Too big: expected at most 150 at $\n' encode age.json --hex
expect 0 'f403\n' '' encode age.json --hex --unchecked
given '"x"'
expect 1 '' 'shorn: Expected an unsigned integer, got a string at $\n' encode age.json --unchecked
refuse '--unchecked applies only to encode' decode age.json --unchecked
given ' \tLQVHcmFjZQA=\r\n\n'
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n' '' decode person.json --base64
given '\x1c\x4b\x3a\x6c\x01a'
expect 0 '"a"\n' '' decode string.json --fingerprint 4
given 'nGoBYQ==\n'
expect 0 '"a"\n' '' decode string.json --fingerprint 2 --base64
expect 1 '' 'shorn: Payload was written by a different schema (expected fingerprint 246cab) at byte 0\n' \
  decode string.json --fingerprint 3 --base64
given 'AWFi\n'
expect 1 '' 'shorn: Unexpected trailing data at byte 2\n' decode string.json --base64
given '\x1c\x4b'
expect 1 '' 'shorn: Unexpected end of input at byte 2\n' decode string.json --fingerprint 4
given ''
expect 0 '"x"\n' '' decode const.json
given '"x"'
expect 0 '\n' '' encode const.json --base64

# signature and fingerprint; the schema from stdin
given ''
expect 0 '"string"\n' '' signature string.json
expect 0 '246cab\n' '' fingerprint string.json
expect 0 '29\n' '' fingerprint string.json --bytes 1
expect 0 '9c6a\n' '' fingerprint string.json --bytes=2
expect 0 '1c4b3a6c\n' '' fingerprint string.json --bytes 4
expect 0 '"string"\n' '' signature -- -dash.json
given '{"type":"string"}'
expect 0 '"string"\n' '' signature -
expect 0 '246cab\n' '' fingerprint -
printf '"a"' > a.json
expect 0 '\x01a' '' encode - --in a.json
expect 0 'AWE=\n' '' encode - --in a.json --base64

# --out: written once the value converted; a failed value creates no file
given "$grace"
expect 0 '' '' encode person.json --base64 --out out.b64
[ "$(cat out.b64)" = LQVHcmFjZQA= ] && pass || fail "--out wrote $(cat out.b64)"
expect 0 '' '' signature string.json --out sig.txt
[ "$(cat sig.txt)" = '"string"' ] && pass || fail "signature --out wrote $(cat sig.txt)"
given '{"name":"Grace"}'
expect 1 '' 'shorn: Missing required property at $.age\n' encode person.json --out never.bin
[ ! -e never.bin ] && pass || fail "a failed encode created its --out file"
expect 1 '' 'shorn: cannot write no/such/dir: No such file or directory\n' signature string.json --out no/such/dir
if [ -w /dev/full ]; then
  expect 1 '' 'shorn: cannot write /dev/full: No space left on device\n' signature string.json --out /dev/full
  "$shorn" signature string.json > /dev/full 2> got.err
  status=$?
  [ "$status" = 1 ] && [ "$(cat got.err)" = 'shorn: cannot write stdout: No space left on device' ] && pass ||
    fail "stdout on /dev/full: exit $status, $(cat got.err)"
fi

# help and version win over everything but an unreadable option
given ''
for args in --help -h 'bogus --help' 'encode --help' '-h decode x y z'; do
  # shellcheck disable=SC2086 # the words are the arguments
  "$shorn" $args < stdin > got.out 2> got.err
  status=$?
  missing=
  for word in encode decode fingerprint signature --base64 --hex --fingerprint --lines --in --out --bytes --help --version; do
    grep -q -e "$word" got.out || missing="$missing $word"
  done
  [ "$status" = 0 ] && [ ! -s got.err ] && [ -z "$missing" ] && head -1 got.out | grep -q '^Usage: shorn ' && pass ||
    fail "shorn $args: exit $status, help lacks:$missing"
done
for args in --version -v 'encode --version'; do
  # shellcheck disable=SC2086
  "$shorn" $args < stdin > got.out 2> got.err
  status=$?
  [ "$status" = 0 ] && [ ! -s got.err ] && grep -qx '[0-9]*\.[0-9]*\.[0-9]*' got.out && [ "$(wc -l < got.out)" = 1 ] && pass ||
    fail "shorn $args: exit $status, printed $(cat got.out)"
done

# command lines it cannot read: exit 2
refuse 'no command'
refuse 'no command' --base64
refuse 'unknown command "bogus". Expected encode, decode, fingerprint or signature' bogus x
refuse 'unknown command "Encode". Expected encode, decode, fingerprint or signature' Encode x
refuse 'encode needs a schema file' encode
refuse 'fingerprint needs a schema file' fingerprint --bytes 2
refuse 'unexpected argument "extra"' decode person.json extra
refuse 'unknown option "--bogus"' encode person.json --bogus
refuse 'unknown option "--bogus"' encode person.json --bogus=1
refuse 'unknown option "-x"' encode person.json -x
refuse 'unknown option "--Base64"' encode person.json --Base64
refuse 'unknown option "-hv"' -hv
refuse 'unknown option "--bogus"' --help --bogus
refuse 'option --fingerprint needs a value' encode person.json --fingerprint
refuse 'option --in needs a value' encode person.json --in
refuse 'option --base64 takes no value' encode person.json --base64=yes
refuse 'option --help takes no value' --help=1
refuse '--fingerprint takes 1, 2, 3 or 4, not "5"' encode person.json --fingerprint 5
refuse '--fingerprint takes 1, 2, 3 or 4, not "0"' decode person.json --fingerprint 0
refuse '--fingerprint takes 1, 2, 3 or 4, not "12"' decode person.json --fingerprint 12
refuse '--fingerprint takes 1, 2, 3 or 4, not ""' decode person.json --fingerprint=
refuse '--bytes takes 1, 2, 3 or 4, not "x"' fingerprint person.json --bytes x
refuse '--bytes applies only to fingerprint' encode person.json --bytes 3
refuse '--base64 applies only to encode and decode' signature person.json --base64
refuse '--hex applies only to encode and decode' fingerprint person.json --hex
refuse 'option --hex takes no value' encode person.json --hex=1
refuse '--base64 and --hex exclude each other' encode person.json --hex --base64
refuse '--base64 and --hex exclude each other' decode person.json --base64 --lines --hex
refuse '--lines applies only to encode and decode' fingerprint person.json --lines
refuse '--in applies only to encode and decode' signature person.json --in a.json
refuse '--fingerprint applies only to encode and decode' fingerprint person.json --fingerprint 2
refuse 'the schema and the value cannot both come from stdin; give the value with --in FILE' encode -
refuse 'the schema and the value cannot both come from stdin; give the value with --in FILE' decode - --in -

# failures: exit 1, one line on stderr, nothing on stdout
given "$grace"
expect 1 '' 'shorn: cannot read missing.json: No such file or directory\n' encode missing.json
expect 1 '' 'shorn: cannot read .: Is a directory\n' signature .
expect 1 '' 'shorn: truncated.json: schema is not JSON: unexpected end of text at byte 8\n' encode truncated.json
expect 1 '' 'shorn: refused.json: Unsupported JSON Schema type "strin" at #/properties/a\n' encode refused.json
expect 1 '' 'shorn: cannot read missing.json: No such file or directory\n' encode person.json --in missing.json
given '{"type":'
expect 1 '' 'shorn: stdin: schema is not JSON: unexpected end of text at byte 8\n' signature -
given ''
expect 1 '' 'shorn: Invalid JSON: unexpected end of text at byte 0\n' encode person.json
given '{"name":"Grace"} x'
expect 1 '' 'shorn: Invalid JSON: text after the value at byte 17\n' encode person.json
given '{"name":"Grace","age":45,"sex":"X"}'
expect 1 '' 'shorn: Unknown enum value "X" at $.sex\n' encode person.json --base64
given '\x2d\x05Grace'
expect 1 '' 'shorn: Unexpected end of input at byte 7\n' decode person.json
# JSON Lines without --lines, base64 or hex text without its option: the refusal names the option.
given '{"name":"Grace","age":45,"sex":"F"}\n{"name":"Ada","age":36,"sex":"F"}\n'
expect 1 '' 'shorn: Invalid JSON: text after the value at byte 36; one value a line is JSON Lines: pass --lines\n' \
  encode person.json
given 'LQVHcmFjZQA=\n'
expect 1 '' 'shorn: Unexpected end of input at byte 2; the input is base64 text: pass --base64\n' decode person.json
given '2d05477261636500\n'
expect 1 '' 'shorn: Unexpected end of input at byte 2; the input is hex text: pass --hex\n' decode person.json
given '\x2d\x05Grace\x00\x00'
expect 1 '' 'shorn: Unexpected trailing data at byte 8\n' decode person.json
given '\x2d\x05Grace\x02'
expect 1 '' 'shorn: Unknown enum index 2 at byte 8\n' decode person.json
given 'LQVHcmFjZQA\n'
expect 1 '' 'shorn: Expected standard base64 with padding at byte 11\n' decode person.json --base64
given 'LQVHcmFjZQB=\n'
expect 1 '' 'shorn: Expected standard base64 with padding at byte 10\n' decode person.json --base64
given '  LQVH*mFjZQA=\n'
expect 1 '' 'shorn: Expected standard base64 with padding at byte 6\n' decode person.json --base64
given 'LQ-HcmFjZQA=\n'
expect 1 '' 'shorn: Expected standard base64 with padding at byte 2\n' decode person.json --base64
given 'LQVH\ncmFjZQA=\n'
expect 1 '' 'shorn: Expected standard base64 with padding at byte 4\n' decode person.json --base64

# --hex: lowercase hex and a newline out; either case in, white space around
given "$grace\n"
expect 0 '2d05477261636500\n' '' encode person.json --hex
given '2d05477261636500\n'
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n' '' decode person.json --hex
given ' \t2D05477261636500\r\n\n'
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n' '' decode person.json --hex
given '"a"'
expect 0 '1c4b3a6c0161\n' '' encode string.json --hex --fingerprint 4
given '1C4b3A6c0161'
expect 0 '"a"\n' '' decode string.json --fingerprint 4 --hex
expect 1 '' 'shorn: Payload was written by a different schema (expected fingerprint 246cab) at byte 0\n' \
  decode string.json --fingerprint 3 --hex
given '"x"'
expect 0 '\n' '' encode const.json --hex
given '\n'
expect 0 '"x"\n' '' decode const.json --hex
given '2d0547726163650\n'
expect 1 '' 'shorn: Expected an even number of hex digits at byte 15\n' decode person.json --hex
given '  2d05477x61636500\n'
expect 1 '' 'shorn: Expected a hex digit at byte 9\n' decode person.json --hex
given '0x2d05477261636500'
expect 1 '' 'shorn: Expected a hex digit at byte 1\n' decode person.json --hex
given '2d05 477261636500\n'
expect 1 '' 'shorn: Expected a hex digit at byte 4\n' decode person.json --hex
given 'LQVHcmFjZQA=\n'
expect 1 '' 'shorn: Expected a hex digit at byte 0\n' decode person.json --hex

# --lines: base64 lines out, and back; the first bad line stops the run
a=LQVHcmFjZQA= b=JANBZGEB # Grace 45 F: 2d 05 Grace 00; Ada 36 M: 24 03 Ada 01
given "$grace\n{\"name\":\"Ada\",\"age\":36,\"sex\":\"M\"}\n"
expect 0 "$a\n$b\n" '' encode person.json --lines
expect 0 "$a\n$b\n" '' encode person.json --lines --base64
given "$a\n$b\n"
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n{"age":36,"name":"Ada","sex":"M"}\n' '' decode person.json --lines
given "$a\r\n$b" # CRLF, and a last line without a newline
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n{"age":36,"name":"Ada","sex":"M"}\n' '' decode person.json --lines
given '"a"\n"b"\n'
expect 0 'HEs6bAFh\nHEs6bAFi\n' '' encode string.json --lines --fingerprint 4
given 'HEs6bAFh\nHEs6bAFi\n'
expect 0 '"a"\n"b"\n' '' decode string.json --lines --fingerprint 4
expect 1 '' 'shorn: line 1: Payload was written by a different schema (expected fingerprint 246cab) at byte 0\n' \
  decode string.json --lines --fingerprint 3
given '"x"\n"x"\n' # an empty payload is an empty line
expect 0 '\n\n' '' encode const.json --lines
given '\n\n'
expect 0 '"x"\n"x"\n' '' decode const.json --lines
given ''
expect 0 '' '' encode person.json --lines
expect 0 '' '' decode person.json --lines
given "$grace\n{\"name\":\"Ada\",\"age\":-36,\"sex\":\"M\"}\n$grace\n"
expect 1 "$a\n" 'shorn: line 2: Too small: expected at least 0 at $.age\n' encode person.json --lines
expect 1 '2d05477261636500\n' 'shorn: line 2: Too small: expected at least 0 at $.age\n' encode person.json --lines --hex
given "$grace\n\n$grace\n"
expect 1 "$a\n" 'shorn: line 2: Invalid JSON: unexpected end of text at byte 0\n' encode person.json --lines
given "$grace\n$grace\n{\"name\""
expect 1 "$a\n$a\n" 'shorn: line 3: Invalid JSON: unexpected end of text at byte 7\n' encode person.json --lines
given "$a\nLQVHcmFjZQ\n$a\n"
expect 1 '{"age":45,"name":"Grace","sex":"F"}\n' 'shorn: line 2: Expected standard base64 with padding at byte 10\n' \
  decode person.json --lines
given "$a\n$a\nLQVHcmFj\n"
expect 1 '{"age":45,"name":"Grace","sex":"F"}\n{"age":45,"name":"Grace","sex":"F"}\n' \
  'shorn: line 3: Unexpected end of input at byte 2\n' decode person.json --lines
# --lines --hex: hex lines out, and back (either case, CRLF, no last newline)
given "$grace\n{\"name\":\"Ada\",\"age\":36,\"sex\":\"M\"}\n"
expect 0 '2d05477261636500\n240341646101\n' '' encode person.json --lines --hex
given '2D05477261636500\r\n240341646101'
expect 0 '{"age":45,"name":"Grace","sex":"F"}\n{"age":36,"name":"Ada","sex":"M"}\n' '' decode person.json --hex --lines
given '"a"\n"b"\n'
expect 0 '1c4b3a6c0161\n1c4b3a6c0162\n' '' encode string.json --lines --hex --fingerprint 4
given '1c4b3a6c0161\n1C4B3A6C0162\n'
expect 0 '"a"\n"b"\n' '' decode string.json --lines --hex --fingerprint 4
given '"x"\n"x"\n'
expect 0 '\n\n' '' encode const.json --lines --hex
given '2d05477261636500\n2d0547726163650\n2d05477261636500\n'
expect 1 '{"age":45,"name":"Grace","sex":"F"}\n' 'shorn: line 2: Expected an even number of hex digits at byte 15\n' \
  decode person.json --lines --hex
given '2d05477261636500\n2d05g77261636500\n'
expect 1 '{"age":45,"name":"Grace","sex":"F"}\n' 'shorn: line 2: Expected a hex digit at byte 4\n' \
  decode person.json --lines --hex
given "$grace\n"
expect 0 '' '' encode person.json --lines --out out.b64
[ "$(cat out.b64)" = "$a" ] && pass || fail "--lines --out wrote $(cat out.b64)"
expect 1 '' 'shorn: cannot read missing.jsonl: No such file or directory\n' encode person.json --lines --in missing.jsonl

# --lines across read blocks: many short lines, and one line of several blocks
seq 0 299999 > integers.jsonl
"$shorn" encode integer.json --lines --in integers.jsonl --out integers.b64 &&
  "$shorn" decode integer.json --lines --in integers.b64 > integers.back &&
  cmp -s integers.jsonl integers.back && [ "$(wc -l < integers.b64)" = 300000 ] && pass ||
  fail "300,000 integers did not come back through --lines"
"$shorn" encode integer.json --lines --hex --fingerprint 2 --in integers.jsonl |
  "$shorn" decode integer.json --lines --hex --fingerprint 2 > integers.back &&
  cmp -s integers.jsonl integers.back && pass || fail "300,000 integers did not come back through --lines --hex"
long=$(head -c 3000000 /dev/zero | tr '\0' a)
printf '"%s"\n"b"\n"%s"\n' "$long" "$long" > long.jsonl
"$shorn" encode string.json --lines < long.jsonl | "$shorn" decode string.json --lines > long.back &&
  cmp -s long.jsonl long.back && pass || fail "3 MB lines did not come back through --lines"

# Memory runs out: a clear message, not a crash.  (A sanitizer build cannot
# start inside the limit, so it skips this.)
if (ulimit -v 60000 && "$shorn" --version; exit $?) > /dev/null 2>&1; then
  head -c 60000000 /dev/zero | tr '\0' a | sed 's/.*/"&"/' > huge.jsonl
  (ulimit -v 60000 && exec "$shorn" encode string.json --lines --in huge.jsonl > got.out 2> got.err)
  status=$?
  [ "$status" = 1 ] && [ ! -s got.out ] && [ "$(cat got.err)" = 'shorn: cannot read huge.jsonl: Cannot allocate memory' ] &&
    pass || fail "a 60 MB line in 60 MB of memory: exit $status, $(cat got.err)"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
