#!/usr/bin/env bash
# device_run.sh OUTDIR [STEPS]: everything one device call does, in order:
# build (sm_90), GPU tests, a compute-sanitizer memcheck of every kernel on a
# small CI matrix, then the benchmarks. Logs, CSV, JSON and PNGs go to
# OUTDIR/results.tar.gz (the device tool returns at most 8 files); the end of
# each bench table is echoed. STEPS: subset of "build test memcheck tune ci32k
# laplace ci32kf ci512k run paper32k paper1m" (default: all but tune and the
# paper* steps). B=DIR selects the build folder (default build-dev; a folder
# built elsewhere can be used without the build step).
# paper32k: ten CI matrices of 32,768 rows (seeds 1-10), every kernel and the
# hyb-paper block sweep (the paper's Tables 6-10); paper1m: 1,048,576-row CI
# matrices (seeds in PAPER1M_SEEDS, default "1 2"), a subset of kernels.
set -u
OUT=${1:?usage: device_run.sh OUTDIR [STEPS]}
STEPS=${2:-"build test memcheck ci32k laplace ci32kf ci512k run"}
R=$OUT/results
B=${B:-build-dev}
mkdir -p "$R"
has() { [[ " $STEPS " == *" $1 "* ]]; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv;
  nvcc --version | tail -2; } > "$R/env.txt" 2>&1
cat "$R/env.txt"
if has build; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_SHARED_DIR="$PWD/shared" > "$R/build.log" 2>&1 &&
    cmake --build $B -j16 >> "$R/build.log" 2>&1 ||
    { tail -40 "$R/build.log"; tar czf "$OUT/results.tar.gz" -C "$OUT" results; exit 1; }
  grep -i "warning" "$R/build.log" | head -5
fi
if has test; then
  (cd $B && ctest -L gpu -V --timeout 300) > "$R/gpu_tests.log" 2>&1
  grep -E "FAIL|tests passed|checks,|Failed|SKIPPED|message|device:" "$R/gpu_tests.log" | head -40
fi
if has memcheck; then
  compute-sanitizer --tool memcheck --leak-check full $B/cisparse bench ci:rows=1024,seed=1 --runs 1 --warmup 0 \
    > "$R/memcheck.log" 2>&1
  grep -E "ERROR SUMMARY|LEAK SUMMARY|Invalid" "$R/memcheck.log" | head -5
fi
bench() {
  local name=$1; shift
  { echo "# $(date -u) | $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# cisparse bench $*"
    timeout 400 $B/cisparse bench "$@" --csv "$R/$name.csv" --json "$R/$name.json"; } > "$R/$name.txt" 2>&1
  grep -v "^  " "$R/$name.txt" | tail -32
}
if has tune; then # hyb variants (env overrides, bench/NOTES.md): "matrix LOCK G UNROLL"
  while read -r m l g u; do
    echo "L:G:U=$l:$g:$u ${m%%,*} $(CISPARSE_HYB_LOCK=$l CISPARSE_HYB_G=$g CISPARSE_HYB_UNROLL=$u \
      timeout 100 $B/cisparse bench $m --kernels hyb --runs 30 --warmup 3 2>/dev/null | grep -E '^hyb ')"
  done <<'LIST' | tee "$R/tune.txt"
ci:rows=32768,seed=1 0 32 4
ci:rows=32768,seed=1 0 32 8
ci:rows=524288,seed=1 0 32 4
ci:rows=524288,seed=1 1024 16 4
LIST
fi
has ci32k && bench ci32k ci:rows=32768,seed=1 --sweep-block --sweep-slice --plot "$R/ci32k"
has laplace && bench laplace laplace3d:size=160,points=7 --sweep-slice --plot "$R/laplace"
has ci32kf && bench ci32k_float ci:rows=32768,seed=1 --precision float
has ci512k && bench ci512k ci:rows=524288,seed=1 --runs 20 --warmup 3 \
  --kernels csr-vector,ell,sell,sellcs,csr5,hyb-paper,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-coo-alg1,cusparse-sell-alg1
if has paper32k; then
  for seed in 1 2 3 4 5 6 7 8 9 10; do
    bench ci32k_s$seed ci:rows=32768,seed=$seed --sweep-block > /dev/null
  done
  python3 bench/paper_tables.py "$R"/ci32k_s*.json > "$R/paper32k.md"; cat "$R/paper32k.md" | tail -30
fi
if has paper1m; then
  for seed in ${PAPER1M_SEEDS:-1 2}; do
    bench ci1m_s$seed ci:rows=1048576,seed=$seed --runs 20 --warmup 3 \
      --kernels csr-vector,sell,sellcs,csr5,hyb-paper,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-sell-alg1 > /dev/null
  done
  python3 bench/paper_tables.py "$R"/ci1m_s*.json > "$R/paper1m.md"; cat "$R/paper1m.md"
fi
if has run; then # `cisparse run`: Tables 3-5 and Table 9 on the GPU
  $B/cisparse run > "$R/run.txt" 2>&1; tail -25 "$R/run.txt"
fi
tar czf "$OUT/results.tar.gz" -C "$OUT" results
