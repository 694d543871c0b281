#!/usr/bin/env bash
# symmetric.sh CISPARSE SHARED_DIR: --symmetric on spmv, solve and bench.
# A non-symmetric matrix is refused with one stderr line naming the pair and
# exit 1 (never halved silently); on a symmetric matrix the upper-triangle
# product equals the full one to rounding (CPU; --device gpu where a GPU is).
set -u
cli=$1
shared=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
refused() { # refused WHAT CMD...: exit 1, one stderr line, "not symmetric"
  local what=$1
  shift
  "$@" >/dev/null 2>"$tmp/err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "cisparse: matrix is not symmetric: A(" "$tmp/err"; then
    echo "FAIL $what: exit $rc, $lines stderr lines:"
    sed 's/^/    /' "$tmp/err"
    fail=$((fail + 1))
  fi
}
west=$shared/matrices/west0479.mtx
refused "spmv --symmetric on west0479" "$cli" spmv "$west" --format csr --symmetric --out "$tmp/y.mtx"
refused "spmv --symmetric --device gpu on west0479" "$cli" spmv "$west" --format csr --symmetric --device gpu --out "$tmp/y.mtx"
refused "solve --symmetric on west0479" "$cli" solve "$west" --symmetric --device cpu
refused "bench --symmetric on west0479" "$cli" bench "$west" --symmetric --runs 1
[ -e "$tmp/y.mtx" ] && { echo "FAIL: a refused spmv wrote its output"; fail=$((fail + 1)); }
# --format other than csr with --symmetric: a usage error (exit 2)
"$cli" spmv laplace3d:size=6 --format ell --symmetric --out "$tmp/y.mtx" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: spmv --symmetric --format ell not a usage error"; fail=$((fail + 1)); }
# the product: symmetric storage equals the full matrix's (to rounding)
devices=cpu
"$cli" spmv laplace3d:size=4 --format csr --device gpu --out "$tmp/g.mtx" >/dev/null 2>&1 && devices="cpu gpu"
for dev in $devices; do
  for prec in double float; do
    "$cli" spmv laplace3d:size=9 --format csr --x random --precision $prec --device $dev --out-format text --out "$tmp/f.txt" >/dev/null &&
      "$cli" spmv laplace3d:size=9 --format csr --symmetric --x random --precision $prec --device $dev --out-format text --out "$tmp/s.txt" >/dev/null
    if [ $? -ne 0 ]; then echo "FAIL spmv $dev $prec did not run"; fail=$((fail + 1)); continue; fi
    tol=1e-13; [ $prec = float ] && tol=1e-5
    if ! paste "$tmp/f.txt" "$tmp/s.txt" | awk -v tol=$tol '{d=$1-$2; if (d<0) d=-d; a=$1<0?-$1:$1; if (d > tol*(a+1)) bad++} END {exit bad>0}'; then
      echo "FAIL spmv --symmetric $dev $prec differs from the full product"
      fail=$((fail + 1))
    fi
  done
done
# sym-seg on the GPU (the default symmetric kernel of ci): the same product
# as the full matrix, and the same CISD energy as the CPU, built on the GPU
# (the upper triangle comes to the host for the layout) and on the CPU
if [ "$devices" != cpu ]; then
  "$cli" spmv laplace3d:size=9 --format csr --x random --device gpu --out-format text --out "$tmp/f.txt" >/dev/null &&
    "$cli" spmv laplace3d:size=9 --format csr --symmetric --kernel sym-seg --x random --device gpu --out-format text --out "$tmp/s.txt" >/dev/null ||
    { echo "FAIL spmv --kernel sym-seg did not run"; fail=$((fail + 1)); }
  paste "$tmp/f.txt" "$tmp/s.txt" | awk '{d=$1-$2; if (d<0) d=-d; a=$1<0?-$1:$1; if (d > 1e-13*(a+1)) bad++} END {exit bad>0}' ||
    { echo "FAIL spmv --kernel sym-seg differs from the full product"; fail=$((fail + 1)); }
  h2o=$shared/ci/h2o_631g.FCIDUMP
  e_cpu=$("$cli" ci "$h2o" --level 2 --symmetric --json | grep -o '"energy": *-\?[0-9.]*' | head -1 | sed 's/.*: *//')
  for build in gpu cpu; do
    out=$("$cli" ci "$h2o" --level 2 --symmetric --device gpu --build $build --json 2>&1)
    e=$(echo "$out" | grep -o '"energy": *-\?[0-9.]*' | head -1 | sed 's/.*: *//')
    echo "$out" | grep -q '"kernel": "sym-seg"' || { echo "FAIL ci --symmetric --build $build: kernel not sym-seg: $out" | head -c 400; fail=$((fail + 1)); }
    awk -v a="$e" -v b="$e_cpu" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < 1e-8) }' ||
      { echo "FAIL ci --symmetric --device gpu --build $build: E = $e, CPU $e_cpu"; fail=$((fail + 1)); }
  done
fi

# solve converges with symmetric storage on the CPU
"$cli" solve laplace3d:size=8 --symmetric --device cpu --tol 1e-8 >"$tmp/solve.txt" 2>&1 ||
  { echo "FAIL solve --symmetric laplace3d"; sed 's/^/    /' "$tmp/solve.txt"; fail=$((fail + 1)); }
echo "symmetric: $fail failures"
[ "$fail" -eq 0 ]
