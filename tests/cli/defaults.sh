#!/usr/bin/env bash
# defaults.sh: what a new user gets without options (issue 27, items 1, 3, 6, 9):
#  - `cisparse --version` names the BLAS/GEMM and LAPACK in use and the OpenMP
#    threads and wait policy: passive unless the user set OMP_WAIT_POLICY,
#    threads = the cores the process may use (taskset to one core: 1);
#  - `ci --json` carries the same "blas" line;
#  - `solve` and `spmv` default to --format auto, the CPU rule on the CPU
#    (csr for a stencil, where the GPU rule picks sell), `spmv --symmetric`
#    needs no --format; `bench --kernels auto` runs the CPU rule's pick.
# usage: bash defaults.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to

# --version: three lines, the linear algebra and OpenMP named
env -u OMP_WAIT_POLICY -u OMP_NUM_THREADS "$CIS" --version > "$tmp/v" 2>&1 || fail "--version: exit $?"
grep -q '^blas: .*; lapack: ' "$tmp/v" || fail "--version: no 'blas: ...; lapack: ...' line in $(cat "$tmp/v")"
grep -q '^openmp: [0-9]* threads (cores this process may use: [0-9]*), OMP_WAIT_POLICY=passive$' "$tmp/v" \
  || fail "--version without OMP_WAIT_POLICY: not passive: $(cat "$tmp/v")"
OMP_WAIT_POLICY=active "$CIS" --version | grep -q 'OMP_WAIT_POLICY=active$' || fail "the user's OMP_WAIT_POLICY not kept"
if grep -q '^blas: own-gemm' "$tmp/v"; then
  grep -q 'own-gemm \(generic\|avx2\|avx512\)' "$tmp/v" || fail "own GEMM without its kernel: $(cat "$tmp/v")"
fi
if command -v taskset > /dev/null; then
  env -u OMP_NUM_THREADS taskset -c 0 "$CIS" --version | grep -q '^openmp: 1 threads (cores this process may use: 1)' \
    || fail "taskset -c 0: not one thread: $(env -u OMP_NUM_THREADS taskset -c 0 "$CIS" --version)"
fi
OMP_NUM_THREADS=3 "$CIS" --version | grep -q '^openmp: 3 threads' || fail "OMP_NUM_THREADS=3 not kept"

# ci --json: the same line
"$CIS" ci "$SHARED/ci/h4_sto3g.FCIDUMP" --method direct --json > "$tmp/ci.json" 2> "$tmp/err" || fail "ci --json: $(cat "$tmp/err")"
blas=$(sed -n 's/^blas: //p' "$tmp/v")
grep -qF "\"blas\": \"blas: $blas\"" "$tmp/ci.json" || fail "ci --json: no \"blas\": \"blas: $blas\" in $(cat "$tmp/ci.json")"

# solve: --format auto by default (silent), the CPU rule; named, its reason on
# stderr (the devices hidden on a machine with a GPU: the CPU rule is tested here)
export CUDA_VISIBLE_DEVICES=
"$CIS" solve laplace3d:size=12 > "$tmp/s" 2> "$tmp/serr" || fail "solve without --format: $(cat "$tmp/serr")"
[ -s "$tmp/serr" ] && fail "solve without --format: stderr not empty: $(cat "$tmp/serr")"
grep -q 'cpu csr' "$tmp/s" || fail "solve: not csr on the CPU: $(head -3 "$tmp/s")"
"$CIS" solve laplace3d:size=12 --format auto > /dev/null 2> "$tmp/serr" || fail "solve --format auto: $(cat "$tmp/serr")"
grep -q '^--format auto: CPU, .*: csr' "$tmp/serr" || fail "solve --format auto: no CPU reason on stderr: $(cat "$tmp/serr")"
"$CIS" solve "$SHARED/matrices/cage8.mtx" --format sell16 > "$tmp/s16" 2> "$tmp/serr" || fail "solve --format sell16: $(cat "$tmp/serr")"
grep -q 'cpu sell16' "$tmp/s16" || fail "solve --format sell16: not sell16: $(head -3 "$tmp/s16")"

# spmv: no --format needed; --symmetric alone is csr; --format auto names its reason
"$CIS" spmv laplace3d:size=6 --out "$tmp/y.mtx" > "$tmp/pout" 2> "$tmp/perr" || fail "spmv without --format: $(cat "$tmp/perr")"
grep -q '(csr, cpu, double)' "$tmp/pout" || fail "spmv: not csr: $(cat "$tmp/pout")"
[ "$(tail -n +3 "$tmp/y.mtx" | wc -l)" = 216 ] || fail "spmv: not 216 values in $tmp/y.mtx"
"$CIS" spmv laplace3d:size=6 --format auto --out "$tmp/ya.mtx" > /dev/null 2> "$tmp/perr" || fail "spmv --format auto"
grep -q '^--format auto: CPU' "$tmp/perr" || fail "spmv --format auto: no CPU reason: $(cat "$tmp/perr")"
"$CIS" spmv laplace3d:size=6 --symmetric --out "$tmp/ys.mtx" > /dev/null 2> "$tmp/perr" || fail "spmv --symmetric without --format: $(cat "$tmp/perr")"
cmp -s <(tail -n +3 "$tmp/y.mtx" | awk '{printf "%.10e\n", $NF}') <(tail -n +3 "$tmp/ys.mtx" | awk '{printf "%.10e\n", $NF}') \
  || fail "spmv: auto and --symmetric differ"

# bench: the CPU rule's pick as a row
"$CIS" bench "$SHARED/matrices/cage8.mtx" --kernels csr,auto --runs 3 --warmup 1 > "$tmp/b" 2>&1 || fail "bench --kernels auto: $(tail -3 "$tmp/b")"
grep -q '^auto (csr)' "$tmp/b" || fail "bench: no 'auto (csr)' row: $(tail -4 "$tmp/b")"

[ $fails -eq 0 ] && echo "defaults: all passed" || echo "defaults: $fails failed"
exit $((fails > 0))
