#!/usr/bin/env bash
# solvers_device.sh: the solver layer's GPU evidence in one device call.
#   1. build (CUDA, sm_90) and `ctest -L gpu`;
#   2. the paper's sweep (Aliaga et al. 2015 §4, Figure 4) on laplace3d:size=64:
#      3 solvers x {none, jacobi} x 6 versions x {spin, blocking}, with PNGs
#      when matplotlib is there;
#   3. bench/solvers_peer.py: CuPy's cg beside cisparse on 64^3, 128^3, 160^3;
#   4. 160^3 double PCG in every version (median of 3 solves each).
# Every step has a time cap and the whole run a deadline (BUDGET_S, default
# 470 s after the start): a step that would pass it is skipped and says so.
# Output under $OUT (at most 8 files come back, 2 folders deep):
#   summary.txt          every step's exit status, time and the key tables
#   sweep64.json, sweep64_fig4.png, sweep64_ms.png, peer.json
#   logs.tgz             every step's full log and the 160^3 JSONs
# Usage on the device: OUT=/some/dir [CMAKE_FLAGS=-DCISPARSE_SHARED_DIR=...] bash bench/solvers_device.sh
set -u
OUT=${OUT:-bench/out/solvers}
BUDGET_S=${BUDGET_S:-470}
JOBS=${JOBS:-16}
STEP_QUIET=pcg160 # the 160^3 solves print their own lines
. "$(dirname "$0")/device_steps.sh"

say "solvers_device.sh on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC') (the device copy's git metadata is not the session's: record the commit beside the results)"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >>"$S" 2>&1 ||
  say "(nvidia-smi not found)"

# 1. build and GPU tests
step build 300 bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 ${CMAKE_FLAGS:-} && cmake --build build -j$JOBS"
build_rc=$?
if [ $build_rc -ne 0 ]; then
  say "build failed: last lines"
  tail -n 30 "$L/build.log" >>"$S"
else
  step ctest_gpu 120 bash -c "cd build && ctest -L gpu --output-on-failure"
  grep -E "tests passed|tests failed|Failed|SKIPPED|\*\*\*" "$L/ctest_gpu.log" | tail -n 15 >>"$S"

  # 2. the Figure-4 sweep
  step sweep64 150 build/cisparse solve laplace3d:size=64 --device gpu --format ell --sweep --repeat 3 \
    --energy-seconds 0.3 --json "$OUT/sweep64.json" --plot "$OUT/sweep64"
  sed -n '/^solver /,/^(energy/p' "$L/sweep64.log" >>"$S"

  # 3. CuPy peer
  step peer 200 python3 bench/solvers_peer.py --bin build/cisparse --sizes 64,128,160 \
    --json "$OUT/peer.json"
  sed -n '/^ grid/,$p' "$L/peer.log" >>"$S"

  # 4. 160^3 double PCG in every version
  say "-- 160^3 double PCG (laplace3d:size=160, jacobi, tol 1e-8, median of 3 solves)"
  for v in cublasL cublasN cuda merge merge_10 graph; do
    step "pcg160_$v" 45 build/cisparse solve laplace3d:size=160 --device gpu --format ell --method cg --precond jacobi \
      --version "$v" --repeat 3 --json "$L/pcg160_$v.json"
    grep -E "^(iterations|true relative|time|energy|power|launches)" "$L/pcg160_$v.log" | sed "s/^/   $v: /" >>"$S"
    tail -n 1 "$L/pcg160_$v.log" | grep "^cisparse:" >>"$S"
  done
  # 5. 160^3 double PCG on the formats whose fused SpMV moves the bytes fastest
  say "-- 160^3 double PCG by format (merge_10, graph, cuda; median of 3 solves)"
  for fk in "csr --kernel csr-scalar" "hyb" "sell"; do
    for v in cuda merge_10 graph; do
      tag=$(echo "$fk" | awk '{print $NF}')
      step "pcg160_${tag}_$v" 45 build/cisparse solve laplace3d:size=160 --device gpu --format $fk --method cg \
        --precond jacobi --version "$v" --repeat 3 --energy-seconds 0
      grep -E "^time" "$L/pcg160_${tag}_$v.log" | sed "s/^/   $tag $v: /" >>"$S"
      tail -n 1 "$L/pcg160_${tag}_$v.log" | grep "^cisparse:" >>"$S"
    done
  done
fi

say "total $(elapsed) s"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
