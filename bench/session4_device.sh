#!/usr/bin/env bash
# session4_device.sh MODE: the device calls of the fourth session of
# 2026-11-23 (issues 10 and 12), steps in priority order under one deadline
# (BUDGET_S, default 540 s). Output under $OUT: summary.txt, logs.tgz.
#   verify  full build; `ctest -L 'gpu|multigpu'`; the Python GPU tests;
#           `cisparse bench` with cuSPARSE in the same run on ci 32k (sell16
#           at CISPARSE_SELL_U = 4 (default), 8 and 2 loads in flight),
#           laplace3d 160, ci 524k and the H2O 6-31G FCI Hamiltonian (sell,
#           sellcs, sell16, auto and cuSPARSE CSR/SELL); the Python layer's
#           overhead on one 32k product (bench/python_overhead.py)
#   check   build; `ctest -L 'gpu|multigpu'`; the Python GPU tests; the
#           Python overhead again; the auto rows of laplace3d 160 and ci 524k
#           beside sell and sellcs (after the auto rule's change)
#   sell16  build; `ctest -L 'gpu|multigpu'`; compute-sanitizer memcheck of
#           sell16 products (a CI matrix; columns far apart: escapes);
#           `cisparse bench` of sell16 v2 beside sell, sellcs, auto and
#           cuSPARSE on ci 32k (and U = 8), laplace3d 160, ci 524k and the
#           H2O FCI Hamiltonian; the Python overhead (new baseline);
#           WITH_PYTEST=1: the Python GPU tests too
#   parts   build (library); where Matrix.spmv's Python time goes
#           (bench/python_spmv_parts.py), the overhead again; sell16 on ci
#           524k at CISPARSE_SELL_U = 2, 8 and CISPARSE_SELL_BPSM = 2, 4
#   final   build; the Python GPU tests; the Python overhead; ci 524k
#           (sell16, sellcs, auto, cuSPARSE) once more
#   casscf  CASSCF(14,14) of C2H4/cc-pVDZ with cisparse.fci, then with
#           PySCF's own solver on the 16 cores, stopped at the deadline
#           (bench/casscf_vs_pyscf.py --deadline-epoch); the library is
#           the one built on the host (carried in .prebuilt: the same CUDA
#           13.0 and sm_90), else built here (the shared target only)
set -u
MODE=${1:-verify}
OUT=${OUT:-bench/out/session4}
BUDGET_S=${BUDGET_S:-540}
. "$(dirname "$0")/device_steps.sh"
prelude "session4_device.sh $MODE"
CLI=build/cisparse
if [ "$MODE" = casscf ] && [ -f .prebuilt/libcisparse.so.0.1 ]; then
  mkdir -p build && cp -a .prebuilt/libcisparse.so* build/
  ldd build/libcisparse.so.0.1 | grep -q "not found" && { say "prebuilt library: missing dependencies"; rm -f build/libcisparse.so*; }
fi
if [ "$MODE" = casscf ] && [ -f build/libcisparse.so.0.1 ]; then
  say "library: prebuilt on the host ($(md5sum build/libcisparse.so.0.1 | cut -c1-12))"
elif [ "$MODE" = casscf ] && step_build 150 cisparse_shared; then
  :
elif [ "$MODE" = casscf ] || ! step_build 150; then
  tail -n 30 "$L/build.log" >>"$S" 2>/dev/null
  MODE=none
fi
mkdir -p /tmp/site && tar xJf .pyscfsite/site.tar.xz -C /tmp/site
PYENV="CISPARSE_LIBRARY=$PWD/build/libcisparse.so.0.1 CISPARSE_CLI=$PWD/build/cisparse PYTHONPATH=$PWD/python:/tmp/site"
ctest_gpu() {
  step ctest_gpu 150 bash -c "cd build && ctest -L 'gpu|multigpu' --output-on-failure"
  grep -E "tests passed|tests failed|Test +#|FAIL" "$L/ctest_gpu.log" | tail -n 30 >>"$S"
}
pytest_gpu() {
  step pytest_gpu 120 env $PYENV python3 -m pytest -p no:cacheprovider -q -rs python/tests
  tail -n 4 "$L/pytest_gpu.log" >>"$S"
}
rows() { grep -E "^(sell|sellcs|sell16|csr-vector|auto|cusparse-csr-alg1|cusparse-sell-alg1) |^streaming|nonzeros" "$L/$1.log" | cut -c1-120 >>"$S"; }
case $MODE in
verify)
  ctest_gpu
  pytest_gpu
  K=sell,sellcs,sell16,auto,cusparse-csr-alg1,cusparse-sell-alg1
  step b32k 40 $CLI bench ci:rows=32768,seed=1 --kernels $K --runs 100 && rows b32k
  for u in 8 2; do
    step b32k_u$u 30 env CISPARSE_SELL_U=$u $CLI bench ci:rows=32768,seed=1 --kernels sellcs,sell16 --runs 100 && rows b32k_u$u
  done
  step pyover 40 env $PYENV python3 bench/python_overhead.py ci:rows=32768,seed=1 sell16
  tail -n 6 "$L/pyover.log" >>"$S"
  step blap 60 $CLI bench laplace3d:size=160 --kernels $K --runs 50 && rows blap
  step b524k 90 $CLI bench ci:rows=524288,seed=1 --kernels $K --runs 30 && rows b524k
  step bh2o 150 $CLI bench "$H2O" --kernels sell,sellcs,sell16,csr-vector,auto,cusparse-csr-alg1,cusparse-sell-alg1 --runs 10 && rows bh2o
  ;;
check)
  ctest_gpu
  pytest_gpu
  for f in sell16 sellcs; do
    step pyover_$f 40 env $PYENV python3 bench/python_overhead.py ci:rows=32768,seed=1 $f
    tail -n 3 "$L/pyover_$f.log" >>"$S"
  done
  step blap 60 $CLI bench laplace3d:size=160 --kernels sell,sellcs,auto,cusparse-sell-alg1 --runs 50 && rows blap
  step b524k 90 $CLI bench ci:rows=524288,seed=1 --kernels sell,sellcs,auto,cusparse-sell-alg1 --runs 30 && rows b524k
  ;;
sell16)
  ctest_gpu
  if [ "${WITH_PYTEST:-0}" = 1 ]; then
    pytest_gpu
  fi
  for m in ci:rows=4096,seed=1 "random:rows=2000,cols=3000000,density=0.000003,seed=3"; do
    step memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 $CLI spmv "$m" --format sell16 \
      --kernel sell16 --device gpu --out /tmp/y.mtx
    grep -E "ERROR SUMMARY|error" "$L/memcheck.log" | tail -n 2 >>"$S"
  done
  K=sell,sellcs,sell16,auto,cusparse-csr-alg1,cusparse-sell-alg1
  step b32k 40 $CLI bench ci:rows=32768,seed=1 --kernels $K --runs 100 && rows b32k
  step b32k_u8 30 env CISPARSE_SELL_U=8 $CLI bench ci:rows=32768,seed=1 --kernels sellcs,sell16 --runs 100 && rows b32k_u8
  step blap 60 $CLI bench laplace3d:size=160 --kernels $K --runs 50 && rows blap
  step b524k 90 $CLI bench ci:rows=524288,seed=1 --kernels $K --runs 30 && rows b524k
  step bh2o 150 $CLI bench "$H2O" --kernels sellcs,sell16,auto,cusparse-csr-alg1,cusparse-sell-alg1 --runs 10 && rows bh2o
  step pyover 40 env $PYENV python3 bench/python_overhead.py ci:rows=32768,seed=1 sell16
  tail -n 3 "$L/pyover.log" >>"$S"
  ;;
parts)
  step parts 60 env $PYENV python3 bench/python_spmv_parts.py ci:rows=32768,seed=1 sell16
  cat "$L/parts.log" >>"$S"
  step pyover 40 env $PYENV python3 bench/python_overhead.py ci:rows=32768,seed=1 sell16
  tail -n 1 "$L/pyover.log" >>"$S"
  for e in CISPARSE_SELL_U=2 CISPARSE_SELL_U=8 CISPARSE_SELL_BPSM=2 CISPARSE_SELL_BPSM=4; do
    step "b524k_$e" 60 env $e $CLI bench ci:rows=524288,seed=1 --kernels sell16,cusparse-sell-alg1 --runs 30 && rows "b524k_$e"
  done
  ;;
final)
  pytest_gpu
  step parts 60 env $PYENV python3 bench/python_spmv_parts.py ci:rows=32768,seed=1 sell16
  tail -n 2 "$L/parts.log" >>"$S"
  for k in 1 2; do
    step pyover$k 40 env $PYENV python3 bench/python_overhead.py ci:rows=32768,seed=1 sell16
    tail -n 1 "$L/pyover$k.log" >>"$S"
  done
  step b524k 90 $CLI bench ci:rows=524288,seed=1 --kernels sellcs,sell16,auto,cusparse-csr-alg1,cusparse-sell-alg1 --runs 30 && rows b524k
  ;;
casscf)
  step casscf14 $((BUDGET_S - $(elapsed) - 10)) env $PYENV OMP_NUM_THREADS=16 python3 -u bench/casscf_vs_pyscf.py 14 \
    --max-cycle 50 --deadline-epoch $((T0 + BUDGET_S - 60)) --json "$OUT/casscf14.json"
  grep -E "^CASSCF|stopped|threads" "$L/casscf14.log" | cut -c1-400 >>"$S"
  ;;
esac
say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
