#!/usr/bin/env bash
# sell_device1.sh OUTDIR: the first device round of issue 10 items 4-6 (SELL
# kernels): build, GPU tests, compute-sanitizer memcheck of the sell kernels,
# timings of the split kernel's threads per row P and loads in flight U on the
# bench matrices against cuSPARSE, and an Nsight Compute comparison of our
# sell kernels with cuSPARSE's SELL on ci:rows=524288,seed=1. Steps are
# time-boxed (the device call has 180 s); logs in OUTDIR.
set -u
OUT=${1:?usage: sell_device1.sh OUTDIR}
B=build-dev
T0=$(date +%s)
left() { echo $(( ${1} - ($(date +%s) - T0) )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; } > "$OUT/env.txt" 2>&1
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 -DCISPARSE_SHARED_DIR="$PWD/../.shared" > "$OUT/build.log" 2>&1 &&
  cmake --build $B -j16 >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built at $(( $(date +%s) - T0 )) s"
(cd $B && timeout 60 ctest -L gpu --output-on-failure) > "$OUT/gpu_tests.log" 2>&1
grep -E "tests passed|checks,|Failed|FAIL" "$OUT/gpu_tests.log" | head -20
echo "tests at $(( $(date +%s) - T0 )) s"
X=$B/cisparse
{ for p in "" 32; do
    CISPARSE_SELL_P=$p timeout 30 compute-sanitizer --tool memcheck $X bench ci:rows=2048,seed=1 \
      --kernels sell,sellr,sellcs,sell-row,auto --runs 1 --warmup 0 2>&1 | grep -E "ERROR SUMMARY|Invalid|rel" | head -8
  done; } > "$OUT/memcheck.log" 2>&1
cat "$OUT/memcheck.log"
echo "memcheck at $(( $(date +%s) - T0 )) s"
BL="$OUT/bench.log"
run() { echo "## $*" >> "$BL"; timeout "$1" "${@:2}" >> "$BL" 2>/dev/null; }
K=sell,sellr,sellcs,sell-row,sellcs-row,hyb,auto,cusparse-csr-alg1,cusparse-sell-alg1
run 20 $X bench ci:rows=32768,seed=1 --kernels $K --runs 30
for p in 1 2 4 8 16; do run 12 env CISPARSE_SELL_P=$p $X bench ci:rows=32768,seed=1 --kernels sell,sellcs --runs 30; done
for u in 2 8; do run 12 env CISPARSE_SELL_P=32 CISPARSE_SELL_U=$u $X bench ci:rows=32768,seed=1 --kernels sell,sellcs --runs 30; done
echo "ci32k at $(( $(date +%s) - T0 )) s"
run 30 $X bench laplace3d:size=160 --kernels sell,sellcs,sell-row,hyb,ell,auto,cusparse-csr-alg1,cusparse-sell-alg1 --runs 30
run 15 env CISPARSE_SELL_U=8 $X bench laplace3d:size=160 --kernels sell --runs 30
echo "laplace at $(( $(date +%s) - T0 )) s"
L=$(left 165)
if [ "$L" -gt 20 ]; then
  timeout $((L - 5)) ncu -k 'regex:[Ee][Ll][Ll]|[Ss]p[Mm][Vv]|[Cc]sr' --launch-count 12 --metrics \
gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,launch__block_size,launch__grid_size \
    $X bench ci:rows=524288,seed=1 --kernels sell,sellcs,sell-row,cusparse-sell-alg1 --runs 1 --warmup 0 > "$OUT/ncu.log" 2>&1
  grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|lts__|l1tex__|sm__|launch__|sell|ms " "$OUT/ncu.log" | head -120
fi
echo "end at $(( $(date +%s) - T0 )) s"
grep -E "^##|^(sell|sellr|sellcs|sell-row|sellcs-row|hyb|ell|auto|cusparse)" "$BL"
