#!/usr/bin/env bash
# inputs.sh: matrices and FCIDUMP files from pipes and standard input
# ('-' and /dev/stdin, read once), declared sizes checked before anything is
# reserved, and non-finite products reported instead of written; `spmv
# --beta` without --y refused; FCIDUMP headers without &END, with a
# repeated key, hexadecimal or binary values refused in one escaped line.
# Usage: bash inputs.sh CISPARSE SHARED_DIR
set -u
BIN=$1 SHARED=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# expect_error NAME PATTERN CMD...: nonzero exit, one stderr line matching PATTERN
expect_error() {
  local name=$1 pat=$2; shift 2
  "$@" > "$T/out" 2> "$T/err"
  local rc=$? lines
  lines=$(wc -l < "$T/err")
  if [ $rc -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -qE "$pat" "$T/err"; then
    fail "$name: exit $rc, $lines stderr lines: $(cat "$T/err")"
  else
    ok "$name: $(cat "$T/err")"
  fi
}

# the same matrix from a file, a pipe ('-' and /dev/stdin) and a redirect
"$BIN" gen laplace3d:size=6 -o "$T/l.mtx" > /dev/null || fail "gen mtx"
"$BIN" gen laplace3d:size=6 -o "$T/l.cisb" > /dev/null || fail "gen cisb"
"$BIN" info "$T/l.mtx" --json > "$T/ref.json" 2>&1 || fail "info file: $(cat "$T/ref.json")"
norm() { grep -v '"matrix"' "$1"; }
for src in mtx cisb; do
  for name in - /dev/stdin; do
    if cat "$T/l.$src" | "$BIN" info "$name" --json > "$T/p.json" 2> "$T/err" && diff <(norm "$T/ref.json") <(norm "$T/p.json") > /dev/null; then
      ok "info $name from a pipe ($src)"
    else
      fail "info $name from a pipe ($src): $(cat "$T/err")"
    fi
  done
  "$BIN" info - --json < "$T/l.$src" > "$T/p.json" 2> "$T/err" && diff <(norm "$T/ref.json") <(norm "$T/p.json") > /dev/null \
    && ok "info - < file ($src)" || fail "info - < file ($src): $(cat "$T/err")"
done
cat "$T/l.mtx" | "$BIN" spmv - --format ell --out "$T/y.mtx" > /dev/null 2> "$T/err" && ok "spmv from a pipe" || fail "spmv -: $(cat "$T/err")"
expect_error "pipe of garbage" '^cisparse: <stdin>:1: missing %%MatrixMarket banner' sh -c "echo garbage | '$BIN' info -"
expect_error "empty pipe" 'empty file' sh -c "'$BIN' info - < /dev/null"

# FCIDUMP from standard input: the same energy as from the file
F=$SHARED/ci/h2o_sto3g.FCIDUMP
if [ -r "$F" ]; then
  "$BIN" ci "$F" > "$T/ci_file" 2>&1 || fail "ci file: $(tail -2 "$T/ci_file")"
  if cat "$F" | "$BIN" ci - > "$T/ci_pipe" 2>&1; then
    e1=$(grep -iE 'total|energy' "$T/ci_file" | head -1 | grep -oE -- '-?[0-9]+\.[0-9]{6,}' | head -1)
    e2=$(grep -iE 'total|energy' "$T/ci_pipe" | head -1 | grep -oE -- '-?[0-9]+\.[0-9]{6,}' | head -1)
    [ -n "$e1" ] && [ "$e1" = "$e2" ] && ok "ci - from a pipe: energy $e2" || fail "ci -: energy '$e2' vs file '$e1'"
  else
    fail "ci - from a pipe: $(tail -2 "$T/ci_pipe")"
  fi
  expect_error "FCIDUMP pipe without header" '<stdin>:1: expected the &FCI' sh -c "echo '1.0 1 1 0 0' | '$BIN' ci -"
else
  echo "skip FCIDUMP from stdin: $F not found"
fi

# declared sizes checked before anything is reserved
printf '%%%%MatrixMarket matrix coordinate real general\n5 5 563000000\n1 1 1\n' > "$T/many.mtx"
expect_error "563 million entries declared in a 60-byte file" 'many.mtx:3: file ends after 1 of 563000000 declared entries' \
  "$BIN" info "$T/many.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 5 3\n1 1\n2 2\n' > "$T/short.mtx"
expect_error "pattern file one entry short" 'short.mtx:4: file ends after 2 of 3 declared entries' "$BIN" info "$T/short.mtx"
# short malformed lines before valid ones cannot push entries past the room
# reserved from the file's size
{ printf '%%%%MatrixMarket matrix coordinate real general\n4 4 4\n'; printf '1\n1\n1\n'; printf '1 1 1\n2 2 1\n3 3 1\n'; } > "$T/shortlines.mtx"
expect_error "short malformed lines" 'shortlines.mtx:3: expected 3 tokens' "$BIN" info "$T/shortlines.mtx"
# a 563-million-entry size line reserves no more than the file can hold
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
  echo "skip the 4 GB address-space limit: AddressSanitizer reserves terabytes of shadow address space"
else
  ( ulimit -v 4000000; "$BIN" info "$T/many.mtx" ) 2>&1 | grep -q 'file ends after 1 of 563000000' \
    && ok "563 million entries declared: refused under a 4 GB address-space limit" || fail "563 million entries under ulimit -v"
fi
# rows and columns enter the memory check: 2^31-1 rows x 2^31-1 columns with
# no entries need about 94 GiB; refused at once where that is not available
avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 0\n' > "$T/huge.mtx"
if [ "${avail_kb:-0}" -lt 90000000 ]; then
  start=$(date +%s)
  expect_error "2^31-1 x 2^31-1, no entries" 'needs [0-9.]+ GiB to load and use, more than the' timeout 20 "$BIN" info "$T/huge.mtx"
  [ $(( $(date +%s) - start )) -le 5 ] || fail "the refusal took more than 5 s"
else
  echo "skip 2^31-1 x 2^31-1: this machine has more than 90 GB available"
fi
printf '%%%%MatrixMarket matrix coordinate real general\n700000000 1 0\n' > "$T/tall.mtx"
if [ "${avail_kb:-0}" -lt 24000000 ]; then
  expect_error "700000000 x 1, no entries" 'needs 23.5 GiB to load and use' timeout 20 "$BIN" info "$T/tall.mtx"
else
  echo "skip 700000000 x 1: 23.5 GiB available here, it is loaded"
fi

# non-finite products are errors, nothing written
expect_error "spmv --alpha 1e308 overflows" 'spmv: [0-9]+ of 216 results are not finite.*not written' \
  "$BIN" spmv "$T/l.mtx" --format csr --alpha 1e308 --out "$T/inf.mtx"
[ -e "$T/inf.mtx" ] && fail "the overflowing product was written"
"$BIN" spmv "$T/l.mtx" --format csr --alpha 1e300 --out "$T/fin.mtx" > /dev/null 2>&1 && ok "spmv --alpha 1e300 (finite) still written" \
  || fail "spmv --alpha 1e300"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n' > "$T/nan.mtx"
expect_error "spmv of a matrix holding NaN" '1 of 2 results are not finite \(first: y\[1\] = nan, the matrix holds NaN/Inf\)' \
  "$BIN" spmv "$T/nan.mtx" --format csr --out "$T/nan_y.mtx"

# --beta scales the y given with --y: without one it is refused (usage, exit 2)
"$BIN" spmv "$T/l.mtx" --format csr --beta 2 --out "$T/b_y.mtx" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q -- "--beta 2 scales y: give it with --y FILE" "$T/err" &&
  [ ! -e "$T/b_y.mtx" ] && ok "spmv --beta without --y refused" || fail "spmv --beta without --y: exit $rc, $(cat "$T/err")"

# FCIDUMP headers: a missing &END named as such; a repeated key refused;
# hexadecimal values refused; the raw bytes of a bad token never echoed
F=$SHARED/ci/h2o_sto3g.FCIDUMP
grep -v '&END' "$F" > "$T/noend.FCIDUMP"
expect_error "FCIDUMP without &END" 'noend.FCIDUMP:[0-9]+: header not terminated: &END \(or /\) is missing before the integrals' \
  "$BIN" ci "$T/noend.FCIDUMP"
sed 's/^NELEC=10,/NELEC=10,NELEC=8,/' "$F" > "$T/dup.FCIDUMP"
expect_error "FCIDUMP with a repeated key" 'key NELEC= given twice' "$BIN" ci "$T/dup.FCIDUMP"
{ sed '/&END/q' "$F"; echo ' 0x1p-1 1 1 1 1'; } > "$T/hex.FCIDUMP"
expect_error "FCIDUMP hexadecimal value" "'0x1p-1' is not a number" "$BIN" ci "$T/hex.FCIDUMP"
{ sed '/&END/q' "$F"; printf ' \001\033[2J\377 1 1 1 1\n'; } > "$T/bin.FCIDUMP"
expect_error "FCIDUMP binary token escaped" "'\\\\x01\\\\x1B\\[2J\\\\xFF' is not a number" "$BIN" ci "$T/bin.FCIDUMP"
if LC_ALL=C grep -q $'[\x01\x1b\xff]' "$T/err"; then fail "raw bytes echoed: $(od -c "$T/err" | head -3)"; else ok "no raw bytes on stderr"; fi
"$BIN" spmv "$T/l.mtx" --format csr --out "$T/o.mtx" $'-\x1b[2J\xff' > /dev/null 2> "$T/err"
if [ $? -eq 2 ] && grep -qF "unknown option '-\x1B[2J\xFF'" "$T/err" && ! LC_ALL=C grep -q $'[\x1b\xff]' "$T/err"; then
  ok "a binary option escaped: $(cat "$T/err")"
else
  fail "a binary option: $(od -c "$T/err" | head -3)"
fi

echo "$fails failure(s)"
exit $(( fails > 0 ))
