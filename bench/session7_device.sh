#!/usr/bin/env bash
# session7_device.sh MODE: the device calls of the seventh session of
# 2026-11-26 (issue 10), steps in priority order under one deadline
# (BUDGET_S, default 540 s). Output under $OUT: summary.txt and logs.tgz (the
# device returns at most 8 files), plus Nsight Compute pages where named.
#   probe   build the tool with line info; kernel durations under Nsight
#           Compute beside bench's event times on four small SuiteSparse
#           matrices (ours and cuSPARSE SELL); Nsight Compute (full set,
#           source counters) of one sym-seg product on the H2O FCI
#           Hamiltonian and of sell16 beside cuSPARSE SELL on ci 524k; the
#           SASS of sym_seg_tk
#   symv3   sym-seg v3 (pipelined pieces, register-light lanes, even chunks):
#           its tests, memcheck, `ci --symmetric` on H2O at 4, 8, 16 chunks
#           per SM and on CAS(14,14); the split kernel's GPU tests and the
#           small matrices (the latency rule for P); the H2O bench beside
#           cuSPARSE SELL; Nsight Compute of one product
#   pf      sym-seg with the segment columns two pieces ahead fetched into
#           L2: its tests, memcheck, `ci` on H2O and CAS(14,14), the H2O bench
#   pf2     sym-seg reading x_j * scale once per segment in a lane, sell16's
#           streamed words past L1: tests, memcheck, `ci` on H2O and
#           CAS(14,14), bench of ci 32k, ci 524k and H2O (full and symmetric)
#   verify  full build; `ctest -L 'gpu|multigpu|cli'`; memcheck of the
#           symmetric tests and of the split kernels on a small matrix
#   tables  the bench matrices (ci 32k, laplace3d 160, ci 524k, the H2O FCI
#           Hamiltonian full and symmetric) beside cuSPARSE; CAS(14,14); the
#           SELL report's study (bench/sell_study.sh) on the shared matrices
set -u
MODE=${1:-probe}
OUT=${OUT:-bench/out/session7}
BUDGET_S=${BUDGET_S:-540}
. "$(dirname "$0")/device_steps.sh"
prelude "session7_device.sh $MODE"
CLI=build/cisparse
NCU="ncu --clock-control none"
SMALL="bayer10 msc04515 crystm01 cage8"
build_lineinfo() {
  step build 240 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 \
    -DCISPARSE_SHARED_DIR=$SH -DCMAKE_CUDA_FLAGS=-lineinfo && cmake --build build -j16 ${1:+--target $1}" ||
    { tail -n 30 "$L/build.log" >>"$S"; pack; exit 1; }
}
pack() { tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"; }
ci_fields() { grep -o '"nnz[^,]*\|"products[^,]*\|"roots": \[{"energy": *-\?[0-9.]*\|"spmv_seconds[^,]*\|"build_seconds[^,]*\|"kernel[^,]*\|"device_bytes[^,]*' "$L/$1.log" | tr '\n' ' ' >>"$S"; echo >>"$S"; }
rows() { grep -E "^(sell16|csr-sym|csr-sym-det|csr-sym-win|sym-seg|cusparse-csr-alg1|cusparse-sell-alg1) |^streaming|nonzeros|^determinism|^symmetric" "$L/$1.log" | cut -c1-120 >>"$S"; }
sym_checks() { # "TESTS": the symmetric tests; when they pass, memcheck of the quick set (status: the tests')
  step sym_tests 60 bash -c "$1"
  local rc=$?
  grep -E "checks|FAIL" "$L/sym_tests.log" | head -n 12 >>"$S"
  [ $rc -eq 0 ] || return $rc
  step memcheck 90 compute-sanitizer --tool memcheck build/tests/test_gpu_sym_spmm quick
  grep -E "ERROR SUMMARY|checks" "$L/memcheck.log" >>"$S"
  return 0
}
small_times() { # KERNELS: bench rows and Nsight Compute kernel durations on the small matrices
  for m in $SMALL; do
    step "small_$m" 60 $CLI bench "$SH/matrices/$m.mtx" --kernels "$1" --runs 50 --warmup 5 &&
      grep -E "^(sell|sellcs|csr-vector|ell|cusparse-sell-alg1|cusparse-csr-alg1) " "$L/small_$m.log" | cut -c1-90 >>"$S"
    step "ncu_small_$m" 90 $NCU --csv --metrics gpu__time_duration.sum $CLI bench "$SH/matrices/$m.mtx" \
      --kernels "$1" --runs 3 --warmup 0 &&
      grep -v read_bw "$L/ncu_small_$m.log" | awk -F'","' '/gpu__time_duration/ {print "  " substr($5,1,60), $NF}' |
      cut -c1-110 >>"$S"
  done
}
case $MODE in
probe)
  build_lineinfo cisparse_cli
  small_times sell,sellcs,csr-vector,ell,cusparse-sell-alg1
  step ncu_symseg 200 $NCU --set full --import-source yes -k regex:sym_seg_tk -s 2 -c 1 -o "$OUT/symseg" \
    $CLI ci "$H2O" --device gpu --symmetric
  step ncu_symseg_details 60 ncu -i "$OUT/symseg.ncu-rep" --page details
  grep -E "Duration|Throughput|Executed Ipc|Issued Warp|Registers|Shared Memory|Occupancy|Stall|Bank|Wavefronts" \
    "$L/ncu_symseg_details.log" | head -n 40 >>"$S"
  step ncu_symseg_source 60 bash -c "ncu -i '$OUT/symseg.ncu-rep' --page source --csv --print-source sass > '$OUT/symseg_sass.csv'"
  step ncu_sell16 200 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section Occupancy --section WarpStateStats --section LaunchStats -k regex:'sell16_tk|sellmv' -c 2 \
    $CLI bench ci:rows=524288,seed=1 --kernels sell16,cusparse-sell-alg1 --runs 1 --warmup 0
  grep -E "sell16_tk|sellmv|Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|L1/TEX Cache Throughput|Achieved Occupancy|Registers Per" \
    "$L/ncu_sell16.log" | cut -c1-110 >>"$S"
  step sass 60 bash -c "true; \
    cuobjdump -sass build/CMakeFiles/cisparse.dir/src/kernels/sym_seg.cu.o > '$OUT/symseg.sass'"
  ;;
symv3)
  build_lineinfo "cisparse_cli test_gpu_sym_spmm test_sym_seg test_ci_gpu_build test_gpu_kernels"
  step gpu_kernels 150 build/tests/test_gpu_kernels
  grep -E "checks|FAIL" "$L/gpu_kernels.log" | head -n 6 >>"$S"
  small_times sell,sellcs,csr-vector,cusparse-sell-alg1
  if sym_checks "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm && build/tests/test_ci_gpu_build"; then
    for c in 4 8; do # (calls 3-5: 4 8 16, and no R = 2048 step)
      step "ci_h2o_c$c" 40 env CISPARSE_SYM_SEG_CHUNKS=$c $CLI ci "$H2O" --device gpu --symmetric --json && ci_fields "ci_h2o_c$c"
    done
    step ci_h2o_r2048 40 env CISPARSE_SYM_SEG_R=2048 $CLI ci "$H2O" --device gpu --symmetric --json && ci_fields ci_h2o_r2048
    step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json && ci_fields ci_cas14
    step bench_h2o 150 $CLI bench "$H2O" --symmetric --kernels cusparse-sell-alg1 --runs 20 --warmup 3 && rows bench_h2o
    step ncu_symseg 200 $NCU --set full --import-source yes -k regex:sym_seg_tk -s 2 -c 1 -o "$OUT/symseg" \
      $CLI ci "$H2O" --device gpu --symmetric
    step ncu_symseg_source 60 bash -c "ncu -i '$OUT/symseg.ncu-rep' --page source --csv --print-source sass > '$OUT/symseg_sass.csv'"
    step ncu_symseg_details 60 ncu -i "$OUT/symseg.ncu-rep" --page details
    grep -E "Duration|Throughput|Issued Warp|Registers Per|Achieved Occ|Stall|Wavefronts" "$L/ncu_symseg_details.log" | head -n 20 >>"$S"
    rm -f "$OUT/symseg.ncu-rep"
  fi
  ;;
pf)
  build_lineinfo "cisparse_cli test_gpu_sym_spmm test_sym_seg"
  if sym_checks "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm"; then
    step ci_h2o 40 $CLI ci "$H2O" --device gpu --symmetric --json && ci_fields ci_h2o
    step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json && ci_fields ci_cas14
    step bench_h2o 150 $CLI bench "$H2O" --symmetric --kernels cusparse-sell-alg1 --runs 20 --warmup 3 && rows bench_h2o
  fi
  ;;
pf2)
  build_lineinfo "cisparse_cli test_gpu_sym_spmm test_sym_seg test_gpu_kernels"
  step gpu_kernels 150 build/tests/test_gpu_kernels
  grep -E "checks|FAIL" "$L/gpu_kernels.log" | head -n 6 >>"$S"
  if sym_checks "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm"; then
    step ci_h2o 40 $CLI ci "$H2O" --device gpu --symmetric --json && ci_fields ci_h2o
    step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json && ci_fields ci_cas14
  fi
  K=sell16,sellcs,cusparse-csr-alg1,cusparse-sell-alg1
  step bench_ci32k 60 $CLI bench ci:rows=32768,seed=1 --kernels $K --runs 50 --warmup 5
  step bench_ci524k 120 $CLI bench ci:rows=524288,seed=1 --kernels $K --runs 20 --warmup 3
  step bench_h2o 180 $CLI bench "$H2O" --symmetric --kernels $K --runs 20 --warmup 3
  for b in ci32k ci524k h2o; do rows "bench_$b"; done
  ;;
verify)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; pack; exit 1; }
  step ctest_gpu 330 bash -c "cd build && ctest -L 'gpu|multigpu|cli' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 40 >>"$S"
  step memcheck_sym 90 compute-sanitizer --tool memcheck build/tests/test_gpu_sym_spmm quick
  grep -E "ERROR SUMMARY|checks" "$L/memcheck_sym.log" >>"$S"
  step memcheck_small 120 compute-sanitizer --tool memcheck $CLI bench "$SH/matrices/bayer10.mtx" \
    --kernels sell,sellcs,sell16 --runs 2 --warmup 1
  grep -E "ERROR SUMMARY|^sell" "$L/memcheck_small.log" >>"$S"
  ;;
tables)
  step_build 240 cisparse_cli || { tail -n 30 "$L/build.log" >>"$S"; pack; exit 1; }
  K=sell16,sell,sellcs,hyb,csr-vector,auto,cusparse-csr-alg1,cusparse-sell-alg1
  step bench_ci32k 60 $CLI bench ci:rows=32768,seed=1 --kernels $K --runs 50 --warmup 5
  step bench_laplace 60 $CLI bench laplace3d:size=160 --kernels $K --runs 50 --warmup 5
  step bench_ci524k 120 $CLI bench ci:rows=524288,seed=1 --kernels $K --runs 20 --warmup 3
  step bench_h2o 180 $CLI bench "$H2O" --symmetric --kernels sell16,sellcs,auto,cusparse-csr-alg1,cusparse-sell-alg1 \
    --runs 20 --warmup 3
  for b in ci32k laplace ci524k h2o; do
    grep -E "^(sell16|sell|sellcs|hyb|csr-vector|auto|sym-seg|csr-sym|cusparse-csr-alg1|cusparse-sell-alg1|auto \(.*\)) |^streaming|nonzeros" \
      "$L/bench_$b.log" | cut -c1-120 >>"$S"
  done
  step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json && ci_fields ci_cas14
  step study 400 env DEADLINE=$(($(date +%s) + BUDGET_S - $(elapsed) - 40)) RUNS=20 bash bench/sell_study.sh "$OUT" $CLI "$SH/matrices"
  tar czf "$OUT/study.tgz" -C "$OUT" study && rm -rf "$OUT/study"
  ;;
esac
say "done in $(elapsed) s"
pack
