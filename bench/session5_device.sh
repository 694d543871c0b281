#!/usr/bin/env bash
# session5_device.sh MODE: the device calls of the fifth session of
# 2026-11-23 (issue 10: symmetric storage with the sym-seg kernel), steps in
# priority order under one deadline (BUDGET_S, default 540 s). Output under
# $OUT: summary.txt, logs/.
#   symseg  build the tool and the symmetric tests; test_gpu_sym_spmm;
#           compute-sanitizer memcheck of its quick cases; `cisparse bench
#           --symmetric` (csr-sym, csr-sym-det, csr-sym-win, sym-seg beside
#           sell, sell16 and cuSPARSE CSR/SELL in the same run) on
#           laplace3d 160 and on the H2O 6-31G FCI Hamiltonian; then sym-seg
#           on H2O with blocks of SYM_R rows (default "4096 2048")
#   stored  full build; `cisparse bench --symmetric` on the H2O 6-31G FCI
#           Hamiltonian beside sell16, csr-vector and cuSPARSE CSR/SELL;
#           `cisparse ci --device gpu --symmetric` (sym-seg, built on the
#           GPU) on C2H4 CAS(14,14) (.data/c2h4_cas14.FCIDUMP) and on H2O
#   cas     full build; the GPU tests of symmetric storage (test_sym_seg,
#           test_gpu_sym_spmm, test_ci_gpu_build, the CLI symmetric test);
#           then `cisparse ci --device gpu --symmetric` on CAS(14,14)
#   final   full build; `ctest -L 'gpu|multigpu|cli'`; `cisparse bench` on the H2O
#           FCI Hamiltonian: sell16 with double and with float values
#           (sell16-f32v) beside cuSPARSE CSR and SELL; `ci --values float` on
#           H2O FCI (the energy error); `ci --symmetric` (sym-seg) on CAS(14,14)
#           with the symmetry-forbidden integrals (below 1e-10) dropped
#   sweep   build; `ctest -L cli` (after the bench fix); sell16-f32v on H2O
#           at CISPARSE_SELL_U = 2, 4, 8 and CISPARSE_SELL_P = 2x the default;
#           the Python GPU tests
#   lanes   build the tool; sell16 and sell16-f32v on H2O, and sell16 on ci
#           524k, at CISPARSE_SELL_P = 1, 2, 4, 8 lanes per row (the build's
#           choice, cis_sell16_lanes, is printed by `info --dump`-free runs as
#           the default row), cuSPARSE SELL in each run
#   verify  full build; `ctest -L 'gpu|multigpu'`; the CLI symmetric test
set -u
MODE=${1:-symseg}
OUT=${OUT:-bench/out/session5}
BUDGET_S=${BUDGET_S:-540}
. "$(dirname "$0")/device_steps.sh"
prelude "session5_device.sh $MODE"
CLI=build/cisparse
ci_fields() { grep -o '"nnz[^,]*\|"products[^,]*\|"roots": \[{"energy": *-\?[0-9.]*\|"spmv_seconds[^,]*\|"build_seconds[^,]*\|"kernel[^,]*\|"device_bytes[^,]*\|"values[^,]*' "$L/$1.log" >>"$S"; }
ci_cas14() { # FILE CAP: `ci --symmetric` (sym-seg) on the GPU, its fields and last lines
  step ci_cas14 "$2" $CLI ci "$1" --device gpu --symmetric --json
  ci_fields ci_cas14
  grep -v '^{' "$L/ci_cas14.log" | tail -n 4 | cut -c1-200 >>"$S"
}
rows() { grep -E "^(sell|sell16|csr-sym|csr-sym-det|csr-sym-win|sym-seg|cusparse-csr-alg1|cusparse-sell-alg1) |^streaming|nonzeros|^determinism|^symmetric" "$L/$1.log" | cut -c1-120 >>"$S"; }
case $MODE in
symseg)
  step_build 200 "cisparse_cli test_gpu_sym_spmm test_sym_seg" || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step sym_tests 120 bash -c "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm"
  tail -n 3 "$L/sym_tests.log" >>"$S"
  step memcheck 90 compute-sanitizer --tool memcheck --leak-check full build/tests/test_gpu_sym_spmm quick
  grep -E "ERROR SUMMARY|checks" "$L/memcheck.log" >>"$S"
  K=sell,sell16,cusparse-csr-alg1,cusparse-sell-alg1
  step bench_lap 90 $CLI bench laplace3d:size=160 --symmetric --kernels $K --runs 30 --warmup 5 && rows bench_lap
  step bench_h2o 150 $CLI bench "$H2O" --symmetric --kernels sell16,cusparse-sell-alg1 --runs 20 --warmup 3 && rows bench_h2o
  for r in ${SYM_R:-4096 2048}; do
    step bench_h2o_r$r 100 env CISPARSE_SYM_SEG_R=$r $CLI bench "$H2O" --symmetric --kernels cusparse-sell-alg1 \
      --runs 20 --warmup 3 && rows bench_h2o_r$r
  done
  ;;
stored)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step bench_h2o 150 $CLI bench "$H2O" --symmetric --kernels sell16,csr-vector,cusparse-csr-alg1,cusparse-sell-alg1 \
    --runs 20 --warmup 3 && rows bench_h2o
  step ci_cas14 240 $CLI ci .data/c2h4_cas14.FCIDUMP --device gpu --symmetric --json --verbose
  ci_fields ci_cas14
  grep -v '^{' "$L/ci_cas14.log" | tail -n 8 | cut -c1-200 >>"$S"
  step ci_h2o 120 $CLI ci "$H2O" --device gpu --symmetric --json
  ci_fields ci_h2o
  ;;
cas)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step sym_tests 200 bash -c "build/tests/test_sym_seg && build/tests/test_gpu_sym_spmm && build/tests/test_ci_gpu_build"
  grep -E "checks|FAIL" "$L/sym_tests.log" | head -n 12 >>"$S"
  step cli_sym 120 bash tests/cli/symmetric.sh "$CLI" "$SH"
  tail -n 3 "$L/cli_sym.log" >>"$S"
  ci_cas14 .data/c2h4_cas14.FCIDUMP 300
  ;;
final)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step ctest_gpu 240 bash -c "cd build && ctest -L 'gpu|multigpu|cli' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 40 >>"$S"
  step bench_h2o 150 $CLI bench "$H2O" --kernels sell16,sell16-f32v,cusparse-csr-alg1,cusparse-sell-alg1 --runs 20 \
    --warmup 3 && rows bench_h2o
  grep -E "^sell16-f32v " "$L/bench_h2o.log" >>"$S"
  step ci_h2o_float 120 $CLI ci "$H2O" --device gpu --build cpu --values float --json
  ci_fields ci_h2o_float
  ci_cas14 .data/c2h4_cas14_clean.FCIDUMP 200
  ;;
sweep)
  step_build 240 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step ctest_cli 200 bash -c "cd build && ctest -L cli --output-on-failure"
  grep -E "tests passed|tests failed|FAIL" "$L/ctest_cli.log" | tail -n 10 >>"$S"
  for u in 2 4 8; do
    step f32v_u$u 80 env CISPARSE_SELL_U=$u $CLI bench "$H2O" --kernels sell16,sell16-f32v,cusparse-sell-alg1 --runs 20 \
      --warmup 3 && rows f32v_u$u && grep -E "^sell16-f32v " "$L/f32v_u$u.log" >>"$S"
  done
  mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site 2>/dev/null
  step pytest_gpu 120 env CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 CISPARSE_CLI=$PWD/build/cisparse \
    PYTHONPATH=$PWD/python:/tmp/site python3 -m pytest -p no:cacheprovider -q -rs python/tests
  tail -n 3 "$L/pytest_gpu.log" >>"$S"
  ;;
lanes)
  step_build 200 cisparse_cli || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step h2o_default 80 $CLI bench "$H2O" --kernels sell16,sell16-f32v,cusparse-sell-alg1 --runs 20 --warmup 3 &&
    grep -E "^(sell16|sell16-f32v|cusparse-sell-alg1) " "$L/h2o_default.log" >>"$S"
  for p in 1 2 4 8; do
    step h2o_p$p 80 env CISPARSE_SELL_P=$p $CLI bench "$H2O" --kernels sell16,sell16-f32v,cusparse-sell-alg1 --runs 20 \
      --warmup 3 && grep -E "^(sell16|sell16-f32v|cusparse-sell-alg1) " "$L/h2o_p$p.log" >>"$S"
  done
  for p in default 2 4 8; do
    step ci524k_$p 60 env $([ $p = default ] || echo CISPARSE_SELL_P=$p) $CLI bench ci:rows=524288,seed=1 \
      --kernels sell16,cusparse-sell-alg1 --runs 30 --warmup 5 &&
      grep -E "^(sell16|cusparse-sell-alg1) " "$L/ci524k_$p.log" >>"$S"
  done
  ;;
verify)
  step_build 200 || { tail -n 30 "$L/build.log" >>"$S"; exit 1; }
  step ctest_gpu 200 bash -c "cd build && ctest -L 'gpu|multigpu' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 30 >>"$S"
  step cli_sym 60 bash tests/cli/symmetric.sh "$CLI" "$SH"
  ;;
esac
say "done in $(elapsed) s"
