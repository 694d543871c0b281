#!/usr/bin/env bash
# bench.sh CISPARSE SHARED: `cisparse bench` end to end (the CPU path where
# there is no GPU, the GPU path where there is one): table, CSV and JSON
# written and consistent, every row correct (rel.err), and one clear line
# with a nonzero exit for each bad request.
set -u
BIN=$1
SHARED=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

out=$("$BIN" bench random:rows=300,cols=280,density=0.05,seed=2 --runs 3 --warmup 1 \
      --csv "$T/b.csv" --json "$T/b.json" 2>"$T/err")
rc=$?
if grep -q "no matrix loader" "$T/err"; then echo "SKIPPED: this build has no matrix loader"; exit 77; fi
check "bench exits 0 (rc=$rc: $(cat "$T/err"))" '[ $rc -eq 0 ]'
check "table header" 'grep -q "rel.err" <<< "$out"'
check "csr row" 'grep -qE "^csr(-vector)? " <<< "$out"'
check "csv has a header and rows" '[ $(grep -vc "^#" "$T/b.csv") -ge 3 ]'
check "json parses and rows are correct" 'python3 - "$T/b.json" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
ok = [x for x in r["results"] if "ms" in x]
assert r["rows"] == 300 and r["cols"] == 280 and ok, r
for x in ok:
    assert x["ms"] > 0 and x["rel_err"] is not None and x["rel_err"] < 1e-12, x
PY'
check "float run" '"$BIN" bench random:rows=200,cols=200,density=0.05,seed=3 --precision float --runs 2 --kernels csr,csr-vector,hyb >/dev/null 2>&1'

"$BIN" bench random:rows=10,cols=10,density=0.5,seed=1 --frobnicate >/dev/null 2>"$T/e1"; rc=$?
check "unknown option -> 2 ($rc)" '[ $rc -eq 2 ] && grep -q "frobnicate" "$T/e1"'
"$BIN" bench random:rows=10,cols=10,density=0.5,seed=1 --runs 0 >/dev/null 2>"$T/e2"; rc=$?
check "--runs 0 -> 2 ($rc)" '[ $rc -eq 2 ] && grep -q "runs" "$T/e2"'
"$BIN" bench "$T/missing.mtx" >/dev/null 2>"$T/e3"; rc=$?
check "missing file -> 1 ($rc)" '[ $rc -eq 1 ] && [ $(wc -l < "$T/e3") -eq 1 ] && grep -q "missing.mtx" "$T/e3"'
"$BIN" bench random:rows=10,cols=10,density=0.5,seed=1 --kernels nothing >/dev/null 2>"$T/e4"; rc=$?
check "--kernels selecting nothing -> 1 ($rc)" '[ $rc -eq 1 ] && grep -q "selects nothing" "$T/e4"'
"$BIN" bench random:rows=10,cols=10,density=0.5,seed=1 --precision half >/dev/null 2>"$T/e5"; rc=$?
check "--precision half -> 2 ($rc)" '[ $rc -eq 2 ]'
"$BIN" bench random:rows=10,cols=10,density=0.5,seed=1 --csv /nonexistent/dir/x.csv --runs 1 >/dev/null 2>"$T/e6"; rc=$?
check "unwritable csv -> 1 ($rc)" '[ $rc -eq 1 ] && grep -q "nonexistent" "$T/e6"'
[ $fail -eq 0 ] && echo "bench.sh: all checks passed"
exit $fail
