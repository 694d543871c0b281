#!/usr/bin/env bash
# info.sh: `info` on the paper's 32,768-row CI matrix (Tables 3-5 as JSON),
# the `gen` round trip through .cisb and .mtx, `spmv` against an independent
# product, and one-line errors. Usage: bash info.sh CISPARSE SHARED_DIR
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_error NAME CMD...: nonzero exit and exactly one line on stderr
expect_error() {
  local name=$1; shift
  "$@" > "$T/out" 2> "$T/err"
  local rc=$? lines
  lines=$(wc -l < "$T/err")
  if [ $rc -eq 0 ] || [ "$lines" -ne 1 ]; then
    fail "$name: exit $rc, $lines stderr lines: $(cat "$T/err")"
  else
    echo "ok   $name: $(cat "$T/err")"
  fi
}

# --- Tables 3-5 on ci:rows=32768,seed=1 -------------------------------------
if ! "$BIN" info ci:rows=32768,seed=1 --json > "$T/info.json" 2> "$T/info.err"; then
  fail "info --json exited nonzero: $(cat "$T/info.err")"
elif ! python3 -m json.tool "$T/info.json" > /dev/null; then
  fail "info --json is not valid JSON"
else
  python3 - "$T/info.json" <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def near(name, got, want, rel):
    if got is None or abs(got - want) > rel * want:
        bad.append(f"{name} = {got}, expected {want} within {rel:.1%}")
    else:
        print(f"ok   {name} = {got:.6g} (paper {want})")
mib = {f["name"]: f.get("mib") for f in d["formats"]}
for name, paper in (("csr", 356.44), ("hyb", 356.67), ("ell", 402.41)):
    near(name + " MiB", mib.get(name), paper, 0.005)
pb = d["paper_bytes"]
near("paper-equation csr MiB", pb["csr"] / 2**20, 356.44, 0.005)
near("paper-equation ell MiB", pb["ell"] / 2**20, 402.41, 0.005)
if pb["hyb"] is not None:
    near("paper-equation hyb MiB", pb["hyb"] / 2**20, 356.67, 0.005)
if d["reference_cols"] != 3277: bad.append(f"reference_cols {d['reference_cols']}")
if d["nnz_reference"] != 21463040: bad.append(f"nnz_reference {d['nnz_reference']} (Table 3: 21,463,040)")
if d["nnz_reference"] + d["nnz_expansion"] != d["nnz"]: bad.append("regions do not add up to nnz")
near("Expansion Space nonzeros", d["nnz_expansion"], 9670080, 0.003)
if not 1050 <= d["longest_row"] <= 1090: bad.append(f"longest row {d['longest_row']}")
near("Reference sparsity", d["sparsity_reference"], 0.800110, 1e-4)
near("Expansion sparsity", d["sparsity_expansion"], 0.989993, 1e-4)
near("total sparsity", d["sparsity_total"], 0.971005, 1e-4)
if d["nonfinite"] != 0: bad.append("nonfinite values reported")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
fi

# --- per-row detail adds up --------------------------------------------------
"$BIN" info ci:rows=300,cols=5000,seed=4 --json --rows-detail > "$T/rows.json" 2>&1 || fail "info --rows-detail"
python3 - "$T/rows.json" <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
rows, ref, exp = d["row_nnz"], d["row_nnz_reference"], d["row_nnz_expansion"]
ok = (len(rows) == d["rows"] == 300 and sum(rows) == d["nnz"] and sum(ref) == d["nnz_reference"]
      and all(r + e == a for r, e, a in zip(ref, exp, rows)) and set(ref) == {min(655, 500)}
      and max(rows) == d["longest_row"] and rows.index(max(rows)) == d["longest_row_index"])
print("ok   --rows-detail adds up" if ok else "FAIL: --rows-detail does not add up")
sys.exit(0 if ok else 1)
EOF

# --- a format that cannot be built is reported in its row, the rest still are
"$BIN" info ci:rows=100,cols=2000,seed=1 --block 3 --json > "$T/blk.json" 2> "$T/err" || fail "info --block 3 failed: $(cat "$T/err")"
python3 - "$T/blk.json" <<'EOF' || fails=$((fails + 1))
import json, sys
f = {x["name"]: x for x in json.load(open(sys.argv[1]))["formats"]}
ok = "error" in f.get("csb", {}) and "power of two" in f["csb"]["error"] and f["csr"]["bytes"] > 0 and f["hyb"]["bytes"] > 0
print("ok   csb with --block 3: its row has the error, the others their bytes" if ok else f"FAIL: --block 3 rows: {f}")
sys.exit(0 if ok else 1)
EOF

# --- gen round trip: the file and the spec give the same product -------------
SPEC=ci:rows=1500,cols=12000,seed=3
"$BIN" gen $SPEC -o "$T/a.cisb" > /dev/null || fail "gen .cisb"
"$BIN" gen $SPEC -o "$T/a.mtx" > /dev/null || fail "gen .mtx"
for fmt in csr hyb; do
  i=0
  for src in $SPEC "$T/a.cisb" "$T/a.mtx"; do
    "$BIN" spmv "$src" --format $fmt --x random --seed 5 --out "$T/y_${fmt}_$i.txt" --out-format text \
      > /dev/null 2> "$T/err" || fail "spmv $fmt on $src: $(cat "$T/err")"
    i=$((i + 1))
  done
  if cmp -s "$T/y_${fmt}_0.txt" "$T/y_${fmt}_1.txt" && cmp -s "$T/y_${fmt}_0.txt" "$T/y_${fmt}_2.txt" &&
     [ "$(wc -l < "$T/y_${fmt}_0.txt")" -eq 1500 ]; then
    echo "ok   spmv --format $fmt on the spec, .cisb and .mtx: identical"
  else
    fail "spmv --format $fmt: spec, .cisb and .mtx outputs differ"
  fi
done

# a file has no spec: its Reference region is the hybrid format's column boundary
ref=$("$BIN" info "$T/a.cisb" --json 2> "$T/err" | python3 -c "import json,sys; print(json.load(sys.stdin)['reference_cols'])")
[ "$ref" = 1200 ] && echo "ok   .cisb of a ci matrix: Reference region [0, 1200) found from the columns" ||
  fail "Reference columns of the .cisb: '$ref', expected ceil(0.1*12000) = 1200: $(cat "$T/err")"

# --- spmv against an independent product (alpha, beta, initial y) ------------
"$BIN" gen random:rows=60,cols=45,density=0.2,seed=9 -o "$T/r.mtx" > /dev/null || fail "gen random"
python3 -c "
import random; random.seed(1)
open('$T/x.txt','w').write(''.join(f'{random.uniform(-1,1)!r}\n' for _ in range(45)))
open('$T/y0.txt','w').write(''.join(f'{random.uniform(-1,1)!r}\n' for _ in range(60)))"
formats=$("$BIN" info "$T/r.mtx" --json | python3 -c "import json,sys; print(' '.join(f['name'] for f in json.load(sys.stdin)['formats'] if 'bytes' in f))")
[ -n "$formats" ] || fail "info lists no buildable format"
for prec in double float; do
 for fmt in $formats; do
  "$BIN" spmv "$T/r.mtx" --format $fmt --x "$T/x.txt" --y "$T/y0.txt" --alpha 2.5 --beta -0.5 \
    --precision $prec --out "$T/y.mtx" > /dev/null 2> "$T/err" || { fail "spmv --format $fmt: $(cat "$T/err")"; continue; }
  python3 - "$T/r.mtx" "$T/x.txt" "$T/y0.txt" "$T/y.mtx" $fmt $prec <<'EOF' || fails=$((fails + 1))
import math, struct, sys
prec = sys.argv[6]
def rd(v):  # the value as the tool holds it in this precision
    return struct.unpack('f', struct.pack('f', v))[0] if prec == "float" else v
def data(path):
    return [l for l in open(path) if l.strip() and not l.startswith('%')]
m = data(sys.argv[1]); rows, cols, nnz = map(int, m[0].split())
x = [rd(float(v)) for v in open(sys.argv[2])]; y = [rd(float(v)) for v in open(sys.argv[3])]
ref = [-0.5 * v for v in y]
for l in m[1:]:
    i, j, v = l.split(); ref[int(i) - 1] += 2.5 * rd(float(v)) * x[int(j) - 1]
out = data(sys.argv[4]); assert out[0].split() == [str(rows), "1"], out[0]
got = [float(v) for v in out[1:]]
err = sum((a - b) ** 2 for a, b in zip(got, ref)) ** 0.5 / sum(b * b for b in ref) ** 0.5
tol = 1e-5 if prec == "float" else 1e-12
ok = len(got) == rows and not any(math.isnan(g) for g in got) and err <= tol
print(f"{'ok  ' if ok else 'FAIL:'} spmv {sys.argv[5]} ({prec}) vs independent product: rel err {err:.2e}")
sys.exit(0 if ok else 1)
EOF
 done
done

# --- non-finite values are flagged -------------------------------------------
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n2 2 nan\n3 3 inf\n' > "$T/nan.mtx"
"$BIN" info "$T/nan.mtx" > /dev/null 2> "$T/err"
grep -q "warning: 2 non-finite values" "$T/err" && echo "ok   non-finite warning" || fail "no non-finite warning: $(cat "$T/err")"

# --- one-line errors ---------------------------------------------------------
expect_error "unknown info option" "$BIN" info ci:rows=10,seed=1 --bogus
expect_error "unknown spmv option" "$BIN" spmv ci:rows=10,seed=1 --format csr --out "$T/y" --frobnicate 3
expect_error "bad spec" "$BIN" info ci:rows=10,sed=1
expect_error "unknown generator" "$BIN" gen nope:rows=3 -o "$T/n.mtx"
expect_error "gen without -o" "$BIN" gen ci:rows=10,seed=1
expect_error "spmv without --out" "$BIN" spmv ci:rows=10,seed=1 --format csr
# without --format: auto (the default), silently
"$BIN" spmv ci:rows=10,seed=1 --out "$T/y" > /dev/null 2> "$T/err" && [ ! -s "$T/err" ] \
  && echo "ok   spmv without --format: auto" || fail "spmv without --format: exit $?, stderr $(cat "$T/err")"
expect_error "unknown format" "$BIN" spmv ci:rows=10,seed=1 --format nosuch --out "$T/y"
expect_error "x of the wrong length" "$BIN" spmv "$T/r.mtx" --format csr --x "$T/y0.txt" --out "$T/y"
expect_error "bad --alpha" "$BIN" spmv ci:rows=10,seed=1 --format csr --alpha abc --out "$T/y"
expect_error "bad --precision" "$BIN" info ci:rows=10,seed=1 --precision half
expect_error "missing matrix file" "$BIN" info "$T/does-not-exist.mtx"
expect_error "too large" "$BIN" info ci:rows=2147483647,seed=1
expect_error "--kernel on cpu" "$BIN" spmv ci:rows=10,seed=1 --format csr --kernel csr-vector --out "$T/y"
expect_error "run with junk" "$BIN" run --bogus

# --- the GPU path: the CPU result on a GPU machine, one clear line elsewhere --
if "$BIN" spmv "$T/r.mtx" --format hyb --x "$T/x.txt" --device gpu --out "$T/yg.txt" --out-format text > /dev/null 2> "$T/err"; then
  "$BIN" spmv "$T/r.mtx" --format hyb --x "$T/x.txt" --out "$T/yc.txt" --out-format text > /dev/null
  python3 -c "
import sys
g=[float(v) for v in open('$T/yg.txt')]; c=[float(v) for v in open('$T/yc.txt')]
e=sum((a-b)**2 for a,b in zip(g,c))**0.5/sum(b*b for b in c)**0.5
print(('ok   ' if e<=1e-12 and len(g)==len(c) else 'FAIL: ')+f'gpu vs cpu rel err {e:.2e}'); sys.exit(0 if e<=1e-12 else 1)" || fails=$((fails + 1))
elif [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qi "gpu" "$T/err"; then
  echo "ok   --device gpu without a GPU: $(cat "$T/err")"
else
  fail "--device gpu: $(cat "$T/err")"
fi

# --- --dump: the hybrid format's arrays of a 4x4 matrix, checked by hand -----
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 6\n1 1 1\n1 3 2\n2 2 3\n3 1 4\n3 4 5\n4 4 6\n' > "$T/d.mtx"
"$BIN" info "$T/d.mtx" --dump hyb --boundary 1 > "$T/dump" 2>&1
for want in "ELLPACK_Column 0 1 0 3" "NonZerosEntries 1 3 4 6" "AllNonZerosCount 2 1 2 1" \
            "StartArr 0 1 1 2" "EndArr 1 1 2 2" "CSR_Column 2 3" "Value 2 5"; do
  grep -qx "$want" "$T/dump" && echo "ok   dump hyb: $want" || fail "dump hyb lacks '$want': $(cat "$T/dump")"
done
expect_error "dump of an unknown format" "$BIN" info "$T/d.mtx" --dump nope

echo "info.sh: $fails failures"
[ $fails -eq 0 ]
