#!/usr/bin/env bash
# sell_device2.sh OUTDIR: the second device round of issue 10 items 4-6:
# build, GPU tests, memcheck, final timings on laplace3d 160, ci 32k and
# ci 524k against cuSPARSE (with the split kernel's P/BPSM variants on ci
# 524k), then the SELL slice-size study (bench/sell_study.sh) until 255 s.
set -u
OUT=${1:?usage: sell_device2.sh OUTDIR}
B=build-dev
T0=$(date +%s)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; } > "$OUT/env.txt" 2>&1
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR="$PWD/../.shared" > "$OUT/build.log" 2>&1 &&
  cmake --build $B -j16 --target cisparse_cli test_gpu_kernels test_krylov_kernels test_gpu_cusparse test_krylov_gpu >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built at $(( $(date +%s) - T0 )) s"
(cd $B && timeout 50 ctest -R "test_gpu_kernels|test_krylov_kernels|test_gpu_cusparse|test_krylov_gpu" --output-on-failure) > "$OUT/gpu_tests.log" 2>&1
grep -E "tests passed|checks,|Failed|FAIL" "$OUT/gpu_tests.log" | head -20
X=$B/cisparse
{ for v in "CISPARSE_SELL_P=8" "CISPARSE_SELL_BPSM=1"; do
    env $v timeout 30 compute-sanitizer --tool memcheck $X bench ci:rows=2048,seed=1 \
      --kernels sell,sellr,sellcs,auto --runs 1 --warmup 0 2>&1 | grep -E "ERROR SUMMARY|Invalid" | head -4
  done; } > "$OUT/memcheck.log" 2>&1
cat "$OUT/memcheck.log"
echo "memcheck at $(( $(date +%s) - T0 )) s"
BL="$OUT/bench.log"
run() { echo "## $*" >> "$BL"; timeout "$1" "${@:2}" >> "$BL" 2>/dev/null; }
K=csr-vector,ell,sell,sellr,sellcs,sell-row,hyb,auto,cusparse-csr-alg1,cusparse-sell-alg1
run 25 $X bench ci:rows=32768,seed=1 --kernels $K --runs 50
run 30 $X bench laplace3d:size=160 --kernels $K --runs 50
echo "small at $(( $(date +%s) - T0 )) s"
timeout 40 $X gen ci:rows=524288,seed=1 -o /tmp/ci524k.cisb > /dev/null 2>&1
echo "gen at $(( $(date +%s) - T0 )) s"
run 50 $X bench /tmp/ci524k.cisb --kernels sell,sellcs,ell,hyb,auto,cusparse-csr-alg1,cusparse-sell-alg1 --runs 20
echo "ci524k at $(( $(date +%s) - T0 )) s"
for v in "CISPARSE_SELL_P=2" "CISPARSE_SELL_BPSM=4" "CISPARSE_SELL_BPSM=6"; do
  run 20 env $v $X bench /tmp/ci524k.cisb --kernels sellcs --runs 20
done
rm -f /tmp/ci524k.cisb
echo "variants at $(( $(date +%s) - T0 )) s"
DEADLINE=$(( T0 + 240 )) RUNS=20 bash bench/sell_study.sh "$OUT" $X ../.shared/matrices > /dev/null 2>&1
tar czf "$OUT/study.tar.gz" -C "$OUT" study && rm -rf "$OUT/study"
echo "end at $(( $(date +%s) - T0 )) s"
grep -E "^##|^(csr-vector|ell|sell|sellr|sellcs|sell-row|hyb|auto|cusparse)" "$BL"
