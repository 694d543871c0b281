#!/usr/bin/env bash
# session6_device.sh MODE: the device calls of the sixth session of
# 2026-11-24 (issue 10: sym-seg with fixed-point windows and a branch-free
# piece), steps in priority order under one deadline (BUDGET_S, default
# 540 s). Output under $OUT: summary.txt, logs/.
#   fx      build the tool and the symmetric tests; test_sym_seg,
#           test_gpu_sym_spmm, test_ci_gpu_build; `cisparse bench --symmetric`
#           on the H2O 6-31G FCI Hamiltonian (the symmetric kernels beside
#           cuSPARSE SELL in the same run); memcheck of the quick symmetric
#           cases; `ci --device gpu --symmetric` on C2H4 CAS(14,14)
#           (.data/c2h4_cas14_clean.FCIDUMP); Nsight Compute of one sym-seg
#           product on H2O; a second build with pieces of 256 entries
#           (CIS_SYM_SEG_PIECE, 8 per lane): its tests and the H2O bench
#   verify  full build; `ctest -L 'gpu|multigpu|cli'`; H2O bench and CAS(14,14) as in fx
set -u
MODE=${1:-fx}
OUT=${OUT:-bench/out/session6}
BUDGET_S=${BUDGET_S:-540}
. "$(dirname "$0")/device_steps.sh"
prelude "session6_device.sh $MODE"
CLI=build/cisparse
ci_fields() { grep -o '"nnz[^,]*\|"products[^,]*\|"roots": \[{"energy": *-\?[0-9.]*\|"spmv_seconds[^,]*\|"build_seconds[^,]*\|"kernel[^,]*\|"device_bytes[^,]*\|"values[^,]*' "$L/$1.log" >>"$S"; }
rows() { grep -E "^(sell16|csr-sym|csr-sym-det|csr-sym-win|sym-seg|cusparse-csr-alg1|cusparse-sell-alg1) |^streaming|nonzeros|^determinism|^symmetric" "$L/$1.log" | cut -c1-120 >>"$S"; }
bench_h2o() { # NAME CAP [env...]: the symmetric kernels on H2O beside cuSPARSE SELL
  local name=$1 cap=$2
  shift 2
  step "$name" "$cap" env "$@" $CLI bench "$H2O" --symmetric --kernels cusparse-sell-alg1 --runs 20 --warmup 3 &&
    rows "$name"
}
case $MODE in
fx)
  step_build 200 "cisparse_cli test_gpu_sym_spmm test_sym_seg test_ci_gpu_build" ||
    { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step sym_tests 150 bash -c "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm && build/tests/test_ci_gpu_build"
  grep -E "checks|FAIL" "$L/sym_tests.log" | head -n 12 >>"$S"
  bench_h2o bench_h2o 120
  step memcheck 90 compute-sanitizer --tool memcheck build/tests/test_gpu_sym_spmm quick
  grep -E "ERROR SUMMARY|checks" "$L/memcheck.log" >>"$S"
  step build256 200 bash -c "cmake -S . -B build256 -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 \
    -DCISPARSE_SHARED_DIR=$SH -DCMAKE_C_FLAGS=-DCIS_SYM_SEG_PIECE=256 -DCMAKE_CUDA_FLAGS=-DCIS_SYM_SEG_PIECE=256 \
    && cmake --build build256 -j16 --target cisparse_cli test_gpu_sym_spmm test_sym_seg"
  step sym_tests256 150 bash -c "build256/tests/test_sym_seg && build256/tests/test_gpu_sym_spmm"
  grep -E "checks|FAIL" "$L/sym_tests256.log" | head -n 6 >>"$S"
  CLI=build256/cisparse bench_h2o bench_h2o_p256 120
  step ncu 150 ncu -k regex:sym_seg_tk -s 2 -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section InstructionStats --section MemoryWorkloadAnalysis $CLI ci "$H2O" --device gpu --symmetric
  grep -E "Throughput|Duration|Executed Ipc|Issued Warp|Instructions|Stall|Bank|Occupancy" "$L/ncu.log" | head -n 30 >>"$S"
  step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json
  ci_fields ci_cas14
  ;;
verify)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step ctest_gpu 300 bash -c "cd build && ctest -L 'gpu|multigpu|cli' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 40 >>"$S"
  bench_h2o bench_h2o 120
  step ci_cas14 120 $CLI ci .data/c2h4_cas14_clean.FCIDUMP --device gpu --symmetric --json
  ci_fields ci_cas14
  ;;
esac
say "done in $(elapsed) s"
