#!/usr/bin/env bash
# plot.sh CISPARSE SHARED: --plot PREFIX of `bench` and `bench --solvers`.
#  - where python3 cannot draw (here: no python3 on PATH, or a quote in a
#    path) the measurement still exits 0, writes PREFIX.json, and says in one
#    line where the JSON is and the exact `python3 -m cisparse.plot` command;
#  - where python3 imports cisparse.plot and matplotlib (the source tree's
#    package on the built library), the PNGs are drawn.
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
BIN=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
MAT=random:rows=200,cols=200,density=0.05,seed=2
LAP=laplace3d:size=6
# a kernel of this build: csr on the CPU, csr-vector where the GPU kernels are built
K=csr K2=csr,csr-vector
if "$BIN" bench $MAT --runs 1 --warmup 0 --kernels csr 2>&1 | grep -q "selects nothing"; then K=csr-vector K2=csr-vector,csr-scalar; fi

# ---- no python3: one line naming the JSON and the command -----------------------------
env PATH=/nonexistent "$BIN" bench $MAT --runs 2 --warmup 1 --kernels $K --plot "$T/b" >"$T/b.out" 2>"$T/b.err"
rc=$?
if grep -q "no matrix loader" "$T/b.err"; then echo "SKIPPED: this build has no matrix loader"; exit 77; fi
check "bench --plot without python3 exits 0 (rc=$rc: $(tail -n 1 "$T/b.err"))" '[ $rc -eq 0 ]'
check "bench --plot wrote the JSON" 'python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/b.json"'
check "bench --plot names the JSON and the command" \
  'grep -qF "the JSON is in $T/b.json; draw it with \`python3 -m cisparse.plot spmv $T/b.json $T/b\`" "$T/b.out"'
check "bench --plot says not run, and why (no python3)" 'grep -q "^plot: not run (no python3 on the PATH)" "$T/b.out"'
# python3 without the package (outside the source tree, nothing installed): the install named
env -u PYTHONPATH PYTHONNOUSERSITE=1 PATH=$(dirname "$(command -v python3)"):/usr/bin:/bin HOME=$T \
  "$BIN" bench $MAT --runs 2 --warmup 1 --kernels $K --plot "$T/n" >"$T/n.out" 2>"$T/n.err"
if ! grep -q "^plot: wrote\|wrote .*png" "$T/n.out"; then
  check "bench --plot without the package says not run and what to install" \
    'grep -q "^plot: not run (.*\(cisparse.plot\|matplotlib\).*pip install" "$T/n.out"'
fi

env PATH=/nonexistent "$BIN" bench $LAP --solvers --device cpu --method cg --repeat 1 --plot "$T/s" >"$T/s.out" 2>"$T/s.err"
rc=$?
check "bench --solvers --plot without python3 exits 0 (rc=$rc: $(tail -n 1 "$T/s.err"))" '[ $rc -eq 0 ]'
check "bench --solvers --plot wrote the JSON" '[ -s "$T/s.json" ]'
check "bench --solvers --plot names the JSON and the command" \
  'grep -qF "draw it with \`python3 -m cisparse.plot solvers $T/s.json $T/s\`" "$T/s.out"'

# ---- a quote in the prefix: not passed to a shell, said so -----------------------------
Q="$T/it's"
"$BIN" bench $MAT --runs 2 --warmup 1 --kernels $K --plot "$Q" >"$T/q.out" 2>"$T/q.err"
rc=$?
check "bench --plot with a quote exits 0 (rc=$rc)" '[ $rc -eq 0 ]'
check "bench --plot with a quote says so" 'grep -q "^plot: .*a path holds a quote.*python3 -m cisparse.plot spmv" "$T/q.out"'
check "bench --plot with a quote drew nothing" '! ls "$T"/it*.png >/dev/null 2>&1'

# ---- python3 with cisparse.plot and matplotlib: the PNGs -------------------------------
LIB=$(ls "$(dirname "$BIN")"/libcisparse.so* 2>/dev/null | head -n 1)
export PYTHONPATH=$SRC/python${PYTHONPATH:+:$PYTHONPATH} CISPARSE_LIBRARY=${LIB:-}
if [ -n "$LIB" ] && python3 -c 'import cisparse.plot, matplotlib' >/dev/null 2>&1; then
  "$BIN" bench $MAT --runs 2 --warmup 1 --kernels $K2 --plot "$T/d" >"$T/d.out" 2>"$T/d.err"
  rc=$?
  check "bench --plot with matplotlib exits 0 (rc=$rc)" '[ $rc -eq 0 ]'
  check "bench --plot drew the kernels chart" '[ -s "$T/d_kernels.png" ] && grep -q "wrote $T/d_kernels.png" "$T/d.out"'
else
  echo "note: python3 cannot import cisparse.plot and matplotlib here; the drawing itself is python/tests/test_plot.py's"
fi
[ $fail -eq 0 ] && echo "plot: all checks passed"
exit $fail
